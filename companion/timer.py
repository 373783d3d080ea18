"""The one authoritative countdown of a table, and the clocks it is read with.

A `Countdown` is a value: every operation (start, pause, resume, cancel,
expire) returns a new one, so the table can write the new countdown to its
log first and only then make it current. While running it holds a deadline
on the monotonic clock, which wall-clock changes (NTP after boot) cannot
move. On disk it is kept as a `TimerRecord` whose deadline is wall-clock
milliseconds, the only time that means something after a restart; reading it
back converts it to a monotonic deadline again, never granting more than the
countdown's length.

Clocks are injected: `SystemClock` for the service, `ManualClock` for tests
and for anything that wants to replay time by hand.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from typing import Any, Protocol

from companion.devices import TimerSnapshot

MAX_SECONDS = 3600.0  # a countdown longer than an hour is a typo


class TimerError(ValueError):
    """The countdown cannot do that now ("the timer is not running"). The message is for players."""


class Clock(Protocol):
    def monotonic(self) -> float:
        """Seconds on a clock that never jumps."""

    def time(self) -> float:
        """Seconds since the epoch (wall clock), as sent to phones and kept on disk."""


class SystemClock:
    """The machine's clocks."""

    monotonic = staticmethod(time.monotonic)
    time = staticmethod(time.time)


class ManualClock:
    """A clock that moves only when told to; `advance` moves both readings together."""

    def __init__(self, wall: float = 1_700_000_000.0, monotonic: float = 1000.0):
        self._wall = wall
        self._mono = monotonic
        self._lock = threading.Lock()

    def monotonic(self) -> float:
        with self._lock:
            return self._mono

    def time(self) -> float:
        with self._lock:
            return self._wall

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._mono += seconds
            self._wall += seconds

    def set_wall(self, wall: float) -> None:
        """Move only the wall clock, as NTP or a power cycle does."""
        with self._lock:
            self._wall = wall


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000))


@dataclass(frozen=True)
class TimerRecord:
    """A countdown as written in the log: JSON-able, deadline in wall-clock milliseconds."""

    status: str  # idle | running | paused | expired
    key: str | None
    duration_ms: int
    remaining_ms: int
    deadline_wall_ms: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "key": self.key,
            "duration_ms": self.duration_ms,
            "remaining_ms": self.remaining_ms,
            "deadline_wall_ms": self.deadline_wall_ms,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TimerRecord":
        return cls(
            status=data["status"],
            key=data.get("key"),
            duration_ms=int(data["duration_ms"]),
            remaining_ms=int(data["remaining_ms"]),
            deadline_wall_ms=data.get("deadline_wall_ms"),
        )


@dataclass(frozen=True)
class Countdown:
    """One countdown. `key` names what the rules started it for (None: started by hand).

    While running, `deadline` is on the monotonic clock and `remaining_ms` is
    meaningless; otherwise `remaining_ms` is what is left.
    """

    status: str = "idle"
    key: str | None = None
    duration_ms: int = 0
    remaining_ms: int = 0
    deadline: float | None = None

    # -- reading --------------------------------------------------------------

    def remaining(self, now: float) -> int:
        """Milliseconds left at monotonic time `now` (never negative)."""
        if self.status == "running":
            return max(0, _ms(self.deadline - now))
        return self.remaining_ms

    def is_due(self, now: float) -> bool:
        """True when running and the deadline has passed: time to expire it."""
        return self.status == "running" and now >= self.deadline

    def snapshot(self, now: float) -> TimerSnapshot:
        """What a display shows."""
        return TimerSnapshot(status=self.status, duration_ms=self.duration_ms, remaining_ms=self.remaining(now))

    def to_json(self, now: float, wall: float) -> dict[str, Any]:
        """For phones: the deadline on the server's wall clock and the server's time now.

        A phone that knows its offset to the server's clock computes the same
        remaining time as every other phone: ``deadline_ms - (Date.now() + offset)``.
        """
        remaining = self.remaining(now)
        return {
            "status": self.status,
            "key": self.key,
            "duration_ms": self.duration_ms,
            "remaining_ms": remaining,
            "deadline_ms": _ms(wall) + remaining if self.status == "running" else None,
            "server_time_ms": _ms(wall),
        }

    # -- operations -----------------------------------------------------------

    def start(self, seconds: float, now: float, key: str | None = None) -> "Countdown":
        """A fresh countdown of `seconds`. Raises TimerError for a length outside (0, 3600]."""
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds <= MAX_SECONDS:
            raise TimerError(f"a countdown lasts more than 0 and at most {int(MAX_SECONDS)} seconds, not {seconds!r}")
        duration = _ms(seconds)
        return Countdown("running", key, duration, duration, now + duration / 1000)

    def pause(self, now: float) -> "Countdown":
        """Stop the clock, keeping what is left. Raises TimerError unless running."""
        if self.status != "running":
            raise TimerError(f"the timer is {self.status}, not running")
        return replace(self, status="paused", remaining_ms=self.remaining(now), deadline=None)

    def resume(self, now: float) -> "Countdown":
        """Run on from where it was paused. Raises TimerError unless paused."""
        if self.status != "paused":
            raise TimerError(f"the timer is {self.status}, not paused")
        return replace(self, status="running", deadline=now + self.remaining_ms / 1000)

    def cancel(self) -> "Countdown":
        """Stop and clear the display; the key stays, so the rules do not restart it by themselves.

        Raises TimerError when there is nothing to cancel.
        """
        if self.status == "idle":
            raise TimerError("the timer is not set")
        return Countdown("idle", self.key, self.duration_ms, 0, None)

    def expire(self) -> "Countdown":
        """Time is up."""
        return Countdown("expired", self.key, self.duration_ms, 0, None)

    # -- on disk --------------------------------------------------------------

    def to_record(self, now: float, wall: float) -> TimerRecord:
        remaining = self.remaining(now)
        deadline_wall = _ms(wall) + remaining if self.status == "running" else None
        return TimerRecord(self.status, self.key, self.duration_ms, remaining, deadline_wall)

    @classmethod
    def from_record(cls, record: TimerRecord, now: float, wall: float) -> "Countdown":
        """The countdown a record describes, read at monotonic `now` and wall-clock `wall`.

        A running countdown keeps its wall-clock deadline, so the time the
        service was down counts. If the wall clock went backwards while the
        service was down (a Pi without a real-time clock), the countdown never
        gets more than the time it had left when it was written.
        """
        if record.status == "running":
            left_ms = record.deadline_wall_ms - _ms(wall)
            left_ms = min(left_ms, record.remaining_ms, record.duration_ms)
            return cls("running", record.key, record.duration_ms, 0, now + max(0, left_ms) / 1000)
        return cls(record.status, record.key, record.duration_ms, record.remaining_ms, None)


class PageTimerOutput:
    """The simulated display and buzzer shown on the phones' page when no hardware is attached.

    It follows the same TimerOutput interface as a real display, so the
    service drives it the same way; the page draws the countdown it is sent
    and flashes "BUZZ" at expiry. It counts what it was told, for /api/health.
    """

    name = "page"

    def __init__(self) -> None:
        self.last: TimerSnapshot | None = None
        self.buzzes = 0
        self.chirps: list[str] = []

    def timer_changed(self, snapshot: TimerSnapshot) -> None:
        self.last = snapshot

    def timer_expired(self) -> None:
        self.buzzes += 1

    def chirp(self, kind: str) -> None:
        self.chirps = (self.chirps + [kind])[-20:]

    def status(self) -> dict:
        return {"ok": True, "detail": "simulated display and buzzer on the table page", "buzzes": self.buzzes}

    def close(self) -> None:
        pass
