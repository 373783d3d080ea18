"""Trade advisor timings: one-trade and two-trade advice on seeded random unplayable hands.

Usage: python bench/advisor.py [--hands N] [--seed S] [--young] [--tileset NAME] [--samples K] [--trades 1|2]

Deals seeded random 24-tile hands from the 114-tile set, keeps the ones the
solver proves impossible, and times `advise` on each twice from a cold start:
with one trade left (exact p_one only) and with two (p_one and p_two). Prints
the median and maximum wall-clock and CPU time of each, the solver calls, the
hands met whose solve timed out ("unknown"), and the p_two standard errors.
Wall-clock time is what a player waits; CPU time is steadier on a shared
machine. The goals (issue #14), in both variations: one-trade advice median
at most 0.3 s, max at most 2 s, no unknown hand; two-trade advice exact,
median at most 2 s, max at most 10 s. The last lines say how many two-trade
advices had an exact p_two, for every candidate and for the best one. `--trades 1` times one-trade advice only (about a
minute a variation, against five with two-trade advice), `--trades 2` two-trade
advice only. `--after-one` (with both kinds) makes each two-trade advice go on from the
one-trade advice of the same hand (`advise(..., one_trade=)`), as the phone's hint does: the
two-trade figures are then what the hint service's worker spends after the quick answer.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.games.pivit_tiles.advisor import DEFAULT_SAMPLES, advise  # noqa: E402
from companion.games.pivit_tiles.solver import solve  # noqa: E402
from companion.games.pivit_tiles.tiles import get_tileset  # noqa: E402


def unplayable_hands(n: int, seed: int, tileset: str, young: bool) -> tuple[list[list[str]], int]:
    """n seeded random unplayable hands, and how many hands were dealt to find them."""
    ts = get_tileset(tileset)
    box = ts.full_set()
    rng = random.Random(seed)
    hands: list[list[str]] = []
    dealt = 0
    while len(hands) < n:
        hand = rng.sample(box, 24)
        dealt += 1
        if solve(hand, ts, young).status == "impossible":
            hands.append(hand)
    return hands, dealt


def timed(hand: list[str], args, trades: int, one_trade=None):
    wall = time.perf_counter()
    cpu = time.process_time()
    advice = advise(hand, args.tileset, args.young, trades, samples=args.samples, seed=args.seed,
                    one_trade=one_trade)
    return time.perf_counter() - wall, time.process_time() - cpu, advice


def summary(label: str, values: list[float]) -> str:
    return f"{label} median {statistics.median(values):.3f} s, max {max(values):.3f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--young", action="store_true")
    ap.add_argument("--tileset", default="classic")
    ap.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    ap.add_argument("--verbose", action="store_true", help="one line per hand")
    ap.add_argument("--trades", type=int, choices=(1, 2), help="time only the advice with this many trades left (default both)")
    ap.add_argument("--after-one", action="store_true",
                    help="each two-trade advice goes on from the hand's one-trade advice (the hint worker)")
    args = ap.parse_args()
    if args.after_one and args.trades:
        ap.error("--after-one times both kinds: leave out --trades")

    hands, dealt = unplayable_hands(args.hands, args.seed, args.tileset, args.young)
    print(
        f"hands: {len(hands)} unplayable of {dealt} dealt (seed {args.seed}, {args.tileset}"
        f"{', young' if args.young else ''}); p_two samples per candidate: {args.samples}"
    )
    kinds = (args.trades,) if args.trades else (1, 2)
    rows = {trades: [] for trades in kinds}
    for i, hand in enumerate(hands):
        one = None
        for trades in kinds:
            wall, cpu, advice = timed(hand, args, trades, one if args.after_one else None)
            one = advice
            rows[trades].append((wall, cpu, advice))
            if args.verbose:
                best = advice.advice[0]
                print(
                    f"  hand {i:3d} trades {trades}: {wall:7.3f} s wall {cpu:7.3f} s cpu, "
                    f"{advice.solver_calls:5d} solver calls, {advice.unknown} unknown; best {best.trade} "
                    f"p_one {best.p_one:.3f} p_two {best.p_two:.3f}"
                )
    two = "two trades, going on from one (p_two)" if args.after_one else "two trades (p_one + p_two)"
    for trades, label in ((1, "one trade (exact p_one)"), (2, two)):
        if trades not in rows:
            continue
        walls = [w for w, _, _ in rows[trades]]
        cpus = [c for _, c, _ in rows[trades]]
        calls = [a.solver_calls for _, _, a in rows[trades]]
        unknown = sum(a.unknown for _, _, a in rows[trades])
        print(f"{label}:")
        print(f"  {summary('wall', walls)}")
        print(f"  {summary('cpu ', cpus)}")
        print(
            f"  solver calls median {statistics.median(calls):.0f}, max {max(calls)}; "
            f"unknown hands (timeouts) {unknown}"
        )
    if 2 not in rows:
        return
    ses = [t.p_two_stderr for _, _, a in rows[2] for t in a.advice if t.p_two_stderr is not None]
    best_ses = [a.advice[0].p_two_stderr or 0.0 for _, _, a in rows[2]]
    if ses:
        print(
            f"p_two standard error: mean {statistics.mean(ses):.4f}, max {max(ses):.4f}; "
            f"best candidate's mean {statistics.mean(best_ses):.4f}"
        )
    exact = sum(a.p_two_exact for _, _, a in rows[2])
    print(f"p_two exact on {exact} of {len(rows[2])} hands")
    candidates = [t for _, _, a in rows[2] for t in a.advice]
    exact_best = sum(a.advice[0].p_two_stderr is None for _, _, a in rows[2])
    exact_any = sum(t.p_two_stderr is None for t in candidates)
    print(
        f"p_two exact for the best candidate on {exact_best} of {len(rows[2])} hands, "
        f"for {exact_any} of {len(candidates)} candidates"
    )
    best = [a.advice[0] for _, _, a in rows[2]]
    p_one = statistics.mean(b.p_one for b in best)
    p_two = statistics.mean(b.p_two for b in best)
    print(f"best candidate: mean p_one {p_one:.3f}, mean p_two {p_two:.3f} (the second trade adds {p_two - p_one:.3f})")


if __name__ == "__main__":
    main()
