"""Fixtures for the Scrabble Junior tests: the standard board, positions set up square by square,
and simple computer players (seeded random and greedy) that pick only among the events `actions` lists."""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from types import SimpleNamespace

import pytest

from companion.games.scrabble_junior.engine import State
from companion.games.scrabble_junior.game import GAME
from companion.games.scrabble_junior.layout import builtin_layout
from companion.games.scrabble_junior.rules import completed_words


@pytest.fixture
def board():
    return builtin_layout("standard")


@pytest.fixture
def position():
    """Build a digital-tiles position like a FEN: covered squares, racks, and the pool's first tiles.

    ``position(covered=["Je", "Ke"], racks=["WCT", "BOY"], pool_front="EE")``:
    racks are given as letter strings, one per player; the pool holds every
    other tile (pool_front first, then the rest in a seeded order), so the
    tiles still add up to the board's 101 letters. Words already complete are
    credited to player 0. Raises AssertionError if the letters do not add up.
    """

    def build(
        covered=(),
        racks=("", ""),
        pool_front="",
        player=0,
        pool_size=None,
        tiles="digital",
        **options,
    ) -> State:
        names = ["Ana", "Bo", "Cy", "Di"][: len(racks)]
        state = GAME.new_state(names, {"tiles": tiles, "auto_pass": False, **options})
        layout = state.setup.layout
        cells = frozenset(layout.cell_at(c) for c in covered)
        left = layout.tiles - Counter(layout.letters[c] for c in cells)
        for rack in racks:
            assert not Counter(rack) - left, f"no tiles left for rack {rack}"
            left -= Counter(rack)
        assert not Counter(pool_front) - left, f"no tiles left for pool {pool_front}"
        left -= Counter(pool_front)
        rest = sorted(left.elements())
        random.Random(7).shuffle(rest)
        pool = tuple(pool_front) + tuple(rest)
        if pool_size is not None:
            pool = pool[:pool_size]  # the rest are out of the game (for short-pool tests)
        done = completed_words(layout, cells)
        completed_by = [None] * len(layout.words)
        for w in done:
            completed_by[w] = 0
        state = replace(
            state,
            covered=cells,
            placements=tuple((c, 0, 0) for c in sorted(cells)),
            completed_by=tuple(completed_by),
            chips=(len(done),) + (0,) * (len(racks) - 1),
            racks=tuple(tuple(sorted(r)) for r in racks) if tiles == "digital" else None,
            rack_counts=tuple(len(r) for r in racks),
            pool=pool if tiles == "digital" else None,
            pool_count=len(pool),
            player=player,
        )
        return state

    return build


def random_event(state, rng: random.Random) -> dict:
    """One allowed event, chosen with `rng`."""
    action = rng.choice(GAME.actions(state))
    event = {"type": action["type"], "player": action["player"]}
    if action["type"] == "cover":
        event["cell"] = rng.choice(action["cells"])
    elif action["type"] == "exchange" and state.racks is not None:
        event["tiles"] = rng.sample(list(state.racks[state.player]), action["count"])
    return event


def greedy_event(state, rng: random.Random) -> dict:
    """Complete the most words; among equals, avoid opening a word for the next player."""
    view = GAME.to_json(state)
    if view["playable"]:
        best = max(view["playable"], key=lambda p: (len(p["completes"]), -len(p["opens"]), rng.random()))
        return {"type": "cover", "player": state.player, "cell": best["cell"]}
    return random_event(state, rng)


def play_out(state, chooser, rng: random.Random, limit: int = 2000):
    """Apply chosen events until the game ends; returns (final state, events)."""
    events = []
    while not GAME.finished(state):
        assert len(events) < limit, "the game did not end"
        event = chooser(state, rng)
        events.append(event)
        state = GAME.apply(state, event)
    return state, events


@pytest.fixture(scope="session")
def bots():
    """The computer players: ``bots.random``, ``bots.greedy`` and ``bots.play_out``."""
    return SimpleNamespace(random=random_event, greedy=greedy_event, play_out=play_out)
