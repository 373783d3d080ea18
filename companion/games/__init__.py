"""The game engines, one package each, and the registry the table service uses.

Engines are pure: they import nothing from the rest of the project. The
service looks a game up by its id and gets an object following
`companion.games.base.Game`.
"""
from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a return annotation only: the Protocols cost 3-5 ms to import, which a photo read would pay
    from companion.games.base import Game

# game id -> module that defines GAME; imported only when a table needs it.
GAME_MODULES: dict[str, str] = {
    "pivit-tiles": "companion.games.pivit_tiles.engine",
    "quivit": "companion.games.quivit.game",
    "pivit-board": "companion.games.pivit_board.engine",
    "scrabble-junior": "companion.games.scrabble_junior.game",
}


def available_games() -> list[str]:
    """Game ids whose engine is installed, in registry order."""
    found = []
    for game_id, module in GAME_MODULES.items():
        if importlib.util.find_spec(module.rsplit(".", 1)[0]) is not None:
            try:
                importlib.import_module(module)
            except ImportError:
                continue
            found.append(game_id)
    return found


def get_game(game_id: str) -> Game:
    """The engine for `game_id`. Raises KeyError naming the unknown game."""
    try:
        module = GAME_MODULES[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}; known: {', '.join(GAME_MODULES)}") from None
    return importlib.import_module(module).GAME
