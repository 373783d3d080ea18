"""The contract every game engine follows, so one table service serves them all.

A table's state is the fold of its events: ``state = game.new_state(players,
options)`` then ``state = game.apply(state, event)`` for each event in the log.
`apply` never mutates its input and is deterministic: any randomness (a deal,
a die) comes from ``options["seed"]`` and the state itself, or is carried in
the event, so replaying a log always gives the same state. Undo is replay
without the last event.

Events and options are plain JSON-able dicts. An event is
``{"type": "done", "player": 0, ...}``; players are referred to by their index
in the players list.
"""
from __future__ import annotations

from typing import Any, Protocol


class RuleError(ValueError):
    """The rules forbid this action now. The message is for the players."""


class OptionError(ValueError):
    """A table option or player list the game cannot be set up with."""


class Game(Protocol):
    id: str            # "pivit-tiles"
    title: str         # "Pivit (tile game)"
    min_players: int
    max_players: int

    # The event vocabulary: for each event type, its fields besides "type", as Python
    # types (int, bool, str, list[str], Literal[...]); NotRequired[...] marks a field
    # that may be left out. "player" is a player's index. The service refuses any other
    # type or field before `apply` sees the event, and the API documents exactly these.
    events: dict[str, dict[str, Any]]

    def default_options(self) -> dict[str, Any]:
        """Every option with its default value."""

    def new_state(self, players: list[str], options: dict[str, Any]) -> Any:
        """The state before the first event. Raises OptionError."""

    def apply(self, state: Any, event: dict[str, Any]) -> Any:
        """The state after `event`. Raises RuleError (a ValueError) if the rules forbid it."""

    def to_json(self, state: Any) -> dict[str, Any]:
        """Everything a phone needs to draw the table, as JSON-able data."""

    def actions(self, state: Any) -> list[dict[str, Any]]:
        """The events the rules allow now (for the phones' buttons), each a dict like an event.

        Events that need more than a type and a player (a move, a placement)
        are listed by type with the player whose turn it is.
        """

    def finished(self, state: Any) -> bool:
        """True once the game is over."""


class OptionMenus(Protocol):
    """Optional: options whose values come from a fixed list (shown as menus on the home page)."""

    def option_choices(self) -> dict[str, list[str]]:
        """``{"option": ["value", ...]}``; each list holds the option's default."""


class TimedGame(Protocol):
    """Optional: a game whose rules start a countdown (Pivit's one-minute race, Quivit's timed turn)."""

    def timer_request(self, state: Any) -> tuple[str, float] | None:
        """``(key, seconds)`` while the rules want a countdown running, else None.

        The service starts a countdown of `seconds` when a new key appears,
        cancels it when the request goes away, and applies
        ``{"type": "timer-expired"}`` exactly once when it runs out.
        """


class DescribedGame(Protocol):
    """Optional: a game that says its events in sentences (the phones' undo line, the history)."""

    def describe(self, event: dict[str, Any], players: list[str]) -> str | None:
        """The event as a sentence, or None to let the service say it plainly.

        ``event["by"]``, when there, is the player whose phone tapped: "Ann marked
        Cy's grid wrong" is ``{"type": "verify", "player": 2, "valid": false, "by": 0}``.
        A "timer-cancelled" event is the service's: a countdown the rules asked for
        was cancelled by hand.
        """
