"""The Pico's own countdown clock, kept in MicroPython ticks.

The host is authoritative and tells the device what to show; this clock
keeps counting when the host or the link goes away, so the display and the
alarm still happen on time. Every deadline is kept with ``ticks_add`` and
compared with ``ticks_diff``, so the 2**30 ms wrap of ``ticks_ms`` is safe.
"""

IDLE = "idle"
RUNNING = "running"
PAUSED = "paused"
EXPIRED = "expired"


class Countdown:
    def __init__(self, clock):
        self._clock = clock
        self.status = IDLE
        self._ms = 0  # remaining time while not running
        self._deadline = 0  # ticks at which time is up, while running
        self.since = clock.ticks_ms()  # ticks when the status last changed

    def remaining(self, now):
        """Milliseconds left at ``now`` (never negative)."""
        if self.status == RUNNING:
            return max(0, self._clock.ticks_diff(self._deadline, now))
        return self._ms

    def set(self, status, ms, now):
        """Enter a status with ``ms`` left. Raises ValueError for an unknown status."""
        if status not in (IDLE, RUNNING, PAUSED, EXPIRED):
            raise ValueError("unknown status %r" % (status,))
        self.status = status
        self.since = now
        if status == RUNNING:
            self._deadline = self._clock.ticks_add(now, ms)
            self._ms = ms
        elif status == EXPIRED:
            self._ms = 0
        else:
            self._ms = ms

    def update(self, now):
        """True exactly once, on the call at which a running countdown runs out."""
        if self.status == RUNNING and self._clock.ticks_diff(self._deadline, now) <= 0:
            self.status = EXPIRED
            self.since = now
            self._ms = 0
            return True
        return False
