"""Whole Quivit games through `apply`: 2, 3 and 4 players and Family Play, both ways to play, any mix
of optional rules, with the engine's invariants checked after every event and the log replayed."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.quivit.cards import POINT_CARDS
from companion.games.quivit.game import GAME

NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"]

rules = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 10**6),
        "random_color": st.booleans(),
        "color_blocking": st.booleans(),
        "timed": st.booleans(),
        "drain_the_deck": st.booleans(),
        "drain_short_grid": st.sampled_from(["end", "play-on"]),
        "double_rotation": st.booleans(),
        "free_link_spends_double_rotate": st.booleans(),
        "free_link_takes_all": st.booleans(),
        "final_draw_counts_as_card": st.booleans(),
        "current_player_may_block": st.booleans(),
        "hints": st.booleans(),
    }
)


def check(state, events):
    """The invariants that hold after every event of every game."""
    view = GAME.to_json(state)
    assert json.loads(json.dumps(view)) == view
    o = state.options
    total = POINT_CARDS * o.decks
    # Every card is in exactly one place: the draw deck, the grid, or out (taken, kept apart, drawn).
    assert state.deck_count + state.grid_count + sum(state.taken_values.values()) == total
    assert 0 <= state.deck_count and 0 <= state.grid_count <= 25
    assert state.blocked_count <= 6 * o.decks and len(state.blocked) <= state.blocked_count
    taken_ids = [c["id"] for turn in state.history for c in turn["cards"]]
    if state.grid is not None:
        in_grid = [p.serial for row in state.grid for p in row if p is not None]
        assert state.grid_count == len(in_grid) and state.deck_count == len(state.deck)
        everything = in_grid + list(state.deck) + taken_ids
        assert sorted(everything) == list(range(total))  # no card counted twice, none lost
        assert all(state.grid[r][c] is not None for r, c in state.blocked)
    # Scores are the cards' values; kept-apart and uncounted cards are the rest of what turns took.
    won = sum(v for turn in state.history for v in turn["values"])
    assert won == sum(s.score for s in state.sides) + sum(sum(s.pending) for s in state.sides) + state.uncounted_points
    for side, shown in zip(state.sides, view["sides"]):
        assert shown["score"] == sum(side.scored) + (side.final_draw or 0)
        drawn_card = side.final_draw is not None and o.final_draw_counts_as_card
        assert shown["cards"] == len(side.scored) + drawn_card == sum(shown["values"].values())
        assert not (side.holds_block and not o.color_blocking)
    # Only the other sides may Color Block before a turn, unless the option lets the current one.
    blockers = {state.side_of(a["player"]) for a in GAME.actions(state) if a["type"] == "block"}
    assert o.current_player_may_block or state.current_side not in blockers
    # The timer runs exactly while a Timed turn is open.
    running = o.timed and state.phase in ("color-die", "turn")
    assert (GAME.timer_request(state) is not None) == running
    actions = GAME.actions(state)
    assert GAME.finished(state) == (state.phase == "game-over") == (actions == [])
    if GAME.finished(state):
        best = max((s.score, s.cards) for s in state.sides)
        sides = [i for i, s in enumerate(state.sides) if (s.score, s.cards) == best]
        assert view["winning_sides"] == sides
        assert view["winners"] == [p for i in sides for p in sorted(state.sides[i].members)]
    else:
        assert state.phase in ("color-blocking", "color-die", "turn", "final-draw")
    if view["hints"] is not None:
        assert all(h["value"] <= view["hints"][0]["value"] for h in view["hints"])
        assert all(h["value"] == h["points"] or h["spends_double_rotate"] for h in view["hints"])
    return view, actions


def play_through(state, pick, coin, to_event, max_events=3000):
    """Play to the end, choices made by `pick(options)` and `coin()`; return the final state and the log."""
    events = []
    while not GAME.finished(state):
        assert len(events) < max_events, "the game does not end"
        view, actions = check(state, events)
        # Every listed action is allowed as it stands (first target of each).
        for action in actions:
            GAME.apply(state, to_event(action, lambda opts: list(opts)[0]))
        if GAME.timer_request(state) and coin() and coin() and coin():
            event = {"type": "timer-expired"}
        elif view["hints"] and coin():
            event = view["hints"][0]["event"]  # a player who follows the hint
        else:
            event = to_event(pick(actions), pick)
        after = GAME.apply(state, event)
        assert GAME.to_json(state) == view  # apply never changes its input
        state = after
        events.append(event)
    check(state, events)
    return state, events


def drawn_by(data):
    """`pick` and `coin` drawing from hypothesis, so failures shrink and replay."""
    return (lambda options: data.draw(st.sampled_from(list(options)))), (lambda: data.draw(st.booleans()))


def replayed(players, options, events):
    state = GAME.new_state(players, options)
    for event in events:
        state = GAME.apply(state, event)
    return state


@settings(max_examples=40)
@given(players=st.integers(2, 4), mode=st.sampled_from(["digital", "scorekeeping"]), options=rules, data=st.data())
def test_whole_games_with_any_mix_of_optional_rules(players, mode, options, data, to_event):
    names = NAMES[:players]
    options = {**options, "mode": mode}
    state, events = play_through(GAME.new_state(names, options), *drawn_by(data), to_event)
    view = GAME.to_json(state)
    assert view["finished"] and view["winners"]
    assert len([t for t in view["history"] if t["action"] != "final-draw"]) >= 5 * players or view["end_reason"] in (
        "no card is left in the grid to rotate",
    )
    # Replay is deterministic, and undo (replay without the last event) gives the state before it.
    assert GAME.to_json(replayed(names, options, events)) == view
    before_last = replayed(names, options, events[:-1])
    assert GAME.to_json(GAME.apply(before_last, events[-1])) == view


@settings(max_examples=20)
@given(players=st.integers(3, 6), data=st.data(), options=rules)
def test_whole_family_play_games(players, data, options, to_event):
    names = NAMES[:players]
    order = data.draw(st.permutations(range(players)))
    cut = data.draw(st.integers(1, min(4, players - 1)))
    teams = [list(order[:cut]), list(order[cut:])]
    if len(teams[1]) > 4:
        teams = [teams[0], teams[1][:2], teams[1][2:]]
    options = {
        **options,
        "mode": data.draw(st.sampled_from(["digital", "scorekeeping"])),
        "family_play": True,
        "teams": teams,
    }
    state = GAME.new_state(names, options)
    state, events = play_through(state, *drawn_by(data), to_event)
    # Each team's members took turns in their listed order.
    for index, team in enumerate(teams):
        movers = [t["player"] for t in state.history if t["side"] == index and t["action"] != "final-draw"]
        assert movers == [team[k % len(team)] for k in range(len(movers))]
    assert GAME.to_json(replayed(names, options, events)) == GAME.to_json(state)


@settings(max_examples=10)
@given(st.integers(2, 4), st.integers(0, 10**6))
def test_the_same_seed_deals_the_same_game(players, seed):
    names = NAMES[:players]
    a = GAME.new_state(names, {"seed": seed})
    b = GAME.new_state(names, {"seed": seed})
    for _ in range(3 * players):
        event = GAME.hints(a)[0]["event"]
        a, b = GAME.apply(a, event), GAME.apply(b, event)
        assert GAME.to_json(a) == GAME.to_json(b)


MIXES = {
    "no optional rule": {},
    "every optional rule": {
        "random_color": True,
        "color_blocking": True,
        "timed": True,
        "drain_the_deck": True,
        "double_rotation": True,
        "hints": True,
    },
    "drain and double rotation": {"drain_the_deck": True, "double_rotation": True, "drain_short_grid": "play-on"},
    "color, blocks and timer": {"random_color": True, "color_blocking": True, "timed": True, "timer_seconds": 20},
}


@pytest.mark.parametrize("mix", sorted(MIXES))
@pytest.mark.parametrize("mode", ["digital", "scorekeeping"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_whole_games_table(players, mode, mix, to_event):
    rng = random.Random(f"{players}-{mode}-{mix}")
    names = NAMES[:players]
    options = {"seed": rng.randrange(10**6), "mode": mode, **MIXES[mix]}
    state, events = play_through(GAME.new_state(names, options), rng.choice, lambda: rng.random() < 0.5, to_event)
    view = GAME.to_json(state)
    assert view["finished"]
    played = [t for t in view["history"] if t["action"] != "final-draw"]
    assert len(played) >= 5 * players
    assert len(played) % players == 0 or view["uncounted_cards"] or "no card" in view["end_reason"]
    if MIXES[mix].get("double_rotation"):
        unused = [s for s in state.sides if s.holds_double_rotate]
        assert all(s.draw_decided for s in unused) or state.deck_count == 0
    assert GAME.to_json(replayed(names, options, events)) == view
