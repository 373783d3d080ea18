"""What the phones see of a Quivit table: the JSON state and the legal actions with their targets.

A phone page draws everything from these two alone: the grid (each card's
colours as it lies now, value, orientation, block, new-this-refresh), free
links, scores and cards per side, whose turn it is and who rotates in a
Family Play team, the die, the timer, the draw deck, the last turn and the
whole turn history, the winners, and one action per button with the places
and directions it may target.
"""
from __future__ import annotations

from copy import deepcopy
from typing import Any

from companion.games.quivit import grid as g
from companion.games.quivit.cards import COLOR_NAMES, COLORS, POINT_CARD_COUNTS, POINT_CARDS, card_str, cell_str
from companion.games.quivit.engine import (
    MAX_TAKE,
    may_block,
    may_claim_free_link,
    may_double_rotate,
    standings,
    takeable_count,
    tie_break_cards,
)
from companion.games.quivit.hints import best_rotations
from companion.games.quivit.state import State


def state_json(s: State) -> dict[str, Any]:
    """Everything a phone needs to draw the table, as JSON-able data."""
    o = s.options
    current_side = s.current_side
    current_player = s.current_player
    side_of = {p: i for i, side in enumerate(s.sides) for p in side.members}
    order = standings(s)
    ranks = _ranks(s, order)
    played = set(s.round_order()[: s.turn_in_round]) if s.phase not in ("final-draw", "game-over") else set()
    out: dict[str, Any] = {
        "game": "quivit",
        "mode": o.mode,
        "phase": s.phase,
        "round": min(s.round, _last_round(s)),
        "rounds": o.rounds,
        "extra_round": s.extra_round and s.phase not in ("final-draw", "game-over"),
        "turn": s.turn_number,
        "turn_in_round": s.turn_in_round,
        "round_first": s.round_first if s.phase not in ("final-draw", "game-over") else None,
        "round_order": s.round_order(),
        "current": None
        if current_side is None
        else {
            "side": current_side,
            "side_name": s.sides[current_side].name,
            "player": current_player,
            "name": s.players[current_player],  # type: ignore[index]
        },
        "options": o.to_json(),
        "players": [{"name": name, "side": side_of[i]} for i, name in enumerate(s.players)],
        "sides": [
            {
                "name": side.name,
                "members": list(side.members),
                "score": side.score,
                "cards": tie_break_cards(s, i),  # the cards that count for the tie breaker
                "values": {str(v): _counted_values(s, i).count(v) for v in POINT_CARD_COUNTS},
                "pending_points": sum(side.pending),
                "pending_cards": len(side.pending),
                "holds_block": side.holds_block,
                "holds_double_rotate": side.holds_double_rotate,
                "final_draw": side.final_draw,
                "draw_decided": side.draw_decided,
                "next_player": side.next_member,
                "played_this_round": i in played,
                "rank": ranks[i],
            }
            for i, side in enumerate(s.sides)
        ],
        "grid": _grid_json(s),
        "grid_count": s.grid_count,
        "takeable": takeable_count(s),
        "blocked": sorted(cell_str(c) for c in s.blocked),
        "blocked_count": s.blocked_count,
        "deck": {"remaining": s.deck_count, "total": POINT_CARDS * o.decks},
        "free_links": _free_links_json(s),
        "die": s.die,
        "die_name": COLOR_NAMES.get(s.die) if s.die else None,
        "timer": _timer_json(s),
        "hints": best_rotations(s) if o.hints else None,
        # Copies: whatever the service does with the JSON must not reach the state.
        "last_turn": deepcopy(s.history[-1]) if s.history else None,
        "history": deepcopy(list(s.history)),
        "last": s.last,
        "finished": s.phase == "game-over",
        "end_reason": s.end_reason or None,
        "uncounted_cards": s.uncounted,
        "uncounted_points": s.uncounted_points,
        # The service's history and chart read players: "scores" has each player's side's score,
        # "winners" every player of a winning side (Family Play: the whole team); the sides
        # themselves are in "winning_sides".
        "scores": [s.sides[side_of[i]].score for i in range(len(s.players))],
        "winners": [p for i in s.winners for p in sorted(s.sides[i].members)],
        "winning_sides": list(s.winners),
        "standings": [
            {"side": i, "name": s.sides[i].name, "score": s.sides[i].score, "cards": tie_break_cards(s, i), "rank": ranks[i]}
            for i in order
        ],
    }
    return out


def _last_round(s: State) -> int:
    # After the last round the counter has moved past it; show the round that was played.
    return s.round if s.phase not in ("final-draw", "game-over") else max(1, s.round - (1 if s.turn_in_round == 0 else 0))


def _ranks(s: State, order: list[int]) -> list[int]:
    ranks = [0] * len(s.sides)
    previous = None
    rank = 0
    for position, i in enumerate(order, start=1):
        key = (s.sides[i].score, tie_break_cards(s, i))
        if key != previous:
            rank = position
            previous = key
        ranks[i] = rank
    return ranks


def _counted_values(s: State, index: int) -> tuple[int, ...]:
    side = s.sides[index]
    if side.final_draw is not None and s.options.final_draw_counts_as_card:
        return side.scored + (side.final_draw,)
    return side.scored


def _grid_json(s: State) -> list[list[dict[str, Any]]] | None:
    if s.grid is None:
        return None
    rows = []
    for r, row in enumerate(s.grid):
        cells = []
        for c, placed in enumerate(row):
            cell = {"cell": cell_str((r, c)), "row": r, "col": c, "blocked": (r, c) in s.blocked}
            if placed is None:
                cell.update(empty=True, card=None, colors=None, value=None, turns=None, new=False)
            else:
                cell.update(
                    empty=False,
                    card=card_str(placed.card, placed.turns),
                    colors=list(placed.colors),  # clockwise from the top-left, as it lies now
                    value=placed.value,
                    turns=placed.turns,  # quarter turns clockwise: which way the printed value faces
                    new=(r, c) in s.refilled,
                )
            cells.append(cell)
        rows.append(cells)
    return rows


def _free_links_json(s: State) -> list[dict[str, Any]]:
    if s.grid is None:
        return []
    return [
        {
            "corner": [fl.corner[0], fl.corner[1]],
            "color": fl.color,
            "color_name": COLOR_NAMES[fl.color],
            "cards": [cell_str(c) for c in fl.cells],
        }
        for fl in g.free_links(s.grid, s.blocked)
    ]


def _timer_json(s: State) -> dict[str, Any]:
    running = s.options.timed and s.phase in ("color-die", "turn")
    return {
        "timed": s.options.timed,
        "seconds": s.options.timer_seconds,
        "running": running,
        "key": f"quivit-turn-{s.turn_number}" if running else None,
    }


def legal_actions(s: State) -> list[dict[str, Any]]:
    """The events the rules allow now, one per button, with the targets a page needs to build them.

    Each is a dict like an event ({"type", "player"}) plus, where the event
    needs more, what it may contain: "cards" (places), "directions", "values",
    "max_cards", "colors", "may_double_rotate", "may_claim_free_link", and
    for claim-free-link "links" (each card's free links by colour) and
    "may_choose" (whether a claim may name some of them in "colors"). The
    service's timer sends timer-expired; it is not listed.
    """
    if s.phase == "game-over":
        return []
    if s.phase == "final-draw":
        out = []
        for side in s.sides:
            if side.holds_double_rotate and not side.draw_decided:
                for p in side.members:
                    draw: dict[str, Any] = {"type": "draw", "player": p}
                    if s.grid is None:
                        draw["values"] = _values_left(s)
                    out += [draw, {"type": "skip-draw", "player": p}]
        return out
    current = s.current_player
    side = s.sides[s.current_side]  # type: ignore[index]
    if s.phase == "color-blocking":
        targets = _block_targets(s)
        out = []
        if takeable_count(s) > 0:
            for index, holder in enumerate(s.sides):
                if may_block(s, index):
                    for p in holder.members:
                        action: dict[str, Any] = {"type": "block", "player": p}
                        if targets is not None:
                            action["cards"] = targets
                        out.append(action)
        out.append({"type": "start-turn", "player": current})
        return out
    if s.phase == "color-die":
        roll: dict[str, Any] = {"type": "roll", "player": current}
        if s.grid is None:
            roll["colors"] = list(COLORS)  # the real die's colour may be entered; leave it out for a service roll
        return [roll]
    # phase "turn"
    double = may_double_rotate(s, side)
    claim = may_claim_free_link(s, side)
    if s.grid is None:
        left = _cards_left(s)
        return [
            {
                "type": "take",
                "player": current,
                "values": [v for v, n in left.items() if n > 0],
                "values_left": {str(v): n for v, n in left.items()},  # cards of each value not yet taken
                "max_cards": min(MAX_TAKE, takeable_count(s), sum(left.values())),
                "may_double_rotate": double,
                "may_claim_free_link": claim,
            }
        ]
    out = [
        {
            "type": "rotate",
            "player": current,
            "cards": [cell_str(c) for c in g.rotatable(s.grid, s.blocked)],
            "directions": ["right", "left"] + (["double"] if double else []),
        }
    ]
    if claim:
        cells = g.free_link_cells(s.grid, s.blocked, s.die)
        if cells:
            out.append(
                {
                    "type": "claim-free-link",
                    "player": current,
                    "cards": [cell_str(c) for c in cells],
                    "links": {cell_str(c): list(g.free_link_colors(s.grid, s.blocked, c, s.die)) for c in cells},
                    "may_choose": not s.options.free_link_takes_all,
                }
            )
    return out


def _block_targets(s: State) -> list[str] | None:
    if s.grid is None:
        return None  # scorekeeping: the place is optional and the engine does not know the grid
    return [cell_str(c) for c in g.rotatable(s.grid, s.blocked)]


def _cards_left(s: State) -> dict[int, int]:
    return {v: n * s.options.decks - s.taken_values.get(v, 0) for v, n in POINT_CARD_COUNTS.items()}


def _values_left(s: State) -> list[int]:
    return [v for v, n in _cards_left(s).items() if n > 0]
