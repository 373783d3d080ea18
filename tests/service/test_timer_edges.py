"""The countdown at the edges of Undo, with the Pivit tile rules' one-minute race (rulebook: "Use the
timer to measure the additional minute of game play"):

- taking back the verify that ended the race gives back the time that was left, from the log
  (in memory and after a restart), not a fresh minute;
- cancelling the race's minute by hand is an event of its own: Undo gives the countdown back,
  Redo cancels it again; a countdown started by hand stays a plain timer command;
- who tapped (`by`) is kept with the event for the sentences, and the engine never sees it.
"""
from __future__ import annotations

import pytest

from companion.errors import InputError
from companion.tables import TIMER_CANCELLED, describe_event

PIN = "1234"


def race_table(service, clock, left: float):
    """Three players; Bob's grid is wrong, so Bob and Cy race for the 2 stick; `left` seconds remain."""
    table, _ = service.create("pivit-tiles", ["Ann", "Bob", "Cy"], {"timer_seconds": 60}, pin=PIN)
    for event in ({"type": "start-round"}, {"type": "done", "player": 0}, {"type": "done", "player": 1},
                  {"type": "verify", "player": 0, "valid": True}, {"type": "verify", "player": 1, "valid": False}):
        service.act(table.id, event)
    assert table.view()["state"]["phase"] == "race"
    assert table.view()["timer"]["remaining_ms"] == 60000
    clock.advance(60 - left)
    return table


def timer(table):
    t = table.view()["timer"]
    return t["status"], t["key"], t["remaining_ms"]


def test_undoing_the_verify_that_ended_the_race_gives_back_the_seconds_that_were_left(service, clock):
    table = race_table(service, clock, left=3)
    service.act(table.id, {"type": "done", "player": 2})
    service.act(table.id, {"type": "verify", "player": 2, "valid": True, "by": 0})  # Cy claims the stick
    assert table.view()["state"]["phase"] == "scored" and timer(table)[0] == "idle"
    clock.advance(20)  # the group argues for a while before someone taps Undo
    service.undo(table.id)
    assert table.view()["state"]["phase"] == "race"
    assert timer(table) == ("running", "round-1-race", 3000)
    clock.advance(2.9)
    assert service.fire_due() == []
    clock.advance(0.1)
    assert service.fire_due() == [table.id]  # and the race's minute ends when it would have
    # Redo of the verify ends the race again: no countdown.
    service.undo(table.id)  # the expiry
    assert timer(table)[0] == "running"  # undoing an expiry gives a fresh countdown, as before


def test_after_a_restart_undo_finds_the_time_left_in_the_log(make_service, clock):
    first = make_service()
    table = race_table(first, clock, left=7.5)
    first.act(table.id, {"type": "done", "player": 2})
    clock.advance(1.5)
    first.act(table.id, {"type": "verify", "player": 2, "valid": True})
    first.close()
    clock.advance(300)
    second = make_service()
    again = second.get(table.id)
    second.undo(table.id)
    assert timer(again) == ("running", "round-1-race", 6000)


def test_a_paused_race_minute_comes_back_paused(service, clock):
    table = race_table(service, clock, left=10)
    service.timer(table.id, "pause")
    service.act(table.id, {"type": "done", "player": 2})
    service.act(table.id, {"type": "verify", "player": 2, "valid": True})
    service.undo(table.id)
    assert timer(table) == ("paused", "round-1-race", 10000)


def test_undoing_an_event_that_left_the_countdown_alone_leaves_it_alone(service, clock):
    table = race_table(service, clock, left=30)
    service.act(table.id, {"type": "done", "player": 2})
    clock.advance(5)
    service.undo(table.id)
    assert timer(table) == ("running", "round-1-race", 25000)


def test_cancelling_the_race_minute_is_an_event_that_undo_takes_back(service, clock):
    table = race_table(service, clock, left=12)
    version = table.version
    service.timer(table.id, "cancel")
    view = table.view()
    assert timer(table)[0] == "idle" and view["state"]["phase"] == "race"  # the race goes on, untimed
    assert view["undo_event"] == {"type": TIMER_CANCELLED}
    assert view["undo_text"] == "The one-minute timer was cancelled"
    assert [e.kind for e in service.store.entries(table.id) if e.seq > version] == ["event", "timer"]
    clock.advance(100)
    assert service.fire_due() == []
    # Undo takes back the cancel, not the verify before it: the minute runs on from 12 s.
    service.undo(table.id)
    assert timer(table) == ("running", "round-1-race", 12000)
    assert table.view()["undo_event"] == {"type": "verify", "player": 1, "valid": False}
    assert table.view()["redo_text"] == "The one-minute timer was cancelled"
    clock.advance(4)
    service.redo(table.id)
    assert timer(table)[0] == "idle" and table.view()["state"]["phase"] == "race"
    service.undo(table.id)
    assert timer(table) == ("running", "round-1-race", 8000)  # what was left when it was cancelled again


def test_a_cancelled_race_minute_survives_a_restart_and_undo_still_gives_it_back(make_service, clock):
    first = make_service()
    table = race_table(first, clock, left=40)
    first.timer(table.id, "cancel")
    first.close()
    second = make_service()
    assert timer(second.get(table.id))[0] == "idle"
    second.undo(table.id)
    assert timer(second.get(table.id)) == ("running", "round-1-race", 40000)


def test_a_countdown_started_by_hand_is_cancelled_without_an_event(service, clock):
    table, _ = service.create("pivit-tiles", ["Ann", "Bob"], pin=PIN)
    service.timer(table.id, "start", seconds=30)
    service.timer(table.id, "cancel")
    assert table.view()["can_undo"] is False
    assert [e.kind for e in service.store.entries(table.id)] == ["timer", "timer"]


def test_who_tapped_is_kept_with_the_event_and_hidden_from_the_engine(service):
    table, _ = service.create("counting", ["Ann", "Bob"], pin=PIN)
    service.act(table.id, {"type": "count", "player": 0, "by": 1})
    assert [e.body for e in service.store.entries(table.id)] == [{"type": "count", "player": 0, "by": 1}]
    view = table.view()
    assert view["state"]["scores"] == [1, 0]
    # A game without sentences of its own: the phones say it their plain way, the history too.
    assert view["undo_text"] is None and view["undo_event"] == {"type": "count", "player": 0, "by": 1}
    assert describe_event(table.game, view["undo_event"], table.players) == "Ann: count (tapped by Bob)"


@pytest.mark.parametrize("body, message", [
    ({"type": "count", "player": 0, "by": 2}, '"by" is a player\'s number, 0 to 1'),
    ({"type": "count", "player": 0, "by": True}, '"by" is a player\'s number'),
    ({"type": TIMER_CANCELLED}, "timer's cancel command"),
])
def test_bad_by_and_the_services_own_event_are_refused(service, body, message):
    table, _ = service.create("counting", ["Ann", "Bob"], pin=PIN)
    with pytest.raises(InputError, match=message):
        service.act(table.id, body)
