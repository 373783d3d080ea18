"""Measure how each paint follows a colour cast beyond the light's model: vision.colour.CAST_RESPONSE.

    .venv/bin/python bench/paint_response.py [--seeds 0-143] [--ridge 0.3] [--condition tinted] [--size 1200x900]

Reads the evaluation photos of a condition; on each photo whose tiles are all read in the right
paint (sure or not), takes every tile's light offset and its residual off its paint's reference
(vision.colour.cast_residuals), and fits, per paint, the 2 x 2 matrix that best maps the offset to
the residual (least squares, held towards the best share of the offset, a multiple of the identity,
by `--ridge` times the offsets' spread: a paint seen on few tiles, as purple and white are, is
otherwise fitted to its noise). Prints the matrices as CAST_RESPONSE is written, and each paint's
residuals' median and 95th percentile with no response, with the share alone and with the matrix.
Prints figures; passes nothing. Never measure on the held-out seeds (144 and later).
"""
from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0-143", help="first-last seed (default 0-143)")
    parser.add_argument("--ridge", type=float, default=0.3, help="how strongly a matrix is held towards a share")
    parser.add_argument("--condition", default="tinted", help="evaluation condition (default tinted)")
    parser.add_argument("--size", default="1200x900", help="picture size (default 1200x900)")
    args = parser.parse_args()
    first, last = (int(x) for x in args.seeds.split("-"))
    size = tuple(int(x) for x in args.size.lower().split("x"))

    sys.path.insert(0, ROOT)
    import numpy as np

    from companion.games.pivit_tiles.tiles import get_tileset
    from vision.colour import WILD_COLOUR, cast_residuals
    from vision.errors import VisionError
    from vision.evalsets import make_photo
    from vision.evaluate import score_result
    from vision.pipeline import read_image_bytes

    by_paint: dict[str, list] = {}
    used = 0
    for seed in range(first, last + 1):
        photo = make_photo(args.condition, seed, size)
        try:
            result = read_image_bytes(photo.data, photo.tileset)
        except VisionError:
            continue
        score = score_result(photo.name, result, photo.cells)
        if not score.correct == score.read == score.truth:
            continue  # a tile misread or missed: its paint is not known for sure
        cells = result.cells()
        order = sorted(result.samples)
        painted = "".join(WILD_COLOUR if cells[c] == "**" else cells[c][1] for c in order)
        offsets, residuals = cast_residuals([result.samples[c] for c in order], get_tileset(photo.tileset).colours,
                                            painted, [result.positions[c] for c in order])
        for letter, offset, residual in zip(painted.replace(WILD_COLOUR, ""), offsets, residuals):
            by_paint.setdefault(letter, []).append((offset, residual))
        used += 1
    print(f"{used} photos of {args.condition} seeds {first}-{last} with every paint read right")
    print("CAST_RESPONSE = {")
    for letter in "ROYGBPW":
        if letter not in by_paint:
            continue
        offsets = np.array([o for o, _ in by_paint[letter]])
        residuals = np.array([r for _, r in by_paint[letter]])
        share = float((offsets * residuals).sum() / max(float((offsets * offsets).sum()), 1e-12))
        normal = offsets.T @ offsets
        hold = args.ridge * float(np.trace(normal)) / 2
        matrix = np.linalg.solve(normal + hold * np.eye(2), offsets.T @ residuals + hold * share * np.eye(2)).T
        before = np.hypot(*residuals.T)
        shared = np.hypot(*(residuals - share * offsets).T)
        after = np.hypot(*(residuals - offsets @ matrix.T).T)
        rows = ", ".join(f"({a:.2f}, {b:.2f})" for a, b in matrix)
        print(f'    "{letter}": ({rows}),  # {len(offsets)} tiles: residual median {np.median(before):.2f} -> '
              f"{np.median(shared):.2f} -> {np.median(after):.2f}, 95% {np.percentile(before, 95):.2f} -> "
              f"{np.percentile(shared, 95):.2f} -> {np.percentile(after, 95):.2f}")
    print("}")


if __name__ == "__main__":
    main()
