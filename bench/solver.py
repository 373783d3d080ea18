"""Hand-solver figures: time per hand and verdicts over seeded random deals.

Usage: python bench/solver.py [--hands N] [--seed S] [--young] [--size K]
                              [--tileset NAME] [--timeout SECONDS]

Deals N hands of K tiles (default 1,000 hands of 24) from a full box with
random.Random(S), solves each on one core, and prints the solved, impossible
and timeout rates and the median, 90th percentile, 99th percentile and
maximum time per hand, both wall-clock and CPU (the wall-clock figures grow
when other work shares the machine; the CPU ones do not), and the slowest
hand. Every "solved" grid is checked with the grid check as it goes.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.games.pivit_tiles.check import check_grid  # noqa: E402
from companion.games.pivit_tiles.solver import STATUSES, solve  # noqa: E402
from companion.games.pivit_tiles.tiles import get_tileset  # noqa: E402


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--young", action="store_true", help="the younger-players variation (lines of two)")
    ap.add_argument("--size", type=int, default=24, help="tiles per hand (default 24)")
    ap.add_argument("--tileset", default="classic")
    ap.add_argument("--timeout", type=float, default=2.0, help="seconds per hand (default 2)")
    args = ap.parse_args()

    ts = get_tileset(args.tileset)
    box = ts.full_set()
    rng = random.Random(args.seed)
    hands = [rng.sample(box, args.size) for _ in range(args.hands)]

    counts: Counter[str] = Counter()
    wall: list[float] = []
    cpu: list[float] = []
    slowest = (0.0, [], "")
    for hand in hands:
        cpu_start = time.process_time()
        result = solve(hand, ts, young=args.young, timeout=args.timeout)
        cpu.append((time.process_time() - cpu_start) * 1000)
        wall.append(result.elapsed_ms)
        counts[result.status] += 1
        if result.status == "solved":
            check = check_grid(result.grid, ts, young=args.young, tiles=len(hand))
            if not check.valid:
                raise SystemExit(f"BUG: the solver's grid fails the check for hand {' '.join(hand)}")
        if result.elapsed_ms > slowest[0]:
            slowest = (result.elapsed_ms, hand, result.status)

    n = len(hands)
    variation = "younger players" if args.young else "standard rules"
    print(f"{n} hands of {args.size} tiles, seed {args.seed}, {ts.name} set, {variation}, timeout {args.timeout:g} s")
    for status in STATUSES:
        print(f"{status + ':':<12}{counts[status]:>6}  ({counts[status] / n:.1%})")
    for name, values in (("wall ms", wall), ("CPU ms", cpu)):
        print(
            f"{name + ':':<12}median {statistics.median(values):7.1f}   p90 {percentile(values, 0.9):7.1f}   "
            f"p99 {percentile(values, 0.99):7.1f}   max {max(values):7.1f}   total {sum(values) / 1000:.1f} s"
        )
    print(f"slowest:    {slowest[0]:.0f} ms ({slowest[2]}): {' '.join(slowest[1])}")


if __name__ == "__main__":
    main()
