"""`companion firmware simulate` and `companion firmware flash`.

``simulate`` runs the Pico firmware's own code under CPython with a simulated
``machine`` module on a pseudo-terminal. Its first line is ``PTY <path>``
(open that path with pyserial, or `companion timer run --port <path>`); then
one JSON line per thing a person would see or hear:
``{"t": 1.503, "display": "0:59"}`` or ``{"t": 60.0, "buzzer": "on"}``. Lines
typed on its stdin act on the simulated Pico: press, hold, reboot, unplug,
replug, freeze, thaw, quit. A replug prints a new ``PTY <path>`` line.

``flash`` copies the firmware to a Pico that runs MicroPython, with mpremote.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from companion.errors import InputError

# Copied to the Pico's root; main.py last so a half-finished copy never boots.
FIRMWARE_FILES = ("protocol.py", "patterns.py", "clockface.py", "tm1637.py", "buzzer.py",
                  "button.py", "countdown.py", "app.py", "main.py")
INSTALL_HINT = ("mpremote is not installed: install it with `pipx install mpremote` "
                "(or `python3 -m pip install --user mpremote`) and run this again; "
                "docs/hardware/flashing.md lists the commands it runs")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "firmware", help="the Pico timer's MicroPython firmware: simulate or flash it",
        description="The Pico USB timer's MicroPython firmware (firmware/ in this project).")
    parser.set_defaults(group_parser=parser)
    sub = parser.add_subparsers(title="subcommands", metavar="SUBCOMMAND")

    sim = sub.add_parser(
        "simulate", help="run the firmware's own code on a pseudo-terminal",
        description=(
            "Run the Pico firmware's own code under CPython with a simulated machine module "
            "on a pseudo-terminal. Prints `PTY <path>`, then one JSON line per display or "
            "buzzer change: {\"t\": seconds, \"display\": \"0:59\"} or {\"t\": seconds, "
            "\"buzzer\": \"on\"}. Stdin lines act on the simulated Pico: press, hold, "
            "reboot, unplug, replug, freeze, thaw, quit."),
        epilog="stops on quit, end of --exit-after, Ctrl-C or SIGTERM (exit status 0)")
    sim.add_argument("--exit-after", type=float, metavar="SECONDS",
                     help="stop after this many seconds")
    sim.set_defaults(handler=simulate_handler)

    flash = sub.add_parser(
        "flash", help="install the firmware on a Pico with mpremote",
        description=(
            "Copy the firmware to a Raspberry Pi Pico that runs MicroPython, using mpremote, "
            "then reset it. If the timer firmware is already running it is asked to step "
            "aside first (it ignores Ctrl-C by design)."),
        epilog=("exit status 2 with one line if mpremote is missing or no Pico is found. "
                "Install mpremote with `pipx install mpremote`."))
    flash.add_argument("--port", default="auto", metavar="PORT|auto",
                       help="serial device of the Pico; auto (default) finds USB 2E8A:0005")
    flash.add_argument("--dry-run", action="store_true",
                       help="print the mpremote commands instead of running them")
    flash.set_defaults(handler=flash_handler)


# -- simulate -------------------------------------------------------------------

def simulate_handler(args: argparse.Namespace) -> int:
    from hardware.simulator import Simulator

    if args.exit_after is not None and args.exit_after <= 0:
        raise InputError("--exit-after: give a positive number of seconds")
    lock = threading.Lock()
    done = threading.Event()
    held: list[str] | None = []  # the boot's first display, until PTY is printed

    def put(line: str) -> None:
        try:
            print(line, flush=True)
        except (BrokenPipeError, ValueError):
            done.set()  # whoever read us has gone: stop

    def emit(line: str) -> None:
        with lock:
            if held is not None:
                held.append(line)
                return
            put(line)

    sim = Simulator(lambda event: emit(json.dumps(event)))
    previous = signal.signal(signal.SIGTERM, lambda *_: done.set())
    sim.start()
    try:
        # The held lines go out under the lock, before any later one: a client that reads PTY may
        # start the countdown at once, and its first display must not overtake the boot's.
        with lock:
            for line in [f"PTY {sim.port}", *held]:
                put(line)
            held = None
        actions = {
            "press": lambda: sim.press(0.12),
            "hold": lambda: sim.press(2.0),
            "reboot": sim.reboot,
            "unplug": sim.unplug,
            "replug": lambda: (sim.replug(), emit(f"PTY {sim.port}")),
            "freeze": sim.freeze,
            "thaw": sim.thaw,
            "quit": done.set,
        }

        def read_stdin() -> None:
            for line in sys.stdin:
                word = line.strip().lower()
                if not word:
                    continue
                action = actions.get(word)
                if action is None:
                    print(f"companion: unknown simulator command {word!r} "
                          f"(known: {', '.join(actions)})", file=sys.stderr, flush=True)
                    continue
                action()
                if done.is_set():
                    return

        if sys.stdin is not None and not sys.stdin.closed:
            threading.Thread(target=read_stdin, name="sim-stdin", daemon=True).start()
        done.wait(args.exit_after)
    except KeyboardInterrupt:
        pass  # Ctrl-C is how a person stops the simulator: not an error
    finally:
        signal.signal(signal.SIGTERM, previous)
        sim.stop()
    return 0


# -- flash ----------------------------------------------------------------------

def _mpremote() -> list[str] | None:
    import importlib.util
    import shutil

    exe = shutil.which("mpremote")
    if exe:
        return [exe]
    if importlib.util.find_spec("mpremote") is not None:
        return [sys.executable, "-m", "mpremote"]
    return None


def flash_commands(mpremote: list[str], port: str) -> list[list[str]]:
    """The mpremote command lines that install the firmware on the Pico at ``port``."""
    from firmware import protocol  # locate the files wherever the package is installed

    firmware_dir = Path(protocol.__file__).resolve().parent
    files = [str(firmware_dir / name) for name in FIRMWARE_FILES]
    return [mpremote + ["connect", port, "fs", "cp", *files, ":", "+", "reset"]]


def stop_running_firmware(port: str, timeout: float = 1.5) -> bool:
    """Ask the timer firmware on ``port`` to leave its loop for the REPL.

    The firmware disables Ctrl-C, so mpremote alone cannot interrupt it.
    Returns True if it acknowledged. Raises InputError if the port cannot be opened.
    """
    import serial

    from firmware import protocol

    try:
        ser = serial.Serial(port, 115200, timeout=0.1)
    except (serial.SerialException, OSError) as exc:
        raise InputError(f"{port}: cannot open: {exc}") from None
    try:
        reader = protocol.LineReader(protocol.EVENTS)
        ser.write(protocol.encode(1, "repl", {}, protocol.COMMANDS))
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for item in reader.feed(ser.read(256)):
                if isinstance(item, protocol.Message) and item.verb == "ack" and item.args["ref"] == 1:
                    return True
        return False
    finally:
        ser.close()


def flash_handler(args: argparse.Namespace) -> int:
    mpremote = _mpremote()
    if mpremote is None and not args.dry_run:
        raise InputError(INSTALL_HINT)
    port = args.port
    if port == "auto":
        from hardware.serial_link import VID_PID, find_pico_port

        port = find_pico_port(VID_PID)
        if port is None:
            if not args.dry_run:
                raise InputError("no Pico on USB (2E8A:0005): plug it in, or give --port")
            port = "/dev/ttyACM0"
    elif not args.dry_run and not os.path.exists(port):
        raise InputError(f"--port {port}: no such device")
    commands = flash_commands(mpremote or ["mpremote"], port)
    if args.dry_run:
        for command in commands:
            print(" ".join(command))
        return 0
    if stop_running_firmware(port):
        print(f"companion: the timer firmware on {port} stepped aside for flashing", flush=True)
        time.sleep(0.3)
    for command in commands:
        print("+ " + " ".join(command), flush=True)
        status = subprocess.call(command)
        if status != 0:
            raise InputError(f"mpremote failed (exit status {status}); is {port} a Pico "
                             "running MicroPython? Hold the button while plugging it in "
                             "to start it in safe mode, then try again")
    print(f"companion: firmware installed on {port}; the timer restarts now", flush=True)
    return 0
