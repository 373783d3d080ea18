"""The golden perft counts lock the move generator; a naive second generator vouches for them.

The reference below is written straight from the rulebook with none of the
engine's shortcuts: for every piece it tries every square of the board. If
the engine and the reference ever disagree, one of them misreads the rules.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from companion.games.pivit_board import parse_position, perft

GOLDEN = Path(__file__).with_name("perft.txt")


def golden_entries():
    entries = []
    for line in GOLDEN.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, position, counts = (part.strip() for part in line.split(";"))
        entries.append(pytest.param(position, [int(c) for c in counts.split()], id=name))
    return entries


def test_golden_file_covers_every_setup_and_special_case():
    names = [entry.id for entry in golden_entries()]
    for setup in ("start 8x8 2 players", "start 8x8 3 players", "start 8x8 4 players", "start 6x6 2 players"):
        assert setup in names
    assert len(names) >= 12


@pytest.mark.parametrize(("position", "counts"), golden_entries())
def test_engine_matches_golden_counts(position, counts):
    start = parse_position(position)
    assert [perft(start, depth) for depth in range(1, len(counts) + 1)] == counts


# -- the naive reference -------------------------------------------------------
# A position is (size, players, pieces, turn, firsts) with pieces a dict
# square -> (owner, master, vertical).


def reference_from(text):
    position = parse_position(text)
    pieces = {sq: (p.owner, p.master, p.axis == "vertical") for sq, p in position.pieces()}
    return position.size, position.players, pieces, position.turn, position.first_masters


def reference_moves_for(size, pieces, player):
    moves = []
    for (f, r), (owner, master, vertical) in pieces.items():
        if owner != player:
            continue
        for tf in range(size):
            for tr in range(size):
                if (tf, tr) == (f, r):
                    continue
                if vertical and tf != f or not vertical and tr != r:
                    continue
                distance = abs(tf - f) + abs(tr - r)
                if not master and distance % 2 == 0:
                    continue
                sign = 1 if (tf, tr) > (f, r) else -1
                between = [(f, r + sign * s) if vertical else (f + sign * s, r) for s in range(1, distance)]
                if any(sq in pieces for sq in between):
                    continue
                if (tf, tr) in pieces and pieces[(tf, tr)][0] == owner:
                    continue
                moves.append(((f, r), (tf, tr)))
    return moves


def reference_play(state, move):
    size, players, pieces, turn, firsts = state
    pieces = dict(pieces)
    start, end = move
    owner, master, vertical = pieces.pop(start)
    corner = end[0] in (0, size - 1) and end[1] in (0, size - 1)
    if corner and not master and owner not in firsts:
        firsts = firsts + (owner,)
    pieces[end] = (owner, master or corner, not vertical)
    alive = {o for o, _, _ in pieces.values()}
    if len(alive) <= 1 or all(m for _, m, _ in pieces.values()):
        return size, players, pieces, None, firsts
    for k in range(1, players + 1):
        candidate = (turn + k) % players
        if candidate in alive and reference_moves_for(size, pieces, candidate):
            return size, players, pieces, candidate, firsts
    return size, players, pieces, None, firsts


def reference_perft(state, depth):
    size, _, pieces, turn, _ = state
    if depth == 0:
        return 1
    if turn is None:
        return 0
    moves = reference_moves_for(size, pieces, turn)
    return sum(reference_perft(reference_play(state, m), depth - 1) for m in moves)


@pytest.mark.parametrize(("position", "counts"), golden_entries())
def test_naive_reference_agrees_with_golden_counts(position, counts):
    state = reference_from(position)
    # Depth 3 where it is cheap for the naive generator; the big trees to depth 2.
    depth = 3 if counts[1] < 600 else 2
    assert [reference_perft(state, d) for d in range(1, depth + 1)] == counts[:depth]
