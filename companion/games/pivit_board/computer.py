"""A simple computer opponent for practice: one ply deep, greedy, with a little caution,
and a preference for progress so that its games end.

Each legal move is scored by what it wins at once (a captured piece, a
promotion), what it threatens (a capture, or a minion reaching a corner, next
turn), and what it risks (the moved piece can be captured straight back). The
best score wins; ties are broken by a random choice seeded from the table's
seed and the position, so the same game always gets the same answer.

The rulebook has no draw, and a game whose last minions flee forever never
ends (issue #17), so the computer prefers progress. It reads the positions
since the last capture or promotion (`history`; captures and promotions can
never be undone, so nothing before them can come back):

- a move back to a position already seen since then scores less, the more
  often it was seen, so it does not shuffle to and fro;
- after `PATIENCE` rounds in a row (every player's turn once: 20 turns with
  2 players, 40 with 4) without a capture or promotion, a player who would lose if the game were scored now concedes: it no longer shies away
  from a move that ends the game in its loss, nor from leaving a piece where
  it can be taken, and prefers such moves. The table's quiet-turn limit would
  score the game as it stands anyway; playing on only delays that.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Sequence

from companion.games.pivit_board import rules
from companion.games.pivit_board.board import Board
from companion.games.pivit_board.notation import Move, Square
from companion.games.pivit_board.pieces import Axis, Piece
from companion.games.pivit_board.position import Position, position_str

# Scores are in "minions": a master is worth more because it counts at the end.
MINION_VALUE = 2.0
MASTER_VALUE = 3.0
PROMOTION_VALUE = 3.0
CORNER_THREAT_VALUE = 0.5
ATTACK_SHARE = 0.25  # part of an enemy piece's value for threatening to capture it next turn
WIN_VALUE = 100.0  # a move that ends the game: won, or (unless conceding) lost
REPEAT_PENALTY = 1.0  # per earlier time the position after the move was seen since the last progress
PATIENCE = 10  # rounds (each player's turn once) without a capture or promotion before a losing player concedes
CONCEDE_VALUE = 1.0  # what a conceding player sees in a move that ends the game or offers a piece


def piece_value(piece: Piece) -> float:
    return MASTER_VALUE if piece.master else MINION_VALUE


def _attacked(position: Position, square: Square, owner: int) -> bool:
    """Whether any enemy of `owner` could land on `square` on their next turn.

    Only the first piece met in each of the four directions can reach the
    square (no jumps), and only if its arrows point along that line and the
    distance suits it (odd for a minion).
    """
    for axis in (Axis.VERTICAL, Axis.HORIZONTAL):
        for step in axis.steps:
            for distance, _, piece in rules.slide(position, square, step):
                if piece is not None and piece.owner != owner and piece.axis is axis and (piece.master or distance % 2 == 1):
                    return True
    return False


def _marks(position: Position) -> tuple[int, int]:
    """(pieces, minions) on the board: neither ever grows, and one of them falls with
    every capture and every promotion, so equal marks mean no progress between."""
    pieces = minions = 0
    for piece in position.squares:
        if piece is not None:
            pieces += 1
            minions += not piece.master
    return pieces, minions


def quiet_stretch(position: Position, history: Sequence[Position]) -> list[Position]:
    """The positions of `history` (oldest first, ending just before `position`) since
    the last capture or promotion; its length is the number of quiet turns."""
    marks = _marks(position)
    start = len(history)
    while start > 0 and _marks(history[start - 1]) == marks:
        start -= 1
    return list(history[start:])


def repetition_key(position: Position) -> tuple:
    """What makes two positions of one quiet stretch the same: the pieces and the player to move."""
    return position.squares, position.turn


def _winning_as_things_stand(position: Position) -> bool:
    """Whether the player to move would win if the game were scored now (most masters,
    then the first master): what the quiet-turn limit would give."""
    return position.turn in rules.decide(position, "scored now").winners


def score_move(
    position: Position,
    move: Move,
    *,
    seen: Counter | None = None,
    conceding: bool = False,
) -> float:
    """How good `move` looks one ply deep for the player to move (higher is better).

    `seen` counts the positions (by `repetition_key`) since the last capture or
    promotion; `conceding` is set once the mover, losing as things stand, has
    waited `PATIENCE` quiet rounds (see the module docstring).
    """
    piece = position.piece_at(move.from_square)
    captured = position.piece_at(move.to_square)
    after, ply = rules.play(position, move)
    score = 0.0
    if captured is not None:
        score += piece_value(captured)
    if ply.promoted:
        score += PROMOTION_VALUE
    if after.turn is None:
        outcome = rules.outcome(after)
        if outcome and piece.owner in outcome.winners:
            return score + WIN_VALUE
        return score + (CONCEDE_VALUE if conceding else -WIN_VALUE)
    if seen:
        score -= REPEAT_PENALTY * seen.get(repetition_key(after), 0)
    landed = after.piece_at(move.to_square)
    if _attacked(after, move.to_square, piece.owner):
        return score + (CONCEDE_VALUE if conceding else -piece_value(landed))
    reach = rules.targets(after, move.to_square)
    if not landed.master and any(after.is_corner(t) for t in reach):
        score += CORNER_THREAT_VALUE
    prey = [after.piece_at(t) for t in reach if after.piece_at(t) is not None]
    if prey:
        score += ATTACK_SHARE * max(piece_value(p) for p in prey)
    return score


def choose_move(position: Position, seed: int | str = 0, history: Sequence[Position] = ()) -> Move | None:
    """The computer's move for the player to move, or None once the game is over.

    `history` is the positions before this one, oldest first (the whole game,
    or at least everything since the last capture or promotion); without it
    the computer cannot see repetitions or how long the game has been quiet.
    Deterministic for a given position, history and seed.
    """
    moves = rules.legal_moves(position)
    if not moves:
        return None
    stretch = quiet_stretch(position, history)
    seen = Counter(repetition_key(p) for p in stretch)
    seen[repetition_key(position)] += 1
    conceding = len(stretch) >= PATIENCE * position.players and not _winning_as_things_stand(position)
    scored = [(score_move(position, move, seen=seen, conceding=conceding), move) for move in moves]
    best = max(score for score, _ in scored)
    candidates = [move for score, move in scored if score == best]
    rng = random.Random(f"pivit-board/{seed}/{position.ply}/{position_str(position)}")
    return rng.choice(candidates)


def self_play(position: Position, seed: int | str = 0, *, max_turns: int = 2000) -> Board:
    """The computer playing every seat from `position` until the game ends by the
    rules, or `max_turns` turns have been played (then `is_game_over()` is False).

    Returns the Board, whose history holds every turn. Used by the tests and
    bench/pivit_board.py to check that the computer's games end.
    """
    board = Board(position)
    while not board.is_game_over() and len(board.history) < max_turns:
        board.push(choose_move(board.position, seed, board.positions))
    return board


def longest_quiet_stretch(board: Board) -> int:
    """The most turns in a row of `board`'s game without a capture or promotion."""
    longest = quiet = 0
    for ply in board.history:
        quiet = 0 if ply.captured is not None or ply.promoted else quiet + 1
        longest = max(longest, quiet)
    return longest
