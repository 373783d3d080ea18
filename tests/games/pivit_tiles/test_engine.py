"""Rounds and scoring: whole games for 2, 3 and 4 players, and every rule the rulebook states."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from companion.games.base import OptionError, RuleError
from companion.games.pivit_tiles.engine import GAME


def play(players, events, options=None):
    state = GAME.new_state(players, options or {})
    for ev in events:
        state = GAME.apply(state, ev)
    return state


def ev(type_, player=None, **kw):
    e = {"type": type_}
    if player is not None:
        e["player"] = player
    e.update(kw)
    return e


GO = ev("start-round")
NEXT = ev("next-round")


def verify(p, valid=True, source="manual"):
    return ev("verify", p, valid=valid, source=source)


# -- 3 and 4 players -------------------------------------------------------------


def test_three_players_use_the_two_highest_sticks():
    s = play(["A", "B", "C"], [GO])
    assert s.centre == [4, 2]


def test_four_players_clean_round_scores_sticks_plus_tokens():
    s = play(["A", "B", "C", "D"], [GO, ev("trade", 2), ev("trade", 2), ev("done", 1), ev("done", 2), ev("done", 0),
                                    verify(0), verify(1), verify(2, source="camera")])
    # B took 4, C 2, A 1; D unable; tokens: everyone 2 but C used both.
    assert s.phase == "scored"
    assert s.scores == [1 + 2, 4 + 2, 2 + 0, 0 + 2]
    assert s.rounds[-1]["sticks"] == [1, 4, 2, None]


def test_done_takes_the_highest_stick_and_return_puts_it_back():
    s = play(["A", "B", "C", "D"], [GO, ev("done", 0), ev("done", 1), ev("return-stick", 0)])
    assert s.holder == {1: 2}
    assert s.centre == [4, 1]
    s = GAME.apply(s, ev("done", 2))
    assert s.holder == {1: 2, 2: 4}  # the highest score is now open to whoever finishes first


def test_incorrect_grid_passes_sticks_down_and_opens_the_race():
    s = play(["A", "B", "C", "D"], [GO, ev("done", 0), ev("done", 1), ev("done", 2), verify(0, False), verify(1), verify(2)])
    assert s.phase == "race"
    assert s.holder == {1: 4, 2: 2}
    assert s.centre == [1]
    assert s.racers == [0, 3]
    assert GAME.timer_request(s) == ("round-1-race", 60)
    s = GAME.apply(s, ev("done", 3))
    s = GAME.apply(s, verify(3))
    assert s.phase == "scored"
    assert s.rounds[-1]["sticks"] == [None, 4, 2, 1]


def test_race_lost_by_both_when_the_timer_runs_out():
    s = play(["A", "B", "C"], [GO, ev("done", 0), ev("done", 1), verify(0, False), verify(1)])
    assert (s.holder, s.centre, s.racers) == ({1: 4}, [2], [0, 2])
    s = GAME.apply(s, ev("timer-expired"))
    assert s.phase == "scored"
    assert s.rounds[-1]["points"] == [2, 6, 2]


def test_race_grid_done_before_the_buzzer_is_still_verified():
    s = play(["A", "B", "C"], [GO, ev("done", 0), ev("done", 1), verify(0, False), verify(1), ev("done", 2),
                               ev("timer-expired")])
    assert s.phase == "race" and s.pending == [2]
    s = GAME.apply(s, verify(2))
    assert s.rounds[-1]["sticks"] == [None, 4, 2]


def test_race_racer_with_a_wrong_grid_keeps_racing():
    s = play(["A", "B", "C"], [GO, ev("done", 0), ev("done", 1), verify(0, False), verify(1), ev("done", 0), verify(0, False)])
    assert s.phase == "race" and 0 in s.racers
    s = GAME.apply(s, ev("done", 0))
    s = GAME.apply(s, verify(0))
    assert s.rounds[-1]["sticks"] == [2, 4, None]


def test_two_incorrect_grids_race_for_both_freed_sticks():
    s = play(["A", "B", "C", "D"], [GO, ev("done", 0), ev("done", 1), ev("done", 2), verify(0, False), verify(1, False), verify(2)])
    assert s.holder == {2: 4}
    assert s.centre == [2, 1]
    assert s.racers == [0, 1, 3]
    s = play(["A", "B", "C", "D"], [GO, ev("done", 0), ev("done", 1), ev("done", 2), verify(0, False), verify(1, False), verify(2),
                                    ev("done", 3), ev("done", 1), verify(3), verify(1)])
    assert s.rounds[-1]["sticks"] == [None, 1, 4, 2]


def test_race_verification_follows_the_order_of_done():
    s = play(["A", "B", "C"], [GO, ev("done", 0), ev("done", 1), verify(0, False), verify(1), ev("done", 2), ev("done", 0)])
    with pytest.raises(RuleError, match="verify C first"):
        GAME.apply(s, verify(0))


@pytest.mark.parametrize(
    "events, bad, message",
    [
        ([], ev("done", 0), "before the round starts"),
        ([GO, ev("done", 0)], ev("done", 0), "already holds the 4 stick"),
        ([GO, ev("done", 0)], ev("trade", 0), "return it before trading"),
        ([GO, ev("trade", 0), ev("trade", 0)], ev("trade", 0), "no trade tokens left"),
        ([GO], ev("return-stick", 1), "holds no scoring stick"),
        ([GO], ev("timer-expired"), "no timer is running"),
        ([GO], ev("done", 7), "no player 7"),
        ([GO], ev("done"), "needs a player"),
        ([GO], ev("fly", 0), "unknown action"),
        ([GO, ev("done", 0), ev("done", 1)], verify(2), "holds no stick"),
        ([GO, ev("done", 0), ev("done", 1)], ev("return-stick", 0), "grids are being verified"),
        ([GO, ev("done", 0), ev("done", 1), verify(0)], verify(0), "already verified"),
        ([GO, ev("done", 0), ev("done", 1)], ev("verify", 0), "valid: true or false"),
        ([GO], ev("leave", 0), "only between rounds"),
        ([GO], GO, "while the round is being played"),
    ],
)
def test_forbidden_actions_three_players(events, bad, message):
    s = play(["A", "B", "C"], events)
    with pytest.raises(RuleError, match=message):
        GAME.apply(s, bad)


# -- 2 players -----------------------------------------------------------------


def test_two_players_incorrect_grid_no_penalty():
    s = play(["A", "B"], [GO, ev("done", 0), verify(0, False)])
    assert s.phase == "playing" and not s.timer_running
    assert GAME.to_json(s)["players"][0]["done"] is False


def test_two_players_second_completes_in_time():
    s = play(["A", "B"], [GO, ev("trade", 1), ev("done", 0), verify(0)])
    assert s.phase == "last-minute" and GAME.timer_request(s) == ("round-1-last-minute", 60)
    s = GAME.apply(s, ev("done", 1))
    s = GAME.apply(s, ev("timer-expired"))  # verification may finish after the buzzer
    s = GAME.apply(s, verify(1))
    assert s.rounds[-1]["points"] == [4 + 2, 2 + 1]


def test_two_players_second_runs_out_of_time():
    s = play(["A", "B"], [GO, ev("trade", 0), ev("done", 0), verify(0), ev("timer-expired")])
    assert s.rounds[-1]["points"] == [4 + 1, 0 + 2]
    with pytest.raises(RuleError, match="scored"):
        GAME.apply(s, ev("done", 1))


def test_two_players_target_is_twenty():
    s = GAME.new_state(["A", "B"], {})
    assert s.options.target == 20
    assert GAME.new_state(["A", "B", "C"], {}).options.target == 24


# -- whole games -----------------------------------------------------------------


def clean_round(order, n):
    """A round where players finish in `order` and every grid is correct."""
    events = [GO] + [ev("done", p) for p in order]
    if n == 2:
        return [GO, ev("done", order[0]), verify(order[0]), ev("done", order[1]), verify(order[1]), NEXT]
    return events + [verify(p) for p in order] + [NEXT]


@pytest.mark.parametrize("n, target", [(2, 20), (3, 24), (4, 24)])
def test_whole_game_ends_at_the_target(n, target):
    players = ["Ana", "Ben", "Cy", "Di"][:n]
    state = GAME.new_state(players, {})
    rounds = 0
    while not GAME.finished(state):
        rounds += 1
        sticks = 2 if n == 3 else 3
        order = [0] + [(rounds + k) % (n - 1) + 1 for k in range(sticks - 1 if n > 2 else 1)]
        for e in clean_round(order, n):
            state = GAME.apply(state, e)
            if GAME.finished(state):
                break
        assert rounds < 20
    assert state.winners == [0]
    assert state.scores[0] >= target
    assert max(state.scores[1:]) < state.scores[0]
    assert state.last.endswith("Ana wins the game!")
    assert GAME.actions(state) == []


def test_tie_at_target_shared_or_played_on():
    events = [GO, ev("done", 0), verify(0), ev("done", 1), verify(1)]
    opts = {"target": 6, "stick_values": [4, 4, 1]}
    s = play(["A", "B"], events, opts)
    assert s.phase == "finished" and s.winners == [0, 1]
    s = play(["A", "B"], events, {**opts, "tie_break": "play-on"})
    assert s.phase == "scored" and "tie" in s.last


def test_leaving_between_rounds():
    s = play(["A", "B", "C"], [GO, ev("done", 0), ev("done", 1), verify(0), verify(1), NEXT, ev("leave", 2), GO])
    assert s.two_player and s.centre == []
    s = play(["A", "B"], [ev("leave", 1)])
    assert s.winners == [0] and GAME.finished(s)


@pytest.mark.parametrize(
    "players, options, message",
    [
        (["A"], {}, "2 to 4 players"),
        (["A", "B", "C", "D", "E"], {}, "2 to 4 players"),
        (["A", "a"], {}, "same name"),
        (["A", "B"], {"stick_values": [1, 2, 4]}, "highest first"),
        (["A", "B"], {"timer_seconds": 0}, "between"),
        (["A", "B"], {"young": "yes"}, "true or false"),
        (["A", "B"], {"colour": 1}, "unknown option"),
        (["A", "B"], {"hints": "maybe"}, "'auto', 'on' or 'off'"),
    ],
)
def test_bad_options(players, options, message):
    with pytest.raises(OptionError, match=message):
        GAME.new_state(players, options)


def test_young_variation_allows_hints_by_default():
    assert GAME.new_state(["A", "B"], {"young": True}).options.hints is True
    assert GAME.new_state(["A", "B"], {}).options.hints is False
    assert GAME.new_state(["A", "B"], {"hints": "on"}).options.hints is True
    assert GAME.new_state(["A", "B"], {"young": True, "hints": "off"}).options.hints is False


# -- properties: replay is deterministic, undo then redo gives the same state ------

EVENT_TYPES = ["start-round", "trade", "done", "return-stick", "verify", "timer-expired", "next-round"]
event_st = st.builds(
    lambda t, p, v: {"type": t, "player": p, "valid": v},
    st.sampled_from(EVENT_TYPES),
    st.integers(0, 3),
    st.booleans(),
)


def fold(players, events):
    state = GAME.new_state(players, {})
    accepted = []
    for e in events:
        try:
            state = GAME.apply(state, e)
        except RuleError:
            continue
        accepted.append(e)
    return state, accepted


@given(st.integers(2, 4), st.lists(event_st, max_size=60))
def test_replay_is_deterministic_and_undo_redo_round_trips(n, events):
    players = ["A", "B", "C", "D"][:n]
    state, accepted = fold(players, events)
    again, _ = fold(players, accepted)
    assert GAME.to_json(again) == GAME.to_json(state)
    if accepted:
        undone, _ = fold(players, accepted[:-1])
        redone = GAME.apply(undone, accepted[-1])
        assert GAME.to_json(redone) == GAME.to_json(state)
    # Scores never go down and every allowed action really applies.
    for action in GAME.actions(state):
        if action["type"] == "verify":
            action = {**action, "valid": True}
        GAME.apply(state, action)


@given(st.integers(2, 4), st.lists(event_st, max_size=40))
def test_apply_never_mutates_its_input(n, events):
    state = GAME.new_state(["A", "B", "C", "D"][:n], {})
    for e in events:
        before = GAME.to_json(state)
        try:
            new = GAME.apply(state, e)
        except RuleError:
            assert GAME.to_json(state) == before
            continue
        assert GAME.to_json(state) == before
        state = new
