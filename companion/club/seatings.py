"""Proposed tables for the next round of a club night: 2 to 4 players each, like with like.

Players are taken in order of strength (the caller's order: standings or
ratings) and cut into tables of 4 where possible, then 3, never 1: 5 players
make 3 + 2, 6 make 3 + 3, 9 make 3 + 3 + 3. Within that shape, players who
met tonight are moved apart where a swap with a neighbouring table of similar
strength removes a repeat meeting without making another.
"""
from __future__ import annotations

from itertools import combinations
from typing import Sequence


def table_sizes(count: int) -> list[int]:
    """How `count` players split into tables of 2 to 4, as many fours as possible. Raises ValueError below 2."""
    if count < 2:
        raise ValueError("seating needs at least 2 players")
    if count in (2, 3, 4):
        return [count]
    if count == 5:
        return [3, 2]
    fours, rest = divmod(count, 4)
    # rest 1, 2, 3: turn fours into threes until the rest fits (1 -> 3 threes, 2 -> 2 threes, 3 -> one three).
    threes = {0: 0, 1: 3, 2: 2, 3: 1}[rest]
    fours = (count - 3 * threes) // 4
    return [4] * fours + [3] * threes


def _repeats(table: Sequence[int], met: set[frozenset[int]]) -> int:
    return sum(frozenset(pair) in met for pair in combinations(table, 2))


def propose(ranked: Sequence[int], met: set[frozenset[int]]) -> list[list[int]]:
    """Tables for `ranked` players (strongest first); `met` holds the pairs who already played each other."""
    sizes = table_sizes(len(ranked))
    tables, start = [], 0
    for size in sizes:
        tables.append(list(ranked[start:start + size]))
        start += size
    improved = True
    while improved:
        improved = False
        for i in range(len(tables) - 1):
            a, b = tables[i], tables[i + 1]
            before = _repeats(a, met) + _repeats(b, met)
            if before == 0:
                continue
            best = None
            for x in range(len(a)):
                for y in range(len(b)):
                    a2, b2 = a[:x] + [b[y]] + a[x + 1:], b[:y] + [a[x]] + b[y + 1:]
                    after = _repeats(a2, met) + _repeats(b2, met)
                    if after < before and (best is None or after < best[0]):
                        best = (after, a2, b2)
            if best:
                tables[i], tables[i + 1] = best[1], best[2]
                improved = True
    return tables
