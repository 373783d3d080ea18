"""Hypothesis properties of the engine: replay is deterministic, tiles are conserved, chips add up.

Games are driven by the `bots.random` player (seeded random choices among
the events `actions` lists); every position along the way is checked by `check_books`, which
recomputes the bookkeeping independently of the engine.
"""
from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.base import RuleError
from companion.games.scrabble_junior.engine import RACK_SIZE
from companion.games.scrabble_junior.game import GAME

games = st.tuples(
    st.integers(0, 2**32),  # option seed
    st.integers(2, 4),  # players
    st.sampled_from(["digital", "real"]),
    st.integers(0, 2**32),  # the players' choices
)


def new_game(seed, count, tiles):
    return GAME.new_state(["Ana", "Bo", "Cy", "Di"][:count], {"seed": seed, "tiles": tiles})


def check_books(state):
    layout = state.setup.layout
    covered = state.covered
    # Tile conservation: rack + pool + board = every tile, by count and (digital) by letter.
    assert sum(state.rack_counts) + state.pool_count + len(covered) == layout.size == 101
    if state.racks is not None:
        assert [len(r) for r in state.racks] == list(state.rack_counts)
        assert len(state.pool) == state.pool_count
        every = Counter(state.pool) + Counter(layout.letters[c] for c in covered)
        for rack in state.racks:
            every += Counter(rack)
        assert every == layout.tiles
    # Chips: one per completed word, never more, the kitty gives them out.
    complete = {w for w, word in enumerate(layout.words) if all(c in covered for c in word.cells)}
    assert {w for w, by in enumerate(state.completed_by) if by is not None} == complete
    assert sum(state.chips) == len(complete) <= len(layout.words)
    for p, chips in enumerate(state.chips):
        assert chips == sum(1 for by in state.completed_by if by == p)
    assert sum(len(t.words) for t in state.history) + len(state.this_turn_words) == sum(state.chips)
    assert state.kitty == 44 - sum(state.chips) >= 0
    # Letters in order: each tile, when placed, had every earlier letter of some word covered.
    seen = set()
    for cell, _player, _turn in state.placements:
        assert cell not in seen
        assert any(
            all(c in seen for c in layout.words[w].cells[: layout.words[w].cells.index(cell)])
            for w in layout.cell_words[cell]
        )
        seen.add(cell)
    assert seen == covered
    # Draw back to seven: while the pool has tiles every rack is full, but mid-turn.
    if state.pool_count:
        for p, count in enumerate(state.rack_counts):
            assert count == RACK_SIZE - (len(state.this_turn) if p == state.player else 0)
    # At most two tiles a turn.
    assert all(len(t.cells) <= 2 for t in state.history) and len(state.this_turn) < 2


@given(games, st.integers(1, 250))
def test_books_balance_and_replay_is_deterministic(bots, game, steps):
    seed, count, tiles, choices = game
    rng = random.Random(choices)
    state = new_game(seed, count, tiles)
    states, events = [state], []
    check_books(state)
    for _ in range(steps):
        if GAME.finished(state):
            break
        event = bots.random(state, rng)
        state = GAME.apply(state, event)
        check_books(state)
        states.append(state)
        events.append(event)
    # Replaying the log gives the same states; since each earlier state is
    # compared after all later events were applied, apply mutated nothing.
    again = new_game(seed, count, tiles)
    assert again == states[0]
    for event, expected in zip(events, states[1:]):
        again = GAME.apply(again, event)
        assert again == expected
    assert GAME.to_json(again) == GAME.to_json(state)


@given(games, st.integers(0, 150), st.integers(0, 100))
def test_a_cover_is_accepted_exactly_when_actions_lists_it(bots, game, steps, square):
    seed, count, tiles, choices = game
    rng = random.Random(choices)
    state = new_game(seed, count, tiles)
    for _ in range(steps):
        if GAME.finished(state):
            return
        state = GAME.apply(state, bots.random(state, rng))
    layout = state.setup.layout
    name = layout.name_of(square)
    listed = [a for a in GAME.actions(state) if a["type"] == "cover"]
    allowed = bool(listed) and name in listed[0]["cells"]
    try:
        after = GAME.apply(state, {"type": "cover", "player": state.player, "cell": name})
    except RuleError:
        assert not allowed
    else:
        assert allowed
        assert layout.cell_at(name) in after.covered


@settings(max_examples=50)
@given(games)
def test_random_games_end_with_every_tile_on_the_board(bots, game):
    seed, count, tiles, choices = game
    rng = random.Random(choices)
    state = new_game(seed, count, tiles)
    for _ in range(2000):
        if GAME.finished(state):
            break
        state = GAME.apply(state, bots.random(state, rng))
    check_books(state)
    assert GAME.finished(state) and len(state.covered) == 101
    assert sum(state.chips) == 28 and state.kitty == 16
    assert state.rack_counts == (0,) * count and state.pool_count == 0
    view = GAME.to_json(state)
    assert view["winners"] == [p for p in range(count) if state.chips[p] == max(state.chips)]
