"""Pivit's pieces: an owner, a kind (minion or master) and the axis its arrows point along.

An arrow is two-way, so a piece only knows its axis: ``vertical`` pieces slide
up and down their file, ``horizontal`` pieces slide left and right along their
rank. Every move turns a piece 90 degrees, which simply switches the axis.

Each piece has a two-character symbol used in position strings and board
diagrams: the owner's letter (``a`` for the first player, ``b``, ``c``, ``d``),
upper case for a master and lower case for a minion, then ``|`` for a vertical
piece or ``-`` for a horizontal one. ``a|`` is the first player's minion
pointing up and down; ``B-`` is the second player's master pointing sideways.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

MAX_PLAYERS = 4
OWNER_LETTERS = "abcd"


class Axis(StrEnum):
    VERTICAL = "vertical"  # arrows point up and down: the piece moves along its file
    HORIZONTAL = "horizontal"  # arrows point left and right: the piece moves along its rank

    def turned(self) -> "Axis":
        """The axis after the 90 degree pivot every move ends with."""
        return Axis.HORIZONTAL if self is Axis.VERTICAL else Axis.VERTICAL

    @property
    def steps(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """The two (file, rank) unit steps a piece on this axis can slide by."""
        return ((0, 1), (0, -1)) if self is Axis.VERTICAL else ((1, 0), (-1, 0))

    @property
    def symbol(self) -> str:
        return "|" if self is Axis.VERTICAL else "-"


@dataclass(frozen=True, slots=True)
class Piece:
    """One disc on the board. Immutable: a move puts a new Piece on the landing square."""

    owner: int  # the player's index in seating (clockwise) order
    master: bool
    axis: Axis

    @property
    def kind(self) -> str:
        return "master" if self.master else "minion"

    def moved(self, promoted: bool) -> "Piece":
        """This piece after it moves: pivoted 90 degrees, and a master if `promoted`.

        The rulebook: a promoted piece keeps facing the way it would if it were
        not promoted, so promotion never changes the pivot.
        """
        return Piece(self.owner, self.master or promoted, self.axis.turned())

    @property
    def symbol(self) -> str:
        letter = OWNER_LETTERS[self.owner]
        return (letter.upper() if self.master else letter) + self.axis.symbol


def parse_piece(text: str) -> Piece:
    """The piece a two-character symbol like ``a|`` or ``B-`` stands for.

    Raises ValueError naming the symbol if it is not one.
    """
    if len(text) != 2 or text[0].lower() not in OWNER_LETTERS or text[1] not in "|-":
        raise ValueError(
            f"{text!r} is not a piece (a player letter a-d, capital for a master, then | or -)"
        )
    return Piece(
        owner=OWNER_LETTERS.index(text[0].lower()),
        master=text[0].isupper(),
        axis=Axis.VERTICAL if text[1] == "|" else Axis.HORIZONTAL,
    )


def piece_str(piece: Piece) -> str:
    """The two-character symbol of `piece` (the inverse of parse_piece)."""
    return piece.symbol
