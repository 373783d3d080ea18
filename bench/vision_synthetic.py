"""Bench the reader on random synthetic photos: accuracy and photos read exactly, by condition.

    .venv/bin/python bench/vision_synthetic.py [--seeds 0-299] [--size 640x480]

Each seed draws a grid (valid for two seeds in three, a wild in one in five)
and a random scene (background, rotation up to 40 degrees, perspective, gaps,
light, shadow, colour cast, blur, noise, JPEG quality) with
vision.synthetic, reads it and scores it. Prints the totals and each photo
not read exactly with what made it hard. Prints figures; passes nothing.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0-299", help="first-last seed (default 0-299)")
    parser.add_argument("--size", default="640x480", help="picture size (default 640x480)")
    args = parser.parse_args()
    first, last = (int(x) for x in args.seeds.split("-"))
    width, height = (int(x) for x in args.size.lower().split("x"))

    sys.path.insert(0, ROOT)
    from vision.errors import VisionError
    from vision.evaluate import EvalSummary, PhotoScore, score
    from vision.pipeline import read_image_bytes
    from vision.synthetic import synthetic_photo

    summary = EvalSummary()
    start = time.perf_counter()
    for seed in range(first, last + 1):
        tileset = "classic" if seed % 2 else "connect"
        rendered = synthetic_photo(
            seed, tileset, tiles=6 + seed % 12, valid=seed % 3 != 0, wilds=1 if seed % 5 == 0 else 0,
            size=(width, height), max_rotation=40.0,
        )
        try:
            result = read_image_bytes(rendered.data, tileset)
            s = score(str(seed), result.cells(), rendered.cells, result.elapsed_ms)
        except VisionError as exc:
            s = PhotoScore(str(seed), len(rendered.cells), 0, 0, 0, 0.0, str(exc))
        summary.photos.append(s)
        if not s.exact:
            sc = rendered.scene
            print(
                f"seed {seed}: {s.correct}/{s.truth} right, {s.extra} extra {s.error} "
                f"({sc.background}, {sc.tile_px:.0f} px tiles, turned {sc.rotation:.0f}, blur {sc.blur:.2f}, "
                f"jpeg {sc.jpeg_quality or 'none'}, shadow {sc.shadow:.2f})"
            )
    elapsed = time.perf_counter() - start
    tiles = sum(p.truth for p in summary.photos)
    print(f"{len(summary.photos)} photos, {tiles} tiles, {width}x{height}")
    print(f"per-tile accuracy   {100 * summary.tile_accuracy:.2f}%")
    print(f"photos read exactly {100 * summary.exact_rate:.1f}%")
    print(f"time per photo      {summary.ms_per_photo:.0f} ms in the reader ({elapsed:.0f} s with rendering)")


if __name__ == "__main__":
    main()
