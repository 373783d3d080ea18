"""Grid-check throughput: grids per second on one core.

Usage: python bench/check.py [--grids N] [--seed S]

Checks a fixed mix of seeded grids: valid 24-tile grids (product layouts with
some wilds), and the same grids with one fault planted (a swapped tile, a
moved tile). Prints grids per second for the check alone and for parse+check.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.games.pivit_tiles.check import check_grid  # noqa: E402
from companion.games.pivit_tiles.grid import grid_str, parse_grid  # noqa: E402


def make_grids(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    grids = []
    for _ in range(n):
        colours = rng.sample("ROYGBP", 4)
        designs = rng.sample("123456", 6)
        cells = {(r, c): d + col for r, col in enumerate(colours) for c, d in enumerate(designs)}
        if rng.random() < 0.3:
            cells[rng.choice(list(cells))] = "**"
        kind = rng.random()
        if kind < 0.25:  # swap two tiles: usually mixed lines
            a, b = rng.sample(list(cells), 2)
            cells[a], cells[b] = cells[b], cells[a]
        elif kind < 0.4:  # move a corner tile away: a disconnected or short line
            del cells[(0, 0)]
            cells[(6, 6)] = "1R"
        grids.append(cells)
    return grids


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grids", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    grids = make_grids(args.grids, args.seed)
    texts = [grid_str(g) for g in grids]

    start, cpu = time.perf_counter(), time.process_time()
    valid = sum(check_grid(g).valid for g in grids)
    check_s, check_cpu = time.perf_counter() - start, time.process_time() - cpu

    start, cpu = time.perf_counter(), time.process_time()
    for t in texts:
        check_grid(parse_grid(t))
    parse_s, parse_cpu = time.perf_counter() - start, time.process_time() - cpu

    # CPU time is what one core spends; wall time also counts waiting for a busy machine.
    n = len(grids)
    print(f"grids: {n} ({valid} valid), one core")
    print(f"check only:    {n / check_cpu:,.0f} grids per CPU-second ({n / check_s:,.0f} per wall-second)")
    print(f"parse + check: {n / parse_cpu:,.0f} grids per CPU-second ({n / parse_s:,.0f} per wall-second)")


if __name__ == "__main__":
    main()
