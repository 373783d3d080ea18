"""Bench the camera check on a folder of photos: accuracy, photos read exactly, time, and the 1.5x goal.

    .venv/bin/python bench/vision.py [DIR] [--repeat N] [--tileset NAME]

DIR defaults to ../shared/data/qwirkle-photos/dev beside the repository when
it exists. Two processes are timed, each started afresh, `--repeat` times in
turn, and the fastest run of each is kept (the machine is shared):

- baseline: a plain Python that imports cv2 and decodes every photo
  (cv2.imread, full size);
- read: `python -m companion vision read --json` over the same photos.

The goal is read <= 1.5 x baseline. If the folder has NAME.json truth files
(the qwirkle-photos format), the read's own output is scored: per-tile
accuracy and photos read exactly, after the best translation. Prints figures;
passes or fails nothing.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIR = os.path.join(os.path.dirname(ROOT), "shared", "data", "qwirkle-photos", "dev")
SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")

BASELINE = "import sys, cv2\nfor path in sys.argv[1:]:\n    image = cv2.imread(path)\n"


def timed(argv: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    result = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - start
    if result.returncode not in (0, 2):
        sys.exit(f"bench: {' '.join(argv[:4])} ... failed:\n{result.stderr}")
    return elapsed, result.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", nargs="?", default=DEFAULT_DIR, metavar="DIR")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each process (default 3)")
    parser.add_argument("--tileset", help="tile set (default: from the truth files, else classic)")
    args = parser.parse_args()

    sys.path.insert(0, ROOT)
    from vision.evaluate import EvalSummary, load_truth, score

    if not os.path.isdir(args.folder):
        sys.exit(f"bench: {args.folder}: no such folder")
    photos = sorted(os.path.join(args.folder, n) for n in os.listdir(args.folder) if n.lower().endswith(SUFFIXES))
    if not photos:
        sys.exit(f"bench: {args.folder}: no photos")
    truths = {}
    for path in photos:
        truth_path = os.path.splitext(path)[0] + ".json"
        if os.path.exists(truth_path):
            truths[path] = load_truth(truth_path)[:2]
    tileset = args.tileset or (
        collections.Counter(ts for _, ts in truths.values()).most_common(1)[0][0] if truths else "classic"
    )

    python = sys.executable
    baseline_argv = [python, "-c", BASELINE, *photos]
    read_argv = [python, "-m", "companion", "vision", "read", "--json", "--tileset", tileset, *photos]
    baseline_times, read_times = [], []
    out = ""
    for _ in range(max(1, args.repeat)):
        baseline_times.append(timed(baseline_argv)[0])
        elapsed, out = timed(read_argv)
        read_times.append(elapsed)
    base, read = min(baseline_times), min(read_times)

    docs = {doc["image"]: doc for doc in (json.loads(line) for line in out.splitlines() if line.strip())}
    print(f"{len(photos)} photos in {args.folder} (tile set {tileset})")
    if truths:
        summary = EvalSummary()
        for path, (truth, _) in truths.items():
            doc = docs.get(path)
            if doc is None:
                summary.photos.append(score(os.path.basename(path), {}, truth, 0.0))
                continue
            cells = {(t["row"], t["col"]): t["tile"] for t in doc["tiles"]}
            summary.photos.append(score(os.path.basename(path), cells, truth, doc["elapsed_ms"]))
        wrong = [p.name for p in summary.photos if not p.exact]
        print(f"per-tile accuracy   {100 * summary.tile_accuracy:.2f}%   (goal 99.5%)")
        print(f"photos read exactly {100 * summary.exact_rate:.1f}%   (goal 95%){'  wrong: ' + ', '.join(wrong) if wrong else ''}")
    else:
        print("no truth files: timing only")
    in_process = [doc["elapsed_ms"] for doc in docs.values()]
    if in_process:
        print(f"time per photo      {sum(in_process) / len(in_process):.0f} ms in the reader (decode included)")
    print(f"baseline process    {base:.2f} s   (python, import cv2, cv2.imread of every photo; best of {len(baseline_times)})")
    print(f"read process        {read:.2f} s   (companion vision read --json; best of {len(read_times)})")
    print(f"ratio               {read / base:.2f}x   (goal 1.5x or less)")


if __name__ == "__main__":
    main()
