"""The state of a Quivit table: sides, the grid (or its card count), the draw deck, rounds and turns.

A *side* is whoever takes a turn and scores: a player, or in Family Play a
team whose members take turns rotating. Phases of a turn, in the rulebook's
order (Color Blocking is resolved first, the timer starts before the die is
rolled):

    color-blocking   anyone holding a Color Block card may play it; the
                     current player then starts the turn
    color-die        Random Color: the current player rolls the die
    turn             the current player rotates a card (or claims a free link)
    final-draw       Double Rotation: holders of an unused card may draw one
    game-over
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from companion.games.quivit.grid import Cell, Grid
from companion.games.quivit.options import Options

PHASES = ("color-blocking", "color-die", "turn", "final-draw", "game-over")


@dataclass(frozen=True)
class Side:
    """A player, or a Family Play team, and what it has won so far."""

    name: str
    members: tuple[int, ...]  # player indices; members take turns rotating
    scored: tuple[int, ...] = ()  # values of the cards taken and counted (not the end draw)
    pending: tuple[int, ...] = ()  # Drain the Deck: this round's cards, counted once everyone has played
    turns: int = 0  # turns this side has had, which picks the member who rotates next
    holds_block: bool = False
    holds_double_rotate: bool = False
    final_draw: int | None = None  # value of the card drawn for an unused Double Rotate card
    draw_decided: bool = False  # drew or declined at the end of the game

    @property
    def score(self) -> int:
        """Points: the cards taken and counted, and the end draw for an unused Double Rotate card."""
        return sum(self.scored) + (self.final_draw or 0)

    @property
    def cards(self) -> int:
        """Cards taken and counted (the end draw is not one of them: see engine.tie_break_cards)."""
        return len(self.scored)

    @property
    def next_member(self) -> int:
        return self.members[self.turns % len(self.members)]


@dataclass
class State:
    players: tuple[str, ...]
    options: Options
    sides: tuple[Side, ...]
    grid: Grid | None  # digital deal only; None when keeping score for the real deck
    deck: tuple[int, ...]  # digital: the draw deck, top card first, as indices into cards.point_deck
    deck_count: int
    grid_count: int  # cards lying in the grid, blocked ones included
    blocked: frozenset[Cell] = frozenset()  # places under a Color Block (where known)
    blocked_count: int = 0  # Color Block cards played; scorekeeping may not say where
    round: int = 1
    turn_in_round: int = 0  # sides that have had their turn this round
    turn_number: int = 0  # turns started in the game, for the timer's key and the die
    phase: str = "turn"
    die: str | None = None  # Random Color: the colour rolled this turn
    refilled: frozenset[Cell] = frozenset()  # places refilled by the last refresh (digital)
    history: tuple[dict[str, Any], ...] = ()  # one record per turn, for the phones and the history page
    end_reason: str = ""
    uncounted: int = 0  # Drain the Deck: cards of a round cut short, never scored
    uncounted_points: int = 0
    winners: tuple[int, ...] = ()  # side indices
    last: str = ""  # what just happened, in words, for the phones
    taken_values: dict[int, int] = field(default_factory=dict)  # value -> cards of it out of the deck for good

    def clone(self) -> "State":
        return replace(self, taken_values=dict(self.taken_values))

    # -- who plays -------------------------------------------------------------------

    @property
    def extra_round(self) -> bool:
        """A Drain the Deck round after the regular ones."""
        return self.round > self.options.rounds

    @property
    def round_first(self) -> int:
        """The side holding the timepiece, deck and die this round: the first player moves on each round."""
        return (self.options.first_player + self.round - 1) % len(self.sides)

    def round_order(self) -> list[int]:
        n = len(self.sides)
        return [(self.round_first + k) % n for k in range(n)]

    @property
    def current_side(self) -> int | None:
        if self.phase not in ("color-blocking", "color-die", "turn"):
            return None
        return (self.round_first + self.turn_in_round) % len(self.sides)

    @property
    def current_player(self) -> int | None:
        side = self.current_side
        return None if side is None else self.sides[side].next_member

    def side_of(self, player: int) -> int:
        return next(i for i, s in enumerate(self.sides) if player in s.members)

    def with_side(self, index: int, **changes: Any) -> None:
        sides = list(self.sides)
        sides[index] = replace(sides[index], **changes)
        self.sides = tuple(sides)
