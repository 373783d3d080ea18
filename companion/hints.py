"""Hints for a stuck Pivit player: can my hand be arranged, and if not, what should I trade?

The table option `hints` (on by default in the younger-players variation)
lets a player enter their tiles on their phone, by hand or from a photo of
the loose tiles, and see either an arrangement or the trade advice of
`companion.games.pivit_tiles.advisor`. The hint itself changes nothing at the
table; following its advice is an ordinary `trade` event.

The solver and the advisor are imported on the first hint, never at start-up.
"""
from __future__ import annotations

from typing import Any

from companion.errors import InputError

MAX_HAND = 40  # more tiles than any hand holds: refuse before any work is done


class HintRefused(Exception):
    """The table does not allow a hint now; `status` is the HTTP status that fits."""

    def __init__(self, message: str, status: int = 409):
        super().__init__(message)
        self.status = status


def hint_rules(table) -> tuple[str, bool, Any]:
    """(tileset, young, options) of a Pivit tile table that allows hints. Raises HintRefused."""
    if table.game.id != "pivit-tiles":
        raise HintRefused("hints are for the Pivit tile game")
    options = table.state.options
    if not options.hints:
        raise HintRefused("this table does not allow hints (table option 'hints')", 403)
    return options.tileset, options.young, options


def parse_hand_tiles(tiles: Any, tileset: str) -> list[str]:
    """The hand a phone sent: a list of tiles like ["3G", "**"]. Raises InputError naming the bad one."""
    from companion.games.pivit_tiles.tiles import TileError, parse_tile

    if not isinstance(tiles, list) or not tiles:
        raise InputError("'tiles' must be a list of the tiles in your hand, like [\"3G\", \"1R\", \"**\"]")
    if len(tiles) > MAX_HAND:
        raise InputError(f"a hand of {len(tiles)} tiles? Pivit hands hold 24")
    hand = []
    for i, tile in enumerate(tiles):
        if not isinstance(tile, str):
            raise InputError(f"tile {i + 1} is not a tile like 3G")
        try:
            hand.append(parse_tile(tile, tileset))
        except TileError as exc:
            raise InputError(f"tile {i + 1}: {exc}") from None
    return hand


def hint(table, player: int, tiles: Any) -> dict[str, Any]:
    """The hint for `player`'s hand at `table`: an arrangement, or trade advice for the tokens left.

    Raises HintRefused (hints off, another game, no such player) and
    InputError (a bad hand, or one a box cannot hold).
    """
    from companion.games.pivit_tiles.advisor import AdviceError, advise
    from companion.games.pivit_tiles.grid import grid_str, normalise

    tileset, young, _ = hint_rules(table)
    if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < len(table.players):
        raise InputError(f"there is no player {player!r} at this table")
    hand = parse_hand_tiles(tiles, tileset)
    tokens = table.state.tokens[player]
    trades = max(0, min(2, tokens))
    try:
        advice = advise(hand, tileset, young=young, trades=trades)
    except AdviceError as exc:
        raise InputError(str(exc)) from None
    return {
        "player": player,
        "tiles": len(hand),
        "playable": advice.playable,
        "grid": grid_str(advice.grid) if advice.grid is not None else None,
        # The same arrangement as data, for drawing: 0-based row and column from the top-left.
        "cells": None if advice.grid is None else [
            {"row": r, "col": c, "tile": t} for (r, c), t in sorted(normalise(advice.grid).items())],
        "trades_left": trades,
        "advice": [a.to_json() for a in advice.advice],
        "p_two_exact": advice.p_two_exact,
        "unknown": advice.unknown,
        # False when the solver ran out of time on the hand itself: "not playable" is then a guess.
        "certain": not advice.root_unknown,
        "elapsed_ms": round(advice.elapsed_ms, 1),
    }
