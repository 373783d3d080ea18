"""Fixtures for running the firmware one step at a time on a simulated board.

``pico`` builds the firmware with its own ``main.build`` on a simulated
board (hardware.sim_machine) with a manual clock and an in-memory link, so a
minute of countdown runs in milliseconds and every time is exact.
"""
from __future__ import annotations

import pytest

from firmware import main as firmware_main
from firmware import protocol as p
from hardware.sim_machine import SimBoard
from hardware.simulator import TICKS_PERIOD, SimClock


class ManualClock:
    """MicroPython's ticks, advanced by hand; ``start`` may sit just before the wrap."""

    def __init__(self, start: int = 0):
        self.ms = start

    def ticks_ms(self) -> int:
        return self.ms % TICKS_PERIOD

    ticks_diff = staticmethod(SimClock.ticks_diff)
    ticks_add = staticmethod(SimClock.ticks_add)


class MemoryLink:
    """The firmware's link, as two byte buffers."""

    def __init__(self):
        self.inbox = bytearray()
        self.outbox = bytearray()
        self._reader = p.LineReader(p.EVENTS)

    def read(self) -> bytes:
        data, self.inbox = bytes(self.inbox), bytearray()
        return data

    def write(self, data: bytes) -> None:
        self.outbox += data

    def wait(self, ms: int) -> None:
        pass

    def replies(self) -> list:
        """Messages the firmware sent since the last call."""
        data, self.outbox = bytes(self.outbox), bytearray()
        return [m for m in self._reader.feed(data) if isinstance(m, p.Message)]


class Pico:
    """A firmware instance on a simulated board, driven by hand."""

    def __init__(self, start_ticks: int = 0):
        self.clock = ManualClock(start_ticks)
        self.t0 = self.clock.ms
        self.link = MemoryLink()
        self.seen: list[tuple[int, str, str]] = []  # (ms since start, what, value)
        self.board = SimBoard(firmware_main.PINS,
                              lambda what, value: self.seen.append((self.now, what, value)))
        self.app = firmware_main.build(self.board.machine(), self.link, self.clock, boot_id="b00t")
        self.app.boot()
        self._seq = 0

    @property
    def now(self) -> int:
        return self.clock.ms - self.t0

    def send(self, verb: str, seq: int | None = None, **args) -> int:
        """Put one command on the wire (applied at the next step)."""
        if seq is None:
            self._seq += 1
            seq = self._seq
        self.link.inbox += p.encode(seq, verb, args, p.COMMANDS)
        return seq

    def run(self, ms: int) -> None:
        """Run the firmware's loop for ``ms`` milliseconds of its clock."""
        end = self.clock.ms + ms
        while True:
            wait = self.app.step()
            if self.clock.ms >= end:
                return
            self.clock.ms = min(end, self.clock.ms + max(1, wait))

    def heard(self, what: str) -> list[tuple[int, str]]:
        return [(t, v) for t, w, v in self.seen if w == what]


@pytest.fixture
def pico() -> Pico:
    return Pico()


@pytest.fixture
def make_pico():
    return Pico


@pytest.fixture(name="ManualClock")
def manual_clock_class():
    return ManualClock
