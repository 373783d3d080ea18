"""What the Quivit best-rotation hint does with the Double Rotate card, over seeded games.

Usage: python bench/quivit_hints.py [--games N] [--players P]

Every side follows the hint's first play in digital games with Double
Rotation on. Prints, for the ranking by points (then cards) and for the
hint's ranking by value (points less the card's end-of-game worth when a play
spends it): the turns whose first play spends the card, how much those gain
over the best play that keeps it, the mean final score, and the mean end draw
of the cards kept to the end.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.games.quivit.game import GAME  # noqa: E402
from companion.games.quivit.hints import best_rotations  # noqa: E402

NAMES = ["Ann", "Bob", "Cy", "Di"]


def by_points(hints):
    return sorted(hints, key=lambda h: (-h["points"], -h["count"]))  # the old ranking (stable sort)


def play(seed: int, players: int, rank) -> tuple[Counter, list[int], list[int]]:
    state = GAME.new_state(NAMES[:players], {"seed": seed, "hints": True, "double_rotation": True})
    gains: Counter = Counter()
    draws = []
    while not GAME.finished(state):
        if state.phase == "final-draw":
            player = next(a["player"] for a in GAME.actions(state) if a["type"] == "draw")
            state = GAME.apply(state, {"type": "draw", "player": player})
            draws.append(state.history[-1]["points"])
            continue
        hints = rank(best_rotations(state))
        top = hints[0]
        if top["spends_double_rotate"]:
            plain = max(h["points"] for h in hints if not h["spends_double_rotate"])
            gains[min(top["points"] - plain, 3)] += 1
        state = GAME.apply(state, top["event"])
    return gains, draws, [side.score for side in state.sides]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, default=3)
    args = parser.parse_args()
    for label, rank in (("by points, then cards", by_points), ("by value (the hint)", lambda hints: hints)):
        gains: Counter = Counter()
        draws: list[int] = []
        scores: list[int] = []
        for seed in range(args.games):
            g, d, s = play(seed, args.players, rank)
            gains += g
            draws += d
            scores += s
        spent = sum(gains.values())
        print(f"{label}: {args.games} games of {args.players} players")
        print(f"  turns whose first play spends the Double Rotate card: {spent}")
        print("  gain over the best play keeping it: "
              + ", ".join(f"{'3 or more' if k == 3 else k}: {gains[k]}" for k in sorted(gains)))
        print(f"  cards kept to the end: {len(draws)}, mean draw {sum(draws) / max(1, len(draws)):.2f} points")
        print(f"  mean final score per side: {sum(scores) / len(scores):.2f}")


if __name__ == "__main__":
    main()
