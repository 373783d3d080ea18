"""The countdown: its operations, its errors, and how it is kept on disk and read back after a restart."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.timer import Countdown, ManualClock, PageTimerOutput, TimerError, TimerRecord


def test_start_pause_resume_expire():
    c = Countdown().start(60, now=100.0, key="race")
    assert (c.status, c.key, c.duration_ms) == ("running", "race", 60000)
    assert c.remaining(110.0) == 50000
    assert not c.is_due(159.9) and c.is_due(160.0)
    paused = c.pause(now=130.0)
    assert paused.status == "paused" and paused.remaining(999.0) == 30000
    resumed = paused.resume(now=500.0)
    assert resumed.remaining(510.0) == 20000 and resumed.is_due(530.0)
    expired = resumed.expire()
    assert (expired.status, expired.remaining(0), expired.key) == ("expired", 0, "race")


def test_cancel_keeps_the_key():
    c = Countdown().start(10, now=0.0, key="race").cancel()
    assert (c.status, c.key, c.remaining(5.0)) == ("idle", "race", 0)


@pytest.mark.parametrize("operation, message", [
    (lambda c: c.pause(0.0), "not running"),
    (lambda c: c.resume(0.0), "not paused"),
    (lambda c: c.cancel(), "not set"),
])
def test_operations_that_make_no_sense_now(operation, message):
    with pytest.raises(TimerError, match=message):
        operation(Countdown())


@pytest.mark.parametrize("seconds", [0, -1, 3601, "60", True, None, float("nan")])
def test_bad_lengths(seconds):
    with pytest.raises(TimerError):
        Countdown().start(seconds, now=0.0)


def test_phones_get_the_deadline_on_the_server_wall_clock():
    c = Countdown().start(60, now=100.0)
    data = c.to_json(now=110.0, wall=1_000_000.0)
    assert data["remaining_ms"] == 50000
    assert data["server_time_ms"] == 1_000_000_000
    assert data["deadline_ms"] == 1_000_050_000
    assert c.pause(110.0).to_json(now=110.0, wall=1_000_000.0)["deadline_ms"] is None


def test_a_running_countdown_resumes_after_a_restart_with_the_time_spent_down_counted():
    c = Countdown().start(60, now=100.0, key="race")
    record = TimerRecord.from_json(c.to_record(now=110.0, wall=5000.0).to_json())
    assert record.deadline_wall_ms == 5_050_000
    # Ten seconds later on the wall clock, on a fresh monotonic clock.
    back = Countdown.from_record(record, now=3.0, wall=5010.0)
    assert back.status == "running" and back.key == "race"
    assert back.remaining(3.0) == 40000


def test_a_deadline_that_passed_while_down_is_due_at_once():
    record = Countdown().start(5, now=0.0).to_record(now=0.0, wall=100.0)
    back = Countdown.from_record(record, now=50.0, wall=200.0)
    assert back.is_due(50.0) and back.remaining(50.0) == 0


def test_a_wall_clock_that_went_back_never_grants_more_time():
    # A Pi without a real-time clock boots with an older time.
    record = Countdown().start(60, now=0.0).to_record(now=20.0, wall=10_000.0)
    back = Countdown.from_record(record, now=0.0, wall=9_000.0)
    assert back.remaining(0.0) == 40000


def test_paused_and_expired_records_round_trip():
    paused = Countdown().start(30, now=0.0, key="k").pause(now=12.5)
    back = Countdown.from_record(paused.to_record(now=99.0, wall=1.0), now=7.0, wall=2.0)
    assert back == paused
    expired = paused.resume(0.0).expire()
    assert Countdown.from_record(expired.to_record(0.0, 0.0), now=1.0, wall=1.0) == expired


@given(st.lists(st.sampled_from(["start", "pause", "resume", "cancel", "expire", "wait"]), max_size=30),
       st.lists(st.floats(0.0, 30.0), min_size=30, max_size=30))
def test_remaining_time_never_exceeds_the_length_nor_goes_negative(operations, waits):
    now = 0.0
    c = Countdown()
    for op, wait in zip(operations, waits):
        try:
            if op == "start":
                c = c.start(20, now)
            elif op == "pause":
                c = c.pause(now)
            elif op == "resume":
                c = c.resume(now)
            elif op == "cancel":
                c = c.cancel()
            elif op == "expire":
                c = c.expire()
            else:
                now += wait
        except TimerError:
            pass
        assert 0 <= c.remaining(now) <= c.duration_ms
        # What is written and read back shows the same time left.
        back = Countdown.from_record(c.to_record(now, 1e6 + now), now, 1e6 + now)
        assert back.status == c.status and back.remaining(now) == c.remaining(now)


def test_manual_clock_moves_both_clocks_together():
    clock = ManualClock(wall=100.0, monotonic=5.0)
    clock.advance(2.5)
    assert (clock.time(), clock.monotonic()) == (102.5, 7.5)
    clock.set_wall(50.0)
    assert (clock.time(), clock.monotonic()) == (50.0, 7.5)


def test_page_output_counts_buzzes():
    page = PageTimerOutput()
    page.timer_expired()
    page.chirp("done")
    assert page.status()["buzzes"] == 1 and page.chirps == ["done"]
