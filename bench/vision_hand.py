"""Bench the loose-tile reader (`vision read-hand`): accuracy and time per photo.

    .venv/bin/python bench/vision_hand.py [--seeds 0-199] [--size 800x600] [--touching 0.4] [--leaning 0] [--grids DIR]

Each seed scatters a hand of 8 to 24 tiles (a wild or more in two seeds in
three, both tile sets) on a random table with vision.synthetic, some tiles
pushed against others (or leaning on them, with --leaning), photographs it under random light, blur, noise and
JPEG, reads it and scores it: a reading counts for the true tile whose
middle is nearest it (within 0.3 of a tile), right if it names that tile.
Prints the totals, the time per photo in the reader (median and 90th
percentile) and each hand not read exactly.

--grids DIR also reads every NAME.jpg with a NAME.json truth file in DIR
(the qwirkle-photos format, e.g. ../shared/data/qwirkle-photos/dev) as a
hand: a finished grid is loose tiles pressed together on every side, the
only real photos of tiles at hand. Those are scored as multisets (the tiles
read against the tiles in the truth file). Prints figures; passes nothing.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import sys
import time
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def score_scattered(rendered, result) -> tuple[int, int, int, list[str]]:
    """(right, wrong, extra, notes) of a reading of a synthetic hand, tile by tile."""
    import numpy as np

    side = rendered.scene.tile_px
    taken: set[int] = set()
    right = wrong = extra = 0
    notes = []
    for tile in result.tiles:
        d = np.linalg.norm(rendered.centres - (tile.x, tile.y), axis=1)
        k = int(np.argmin(d))
        if d[k] >= 0.3 * side or k in taken:
            extra += 1
            notes.append(f"extra {tile.tile} at ({tile.x:.0f}, {tile.y:.0f})")
            continue
        taken.add(k)
        if tile.tile == rendered.tiles[k]:
            right += 1
        else:
            wrong += 1
            notes.append(f"{rendered.tiles[k]} read as {tile.tile} ({tile.confidence:.2f})")
    for k, tile in enumerate(rendered.tiles):
        if k not in taken:
            x, y = rendered.centres[k]
            notes.append(f"missed {tile} at ({x:.0f}, {y:.0f})")
    return right, wrong, extra, notes


def bench_scattered(first: int, last: int, size: tuple[int, int], touching: float, leaning: float) -> None:
    from vision.errors import VisionError
    from vision.hand import read_hand_bytes
    from vision.synthetic import synthetic_hand

    total = right = wrong = extra = exact = 0
    times = []
    start = time.perf_counter()
    for seed in range(first, last + 1):
        tileset = "classic" if seed % 2 else "connect"
        tiles = 8 + seed % 17
        rendered = synthetic_hand(seed, tileset, tiles=tiles, wilds=seed % 3, size=size, touching=touching, leaning=leaning)
        total += tiles
        try:
            result = read_hand_bytes(rendered.data, tileset)
        except VisionError as exc:
            print(f"seed {seed}: ERROR {exc}")
            continue
        times.append(result.elapsed_ms)
        r, w, e, notes = score_scattered(rendered, result)
        right, wrong, extra = right + r, wrong + w, extra + e
        if notes:
            sc = rendered.scene
            print(
                f"seed {seed}: {r}/{tiles} right; " + "; ".join(notes)
                + f" ({sc.background}, {sc.tile_px:.0f} px tiles, {rendered.touching} touching, blur {sc.blur:.2f}, "
                f"jpeg {sc.jpeg_quality or 'none'}, shadow {sc.shadow:.2f})"
            )
        else:
            exact += 1
    elapsed = time.perf_counter() - start
    hands = last - first + 1
    print(f"{hands} scattered hands, {total} tiles, {size[0]}x{size[1]}, touching {touching}, leaning {leaning}")
    print(f"per-tile accuracy   {100 * right / max(total, 1):.2f}% ({right}/{total}; {wrong} misread, {total - right - wrong} missed, {extra} extra)")
    print(f"hands read exactly  {exact}/{hands} ({100 * exact / hands:.1f}%)")
    if times:
        p90 = sorted(times)[int(0.9 * (len(times) - 1))]
        print(f"time per photo      {statistics.median(times):.0f} ms median, {p90:.0f} ms 90th percentile in the reader ({elapsed:.0f} s with rendering)")


def bench_grids(folder: str) -> None:
    from vision.errors import VisionError
    from vision.hand import read_hand_file

    photos = sorted(p for p in glob.glob(os.path.join(folder, "*.jpg")) if os.path.exists(p[:-4] + ".json"))
    if not photos:
        print(f"{folder}: no NAME.jpg with a NAME.json truth file")
        return
    total = right = extra = exact = 0
    times = []
    for path in photos:
        with open(path[:-4] + ".json", encoding="utf-8") as f:
            truth = json.load(f)
        want = Counter(t["tile"] for t in truth["tiles"])
        try:
            result = read_hand_file(path, truth.get("tileset", "classic"))
            got = Counter(result.tile_list())
            times.append(result.elapsed_ms)
        except VisionError as exc:
            got = Counter()
            print(f"{os.path.basename(path)}: ERROR {exc}")
        n = sum(want.values())
        r = sum((want & got).values())
        total, right, extra = total + n, right + r, extra + sum((got - want).values())
        exact += got == want
        if got != want:
            print(f"{os.path.basename(path)}: {r}/{n} right, missing {dict(want - got)}, extra {dict(got - want)}")
    print(f"{len(photos)} grid photos read as hands ({folder}), {total} tiles")
    print(f"per-tile accuracy   {100 * right / total:.2f}% ({right}/{total}; {extra} extra)")
    print(f"photos read exactly {exact}/{len(photos)}")
    if times:
        print(f"time per photo      {statistics.median(times):.0f} ms median, {max(times):.0f} ms at most, decode included")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0-199", help="first-last seed (default 0-199)")
    parser.add_argument("--size", default="800x600", help="picture size (default 800x600)")
    parser.add_argument("--touching", type=float, default=0.4, help="chance a tile is pushed against another (default 0.4)")
    parser.add_argument("--leaning", type=float, default=0.0, help="chance such a tile leans on the other instead (default 0)")
    parser.add_argument("--grids", metavar="DIR", help="also read the grid photos with truth files in DIR as hands")
    args = parser.parse_args()
    first, last = (int(x) for x in args.seeds.split("-"))
    width, height = (int(x) for x in args.size.lower().split("x"))

    sys.path.insert(0, ROOT)
    bench_scattered(first, last, (width, height), args.touching, args.leaning)
    if args.grids:
        print()
        bench_grids(args.grids)


if __name__ == "__main__":
    main()
