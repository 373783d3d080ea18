"""An immutable Pivit position, the standard starting setups, and the position string.

A `Position` is everything the rules need to go on from a moment of play: the
pieces on the squares, whose turn it is, how many players sat down, and in
which order players received their first master (the rulebook's tie-break).
It is a frozen value, so undo can keep old positions and the event-sourced
engine can hold one in its state without copying.

The position string is to Pivit what FEN is to chess. Ranks from the top
(rank 8 on the 8x8 board) down to rank 1, separated by ``/``; in a rank, a
piece symbol (``a|``, ``B-``: see `pieces`) for an occupied square and a
number for a run of empty squares. Then, separated by spaces: the letter of
the player to move (``-`` once nobody may move), the number of players, and
the letters of the players in the order they received their first master
(``-`` if nobody has yet). The 6x6 two-player start is::

    1a|b|a|b|1/a-4a-/b-4b-/a-4a-/b-4b-/1a|b|a|b|1 a 2 -

The exact starting squares are listed in docs/rules/pivit-board.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from companion.games.base import OptionError
from companion.games.pivit_board.notation import FILES, NotationError, Square, parse_square, square_name
from companion.games.pivit_board.pieces import MAX_PLAYERS, OWNER_LETTERS, Axis, Piece, parse_piece

BOARD_SIZES = (6, 8)
MIN_SIZE, MAX_SIZE = 3, 26  # what a position string may describe (letters a-z name the files)

# The standard setups, player by player in seating order. Every piece starts
# on a non-corner edge square with its arrows pointing across the board, so
# the axis follows from the square: pieces on the bottom and top ranks point
# up and down, pieces on the left and right files point sideways. Each player
# has the same number of pieces on each pair of opposite sides, and the board
# is symmetric: a quarter turn (2 and 4 players) or a mirror (3 players) maps
# every player's squares onto another player's squares.
STARTING_SQUARES: dict[tuple[int, int], tuple[tuple[str, ...], ...]] = {
    (8, 2): (
        ("b1", "d1", "e1", "g1", "b8", "d8", "e8", "g8", "a3", "a6", "h3", "h6"),
        ("c1", "f1", "c8", "f8", "a2", "a4", "a5", "a7", "h2", "h4", "h5", "h7"),
    ),
    (8, 3): (
        ("b1", "e1", "b8", "e8", "a4", "a7", "h4", "h7"),
        ("c1", "f1", "c8", "f8", "a3", "a6", "h3", "h6"),
        ("d1", "g1", "d8", "g8", "a2", "a5", "h2", "h5"),
    ),
    (8, 4): (
        ("b1", "f1", "b8", "f8", "a4", "h4"),
        ("c1", "g1", "c8", "g8", "a5", "h5"),
        ("d1", "d8", "a2", "a6", "h2", "h6"),
        ("e1", "e8", "a3", "a7", "h3", "h7"),
    ),
    (6, 2): (
        ("b1", "d1", "b6", "d6", "a3", "a5", "f3", "f5"),
        ("c1", "e1", "c6", "e6", "a2", "a4", "f2", "f4"),
    ),
}


@dataclass(frozen=True, slots=True)
class Position:
    """A moment of play. Build one with `starting_position` or `parse_position`."""

    size: int
    players: int
    squares: tuple[Piece | None, ...]  # index rank * size + file
    turn: int | None  # the player to move; None once nobody may move (the game is over)
    first_masters: tuple[int, ...] = ()  # players in the order they received their first master
    ply: int = 0  # turns taken since the start of the record (moves and turns lost to the clock)

    def index(self, square: Square) -> int:
        return square[1] * self.size + square[0]

    def on_board(self, square: Square) -> bool:
        return 0 <= square[0] < self.size and 0 <= square[1] < self.size

    def is_corner(self, square: Square) -> bool:
        edge = (0, self.size - 1)
        return square[0] in edge and square[1] in edge

    @property
    def corners(self) -> tuple[Square, ...]:
        last = self.size - 1
        return ((0, 0), (last, 0), (0, last), (last, last))

    def piece_at(self, square: Square) -> Piece | None:
        """The piece on `square`, or None. Raises IndexError off the board."""
        if not self.on_board(square):
            raise IndexError(f"{square} is off the {self.size}x{self.size} board")
        return self.squares[square[1] * self.size + square[0]]

    def pieces(self, owner: int | None = None) -> Iterator[tuple[Square, Piece]]:
        """(square, piece) for every piece (of `owner`, if given), rank 1 first, file a first."""
        size = self.size
        for i, piece in enumerate(self.squares):
            if piece is not None and (owner is None or piece.owner == owner):
                yield (i % size, i // size), piece

    def piece_counts(self, owner: int) -> tuple[int, int]:
        """(minions, masters) `owner` has on the board."""
        minions = masters = 0
        for piece in self.squares:
            if piece is not None and piece.owner == owner:
                if piece.master:
                    masters += 1
                else:
                    minions += 1
        return minions, masters

    def players_in(self) -> tuple[int, ...]:
        """Players still in the game: those with at least one piece, in seating order."""
        owners = {piece.owner for piece in self.squares if piece is not None}
        return tuple(p for p in range(self.players) if p in owners)

    def minions_remain(self) -> bool:
        return any(piece is not None and not piece.master for piece in self.squares)


def edge_axis(square: Square, size: int) -> Axis:
    """The axis of a piece starting on non-corner edge `square`: pointing across the board."""
    return Axis.VERTICAL if square[1] in (0, size - 1) else Axis.HORIZONTAL


def starting_position(size: int = 8, players: int = 2) -> Position:
    """The standard setup for `players` on a `size` x `size` board; the first player moves first.

    Raises OptionError for a board size and player count the game has no setup for
    (8x8 takes 2, 3 or 4 players; 6x6 takes 2).
    """
    layout = STARTING_SQUARES.get((size, players))
    if layout is None:
        if size not in BOARD_SIZES:
            raise OptionError(f"the board is 6x6 or 8x8, not {size}x{size}")
        counts = sorted(p for s, p in STARTING_SQUARES if s == size)
        raise OptionError(
            f"the {size}x{size} board is for {' or '.join(map(str, counts))} players, not {players}"
        )
    squares: list[Piece | None] = [None] * (size * size)
    for owner, names in enumerate(layout):
        for name in names:
            square = parse_square(name, size)
            squares[square[1] * size + square[0]] = Piece(owner, False, edge_axis(square, size))
    return Position(size=size, players=players, squares=tuple(squares), turn=0)


def position_str(position: Position) -> str:
    """The position string of `position` (see the module docstring)."""
    size = position.size
    ranks = []
    for rank in range(size - 1, -1, -1):
        text, empty = "", 0
        for file in range(size):
            piece = position.squares[rank * size + file]
            if piece is None:
                empty += 1
                continue
            if empty:
                text += str(empty)
                empty = 0
            text += piece.symbol
        if empty:
            text += str(empty)
        ranks.append(text)
    turn = "-" if position.turn is None else OWNER_LETTERS[position.turn]
    firsts = "".join(OWNER_LETTERS[p] for p in position.first_masters) or "-"
    return f"{'/'.join(ranks)} {turn} {position.players} {firsts}"


def _parse_rank(text: str, size: int, rank: int) -> list[Piece | None]:
    cells: list[Piece | None] = []
    i = 0
    while i < len(text):
        if text[i].isdigit():
            j = i
            while j < len(text) and text[j].isdigit():
                j += 1
            run = int(text[i:j])
            if run == 0:
                raise NotationError(f"rank {rank + 1}: an empty run cannot be 0")
            cells.extend([None] * run)
            i = j
        else:
            try:
                cells.append(parse_piece(text[i : i + 2]))
            except ValueError as exc:
                raise NotationError(f"rank {rank + 1}: {exc}") from None
            i += 2
    if len(cells) != size:
        raise NotationError(f"rank {rank + 1} {text!r} has {len(cells)} squares, not {size}")
    return cells


def parse_position(text: str) -> Position:
    """The position a position string describes (the inverse of position_str).

    A player to move who has no legal move is skipped, as in play ("If a
    player cannot make any legal moves on their turn, their turn is
    skipped"): the turn passes clockwise to the first player who can move, and
    is ``-`` (the game is over) if nobody can. So every parsed position is one
    that play could reach, and a string written by position_str reads back
    unchanged.

    Raises NotationError saying what is wrong: a rank of the wrong length, an
    unknown piece symbol, a piece of a player who is not at the table, a minion
    standing on a corner (it would have been promoted), or a player to move who
    has no pieces.
    """
    fields = text.split()
    if len(fields) != 4:
        raise NotationError(
            "a position is four fields: the ranks, the player to move, the number of players, "
            "and the first-master order"
        )
    ranks_text, turn_text, players_text, firsts_text = fields
    rank_texts = ranks_text.split("/")
    size = len(rank_texts)
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise NotationError(f"a board has {MIN_SIZE} to {MAX_SIZE} ranks, not {size}")
    if not players_text.isdigit() or not 2 <= int(players_text) <= MAX_PLAYERS:
        raise NotationError(f"the number of players is 2 to {MAX_PLAYERS}, not {players_text!r}")
    players = int(players_text)
    squares: list[Piece | None] = []
    for rank, rank_text in zip(range(size - 1, -1, -1), rank_texts):
        squares[:0] = _parse_rank(rank_text, size, rank)  # rank 1 ends up first
    position = Position(size=size, players=players, squares=tuple(squares), turn=None)
    if not position.players_in():
        raise NotationError("the board has no pieces")
    for square, piece in position.pieces():
        if piece.owner >= players:
            raise NotationError(
                f"{square_name(square)} holds a piece of player {OWNER_LETTERS[piece.owner]}, "
                f"but only {players} players are at the table"
            )
        if not piece.master and position.is_corner(square):
            raise NotationError(f"a minion cannot stand on corner {square_name(square)}: it would be a master")
    if turn_text == "-":
        turn = None
    elif len(turn_text) == 1 and turn_text in OWNER_LETTERS[:players]:
        turn = OWNER_LETTERS.index(turn_text)
        if turn not in position.players_in():
            raise NotationError(f"player {turn_text} is to move but has no pieces")
    else:
        raise NotationError(f"the player to move is a letter a-{OWNER_LETTERS[players - 1]} or -, not {turn_text!r}")
    if firsts_text == "-":
        firsts: tuple[int, ...] = ()
    else:
        if any(c not in OWNER_LETTERS[:players] for c in firsts_text) or len(set(firsts_text)) != len(firsts_text):
            raise NotationError(f"the first-master order {firsts_text!r} must name each player at most once")
        firsts = tuple(OWNER_LETTERS.index(c) for c in firsts_text)
    for owner in range(players):
        if position.piece_counts(owner)[1] and owner not in firsts:
            raise NotationError(
                f"player {OWNER_LETTERS[owner]} has a master, so must be in the first-master order"
            )
    # Who can move is the rules' business: `rules.settle` is the one place that
    # passes a turn on, for play and for parsing alike. Imported here, not at the
    # top, because rules is written in terms of Position.
    from companion.games.pivit_board.rules import settle

    written = Position(size=size, players=players, squares=position.squares, turn=turn, first_masters=firsts)
    return settle(written)[0]


def diagram(position: Position) -> str:
    """A text picture of the board, rank `size` at the top, for humans and docs."""
    size = position.size
    lines = []
    for rank in range(size - 1, -1, -1):
        cells = []
        for file in range(size):
            piece = position.squares[rank * size + file]
            if piece is not None:
                cells.append(piece.symbol)
            elif position.is_corner((file, rank)):
                cells.append("[]")
            else:
                cells.append(" .")
        lines.append(f"{rank + 1:>2} " + " ".join(cells))
    lines.append("   " + " ".join(f" {FILES[f]}" for f in range(size)))
    return "\n".join(lines)
