"""A simulated Pico board: a ``machine`` module whose pins drive simulated parts.

``SimBoard.machine()`` returns a module object with MicroPython's ``Pin``,
``PWM``, ``reset``, ``freq`` and ``unique_id``, bound to this board, so the
firmware's own ``main.build`` runs unchanged under CPython. The parts behave
like the circuit rather than recording calls:

- a TM1637 chip decodes the start/stop conditions and bits the driver
  bit-bangs on CLK and DIO, keeps its display RAM and control register, and
  reports the text a person would read;
- a buzzer on a PWM pin sounds while its duty cycle is non-zero;
- a push button pulls its input low while pressed.

Observers get ``("display", text)`` and ``("buzzer", "on"|"off")`` changes.
"""
from __future__ import annotations

import types
from typing import Callable

from firmware.tm1637 import COLON, SEGMENTS

# Reading segments back: digits win where a letter looks the same ("5"/"S").
_GLYPHS: dict[int, str] = {}
for _ch, _seg in SEGMENTS.items():
    _GLYPHS.setdefault(_seg, _ch)


def decode_segments(digits: bytes | bytearray) -> str:
    """The text four TM1637 digits show, as a person reads it ("0:59", "donE", "")."""
    chars = [_GLYPHS.get(d & ~COLON & 0xFF, "?") for d in digits[:4]]
    colon = len(digits) > 1 and bool(digits[1] & COLON)
    text = "".join(chars[:2]) + (":" if colon else "") + "".join(chars[2:4])
    return text.strip()


class TM1637Chip:
    """The display driver chip, fed one pin level change at a time."""

    def __init__(self, on_change: Callable[["TM1637Chip"], None]):
        self._on_change = on_change
        self.clk = 1
        self.dio = 1
        self._frame: list[int] | None = None
        self._bits = 0
        self._nbits = 0
        self.ram = bytearray(6)
        self.display_on = False
        self.brightness = 0
        self._auto_increment = True
        self.frames = 0  # complete commands received, for tests

    def text(self) -> str:
        return decode_segments(self.ram[:4]) if self.display_on else ""

    def pins(self, clk: int, dio: int) -> None:
        old_clk, old_dio = self.clk, self.dio
        self.clk, self.dio = clk, dio
        if old_clk and clk and old_dio != dio:
            if not dio:  # DIO falls while CLK is high: start
                self._frame, self._bits, self._nbits = [], 0, 0
            elif self._frame is not None:  # DIO rises while CLK is high: stop
                frame, self._frame = self._frame, None
                if frame:
                    self._command(frame)
            return
        if not old_clk and clk and self._frame is not None:  # rising CLK: sample
            if self._nbits < 8:
                self._bits |= (dio & 1) << self._nbits
                self._nbits += 1
            else:  # the ninth clock is the acknowledge; the byte is complete
                self._frame.append(self._bits)
                self._bits, self._nbits = 0, 0

    def _command(self, frame: list[int]) -> None:
        self.frames += 1
        cmd = frame[0]
        kind = cmd & 0xC0
        if kind == 0x40:
            self._auto_increment = not cmd & 0x04
        elif kind == 0xC0:
            address = cmd & 0x07
            for byte in frame[1:]:
                if address < len(self.ram):
                    self.ram[address] = byte
                if self._auto_increment:
                    address += 1
        elif kind == 0x80:
            self.display_on = bool(cmd & 0x08)
            self.brightness = cmd & 0x07
        self._on_change(self)


class SimBoard:
    """One simulated Pico with a TM1637 display, a buzzer and a button wired to it.

    ``wiring`` maps "clk", "dio", "buzzer" and "button" to pin ids, as the
    firmware's ``main.PINS`` does.
    """

    def __init__(self, wiring: dict, observer: Callable[[str, str], None] | None = None):
        self.wiring = dict(wiring)
        self._observer = observer
        self.levels: dict[object, int] = {}  # output pin levels
        self.pulls: dict[object, int] = {}  # input pins: level the pull gives
        self.external: dict[object, int] = {}  # input pins driven from outside
        self.chip = TM1637Chip(self._display_changed)
        self.display = ""
        self.buzzer = "off"
        self.buzzer_hz = 0
        self.resets = 0

    # -- what a person sees and hears -------------------------------------

    def _display_changed(self, chip: TM1637Chip) -> None:
        text = chip.text()
        if text != self.display:
            self.display = text
            self._notify("display", text)

    def _pwm_changed(self, pin_id, freq: int, duty: int) -> None:
        if pin_id != self.wiring.get("buzzer"):
            return
        state = "on" if (duty > 0 and freq > 0) else "off"
        self.buzzer_hz = freq if state == "on" else 0
        if state != self.buzzer:
            self.buzzer = state
            self._notify("buzzer", state)

    def _notify(self, what: str, value: str) -> None:
        if self._observer is not None:
            self._observer(what, value)

    def power_off(self) -> None:
        """The board loses power: display dark, buzzer silent."""
        self.chip.display_on = False
        self._display_changed(self.chip)
        if self.buzzer != "off":
            self.buzzer = "off"
            self.buzzer_hz = 0
            self._notify("buzzer", "off")

    # -- the outside world ------------------------------------------------

    def press(self, name: str = "button") -> None:
        self.external[self.wiring[name]] = 0

    def release(self, name: str = "button") -> None:
        self.external.pop(self.wiring[name], None)

    # -- pin plumbing -----------------------------------------------------

    def _write(self, pin_id, level: int) -> None:
        self.levels[pin_id] = level
        if pin_id in (self.wiring.get("clk"), self.wiring.get("dio")):
            self.chip.pins(self.levels.get(self.wiring["clk"], 1),
                           self.levels.get(self.wiring["dio"], 1))

    def _read(self, pin_id) -> int:
        if pin_id in self.external:
            return self.external[pin_id]
        if pin_id in self.levels:
            return self.levels[pin_id]
        return self.pulls.get(pin_id, 0)

    def machine(self) -> types.ModuleType:
        """A ``machine`` module bound to this board."""
        board = self

        class Pin:
            IN = 0
            OUT = 1
            OPEN_DRAIN = 2
            PULL_UP = 1
            PULL_DOWN = 2

            def __init__(self, id, mode=-1, pull=-1, *, value=None):
                self.id = id
                self._mode = Pin.IN
                self.init(mode, pull, value=value)

            def init(self, mode=-1, pull=-1, *, value=None):
                if mode != -1:
                    self._mode = mode
                if self._mode == Pin.IN:
                    board.levels.pop(self.id, None)
                    if pull == Pin.PULL_UP:
                        board.pulls[self.id] = 1
                    elif pull == Pin.PULL_DOWN:
                        board.pulls[self.id] = 0
                if value is not None:
                    self.value(value)

            def value(self, x=None):
                if x is None:
                    return board._read(self.id)
                if self._mode != Pin.IN:
                    board._write(self.id, 1 if x else 0)
                return None

            __call__ = value

            def on(self):
                self.value(1)

            def off(self):
                self.value(0)

            high = on
            low = off

            def toggle(self):
                self.value(0 if board._read(self.id) else 1)

            def __repr__(self):
                return f"Pin({self.id!r})"

        class PWM:
            def __init__(self, dest, *, freq=None, duty_u16=None, duty_ns=None, invert=False):
                self._pin = dest
                self._freq = 0
                self._duty = 0
                self.init(freq=freq, duty_u16=duty_u16)

            def init(self, *, freq=None, duty_u16=None, duty_ns=None, invert=False):
                if freq is not None:
                    self._freq = int(freq)
                if duty_u16 is not None:
                    self._duty = int(duty_u16)
                self._changed()

            def freq(self, value=None):
                if value is None:
                    return self._freq
                if not 8 <= value <= 62_500_000:
                    raise ValueError("freq out of range")
                self._freq = int(value)
                self._changed()

            def duty_u16(self, value=None):
                if value is None:
                    return self._duty
                if not 0 <= value <= 65535:
                    raise ValueError("duty out of range")
                self._duty = int(value)
                self._changed()

            def deinit(self):
                self._duty = 0
                self._changed()

            def _changed(self):
                board._pwm_changed(self._pin.id, self._freq, self._duty)

        def reset():
            board.resets += 1
            raise SystemExit("machine.reset()")

        module = types.ModuleType("machine", "Simulated MicroPython machine module")
        module.Pin = Pin
        module.PWM = PWM
        module.reset = reset
        module.freq = lambda *args: 125_000_000
        module.unique_id = lambda: b"\xe6\x61\x41\x04\x03\x2f\x5c\x2a"
        return module
