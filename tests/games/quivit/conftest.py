"""Helpers for the Quivit tests: a table with a chosen grid, and turning listed actions into events."""
from __future__ import annotations

from dataclasses import replace

import pytest

from companion.games.quivit.game import GAME
from companion.games.quivit.grid import parse_grid

# c3 (GYBR2) is about to be rotated right, making it RGYB: green top-right,
# yellow bottom-right. d3 (3) takes the green, d2 (3) joins through d3's green
# square, c4 (2) takes the yellow. b2's red square meets c3's red one only at
# a corner; d3's yellow link to e3 does not reach c3.
TEN_POINT_PLAY = """
BGRY1 RBGY1 YBRG2 GBYR1 BRGY1
RGBY1 GYRB1 GBRY1 RYBG3 GRYB2
YRGB2 RGYB1 GYBR2 GYRB3 YBGR1
BYGR1 GRBY2 RYGB2 GRYB1 RYBG1
GYBR1 BRGY1 YGRB1 BGYR2 RBGY1
"""

# A green free link at c3's top-left corner (b2 c2 b3 c3) and a yellow one at
# its top-right corner (c2 d2 c3 d3); c3 is the selected card.
ELEVEN_POINT_PLAY = """
BGRY1 RBGY1 YBRG2 GBYR1 BRGY1
RGBY1 RYGB1 RBYG2 GRBY1 GRYB2
YRGB2 RGYB2 GYRB3 YRGB2 YBGR1
BYGR1 GRBY2 YGBR1 GRYB1 RYBG1
GYBR1 BRGY1 YGRB1 BGYR2 RBGY1
"""

NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


def table_with_grid(grid_text: str, players: int = 2, **options):
    """A digital table whose grid is `grid_text` (as written in the rulebook examples), first turn open."""
    state = GAME.new_state(NAMES[:players], {"seed": 1, **options})
    grid, blocked = parse_grid(grid_text)
    # Serials must not clash with the deck's card ids: number the example's cards past them.
    offset = 10_000
    grid = tuple(
        tuple(None if p is None else replace(p, serial=p.serial + offset) for p in row) for row in grid
    )
    return replace(state, grid=grid, blocked=blocked, blocked_count=len(blocked), refilled=frozenset())


def concrete(action: dict, pick) -> dict:
    """An event for a listed action; `pick(options)` chooses among its targets."""
    event = {"type": action["type"]}
    if "player" in action:
        event["player"] = action["player"]
    kind = action["type"]
    if kind in ("rotate", "claim-free-link"):
        event["card"] = pick(action["cards"])
    if kind == "claim-free-link" and action["may_choose"] and pick([False, True]):
        event["colors"] = [pick(action["links"][event["card"]])]  # one of the card's free links
    if kind == "rotate":
        event["direction"] = pick(action["directions"])
    if kind == "block" and "cards" in action:
        event["card"] = pick(action["cards"])
    if kind == "take":
        top = action["max_cards"]
        sizes = [0] + [n for n in range(2, top + 1)]
        count = pick(sizes)
        free = action["may_claim_free_link"] and count >= 4 and pick([False, True])
        double = action["may_double_rotate"] and not free and pick([False, True])
        left = {int(v): n for v, n in action["values_left"].items()}
        cards = []
        for _ in range(count):
            value = pick([v for v in action["values"] if left[v] > 0])
            left[value] -= 1
            cards.append(value)
        event["cards"] = cards
        event["double_rotate"] = double
        event["free_link"] = free
    if kind == "roll" and "colors" in action:
        event["color"] = pick([None, *action["colors"]])
        if event["color"] is None:
            del event["color"]
    if kind == "draw" and "values" in action:
        event["value"] = pick(action["values"])
    return event


@pytest.fixture(scope="session")
def game():
    return GAME


@pytest.fixture(scope="session")
def make_table():
    """`make_table(grid_text, players=2, **options)`: see `table_with_grid`."""
    return table_with_grid


@pytest.fixture(scope="session")
def to_event():
    """`to_event(action, pick)`: see `concrete`."""
    return concrete


@pytest.fixture(scope="session")
def ten_point_play():
    return TEN_POINT_PLAY


@pytest.fixture(scope="session")
def eleven_point_play():
    return ELEVEN_POINT_PLAY
