"""Bench where a read's CPU goes, stage by stage, on the development photos.

    .venv/bin/python bench/vision_stages.py [--dev DIR] [--rounds N]

Loads the reader, reads every photo once to warm it up, then reads them all
`--rounds` times in turn (default 3) in this one process, as a `vision read`
worker does (with its malloc settings), and times each stage's CPU (time.process_time) where the
pipeline calls it: the decode, the search for the tiles, the table's plane,
the lattice (with its search of the rectified view), the finger search, the
designs, the colour samples and the colours' classes; the rest is what the
read spends between them. Prints each stage's milliseconds a photo (the
least of the rounds for each photo, the machine being shared) and share of
the read, and the read after the decode fitted as a fixed part plus a part
per tile (least squares over the photos): what a change to a stage can
save, and whether it is paid per photo or per tile. Prints figures; passes
nothing.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DEV = os.path.join(os.path.dirname(ROOT), "shared", "data", "qwirkle-photos", "dev")

# (label, module, function name): each stage where the pipeline looks it up when it calls it, so
# that a wrapper put there times every call of it in a read and no call of another stage.
STAGES = (
    ("decode", "vision.capture", "decode_image_bytes"),
    ("find the tiles", "vision.pipeline", "find_tiles"),
    ("plane", "vision.plane", "estimate_plane"),
    ("lattice", "vision.lattice", "fit_in_plane"),
    ("finger search", "vision.pipeline", "covered_cells"),
    ("designs", "vision.pipeline", "read_asked"),
    ("colour samples", "vision.pipeline", "colour_sample"),
    ("colour classes", "vision.pipeline", "read_colours"),
)


def timed_stages(spent: dict[str, float]) -> None:
    """Wrap each of STAGES so that its CPU seconds add up in `spent[label]`."""
    import importlib

    for label, module_name, name in STAGES:
        module = importlib.import_module(module_name)
        function = getattr(module, name)

        def wrapper(*args, _function=function, _label=label, **kwargs):
            started = time.process_time()
            try:
                return _function(*args, **kwargs)
            finally:
                spent[_label] += time.process_time() - started

        setattr(module, name, wrapper)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dev", default=DEFAULT_DEV, metavar="DIR", help="photos to read (default: the dev folder)")
    parser.add_argument("--rounds", type=int, default=3, help="timed reads of every photo (default 3)")
    args = parser.parse_args()
    sys.path.insert(0, ROOT)
    import numpy as np

    from vision.pipeline import load_reader, read_image_file, use_opencv_threads
    from vision.config import VisionConfig

    from companion.commands.vision import _keep_freed_memory

    load_reader()
    use_opencv_threads(VisionConfig())
    _keep_freed_memory()  # as `vision read` does: freed arrays reused, not faulted in anew
    if not os.path.isdir(args.dev):
        sys.exit(f"bench: no folder {args.dev} (give the development photos with --dev)")
    photos = sorted(os.path.join(args.dev, n) for n in os.listdir(args.dev) if n.lower().endswith((".jpg", ".jpeg")))
    if not photos:
        sys.exit(f"bench: no JPEG photos in {args.dev}")
    spent = {label: 0.0 for label, _, _ in STAGES}
    timed_stages(spent)
    tiles = [len(read_image_file(path).tiles) for path in photos]  # the warm-up read
    best: list[dict[str, float] | None] = [None] * len(photos)
    for _ in range(max(1, args.rounds)):
        for k, path in enumerate(photos):
            for label in spent:
                spent[label] = 0.0
            started = time.process_time()
            read_image_file(path)
            row = dict(spent, read=time.process_time() - started)
            if best[k] is None or row["read"] < best[k]["read"]:
                best[k] = row
    rows = [{label: 1000 * seconds for label, seconds in row.items()} for row in best]
    read = sum(r["read"] for r in rows) / len(rows)
    print(f"{len(photos)} photos of {args.dev}, {sum(tiles)} tiles; CPU a photo, the least of {args.rounds} rounds each")
    for label, _, _ in STAGES:
        ms = sum(r[label] for r in rows) / len(rows)
        print(f"{label:16s} {ms:6.1f} ms  {100 * ms / read:4.1f}%")
    rest = read - sum(sum(r[label] for r in rows) / len(rows) for label, _, _ in STAGES)
    print(f"{'the rest':16s} {rest:6.1f} ms  {100 * rest / read:4.1f}%")
    print(f"{'the read':16s} {read:6.1f} ms")
    after = np.array([r["read"] - r["decode"] for r in rows])
    design = np.stack([np.ones(len(tiles)), np.array(tiles, np.float64)], axis=1)
    fixed, per_tile = np.linalg.lstsq(design, after, rcond=None)[0]
    print(f"after the decode: {fixed:.1f} ms a photo + {per_tile:.2f} ms a tile (least squares over the photos, "
          f"{min(tiles)}-{max(tiles)} tiles)")


if __name__ == "__main__":
    main()
