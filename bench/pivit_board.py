"""Pivit board game: the practice computer's self-play, every seat, on every setup.

Usage: python bench/pivit_board.py [--games N] [--first-seed S] [--max-turns T]

Plays N seeded games (seeds S .. S+N-1, the seed given to every seat, as a
table's `seed` option is) from the standard start of each board size and
player count the engine has a setup for, with `computer.self_play`, the same
function tests/games/pivit_board/test_self_play.py checks. Prints per setup:
how the games ended (by the rulebook's reasons, or still going after T turns),
the mean and longest game in turns, the longest stretch without a capture or
promotion (against the table's default quiet-turn limit), and the wall-clock
and CPU time. Issue #17: the old computer left games running for ever.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.games.pivit_board import STARTING_SQUARES, computer, starting_position  # noqa: E402
from companion.games.pivit_board.engine import DEFAULT_QUIET_LIMIT  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--max-turns", type=int, default=1000)
    args = ap.parse_args()
    seeds = range(args.first_seed, args.first_seed + args.games)
    print(f"{args.games} games per setup, seeds {seeds.start}-{seeds.stop - 1}, "
          f"cut off after {args.max_turns} turns; the table's default quiet-turn limit is {DEFAULT_QUIET_LIMIT}")
    total_wall = total_cpu = 0.0
    for size, players in sorted(STARTING_SQUARES):
        wall, cpu = time.perf_counter(), time.process_time()
        ends: Counter[str] = Counter()
        lengths, quiet = [], []
        for seed in seeds:
            board = computer.self_play(starting_position(size, players), seed, max_turns=args.max_turns)
            outcome = board.outcome()
            ends[outcome.reason if outcome else f"still going after {args.max_turns} turns"] += 1
            lengths.append(len(board.history))
            quiet.append(computer.longest_quiet_stretch(board))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        total_wall += wall
        total_cpu += cpu
        print(f"{size}x{size}, {players} players: " + ", ".join(f"{n} {reason}" for reason, n in ends.most_common()))
        print(f"    turns: mean {statistics.mean(lengths):.0f}, longest {max(lengths)}; "
              f"longest quiet stretch {max(quiet)} (games reaching the limit: "
              f"{sum(q >= DEFAULT_QUIET_LIMIT for q in quiet)}); {wall:.1f} s wall, {cpu:.1f} s CPU")
    print(f"all setups: {total_wall:.1f} s wall, {total_cpu:.1f} s CPU")


if __name__ == "__main__":
    main()
