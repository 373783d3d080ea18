"""Helpers for the Pivit tiles tests: a brute force over every grid shape for small hands.

It uses nothing of the solver or the advisor, only the grid check (the rules'
own definition of a correct grid), so the solver and the advisor are checked
against it.
"""
from __future__ import annotations

from collections import Counter

import pytest

from companion.games.pivit_tiles.check import check_grid, find_lines, line_fault


def _shapes(n):
    shapes = {frozenset([(0, 0)])}
    for _ in range(n - 1):
        grown = set()
        for shape in shapes:
            for r, c in shape:
                for cell in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if cell not in shape:
                        new = shape | {cell}
                        top = min(a for a, _ in new)
                        left = min(b for _, b in new)
                        grown.add(frozenset((a - top, b - left) for a, b in new))
        shapes = grown
    return sorted(shapes, key=sorted)


_SHAPES = {n: [(s, find_lines(dict.fromkeys(s, "x"))) for s in _shapes(n)] for n in range(2, 7)}


def _has_grid(hand, young):
    """Some arrangement of the hand on some shape passes the grid check."""
    if len(hand) <= 1:
        return True
    min_line = 2 if young else 3
    left = Counter(hand)
    for shape, lines in _SHAPES[len(hand)]:
        if any(not min_line <= len(line) <= 6 for line in lines):
            continue
        order = sorted(shape)
        lines_at = {cell: [line for line in lines if cell in line] for cell in order}
        grid = {}

        def fill(k):
            if k == len(order):
                return check_grid(grid, young=young, tiles=len(hand)).valid
            cell = order[k]
            for tile in list(left):
                if left[tile]:
                    grid[cell] = tile
                    left[tile] -= 1
                    if all(
                        line_fault([grid[c] for c in line if c in grid]) is None for line in lines_at[cell]
                    ) and fill(k + 1):
                        return True
                    left[tile] += 1
                    del grid[cell]
            return False

        if fill(0):
            return True
    return False


@pytest.fixture(scope="session")
def brute_force_has_grid():
    """The brute force: (hand, young) -> whether some grid of exactly those tiles passes the check."""
    return _has_grid
