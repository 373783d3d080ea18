"""A Pivit board with push/pop undo, in the manner of python-chess.

`Board` wraps the current immutable `Position` and a stack of the positions
before each turn, so undo is popping a snapshot: cheap and exact. Moves pushed
through `push` or `push_str` are checked; `IllegalMoveError` says why a move
is refused, in the rulebook's words.

    >>> board = Board(size=6)
    >>> board.push_str("b1-b2")
    Move(from_square=(1, 0), to_square=(1, 1))
    >>> board.pop().move == board.parse_move("b1-b2")
    True
"""
from __future__ import annotations

from typing import Iterator, Sequence

from companion.games.pivit_board import rules
from companion.games.pivit_board.notation import (
    NotationError,
    Move,
    Square,
    move_str,
    parse_annotated_move,
    parse_square,
    square_name,
)
from companion.games.pivit_board.pieces import Piece
from companion.games.pivit_board.position import Position, diagram, parse_position, position_str, starting_position
from companion.games.pivit_board.rules import Outcome, Ply


class Board:
    """A game in progress: the current position plus the stack of turns that led to it.

    `position` may be a Position, a position string, or None for the standard
    setup of `players` on a `size` x `size` board. A player to move who has no
    legal move is skipped, as in play (`rules.settle`). `names` (one per
    player) only make error messages friendlier. Raises NotationError for a bad
    position string and OptionError for a size and player count with no setup.
    """

    def __init__(
        self,
        position: Position | str | None = None,
        *,
        size: int = 8,
        players: int = 2,
        names: Sequence[str] | None = None,
    ) -> None:
        if position is None:
            position = starting_position(size, players)
        elif isinstance(position, str):
            position = parse_position(position)  # settled by the parser
        else:
            position, _ = rules.settle(position)  # a Position built by hand may not be
        self._position = position
        self._stack: list[tuple[Position, Ply]] = []
        self.names = tuple(names) if names else None

    # -- the position ---------------------------------------------------------
    @property
    def position(self) -> Position:
        return self._position

    @property
    def size(self) -> int:
        return self._position.size

    @property
    def players(self) -> int:
        return self._position.players

    @property
    def turn(self) -> int | None:
        """The player to move, or None once the game is over."""
        return self._position.turn

    @property
    def ply(self) -> int:
        return self._position.ply

    def square(self, name: str) -> Square:
        """The square called `name` on this board. Raises NotationError."""
        return parse_square(name, self.size)

    def piece_at(self, square: Square | str) -> Piece | None:
        if isinstance(square, str):
            square = self.square(square)
        return self._position.piece_at(square)

    def pieces(self, owner: int | None = None) -> Iterator[tuple[Square, Piece]]:
        return self._position.pieces(owner)

    def masters(self) -> tuple[int, ...]:
        return rules.masters(self._position)

    # -- moves --------------------------------------------------------------
    @property
    def legal_moves(self) -> list[Move]:
        return rules.legal_moves(self._position)

    def targets(self, square: Square | str) -> list[Square]:
        """Where the piece on `square` may go (as if it were its owner's turn)."""
        if isinstance(square, str):
            square = self.square(square)
        return rules.targets(self._position, square)

    def validate(self, move: Move) -> None:
        """Raises IllegalMoveError saying why `move` is illegal now."""
        rules.validate(self._position, move, self.names)

    def is_legal(self, move: Move) -> bool:
        return rules.is_legal(self._position, move)

    def parse_move(self, text: str) -> Move:
        """The legal move written `text` (``b1-b4``; ``b1xb4`` and ``=M`` are checked if given).

        Raises NotationError for unreadable text or annotations that do not fit
        the position, IllegalMoveError for a move the rules forbid.
        """
        move, claims_capture, claims_promotion = parse_annotated_move(text, self.size)
        self.validate(move)
        label = self.move_label(move)
        if claims_capture and "x" not in label:
            raise NotationError(f"{text.strip()} is written as a capture but {square_name(move.to_square)} is empty")
        if claims_promotion and not label.endswith("=M"):
            raise NotationError(f"{text.strip()} is written as a promotion but no minion lands on a corner")
        return move

    def move_label(self, move: Move) -> str:
        """`move` as written in a game record: ``b1-b4``, ``b1xb4`` for a capture, ``=M`` for a promotion."""
        piece = self._position.piece_at(move.from_square)
        captures = self._position.piece_at(move.to_square) is not None
        text = move_str(move)
        if captures:
            text = text.replace("-", "x")
        if piece is not None and not piece.master and self._position.is_corner(move.to_square):
            text += "=M"
        return text

    def push(self, move: Move) -> Ply:
        """Play `move` for the player to move. Raises IllegalMoveError (the board is unchanged)."""
        self.validate(move)
        return self._push(*rules.play(self._position, move))

    def push_str(self, text: str) -> Move:
        """Parse and play a move like ``b1-b4``. Raises NotationError or IllegalMoveError."""
        move = self.parse_move(text)
        self._push(*rules.play(self._position, move))
        return move

    def lose_turn(self) -> Ply:
        """The player to move loses the turn to the clock. Raises IllegalMoveError once the game is over."""
        return self._push(*rules.lose_turn(self._position))

    def _push(self, after: Position, ply: Ply) -> Ply:
        self._stack.append((self._position, ply))
        self._position = after
        return ply

    def pop(self) -> Ply:
        """Undo the last turn and return what it was. Raises IndexError if nothing was played."""
        before, ply = self._stack.pop()
        self._position = before
        return ply

    def peek(self) -> Ply:
        """The last turn played. Raises IndexError if nothing was played."""
        return self._stack[-1][1]

    @property
    def history(self) -> list[Ply]:
        """Every turn played since the start, oldest first."""
        return [ply for _, ply in self._stack]

    @property
    def positions(self) -> list[Position]:
        """The position before each turn played, oldest first (the `history` the
        practice computer reads: `computer.choose_move(board.position, seed, board.positions)`)."""
        return [position for position, _ in self._stack]

    @property
    def move_stack(self) -> list[Move | None]:
        """The moves played, oldest first; None for a turn lost to the clock."""
        return [ply.move for _, ply in self._stack]

    def root(self) -> Position:
        """The position before the first turn on the stack."""
        return self._stack[0][0] if self._stack else self._position

    def captured(self, by: int | None = None) -> list[Piece]:
        """The pieces captured so far (by player `by`, if given), in the order they fell."""
        return [
            ply.captured
            for _, ply in self._stack
            if ply.captured is not None and (by is None or ply.player == by)
        ]

    # -- the end ------------------------------------------------------------
    def outcome(self) -> Outcome | None:
        return rules.outcome(self._position)

    def is_game_over(self) -> bool:
        return self._position.turn is None

    # -- copying and printing -----------------------------------------------
    def copy(self, *, stack: bool = True) -> "Board":
        board = Board(self._position, names=self.names)
        if stack:
            board._stack = list(self._stack)
        return board

    def position_str(self) -> str:
        return position_str(self._position)

    def __str__(self) -> str:
        return diagram(self._position)

    def __repr__(self) -> str:
        return f"Board({self.position_str()!r})"


def perft(position: Position, depth: int) -> int:
    """The number of move sequences `depth` turns deep from `position` (turns skipped for
    having no legal move are not counted as turns; a finished game has no moves).

    The golden counts in tests/games/pivit_board/perft.txt lock the move generator.
    """
    if depth == 0:
        return 1
    moves = rules.legal_moves(position)
    if depth == 1:
        return len(moves)
    return sum(perft(rules.play(position, move)[0], depth - 1) for move in moves)
