"""A simple computer opponent for practice: one ply deep, greedy, with a little caution.

Each legal move is scored by what it wins at once (a captured piece, a
promotion), what it threatens (a capture, or a minion reaching a corner, next
turn), and what it risks (the moved piece can be captured straight back). The best
score wins; ties are broken by a random choice seeded from the table's seed
and the position, so the same game always gets the same answer.
"""
from __future__ import annotations

import random

from companion.games.pivit_board import rules
from companion.games.pivit_board.notation import Move
from companion.games.pivit_board.pieces import Piece
from companion.games.pivit_board.position import Position, position_str

# Scores are in "minions": a master is worth more because it counts at the end.
MINION_VALUE = 2.0
MASTER_VALUE = 3.0
PROMOTION_VALUE = 3.0
CORNER_THREAT_VALUE = 0.5
ATTACK_SHARE = 0.25  # part of an enemy piece's value for threatening to capture it next turn


def piece_value(piece: Piece) -> float:
    return MASTER_VALUE if piece.master else MINION_VALUE


def _attacked(position: Position, square, owner: int) -> bool:
    """Whether any enemy of `owner` could land on `square` on their next turn."""
    for from_square, piece in position.pieces():
        if piece.owner != owner and square in rules.targets(position, from_square):
            return True
    return False


def score_move(position: Position, move: Move) -> float:
    """How good `move` looks one ply deep for the player to move (higher is better)."""
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
        return score + (100.0 if outcome and piece.owner in outcome.winners else -100.0)
    landed = after.piece_at(move.to_square)
    if _attacked(after, move.to_square, piece.owner):
        return score - piece_value(landed)
    reach = rules.targets(after, move.to_square)
    if not landed.master and any(after.is_corner(t) for t in reach):
        score += CORNER_THREAT_VALUE
    prey = [after.piece_at(t) for t in reach if after.piece_at(t) is not None]
    if prey:
        score += ATTACK_SHARE * max(piece_value(p) for p in prey)
    return score


def choose_move(position: Position, seed: int | str = 0) -> Move | None:
    """The computer's move for the player to move, or None once the game is over.

    Deterministic for a given position and seed.
    """
    moves = rules.legal_moves(position)
    if not moves:
        return None
    scored = [(score_move(position, move), move) for move in moves]
    best = max(score for score, _ in scored)
    candidates = [move for score, move in scored if score == best]
    rng = random.Random(f"pivit-board/{seed}/{position.ply}/{position_str(position)}")
    return rng.choice(candidates)
