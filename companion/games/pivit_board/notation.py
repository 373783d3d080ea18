"""Square names and the compact move notation, in parse/str pairs.

Squares are named like chess squares: a file letter (``a`` on the left) and a
rank number (``1`` at the bottom), so the 8x8 board runs from a1 to h8 and the
6x6 board from a1 to f6. In code a square is a ``(file, rank)`` tuple counted
from 0, so ``b1`` is ``(1, 0)``.

A move is written ``from-to``: ``b1-b4``. The parser also accepts ``b1b4`` and
the annotated form written in game records: ``x`` instead of ``-`` for a
capture (``b1xb4``) and a trailing ``=M`` when a minion is promoted
(``a2-a1=M``). A turn lost to the clock is written ``--``.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from companion.games.base import RuleError

FILES = "abcdefghijklmnopqrstuvwxyz"
PASS = "--"  # a turn lost to the clock in a game record

Square = tuple[int, int]  # (file, rank), both counted from 0

_SQUARE_RE = re.compile(r"([a-z])([1-9][0-9]?)")
_MOVE_RE = re.compile(r"([a-z][1-9][0-9]?)\s*([-x]?)\s*([a-z][1-9][0-9]?)(=m)?")


class NotationError(RuleError):
    """A square, move, position or record that cannot be read. The message names the text."""


class Move(NamedTuple):
    """A piece sliding from one square to another. Says nothing about legality."""

    from_square: Square
    to_square: Square

    @property
    def distance(self) -> int:
        """Squares travelled (moves are along a file or a rank, so this is the larger offset)."""
        return max(
            abs(self.to_square[0] - self.from_square[0]),
            abs(self.to_square[1] - self.from_square[1]),
        )

    def __str__(self) -> str:
        return move_str(self)


def square_name(square: Square) -> str:
    """``(1, 0)`` -> ``"b1"``."""
    file, rank = square
    return f"{FILES[file]}{rank + 1}"


def parse_square(text: str, size: int = 8) -> Square:
    """The square named `text` (``"b1"`` -> ``(1, 0)``) on a `size` x `size` board.

    Raises NotationError if `text` is not a square on that board.
    """
    cleaned = text.strip().lower()
    match = _SQUARE_RE.fullmatch(cleaned)
    if not match:
        raise NotationError(f"{text!r} is not a square name like b1")
    file, rank = FILES.index(match.group(1)), int(match.group(2)) - 1
    if not (0 <= file < size and 0 <= rank < size):
        raise NotationError(
            f"{cleaned} is not on the {size}x{size} board "
            f"(a1 to {square_name((size - 1, size - 1))})"
        )
    return file, rank


def move_str(move: Move) -> str:
    """The compact notation of `move`: ``"b1-b4"``."""
    return f"{square_name(move.from_square)}-{square_name(move.to_square)}"


class AnnotatedMove(NamedTuple):
    """A move as written in a record, with what the writer claims it does."""

    move: Move
    claims_capture: bool  # written with "x"
    claims_promotion: bool  # written with "=M"


def parse_annotated_move(text: str, size: int = 8) -> AnnotatedMove:
    """Read ``b1-b4``, ``b1b4``, ``b1xb4`` or ``a2-a1=M`` with its annotations.

    Raises NotationError if `text` is not a move between squares of the board.
    """
    cleaned = text.strip().lower()
    match = _MOVE_RE.fullmatch(cleaned)
    if not match:
        raise NotationError(f"{text.strip()!r} is not a move like b1-b4")
    move = Move(parse_square(match.group(1), size), parse_square(match.group(3), size))
    return AnnotatedMove(move, match.group(2) == "x", match.group(4) is not None)


def parse_move(text: str, size: int = 8) -> Move:
    """The move written `text` (``"b1-b4"``) on a `size` x `size` board.

    Annotations (``x``, ``=M``) are accepted and ignored here; `Board.parse_move`
    checks them against the position. Raises NotationError.
    """
    return parse_annotated_move(text, size).move
