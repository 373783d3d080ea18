"""run_countdown: start, expiry exactly once, and cancel."""
from __future__ import annotations

import threading

import pytest

from companion.devices import TimerSnapshot
from hardware.runner import run_countdown


class Recorder:
    """A TimerOutput that remembers what it was told."""

    name = "recorder"

    def __init__(self):
        self.calls: list = []

    def timer_changed(self, snapshot):
        self.calls.append(snapshot)

    def timer_expired(self):
        self.calls.append("expired")

    def chirp(self, kind):
        self.calls.append(("chirp", kind))

    def status(self):
        return {"ok": True, "detail": ""}

    def close(self):
        pass


def test_every_output_is_started_then_expired_once():
    a, b = Recorder(), Recorder()
    now = [100.0]

    def clock():
        now[0] += 0.05  # each look at the clock moves time on
        return now[0]

    deadline = run_countdown([a, b], 300, clock=clock)
    assert deadline == pytest.approx(100.35)
    for output in (a, b):
        assert output.calls == [TimerSnapshot("running", 300, 300), "expired"]


def test_stop_cancels_instead_of_expiring():
    out = Recorder()
    stop = threading.Event()
    stop.set()
    assert run_countdown([out], 60000, stop=stop) is None
    assert out.calls == [TimerSnapshot("running", 60000, 60000), TimerSnapshot("idle", 60000, 60000)]


def test_negative_duration_is_refused():
    with pytest.raises(ValueError):
        run_countdown([], -1)
