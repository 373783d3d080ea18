"""The best-rotation hint: every play the current player may make now, with what it would take, best first.

Advice on top of the engine: it reads the state and the grid, never changes
them. Shown on the phones with option `hints` (learning games), digital only.

Plays are ranked by what they are worth, not by points alone: a play that
spends the Double Rotate card gives up the card's end-of-game draw ("A player
still holding their Double Rotate card at the end of the game may draw a
single card from the draw deck and add the point value on the card to their
final score"), about 1.5 points. So the hint puts a double rotation first only
when it gains more than that over the best play that keeps the card. The
card's other use, claiming free links on later turns, is not counted: the
hint looks at this turn only.
"""
from __future__ import annotations

from typing import Any

from companion.games.quivit import grid as g
from companion.games.quivit.cards import POINT_CARD_COUNTS
from companion.games.quivit.engine import may_claim_free_link, may_double_rotate
from companion.games.quivit.state import State


def best_rotations(state: State) -> list[dict[str, Any]]:
    """Every card and rotation the current player may make, with the points it would take, best first.

    Each entry: {"card": "c3", "direction": "right"|"left"|"double"|"free-link",
    "points", "cards": [...], "count", "colors": [...], "links": the colours
    of the free links a claim scores (a card in two free links has a claim
    for each choice of them, unless option free_link_takes_all), "spends_double_rotate",
    "value": the points less what the Double Rotate card would have been
    worth kept (`double_rotate_worth`) when the play spends it, "event": the
    event that makes this play}. Best first: highest value, then more cards
    (less the kept card when it would count for the tie breaker), then
    reading order. Empty outside the rotation itself (before Color
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
        choose_links=not state.options.free_link_takes_all,
    )
    worth = double_rotate_worth(state)
    ranked = []
    for order, h in enumerate(found):
        hint = h.to_json()
        spends = h.direction == "double" or (h.direction == "free-link" and state.options.free_link_spends_double_rotate)
        value = h.points - (worth if spends else 0)
        hint["spends_double_rotate"] = spends
        hint["value"] = round(value, 2)
        if h.direction == "free-link":
            hint["event"] = {"type": "claim-free-link", "player": player, "card": hint["card"]}
            if h.links != g.free_link_colors(state.grid, state.blocked, h.cell, state.die):
                hint["event"]["colors"] = list(h.links)  # some of the card's free links, not all
        else:
            hint["event"] = {"type": "rotate", "player": player, "card": hint["card"], "direction": h.direction}
        # With option final_draw_counts_as_card the kept card would also be a card for the tie breaker.
        cards = len(h.cells) - (1 if spends and worth and state.options.final_draw_counts_as_card else 0)
        # `found` is already in points, cards, reading order: keep that order among equal values.
        ranked.append((-value, -cards, order, hint))
    return [hint for *_, hint in sorted(ranked, key=lambda r: r[:3])]


def double_rotate_worth(state: State) -> float:
    """The expected end-of-game draw for an unused Double Rotate card: the mean value of the unseen cards.

    Unseen: every point card of the boxes less those taken (and drawn) and
    those lying in the grid; the draw deck is a shuffle of exactly these, so
    its make-up is public even though its order is not. 0 when the draw deck
    is empty (nothing to draw).
    """
    if state.deck_count <= 0:
        return 0.0
    unseen = {v: n * state.options.decks - state.taken_values.get(v, 0) for v, n in POINT_CARD_COUNTS.items()}
    for row in state.grid or ():
        for placed in row:
            if placed is not None:
                unseen[placed.value] -= 1
    count = sum(unseen.values())
    return sum(v * n for v, n in unseen.items()) / count if count > 0 else 0.0
