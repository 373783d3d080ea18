"""`GAME`, the Scrabble Junior object the table service runs: the engine's rules with the phones' view.

It sits on top of the package (see `companion.games.base.Game`): the rules
and state are `engine`, what the phones see is `view` (with the strategy tip
from `advice`).
"""
from __future__ import annotations

from typing import Any, NotRequired

from companion.games.scrabble_junior import engine, view
from companion.games.scrabble_junior.engine import State


class ScrabbleJunior:
    """The engine object the table service uses (see companion.games.base.Game)."""

    id = view.GAME_ID
    title = "Scrabble Junior"
    min_players = engine.MIN_PLAYERS
    max_players = engine.MAX_PLAYERS

    events = {
        "cover": {"player": int, "cell": str, "letter": NotRequired[str]},
        "end-turn": {"player": int},
        "exchange": {"player": int, "tiles": NotRequired[list[str]]},
        "pass": {"player": int},
    }

    def option_choices(self) -> dict[str, list[str]]:
        """Options with a fixed set of values (the home page shows them as menus)."""
        return engine.option_choices()

    def default_options(self) -> dict[str, Any]:
        return engine.default_options()

    def new_state(self, players: list[str], options: dict[str, Any]) -> State:
        """The dealt game. Raises OptionError (LayoutError for a bad layout_text)."""
        return engine.new_state(players, options)

    def apply(self, state: State, event: dict[str, Any]) -> State:
        """The state after `event`. Raises RuleError (IllegalCoverError, TurnError) naming the rule."""
        return engine.apply(state, event)

    def to_json(self, state: State) -> dict[str, Any]:
        return view.to_json(state)

    def actions(self, state: State) -> list[dict[str, Any]]:
        return engine.actions(state)

    def finished(self, state: State) -> bool:
        return state.finished


GAME = ScrabbleJunior()
