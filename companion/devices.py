"""The small interfaces between the table service and the physical devices.

The service owns the one authoritative countdown (companion.timer) and tells
every attached output what it shows; outputs never keep their own notion of
the game. Inputs (buttons) call back into the service. `hardware/` implements
these for gpiozero and for the Pico on USB; the simulator implements them for
tests and for `--simulate-hardware`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal, Protocol

TimerStatus = Literal["idle", "running", "paused", "expired"]


@dataclass(frozen=True)
class TimerSnapshot:
    """What a display should show now."""

    status: TimerStatus
    duration_ms: int
    remaining_ms: int


class TimerOutput(Protocol):
    """Something that shows the countdown or sounds it: a 7-segment display, a buzzer, LEDs."""

    name: str

    def timer_changed(self, snapshot: TimerSnapshot) -> None:
        """Start, pause, resume or cancel happened (or a periodic re-sync). Must not block."""

    def timer_expired(self) -> None:
        """Time ran out: sound the alarm. Called once per countdown. Must not block."""

    def chirp(self, kind: str) -> None:
        """A short sound for an event at the table ("done", "error"). Must not block."""

    def status(self) -> dict:
        """For /api/health: {"ok": bool, "detail": str, ...}."""

    def close(self) -> None:
        """Release the device."""


# Physical buttons: the device calls this with the button's name ("timer",
# "done-0", ...) and what happened ("press" or "hold").
ButtonCallback = Callable[[str, str], None]
