"""The best-rotation hint: every play the current player may make now, with what it would take, best first.

Advice on top of the engine: it reads the state and the grid, never changes
them. Shown on the phones with option `hints` (learning games), digital only.
"""
from __future__ import annotations

from typing import Any

from companion.games.quivit import grid as g
from companion.games.quivit.engine import may_claim_free_link, may_double_rotate
from companion.games.quivit.state import State


def best_rotations(state: State) -> list[dict[str, Any]]:
    """Every card and rotation the current player may make, with the points it would take, best first.

    Each entry: {"card": "c3", "direction": "right"|"left"|"double"|"free-link",
    "points", "cards": [...], "count", "colors": [...], "event": the event
    that makes this play}. Empty outside the rotation itself (before Color
    Blocks are resolved and the die is rolled the play is not yet known) and
    when the table keeps score for the real deck (the engine does not know
    that grid).
    """
    if state.phase != "turn" or state.grid is None:
        return []
    side = state.sides[state.current_side]
    player = state.current_player
    found = g.hints(
        state.grid,
        state.blocked,
        color=state.die,
        double_rotate=may_double_rotate(state, side),
        free_link=may_claim_free_link(state, side),
    )
    out = []
    for h in found:
        hint = h.to_json()
        if h.direction == "free-link":
            hint["event"] = {"type": "claim-free-link", "player": player, "card": hint["card"]}
        else:
            hint["event"] = {"type": "rotate", "player": player, "card": hint["card"], "direction": h.direction}
        out.append(hint)
    return out
