"""The rules of the Pivit board game as pure functions of a `Position`.

Movement: a piece slides along its arrow's axis, either way, and may not jump:
it stops at the first piece in its path, which it captures by landing on it if
that piece is an enemy's. A minion moves an odd number of squares, a master
any number. The piece that moved pivots 90 degrees. A minion that lands on a
corner is promoted to a master, once; a master landing on a corner gains
nothing.

Turns go clockwise (seating order). A player with no pieces is out and no
longer takes turns; a player with pieces but no legal move has the turn
skipped. The game ends when no minions remain or only one player remains
(and, a case the rulebook does not mention, when no player can move). The
winner has the most masters; a tie goes to whoever received their first
master earliest.

Nothing here mutates: `play` returns the next position and a `Ply` saying
what happened, which `board.Board` stacks for push/pop undo.
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple, Sequence

from companion.games.base import RuleError
from companion.games.pivit_board.notation import Move, Square, square_name
from companion.games.pivit_board.pieces import Axis, Piece
from companion.games.pivit_board.position import Position

NO_MINIONS = "no minions remain"
ONE_PLAYER = "only one player remains"
NO_MOVES = "no player can move"


class IllegalMoveError(RuleError):
    """The rules forbid this move now; the message says why, in the rulebook's words."""


class Ply(NamedTuple):
    """What one turn did, for history, captured-piece lists and undo."""

    player: int
    move: Move | None  # None: the turn was lost to the clock
    piece: Piece | None  # the piece that moved, as it stood before moving
    captured: Piece | None  # the piece taken from the landing square, if any
    promoted: bool
    knocked_out: tuple[int, ...]  # players whose last piece was captured
    skipped: tuple[int, ...]  # players then passed over for having no legal move


class Outcome(NamedTuple):
    reason: str  # NO_MINIONS, ONE_PLAYER or NO_MOVES
    winners: tuple[int, ...]  # one player, except a tie nobody can break (see outcome())
    masters: tuple[int, ...]  # masters on the board, per player


def _name(player: int, names: Sequence[str] | None) -> str:
    return names[player] if names else f"player {player + 1}"


def slide(position: Position, square: Square, step: tuple[int, int]):
    """(distance, square, piece or None) of each square from `square` along `step`, nearest
    first, up to and including the first piece met (no jumps) or the board's edge."""
    size, squares = position.size, position.squares
    (file, rank), (df, dr) = square, step
    distance = 0
    while True:
        file += df
        rank += dr
        distance += 1
        if not (0 <= file < size and 0 <= rank < size):
            return
        other = squares[rank * size + file]
        yield distance, (file, rank), other
        if other is not None:
            return


def targets(position: Position, square: Square) -> list[Square]:
    """The squares the piece on `square` may move to, as if it were its owner's turn.

    Empty if `square` is empty. Ordered by direction (up, down, right, left),
    nearest first.
    """
    piece = position.piece_at(square)
    if piece is None:
        return []
    found = []
    for step in piece.axis.steps:
        for distance, to, other in slide(position, square, step):
            # A minion lands at odd distances only; the first piece met ends the slide.
            if (piece.master or distance % 2 == 1) and (other is None or other.owner != piece.owner):
                found.append(to)
    return found


def _can_move(position: Position, square: Square) -> bool:
    """Whether the piece on `square` has a legal move: cheaper than `targets`.

    Sliding either way, the nearest square is at distance 1 (odd, so allowed
    for minions too); it is a legal landing unless it is off the board or holds
    one of the mover's own pieces.
    """
    piece = position.squares[position.index(square)]
    size = position.size
    for df, dr in piece.axis.steps:
        file, rank = square[0] + df, square[1] + dr
        if 0 <= file < size and 0 <= rank < size:
            other = position.squares[rank * size + file]
            if other is None or other.owner != piece.owner:
                return True
    return False


def has_legal_move(position: Position, player: int) -> bool:
    return any(_can_move(position, square) for square, _ in position.pieces(player))


def legal_moves(position: Position) -> list[Move]:
    """Every legal move of the player to move; empty once the game is over."""
    if position.turn is None:
        return []
    return [
        Move(square, target)
        for square, _ in position.pieces(position.turn)
        for target in targets(position, square)
    ]


def validate(position: Position, move: Move, names: Sequence[str] | None = None) -> None:
    """Check `move` for the player to move. `names` are the players' names for the message.

    Raises IllegalMoveError saying why the move is illegal.
    """
    if position.turn is None:
        raise IllegalMoveError("the game is over")
    start, end = move
    for square in move:
        if not position.on_board(square):
            raise IllegalMoveError(f"{square} is not on the {position.size}x{position.size} board")
    piece = position.piece_at(start)
    here = square_name(start)
    if piece is None:
        raise IllegalMoveError(f"there is no piece on {here}")
    if piece.owner != position.turn:
        raise IllegalMoveError(
            f"the piece on {here} is {_name(piece.owner, names)}'s; "
            f"it is {_name(position.turn, names)}'s turn"
        )
    if start == end:
        raise IllegalMoveError("a piece must move at least one square")
    same_file, same_rank = start[0] == end[0], start[1] == end[1]
    if not (same_file or same_rank):
        raise IllegalMoveError("pieces move in a straight line along their arrows, never diagonally")
    if (same_file and piece.axis is not Axis.VERTICAL) or (same_rank and piece.axis is not Axis.HORIZONTAL):
        along = "left and right along its rank" if piece.axis is Axis.HORIZONTAL else "up and down its file"
        raise IllegalMoveError(f"the arrows of the {piece.kind} on {here} point {along}")
    distance = move.distance
    if not piece.master and distance % 2 == 0:
        raise IllegalMoveError(
            f"minions move an odd number of squares ({here} to {square_name(end)} is {distance})"
        )
    df = (end[0] > start[0]) - (end[0] < start[0])
    dr = (end[1] > start[1]) - (end[1] < start[1])
    for step in range(1, distance):
        between = (start[0] + df * step, start[1] + dr * step)
        if position.piece_at(between) is not None:
            raise IllegalMoveError(f"no jumps: the piece on {square_name(between)} is in the way")
    target = position.piece_at(end)
    if target is not None and target.owner == piece.owner:
        raise IllegalMoveError(f"{square_name(end)} holds your own piece; only an enemy piece can be captured")


def is_legal(position: Position, move: Move) -> bool:
    try:
        validate(position, move)
    except IllegalMoveError:
        return False
    return True


def game_over_on_board(position: Position) -> str | None:
    """The end-of-game reason the pieces alone give (no minions, one player left), or None."""
    if len(position.players_in()) <= 1:
        return ONE_PLAYER
    if not position.minions_remain():
        return NO_MINIONS
    return None


def settle(position: Position, after: int | None = None) -> tuple[Position, tuple[int, ...]]:
    """Give the turn to the next player clockwise after `after` who can move.

    Players with no pieces are out and passed over silently; players with
    pieces but no legal move are skipped and listed. With `after` None, the
    search starts at the position's own player to move (at the first player if
    none), so a custom position whose player to move is stuck is put right.
    The turn becomes None when the game is over: by `game_over_on_board`, or
    because nobody at all can move (then the skipped list is empty: nobody is
    "skipped" at the end of the game). The mover may get the turn again if
    every other player is stuck.
    """
    if game_over_on_board(position) is not None:
        return replace(position, turn=None), ()
    players = position.players
    if after is None:
        first = 0 if position.turn is None else position.turn
        order = [(first + k) % players for k in range(players)]
    else:
        order = [(after + k) % players for k in range(1, players + 1)]
    alive = set(position.players_in())
    skipped = []
    for player in order:
        if player not in alive:
            continue
        if has_legal_move(position, player):
            return replace(position, turn=player), tuple(skipped)
        skipped.append(player)
    return replace(position, turn=None), ()


def play(position: Position, move: Move) -> tuple[Position, Ply]:
    """The position after `move` and what it did. Does not check legality: call `validate` first.

    The mover's piece pivots; a minion landing on a corner becomes a master
    (and its owner joins the first-master order if new there); an enemy piece
    on the landing square is captured; then the turn passes clockwise (`settle`).
    """
    player = position.turn
    start, end = move
    squares = list(position.squares)
    piece = squares[position.index(start)]
    captured = squares[position.index(end)]
    promoted = not piece.master and position.is_corner(end)
    squares[position.index(start)] = None
    squares[position.index(end)] = piece.moved(promoted)
    firsts = position.first_masters
    if promoted and player not in firsts:
        firsts = firsts + (player,)
    knocked_out: tuple[int, ...] = ()
    if captured is not None and not any(p is not None and p.owner == captured.owner for p in squares):
        knocked_out = (captured.owner,)
    after = replace(position, squares=tuple(squares), first_masters=firsts, ply=position.ply + 1)
    after, skipped = settle(after, after=player)
    return after, Ply(player, move, piece, captured, promoted, knocked_out, skipped)


def lose_turn(position: Position) -> tuple[Position, Ply]:
    """The position after the player to move loses the turn to the clock.

    Raises IllegalMoveError once the game is over.
    """
    player = position.turn
    if player is None:
        raise IllegalMoveError("the game is over")
    after, skipped = settle(replace(position, ply=position.ply + 1), after=player)
    return after, Ply(player, None, None, None, False, (), skipped)


def masters(position: Position) -> tuple[int, ...]:
    """Masters on the board, per player in seating order."""
    counts = [0] * position.players
    for piece in position.squares:
        if piece is not None and piece.master:
            counts[piece.owner] += 1
    return tuple(counts)


def decide(position: Position, reason: str) -> Outcome:
    """The outcome of a game that ends now for `reason`, by the rulebook's ranking.

    If only one player remains they win. Otherwise the most masters win, and a
    tie goes to the tied player who received their first master earliest
    (even if that master has since been captured). Only when no tied player
    ever had a master (possible only when nobody can move, or when a table
    option ends the game early) do they share the win.
    """
    counts = masters(position)
    alive = position.players_in()
    if len(alive) <= 1:
        return Outcome(ONE_PLAYER, alive, counts)
    best = max(counts[p] for p in alive)
    tied = [p for p in alive if counts[p] == best]
    ranked = [p for p in position.first_masters if p in tied]
    return Outcome(reason, (ranked[0],) if ranked else tuple(tied), counts)


def outcome(position: Position) -> Outcome | None:
    """How the game ended (see `decide`), or None while it goes on."""
    reason = game_over_on_board(position)
    if reason is None:
        if position.turn is not None:
            return None
        reason = NO_MOVES
    return decide(position, reason)
