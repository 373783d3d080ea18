"""`GAME`, the Quivit object the table service runs (id "quivit"): the engine's rules, the phones' view, the hint.

It sits on top of the package (see `companion.games.base.Game`): the rules
and state are `engine`, the best-rotation hint `hints`, what the phones see
`view`.
"""
from __future__ import annotations

from typing import Any, NotRequired

from companion.games.quivit import engine, hints, view
from companion.games.quivit.state import State

GAME_ID = "quivit"


class Quivit:
    id = GAME_ID
    title = "Quivit"
    min_players = engine.MIN_PLAYERS
    max_players = engine.MAX_PLAYERS

    events = {
        "block": {"player": int, "card": NotRequired[str]},
        "start-turn": {"player": int},
        "roll": {"player": int, "color": NotRequired[str]},
        "rotate": {"player": int, "card": str, "direction": str},
        "claim-free-link": {"player": int, "card": str, "colors": NotRequired[list[str]]},
        "take": {"player": int, "cards": NotRequired[list[int]], "double_rotate": NotRequired[bool],
                 "free_link": NotRequired[bool]},
        "timer-expired": {},
        "draw": {"player": int, "value": NotRequired[int]},
        "skip-draw": {"player": int},
    }

    def default_options(self) -> dict[str, Any]:
        return engine.default_options()

    def option_choices(self) -> dict[str, list[str]]:
        """Options with a fixed set of values (the home page shows them as menus)."""
        return engine.option_choices()

    def new_state(self, players: list[str], options: dict[str, Any]) -> State:
        """The grid dealt and flipped, the first turn about to start. Raises OptionError."""
        return engine.new_state(players, options)

    def apply(self, state: State, event: dict[str, Any]) -> State:
        """The state after `event`; never changes `state`. Raises RuleError when the rules forbid it."""
        return engine.apply(state, event)

    def finished(self, state: State) -> bool:
        return engine.finished(state)

    def timer_request(self, state: State) -> tuple[str, float] | None:
        """The Timed rule: one countdown per turn, from after Color Blocking until the rotation."""
        return engine.timer_request(state)

    def to_json(self, state: State) -> dict[str, Any]:
        return view.state_json(state)

    def actions(self, state: State) -> list[dict[str, Any]]:
        return view.legal_actions(state)

    def hints(self, state: State) -> list[dict[str, Any]]:
        """The best-rotation hint: see `hints.best_rotations`."""
        return hints.best_rotations(state)


GAME = Quivit()
