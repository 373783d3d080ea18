"""One countdown on a set of TimerOutputs, for ``companion timer run`` and bench/.

The table service has its own authoritative timer (companion.timer); this is
the same idea reduced to one countdown with no game: a monotonic deadline,
every output told at the start, and ``timer_expired`` called at the
deadline from this thread.
"""
from __future__ import annotations

import threading
import time
from typing import Callable, Iterable

from companion.devices import TimerOutput, TimerSnapshot


def run_countdown(outputs: Iterable[TimerOutput], duration_ms: int, *,
                  clock: Callable[[], float] = time.monotonic,
                  stop: threading.Event | None = None,
                  on_start: Callable[[float], None] | None = None) -> float | None:
    """Count ``duration_ms`` down on every output; return at expiry.

    Returns the deadline (in ``clock`` seconds) once every output has been
    told ``timer_expired``, or None if ``stop`` was set first, in which case
    the outputs are told the countdown was cancelled. ``on_start`` gets the
    deadline right after the outputs were started. Raises ValueError for a
    negative duration.
    """
    if duration_ms < 0:
        raise ValueError("a countdown cannot be negative")
    outputs = list(outputs)
    stop = stop or threading.Event()
    start = clock()
    deadline = start + duration_ms / 1000
    running = TimerSnapshot("running", duration_ms, duration_ms)
    for output in outputs:
        output.timer_changed(running)
    if on_start is not None:
        on_start(deadline)
    try:
        while True:
            left = deadline - clock()
            if left <= 0:
                break
            # Wake at least twice a second so a stop request is seen promptly.
            if stop.wait(min(left, 0.5)):
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        idle = TimerSnapshot("idle", duration_ms, duration_ms)
        for output in outputs:
            output.timer_changed(idle)
        if stop.is_set():
            return None
        raise
    for output in outputs:
        output.timer_expired()
    return deadline
