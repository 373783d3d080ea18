"""The table mechanism: the log folds to the state, undo/redo, versions, action ids,
the countdown following the rules, expiry exactly once, restarts, devices and buttons."""
from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InputError
from companion.games.base import RuleError
from companion.tables import NothingToUndo, TableNotFound, VersionConflict
from companion.timer import TimerError

# Test modules are imported by path (--import-mode=importlib): load the tiny game the same way.
import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("counting_game", Path(__file__).with_name("counting_game.py"))
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
COUNTING = _module.GAME


def lookup(game_id):
    from companion.games import get_game

    return COUNTING if game_id == "counting" else get_game(game_id)


def new_table(service, players=("Ann", "Bob"), **options):
    table, pin = service.create("counting", list(players), options or None, pin="1234")
    return table


def test_create_checks_everything_and_hides_the_pin(service):
    table, pin = service.create("counting", ["Ann", " Bob  Smith "], {"goal": 5, "pin": "987654"})
    assert pin == "987654"
    assert table.players == ["Ann", "Bob Smith"]
    seed = table.options.pop("seed")
    assert table.options == {"goal": 5, "race_seconds": 5}  # the PIN is not an engine option
    assert isinstance(seed, int) and 0 <= seed < 2**31
    assert table.check_pin("987654") and not table.check_pin("1234") and not table.check_pin(None)
    view = table.view()
    assert "987654" not in table.view_json()
    assert view["version"] == 0 and view["state"]["scores"] == [0, 0]
    assert view["actions"][0] == {"type": "count", "player": 0}


def test_every_table_gets_its_own_seed_unless_one_is_given(service):
    seeds = {service.create("counting", ["Ann"])[0].options["seed"] for _ in range(5)}
    assert len(seeds) == 5
    table, _ = service.create("counting", ["Ann"], {"seed": 42})
    assert table.options["seed"] == 42
    stored = {t.id: t for t in service.store.tables()}[table.id]
    assert stored.options["seed"] == 42  # kept with the table, so replays deal the same


def test_a_pin_is_made_up_when_none_is_given(service):
    _, pin = service.create("counting", ["Ann"])
    assert len(pin) == 4 and pin.isdigit()


@pytest.mark.parametrize("game, players, options, pin, message", [
    ("chess", ["A"], None, None, "unknown game"),
    (7, ["A"], None, None, "game id"),
    ("counting", "Ann", None, None, "list of names"),
    ("counting", [], None, None, "1 to 4 players"),
    ("counting", ["A", "B", "C", "D", "E"], None, None, "1 to 4 players"),
    ("counting", ["Ann", "ann"], None, None, "same name"),
    ("counting", ["Ann", "  "], None, None, "needs a name"),
    ("counting", ["x" * 25], None, None, "24 characters"),
    ("counting", ["Ann"], {"speed": 2}, None, "unknown option 'speed'"),
    ("counting", ["Ann"], {"goal": 0}, None, "goal must be"),
    ("counting", ["Ann"], [1], None, "options must be"),
    ("counting", ["Ann"], None, "12", "4 to 12 digits"),
    ("counting", ["Ann"], None, "12ab", "4 to 12 digits"),
    ("counting", ["Ann"], {"pin": "1" * 13}, None, "4 to 12 digits"),
])
def test_create_refuses(service, game, players, options, pin, message):
    with pytest.raises(InputError, match=message):
        service.create(game, players, options, pin)
    assert service.tables() == []


def test_actions_move_the_version_and_the_state(service):
    table = new_table(service)
    service.act(table.id, {"type": "count", "player": 0})
    service.act(table.id, {"type": "count", "player": 1, "action_id": "x", "pin": "1234"})
    view = table.view()
    assert view["version"] == 2 and view["state"]["scores"] == [1, 1]
    assert view["last_change"]["event"] == {"type": "count", "player": 1}  # service keys stripped
    assert view["undo_event"] == {"type": "count", "player": 1} and view["can_undo"] and not view["can_redo"]


@pytest.mark.parametrize("body, error, message", [
    ({"type": "count", "player": 1}, RuleError, "player 0's turn"),
    ({"type": "fly"}, RuleError, "Counting has no 'fly' action"),
    ({"type": "count", "player": 0, "colour": "red"}, InputError, "colour: the count action has no such field"),
    ({"type": "count\x00", "player": 0}, InputError, "needs a \"type\""),
    ({"player": 0}, InputError, "needs a \"type\""),
    ({"type": ""}, InputError, "needs a \"type\""),
    ({"type": "count", "player": 2}, InputError, "0 to 1"),
    ({"type": "count", "player": True}, InputError, "0 to 1"),
    ({"type": "count", "player": "0"}, InputError, "0 to 1"),
    ([1, 2], InputError, "JSON object"),
    ({"type": "count", **{f"k{i}": i for i in range(20)}}, InputError, "at most"),
    ({"type": "race"}, RuleError, "needs 'player'"),  # the engine's KeyError, said for players
])
def test_refused_actions_change_nothing(service, body, error, message):
    table = new_table(service)
    with pytest.raises(error, match=message):
        service.act(table.id, body)
    assert table.version == 0 and service.store.entries(table.id) == []


def test_bad_action_id_and_version_types(service):
    table = new_table(service)
    with pytest.raises(InputError, match="action_id"):
        service.act(table.id, {"type": "count", "player": 0}, action_id="x" * 65)
    with pytest.raises(InputError, match="expected_version"):
        service.act(table.id, {"type": "count", "player": 0}, expected_version="3")


def test_unknown_table(service):
    with pytest.raises(TableNotFound):
        service.get("nope")
    with pytest.raises(TableNotFound):
        service.act("nope", {"type": "count"})


def test_a_repeated_action_id_is_applied_once(service):
    table = new_table(service)
    _, dup = service.act(table.id, {"type": "count", "player": 0}, action_id="tap-1")
    assert not dup
    # The phone retries (say its Wi-Fi dropped the answer), even with what is now a stale version.
    _, dup = service.act(table.id, {"type": "count", "player": 0}, action_id="tap-1", expected_version=0)
    assert dup and table.version == 1 and table.view()["state"]["scores"] == [1, 0]


def test_expected_version_conflict(service):
    table = new_table(service)
    service.act(table.id, {"type": "count", "player": 0}, expected_version=0)
    with pytest.raises(VersionConflict) as info:
        service.act(table.id, {"type": "count", "player": 1}, expected_version=0)
    assert (info.value.expected, info.value.current) == (0, 1)


def test_undo_and_redo(service):
    table = new_table(service)
    for p in (0, 1, 0):
        service.act(table.id, {"type": "count", "player": p})
    service.undo(table.id)
    service.undo(table.id)
    assert table.view()["state"]["scores"] == [1, 0] and table.version == 5
    assert table.view()["redo_event"] == {"type": "count", "player": 1}
    service.redo(table.id)
    assert table.view()["state"]["scores"] == [1, 1]
    # A new event forgets what was undone.
    service.act(table.id, {"type": "race", "player": 0})
    assert not table.view()["can_redo"]
    with pytest.raises(NothingToUndo):
        service.redo(table.id)


def test_nothing_to_undo(service):
    table = new_table(service)
    with pytest.raises(NothingToUndo, match="nothing to undo"):
        service.undo(table.id)
    with pytest.raises(NothingToUndo, match="nothing to redo"):
        service.redo(table.id)


def test_undo_with_a_stale_version_and_a_repeated_id(service):
    table = new_table(service)
    service.act(table.id, {"type": "count", "player": 0})
    with pytest.raises(VersionConflict):
        service.undo(table.id, expected_version=0)
    service.undo(table.id, action_id="u1", expected_version=1)
    _, dup = service.undo(table.id, action_id="u1")
    assert dup and table.version == 2


def test_finishing_and_unfinishing_a_game(service, clock):
    table = new_table(service, goal=1)
    clock.advance(90)
    service.act(table.id, {"type": "count", "player": 0})
    assert table.finished and table.finished_ms == int(clock.time() * 1000)
    assert service.store.tables()[0].finished_ms == table.finished_ms
    service.undo(table.id)
    assert not table.finished and table.finished_ms is None
    assert service.store.tables()[0].finished_ms is None


# -- the countdown and the rules ---------------------------------------------


def test_the_rules_start_the_countdown_and_its_expiry_is_applied_once(service, clock, output):
    table = new_table(service, race_seconds=3)
    service.act(table.id, {"type": "race", "player": 1})
    timer = table.view()["timer"]
    assert (timer["status"], timer["key"], timer["remaining_ms"]) == ("running", "race-1", 3000)
    clock.advance(2.9)
    assert service.fire_due() == []
    clock.advance(0.1)
    assert service.fire_due() == [table.id]
    assert service.fire_due() == []
    view = table.view()
    assert view["state"]["scores"] == [0, 2] and view["timer"]["status"] == "expired"
    events = [e.body for e in service.store.entries(table.id) if e.kind == "event"]
    assert events.count({"type": "timer-expired"}) == 1
    assert output.expiries == 1


def test_the_countdown_is_cancelled_when_the_rules_stop_asking(service, clock):
    table = new_table(service)
    service.act(table.id, {"type": "race", "player": 0})
    service.undo(table.id)
    assert table.view()["timer"]["status"] == "idle"
    clock.advance(10)
    assert service.fire_due() == []
    # Redo asks again: a fresh countdown.
    service.redo(table.id)
    assert table.view()["timer"]["remaining_ms"] == 5000


def test_undoing_an_expiry_runs_the_countdown_again_and_redo_shows_it_expired(service, clock):
    table = new_table(service)
    service.act(table.id, {"type": "race", "player": 0})
    clock.advance(5)
    service.fire_due()
    service.undo(table.id)
    assert table.view()["timer"]["status"] == "running" and table.view()["state"]["race"] == 0
    service.redo(table.id)
    assert table.view()["timer"]["status"] == "expired" and table.view()["state"]["scores"] == [2, 0]
    clock.advance(10)
    assert service.fire_due() == []  # the redone expiry is not applied a second time


def test_hand_commands(service, clock):
    table = new_table(service)
    with pytest.raises(TimerError, match="not running"):
        service.timer(table.id, "pause")
    service.timer(table.id, "start", seconds=10)
    assert table.view()["timer"]["key"] is None
    clock.advance(4)
    service.timer(table.id, "pause")
    clock.advance(100)
    service.timer(table.id, "resume")
    assert table.view()["timer"]["remaining_ms"] == 6000
    service.timer(table.id, "cancel")
    assert table.view()["timer"]["status"] == "idle"
    # A hand-started countdown only sounds: it is not an event of the game.
    service.timer(table.id, "start")
    assert table.view()["timer"]["duration_ms"] == 60000  # the configured default
    clock.advance(60)
    assert service.fire_due() == [table.id]
    assert [e.kind for e in service.store.entries(table.id)].count("event") == 0
    with pytest.raises(InputError, match="command"):
        service.timer(table.id, "explode")
    with pytest.raises(InputError, match="number"):
        service.timer(table.id, "start", seconds="ten")
    # A length that is no length is bad input (400), not a timer that cannot do it now (409).
    for seconds in (0, -5, float("nan"), float("inf"), 1e308, True):
        with pytest.raises(InputError, match="seconds"):
            service.timer(table.id, "start", seconds=seconds)


def test_starting_by_hand_while_the_rules_ask_serves_the_rules(service, clock):
    table = new_table(service)
    service.act(table.id, {"type": "race", "player": 0})
    service.timer(table.id, "cancel")
    clock.advance(60)
    assert service.fire_due() == []  # cancelled by hand: the rules do not restart it by themselves
    service.timer(table.id, "start")
    assert table.view()["timer"]["key"] == "race-1" and table.view()["timer"]["remaining_ms"] == 5000
    clock.advance(5)
    service.fire_due()
    assert table.view()["state"]["scores"] == [2, 0]


def test_every_change_wakes_the_watchers(service):
    table = new_table(service)
    seen = table.published_version
    woke = []
    thread = threading.Thread(target=lambda: woke.append(table.wait_for_change(seen, timeout=5)))
    thread.start()
    service.act(table.id, {"type": "count", "player": 0})
    thread.join(5)
    assert woke == [True]
    assert table.wait_for_change(table.published_version, timeout=0.01) is False


def test_published_version_and_body_belong_together(service):
    table = new_table(service)
    service.act(table.id, {"type": "count", "player": 0})
    version, body = table.published()
    import json
    assert json.loads(body)["version"] == version == 1


# -- restarts -----------------------------------------------------------------


def test_a_restart_resumes_every_table_and_its_running_countdown(make_service, clock):
    first = make_service()
    a = new_table(first)
    b = new_table(first, players=["Cy"])
    first.act(a.id, {"type": "count", "player": 0})
    first.act(a.id, {"type": "count", "player": 1}, action_id="late")
    first.undo(a.id)
    first.act(b.id, {"type": "race", "player": 0})
    clock.advance(2)
    first.close()

    clock.advance(1)  # the service was down for a second
    second = make_service()
    a2, b2 = second.get(a.id), second.get(b.id)
    assert a2.view()["state"]["scores"] == [1, 0] and a2.version == 3 and a2.view()["can_redo"]
    assert "late" in a2.action_ids
    assert b2.view()["timer"]["remaining_ms"] == 2000
    clock.advance(2)
    assert second.fire_due() == [b.id]
    assert b2.view()["state"]["scores"] == [2]


def test_an_expiry_that_fell_while_down_is_applied_once_after_the_restart(make_service, clock):
    first = make_service()
    table = new_table(first)
    first.act(table.id, {"type": "race", "player": 1})
    first.close()
    clock.advance(60)
    second = make_service()
    assert second.fire_due() == [table.id]
    second.close()
    third = make_service()
    assert third.fire_due() == []
    assert third.get(table.id).view()["state"]["scores"] == [0, 2]


def test_tables_of_games_that_are_not_installed_are_skipped(make_service):
    first = make_service()
    table = new_table(first)
    first.close()

    def only_real(game_id):
        raise KeyError(game_id)

    second = make_service(game_lookup=only_real)
    assert second.tables() == [] and table.id in second.unavailable


# -- devices ------------------------------------------------------------------


def test_outputs_follow_the_countdown(service, clock, output):
    table = new_table(service)
    service.act(table.id, {"type": "race", "player": 0})
    assert output.snapshots[-1].status == "running" and output.snapshots[-1].remaining_ms == 5000
    assert output.chirps == ["race"]
    service.timer(table.id, "pause")
    assert output.snapshots[-1].status == "paused"
    service.timer(table.id, "resume")
    clock.advance(5)
    service.fire_due()
    assert output.expiries == 1 and output.snapshots[-1].status == "expired"


def test_a_broken_output_never_breaks_the_table(make_service, clock, output, broken_output):
    service = make_service(outputs=[broken_output, output])
    table = new_table(service)
    service.act(table.id, {"type": "race", "player": 0})
    clock.advance(5)
    assert service.fire_due() == [table.id]
    assert output.expiries == 1


def test_buttons_act_on_the_active_table(service, clock, output):
    table = new_table(service)
    service.on_button("count-0", "press")
    assert table.view()["state"]["scores"] == [1, 0]
    service.on_button("count-0", "press")  # not Ann's turn: refused with a chirp
    assert output.chirps[-1] == "error"
    service.on_button("timer", "press")
    assert table.view()["timer"]["status"] == "running"
    service.on_button("timer", "press")
    assert table.view()["timer"]["status"] == "paused"
    service.on_button("timer", "press")
    assert table.view()["timer"]["status"] == "running"
    service.on_button("timer", "hold")
    assert table.view()["timer"]["status"] == "idle"
    service.on_button("undo", "press")
    assert table.view()["state"]["scores"] == [0, 0]
    service.on_button("undo", "press")
    assert output.chirps[-1] == "error"


def test_buttons_with_no_table_chirp(service, output):
    service.on_button("count-0", "press")
    assert output.chirps == ["error"]


def test_the_ticker_fires_on_time_with_the_real_clock(make_service):
    from companion.timer import SystemClock

    service = make_service(clock=SystemClock())
    table = new_table(service)
    service.start_ticker()
    service.timer(table.id, "start", seconds=0.2)
    assert table.wait_for_change(table.published_version, timeout=5)
    assert table.view()["timer"]["status"] == "expired"


# -- properties ---------------------------------------------------------------

operations = st.lists(st.one_of(
    st.tuples(st.just("act"), st.sampled_from(["count", "race", "timer-expired"]), st.integers(0, 1)),
    st.tuples(st.just("undo")), st.tuples(st.just("redo")), st.tuples(st.just("wait"))), max_size=25)


@settings(max_examples=40)
@given(operations)
def test_the_state_is_always_the_fold_of_the_effective_events_and_survives_a_restart(tmp_path_factory, ops):
    from companion.store import EventStore
    from companion.tables import TableService
    from companion.timer import ManualClock

    path = tmp_path_factory.mktemp("prop") / "c.db"
    clock = ManualClock()
    service = TableService(EventStore(path), clock=clock, game_lookup=lookup)
    table, _ = service.create("counting", ["Ann", "Bob"], {"goal": 50})
    effective: list[dict] = []
    undone: list[dict] = []
    for op in ops:
        try:
            if op[0] == "act":
                event = {"type": op[1], "player": op[2]} if op[1] != "timer-expired" else {"type": op[1]}
                service.act(table.id, event)
                effective.append(event)
                undone.clear()
            elif op[0] == "undo":
                service.undo(table.id)
                undone.append(effective.pop())
            elif op[0] == "redo":
                service.redo(table.id)
                effective.append(undone.pop())
            else:
                clock.advance(3)
                before = len(table.fold.events)
                service.fire_due()
                if len(table.fold.events) > before:  # the expiry was applied as an event
                    effective.append({"type": "timer-expired"})
                    undone.clear()
        except (RuleError, NothingToUndo):
            pass
        state = COUNTING.new_state(["Ann", "Bob"], table.options)
        for event in effective:
            state = COUNTING.apply(state, event)
        assert table.view()["state"] == COUNTING.to_json(state)
        # The countdown runs exactly while the rules ask for one.
        assert (table.countdown.status in ("running", "paused")) == (state["race"] is not None)
    service.close()
    again = TableService(EventStore(path), clock=clock, game_lookup=lookup)
    assert again.get(table.id).view() == table.view()
    again.close()
