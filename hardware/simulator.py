"""The Pico timer simulated: the firmware's own code on a pseudo-terminal.

``Simulator`` builds the firmware with ``firmware.main.build`` on a simulated
``machine`` module (``hardware.sim_machine``) and runs its loop on a thread,
as the Pico's CPU would. The firmware's link is the master side of a pty; the
host opens the slave path (``sim.port``) with pyserial exactly as it opens
``/dev/ttyACM0``. What a person would see or hear arrives as
``{"t": seconds, "display": "0:59"}`` and ``{"t": seconds, "buzzer": "on"}``.

Faults are real where they can be: ``unplug`` closes the pty (the host's
reads fail), ``replug`` opens a new one (a new path, like a new USB
enumeration), ``reboot`` restarts the firmware from scratch on the same port,
``freeze`` stops the firmware answering, and ``inject_to_host`` /
``inject_to_device`` put raw bytes on the wire. Every file descriptor is
owned by the simulator's thread; the control methods hand it their work and
wait for it, so they are safe to call from any thread.
"""
from __future__ import annotations

import collections
import logging
import os
import queue
import select
import threading
import time
import traceback
import tty
from typing import Callable

from firmware import main as firmware_main
from hardware.sim_machine import SimBoard

log = logging.getLogger(__name__)

TICKS_PERIOD = 1 << 30  # MicroPython's ticks_ms wraps here


class SimClock:
    """MicroPython's ``ticks_ms``/``ticks_diff``/``ticks_add`` over a host clock.

    ``start_ticks`` picks the first reading, so a test can start just before
    the 2**30 wrap and prove the firmware's arithmetic survives it.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, start_ticks: int = 0):
        self._clock = clock
        self._base = clock()
        self._start = start_ticks

    def ticks_ms(self) -> int:
        return (self._start + int((self._clock() - self._base) * 1000)) & (TICKS_PERIOD - 1)

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        half = TICKS_PERIOD // 2
        return ((a - b + half) & (TICKS_PERIOD - 1)) - half

    @staticmethod
    def ticks_add(a: int, delta: int) -> int:
        return (a + delta) & (TICKS_PERIOD - 1)


class _PtyLink:
    """The firmware's side of the USB serial link: the pty master."""

    def __init__(self, sim: "Simulator"):
        self._sim = sim

    def read(self) -> bytes:
        fd = self._sim._master
        if fd is None:
            return b""
        try:
            return os.read(fd, 4096)
        except (BlockingIOError, OSError):
            return b""

    def write(self, data: bytes) -> None:
        fd = self._sim._master
        if fd is None:
            return  # unplugged but powered: the bytes go nowhere
        try:
            os.write(fd, data)
        except (BlockingIOError, OSError):
            # Nobody reading and the buffer full: USB CDC drops it too.
            self._sim.dropped_writes += 1

    def wait(self, ms: int) -> None:  # the simulator's loop does the waiting
        time.sleep(ms / 1000)


class Simulator:
    """A simulated Pico timer on a pseudo-terminal. Use as a context manager."""

    def __init__(self, on_output: Callable[[dict], None] | None = None, *,
                 clock: Callable[[], float] = time.monotonic, start_ticks: int = 0,
                 wiring: dict | None = None, history: int = 2000):
        self._clock = clock
        self.t0 = clock()
        self._listeners: list[Callable[[dict], None]] = [on_output] if on_output else []
        self._start_ticks = start_ticks
        self.wiring = dict(wiring or firmware_main.PINS)
        self.outputs: collections.deque[dict] = collections.deque(maxlen=history)
        self.dropped_writes = 0
        self.boots = 0
        self.port: str | None = None
        self.powered = False
        self.frozen = False
        self._master: int | None = None
        self._slave: int | None = None
        self._board: SimBoard | None = None
        self._app = None
        self._link = _PtyLink(self)
        self._requests: queue.Queue = queue.Queue()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._view_lock = threading.Lock()

    # -- life cycle -----------------------------------------------------------

    def start(self) -> "Simulator":
        """Open the pty, power the board on and start the firmware's loop."""
        self._open_pty()
        self._power_on()
        self._thread = threading.Thread(target=self._run, name="pico-sim", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is None:
            return
        self._call(self._shutdown)
        self._thread.join(timeout=5)
        self._thread = None
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> "Simulator":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def subscribe(self, listener: Callable[[dict], None]) -> None:
        """Call ``listener`` with every display and buzzer change (on the sim thread)."""
        self._listeners.append(listener)

    def now(self) -> float:
        """Seconds since the simulator started (the "t" of its outputs)."""
        return self._clock() - self.t0

    def view(self) -> dict:
        """What the simulated display and buzzer show right now."""
        with self._view_lock:
            board = self._board
            return {
                "t": round(self.now(), 3),
                "display": board.display if board else "",
                "buzzer": board.buzzer if board else "off",
                "brightness": board.chip.brightness if board else 0,
                "powered": self.powered,
                "frozen": self.frozen,
                "port": self.port,
                "boots": self.boots,
            }

    # -- faults and the outside world -------------------------------------------

    def unplug(self, keep_power: bool = False) -> None:
        """Pull the USB cable: the pty closes. A USB-powered Pico also goes dark;
        with ``keep_power`` it keeps counting on its own (a separate supply)."""
        def work():
            self._close_pty()
            if not keep_power:
                self._power_off()
        self._call(work)

    def replug(self) -> None:
        """Plug back in: a new pty (a new path); boots the firmware if it had no power."""
        def work():
            if self._master is None:
                self._open_pty()
            if not self.powered:
                self._power_on()
        self._call(work)

    def reboot(self) -> None:
        """The firmware restarts from scratch (watchdog, brown-out) on the same port."""
        def work():
            self._power_off()
            self._power_on()
        self._call(work)

    def freeze(self) -> None:
        """The firmware stops running: no answers, display and buzzer stuck as they are."""
        self._call(lambda: setattr(self, "frozen", True))

    def thaw(self) -> None:
        self._call(lambda: setattr(self, "frozen", False))

    def press(self, hold_s: float = 0.1) -> None:
        """Press the Pico's button for ``hold_s`` seconds (returns at once)."""
        board = self._board
        if board is None:
            return
        board.press()
        timer = threading.Timer(hold_s, board.release)
        timer.daemon = True
        timer.start()

    def inject_to_host(self, data: bytes) -> None:
        """Raw bytes from the device to the host (garbage, half lines)."""
        self._call(lambda: self._master is not None and os.write(self._master, data))

    def inject_to_device(self, data: bytes) -> None:
        """Raw bytes from the host's side to the firmware, as if on the wire."""
        self._call(lambda: self._slave is not None and os.write(self._slave, data))

    # -- the simulator thread ---------------------------------------------------

    def _call(self, fn: Callable[[], object], timeout: float = 5.0) -> None:
        """Run ``fn`` on the simulator's thread and wait for it."""
        if self._thread is None or threading.current_thread() is self._thread:
            fn()
            return
        done = threading.Event()
        box: list[BaseException] = []

        def wrapped():
            try:
                fn()
            except BaseException as exc:  # re-raised in the caller
                box.append(exc)
            finally:
                done.set()

        self._requests.put(wrapped)
        os.write(self._wake_w, b"x")
        if not done.wait(timeout):
            raise TimeoutError("the simulator thread did not answer")
        if box:
            raise box[0]

    def _run(self) -> None:
        while not self._stopping:
            while True:
                try:
                    self._requests.get_nowait()()
                except queue.Empty:
                    break
            if self._stopping:
                break
            wait_ms = 50
            active = self._app is not None and self.powered and not self.frozen
            if active:
                try:
                    wait_ms = self._app.step()
                except SystemExit:  # machine.reset()
                    self._power_off()
                    self._power_on()
                    continue
                except Exception:
                    self._crash()
                    continue
                if not self._app.running:
                    self._to_repl()
                    active = False
            fds = [self._wake_r]
            if active and self._master is not None:
                fds.append(self._master)
            ready, _, _ = select.select(fds, [], [], wait_ms / 1000)
            if self._wake_r in ready:
                try:
                    while os.read(self._wake_r, 64):
                        pass
                except (BlockingIOError, OSError):
                    pass

    def _shutdown(self) -> None:
        self._stopping = True
        self._close_pty()
        self.powered = False

    def _crash(self) -> None:
        # What main.py does: print the traceback, then reset.
        text = traceback.format_exc().replace("\n", "\r\n")
        log.error("simulated firmware crashed:\n%s", text)
        self._link.write(text.encode("ascii", "replace"))
        self._power_off()
        self._power_on()

    def _to_repl(self) -> None:
        # The host sent "repl": the loop ended and MicroPython's prompt appears.
        self._link.write(b"MicroPython (simulated) on a Raspberry Pi Pico\r\n>>> ")
        self._app = None

    def _open_pty(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: bytes pass as they are
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.port = os.ttyname(slave)

    def _close_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None
        self.port = None

    def _power_on(self) -> None:
        self.boots += 1
        board = SimBoard(self.wiring, self._output)
        clock = SimClock(self._clock, self._start_ticks)
        boot_id = "%04x%02x" % (id(self) & 0xFFFF, self.boots & 0xFF)
        with self._view_lock:
            self._board = board
        self._app = firmware_main.build(board.machine(), self._link, clock, boot_id=boot_id,
                                        pins=self.wiring)
        self.powered = True
        self.frozen = False
        self._app.boot()

    def _power_off(self) -> None:
        if self._board is not None:
            self._board.power_off()
        self._app = None
        self.powered = False

    def _output(self, what: str, value: str) -> None:
        event = {"t": round(self.now(), 3), what: value}
        self.outputs.append(event)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("simulator listener failed")
