"""One background thread that runs callbacks at given times, cancellable by tag.

The GPIO timer uses it for buzzer pattern steps, countdown ticks and button
debounce/hold checks, so none of those ever sleeps in the caller's thread.
Times come from an injected monotonic clock.
"""
from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from typing import Callable

log = logging.getLogger(__name__)


class Scheduler:
    def __init__(self, name: str = "scheduler", clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, str | None, Callable[[], None]]] = []
        self._counter = itertools.count()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def now(self) -> float:
        return self._clock()

    def call_at(self, when: float, fn: Callable[[], None], tag: str | None = None) -> None:
        """Run ``fn`` on the scheduler thread at clock time ``when``."""
        with self._cond:
            if self._closed:
                return
            heapq.heappush(self._heap, (when, next(self._counter), tag, fn))
            self._cond.notify()

    def call_later(self, delay: float, fn: Callable[[], None], tag: str | None = None) -> None:
        self.call_at(self._clock() + delay, fn, tag)

    def cancel(self, tag: str) -> None:
        """Drop every pending call with this tag."""
        with self._cond:
            kept = [entry for entry in self._heap if entry[2] != tag]
            if len(kept) != len(self._heap):
                heapq.heapify(kept)
                self._heap = kept
                self._cond.notify()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._heap.clear()
            self._cond.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed:
                    if self._heap:
                        wait = self._heap[0][0] - self._clock()
                        if wait <= 0:
                            break
                        self._cond.wait(wait)
                    else:
                        self._cond.wait()
                if self._closed:
                    return
                _when, _n, _tag, fn = heapq.heappop(self._heap)
            try:
                fn()
            except Exception:  # one bad callback must not stop the buzzer for good
                log.exception("scheduled callback failed")
