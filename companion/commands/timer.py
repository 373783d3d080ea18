"""`companion timer run SECONDS`: one countdown on the attached timer.

Uses the Pico USB timer (found by USB VID:PID, or --port) and/or the Pi's
GPIO buzzer and LEDs from the config file, prints what happens, and returns
at expiry. With --simulate and no Pico attached, the simulated Pico (the
firmware's own code on a pseudo-terminal) stands in for it.
"""
from __future__ import annotations

import argparse
import json
import sys
import threading
import time

from companion.errors import InputError

MAX_SECONDS = 99 * 60 + 59  # what four digits can show


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "timer", help="the physical countdown timer and buzzer",
        description="The physical countdown timer: a Pico USB display and/or the Pi's GPIO buzzer.")
    parser.set_defaults(group_parser=parser)
    sub = parser.add_subparsers(title="subcommands", metavar="SUBCOMMAND")
    run = sub.add_parser(
        "run", help="run one countdown on the attached timer",
        description=(
            "Run one countdown on the attached timer: the Pico USB timer (found by USB "
            "2E8A:0005 unless --port names it) and the GPIO buzzer/LEDs of the config file "
            "on a Raspberry Pi. Prints the timer's events and returns at expiry. "
            "With --simulate, when no Pico is attached the simulated one is used: the "
            "firmware's own code running on a pseudo-terminal."),
        epilog=("exit status: 0 at expiry, 1 if cancelled by holding the timer button, "
                "2 for bad input or no timer attached, 130 on Ctrl-C"))
    run.add_argument("seconds", metavar="SECONDS",
                     help="countdown length in seconds, e.g. 60 or 2.5 (at most 5999)")
    run.add_argument("--port", default="auto", metavar="PORT|auto|none",
                     help="serial device of the Pico; auto (default) finds it by USB VID:PID; "
                          "none uses GPIO only")
    run.add_argument("--json", action="store_true",
                     help="print events as JSON lines: {\"t\": seconds, \"source\": ..., \"event\": ...}")
    run.add_argument("--simulate", action="store_true",
                     help="use the simulator when no timer device is attached")
    run.add_argument("--config", metavar="FILE",
                     help="config file whose [hardware] table gives GPIO pins and buzzer type")
    run.add_argument("--gpio", choices=("auto", "on", "off"),
                     help="use the Pi's GPIO: auto (when present), on, off (overrides the config)")
    run.add_argument("--connect-timeout", type=float, default=3.0, metavar="SECONDS",
                     help="how long to wait for the Pico to answer before counting anyway (3)")
    run.set_defaults(handler=run_handler)


def _parse_seconds(text: str) -> int:
    try:
        seconds = float(text)
    except ValueError:
        raise InputError(f"SECONDS: {text!r} is not a number of seconds") from None
    if not 0 < seconds <= MAX_SECONDS or seconds != seconds:
        raise InputError(f"SECONDS: {text} is not between 0 and {MAX_SECONDS}")
    return int(round(seconds * 1000))


class _Printer:
    """Prints events from several threads, one whole line at a time."""

    def __init__(self, as_json: bool, t0: float) -> None:
        self.as_json = as_json
        self.t0 = t0
        self._lock = threading.Lock()

    def __call__(self, source: str, event: str, text: str = "", **fields) -> None:
        t = round(time.monotonic() - self.t0, 3)
        with self._lock:
            if self.as_json:
                print(json.dumps({"t": t, "source": source, "event": event, **fields}), flush=True)
            else:
                print(f"{t:8.3f}  {source:<9} {event}{(' ' + text) if text else ''}", flush=True)


def run_handler(args: argparse.Namespace) -> int:
    from firmware.clockface import clock_text
    from hardware.config import load_config_file, parse_hardware_config
    from hardware.gpio import build_gpio, choose_pin_factory, is_mock
    from hardware.runner import run_countdown
    from hardware.serial_link import PicoTimer, find_pico_port, parse_vid_pid

    duration_ms = _parse_seconds(args.seconds)
    config = load_config_file(args.config) if args.config else {}
    hw = parse_hardware_config(config)
    printer = _Printer(args.json, time.monotonic())
    opened: list = []  # things to close, in order
    simulator = None
    pico = None
    gpio_timer = None
    notes: list[str] = []
    try:
        # The Pico USB timer.
        port = args.port
        if port == "auto":
            port = find_pico_port(parse_vid_pid(hw.usb_id))
            if port is None and args.simulate:
                from hardware.simulator import Simulator

                def on_output(event: dict) -> None:
                    what = "display" if "display" in event else "buzzer"
                    printer("simulator", what, event[what] or "(blank)", **{what: event[what]})

                simulator = Simulator(on_output)
                simulator.start()
                port = simulator.port
                notes.append(f"no Pico attached: using the simulator on {port}")
            elif port is None:
                notes.append(f"no Pico timer on USB ({hw.usb_id})")
        elif port == "none":
            port = None
        else:
            import os

            if not os.path.exists(port):
                raise InputError(f"--port {port}: no such device")

        def on_event(event: dict) -> None:
            kind = event["event"]
            if event["source"] == "link":
                printer("link", kind, event.get("detail", ""), detail=event.get("detail", ""))
            elif kind == "tick":
                printer("device", "tick", clock_text(event["remaining_ms"]),
                        status=event["status"], remaining_ms=event["remaining_ms"])
            elif kind == "button":
                printer("device", "button", f"{event['button']} {event['action']}",
                        button=event["button"], action=event["action"])
            else:
                printer("device", kind)

        stop = threading.Event()

        def on_button(source: str):
            def pressed(name: str, action: str) -> None:
                if source == "gpio":  # the Pico's own presses arrive as device events
                    printer("gpio", "button", f"{name} {action}", button=name, action=action)
                if name == "timer" and action == "hold":
                    stop.set()  # hold to cancel, as at the table
            return pressed

        connected = False
        if port is not None:
            sim = simulator
            pico = PicoTimer(port, find_port=(lambda: sim.port) if sim else None,
                             on_event=on_event, on_button=on_button("pico"),
                             brightness=hw.display_brightness,
                             heartbeat_s=hw.heartbeat_seconds,
                             answer_timeout_s=hw.answer_timeout_seconds)
            opened.insert(0, pico)
            connect_until = time.monotonic() + max(0.0, args.connect_timeout)
            while time.monotonic() < connect_until:
                if pico.status()["state"] == "connected":
                    connected = True
                    break
                time.sleep(0.02)
            if not connected:
                notes.append(f"the timer on {port} is not answering yet "
                             f"({pico.status()['detail']}); counting anyway")

        # The Pi's GPIO.
        gpio_mode = args.gpio or hw.gpio
        if gpio_mode != "off":
            factory, note = choose_pin_factory(hw.pin_factory)
            if is_mock(factory):
                factory.close()
                if gpio_mode == "on":
                    raise InputError(f"--gpio on: {note}")
                notes.append(f"GPIO: {note}")
            else:
                gpio_timer, buttons = build_gpio(hw, factory, on_button("gpio"), detail=note)
                opened[0:0] = buttons + [gpio_timer]
                opened.append(factory)
                notes.append(f"GPIO: {note}")

        if pico is None and gpio_timer is None:
            why = f": {'; '.join(notes)}" if notes else ""
            raise InputError(f"no timer attached{why} (use --simulate to run the simulated timer)")
        for note in notes:
            printer("host", "note", note, detail=note)

        outputs = [o for o in (pico, gpio_timer) if o is not None]
        try:
            deadline = run_countdown(outputs, duration_ms, stop=stop, on_start=lambda _d: printer(
                "host", "start", f"{duration_ms / 1000:g} s on {', '.join(o.name for o in outputs)}",
                duration_ms=duration_ms, outputs=[o.name for o in outputs]))
        except KeyboardInterrupt:
            printer("host", "cancelled", "Ctrl-C")
            raise
        if deadline is None:
            printer("host", "cancelled", "the timer button was held")
            return 1
        printer("host", "expired")
        if pico is not None and pico.status()["state"] == "connected":
            # Give the device's own "expired" a moment to arrive and be shown.
            time.sleep(0.3)
        if gpio_timer is not None:
            from firmware.patterns import duration_ms as pattern_ms

            time.sleep(pattern_ms("alarm") / 1000)  # let the GPIO alarm finish
        return 0
    finally:
        for thing in opened:
            try:
                thing.close()
            except Exception as exc:  # closing must not hide the real outcome
                print(f"companion: while closing: {exc}", file=sys.stderr)
        if simulator is not None:
            simulator.stop()
