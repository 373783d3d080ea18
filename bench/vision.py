"""Bench the camera check: per condition, on the development photos, and the whole-process time ratio.

    .venv/bin/python bench/vision.py [--dev DIR] [--conditions LIST] [--count N] [--size WxH]
                                     [--seed S] [--repeat N] [--no-sets]

Prints, and passes or fails nothing:

1. For each evaluation condition (vision.evalsets; default all, `--count`
   photos each, default 10, at `--size`, default 4032x3024, a 12-megapixel
   phone photo): per-tile accuracy, photos read exactly, confidently wrong
   tiles, tiles not sure, cells "may be missing", refusals, time per photo
   in the reader. The photos are written once to
   bench/out/evalsets/WxH-sSEED-CODE/ (gitignored; CODE changes with the
   renderer's code, and the same seed gives the same photos) and read from
   there, decode included.
2. The development photos (`--dev`, default ../shared/data/qwirkle-photos/dev
   beside the repository, when present): the same figures, scored from the
   output of the timed `companion vision read --json` process below.
3. The whole-process ratio, in one run: `python -m companion vision read
   --json` (several photos at once, one process per core; and again with
   `--jobs 1`, one after another, with the CPU-time ratio) over 20 twelve-megapixel photos against a plain Python that
   imports cv2 and decodes the same photos at full size (cv2.imread), each
   started afresh, `--repeat` times in turn (default 3), the fastest of each
   kept (the machine is shared). The photos are the development photos when
   present, else 20 generated 12-megapixel photos of the "plain" condition.
   The project's modules are byte-compiled before the runs, as an install
   leaves them (PYTHONDONTWRITEBYTECODE would have each process compile them).
   Goal: 0.8x or less.

Goals of issue 12 for reference: at least 99.5% of tiles right and 95% of
photos exact, zero confidently wrong tiles, in every condition.
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
# The shared data sit beside the repository (or beside the folder of worktrees).
DEFAULT_DEV = next(
    (d for d in (os.path.join(up, "shared", "data", "qwirkle-photos", "dev") for up in (os.path.dirname(ROOT), os.path.dirname(os.path.dirname(ROOT)))) if os.path.isdir(d)),
    os.path.join(os.path.dirname(ROOT), "shared", "data", "qwirkle-photos", "dev"),
)
OUT = os.path.join(ROOT, "bench", "out", "evalsets")
SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")
PHONE = (4032, 3024)

BASELINE = "import sys, cv2\nfor path in sys.argv[1:]:\n    image = cv2.imread(path)\n"


def evalset_folder(size: tuple[int, int], seed: int) -> str:
    """Where rendered photos are kept: by size, seed and the renderer's own code (a change renders anew)."""
    import hashlib

    digest = hashlib.sha256()
    for part in ("synthetic.py", "evalsets.py"):
        with open(os.path.join(ROOT, "vision", part), "rb") as f:
            digest.update(f.read())
    return os.path.join(OUT, f"{size[0]}x{size[1]}-s{seed}-{digest.hexdigest()[:8]}")


def ensure_photos(conditions, count: int, seed: int, size: tuple[int, int]) -> list[tuple[str, str]]:
    """(photo, truth) paths of the evaluation photos asked for, rendering those not on disk yet."""
    from vision.evalsets import make_photo

    folder = evalset_folder(size, seed)
    os.makedirs(folder, exist_ok=True)
    pairs = []
    for condition in conditions:
        for k in range(seed, seed + count):
            stem = os.path.join(folder, f"{condition}-{k:04d}")
            if not (os.path.exists(stem + ".jpg") and os.path.exists(stem + ".json")):
                photo = make_photo(condition, k, size)
                with open(stem + ".jpg", "wb") as f:
                    f.write(photo.data)
                with open(stem + ".json", "w", encoding="utf-8") as f:
                    json.dump(photo.truth_json(), f)
            pairs.append((stem + ".jpg", stem + ".json"))
    return pairs


def timed(argv: list[str]) -> tuple[float, str, float]:
    """(wall seconds, standard output, CPU seconds of the process and its children)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if result.returncode not in (0, 2):
        sys.exit(f"bench: {' '.join(argv[:4])} ... failed:\n{result.stderr}")
    return elapsed, result.stdout, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dev", default=DEFAULT_DEV, metavar="DIR", help="labelled real photos (default: the dev folder)")
    parser.add_argument("--conditions", default="all", metavar="LIST", help="comma-separated conditions (default all)")
    parser.add_argument("--count", type=int, default=10, help="photos per condition (default 10)")
    parser.add_argument("--size", default="4032x3024", metavar="WxH", help="evaluation photo size (default 4032x3024)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each process (default 3)")
    parser.add_argument("--no-sets", action="store_true", help="skip the evaluation sets (dev photos and ratio only)")
    args = parser.parse_args()
    size = tuple(int(x) for x in args.size.lower().split("x"))

    sys.path.insert(0, ROOT)
    from vision.evalsets import CONDITIONS
    from vision.evaluate import EvalSummary, PhotoScore, evaluate_pairs, load_truth, score_json, table

    if not args.no_sets:
        conditions = CONDITIONS if args.conditions == "all" else tuple(args.conditions.split(","))
        started = time.perf_counter()
        pairs = ensure_photos(conditions, args.count, args.seed, size)
        made = time.perf_counter() - started
        summary = evaluate_pairs(pairs)
        print(f"evaluation sets: {args.count} photos per condition, {size[0]}x{size[1]}, seeds {args.seed}-{args.seed + args.count - 1} "
              f"({evalset_folder(size, args.seed)}; {made:.0f} s to render or find)")
        print("\n".join(table(summary.by_condition())))
        print()

    dev = os.path.isdir(args.dev)
    if dev:
        photos = sorted(os.path.join(args.dev, n) for n in os.listdir(args.dev) if n.lower().endswith(SUFFIXES))
        source = f"the {len(photos)} photos of {args.dev}"
    else:
        photos = [p for p, _ in ensure_photos(("plain",), 20, 0, PHONE)]
        source = f"20 generated 12-megapixel photos ({evalset_folder(PHONE, 0)}; no dev folder at {args.dev})"
    truths = {}
    for path in photos:
        truth_path = os.path.splitext(path)[0] + ".json"
        if os.path.exists(truth_path):
            truths[path] = load_truth(truth_path)
    tileset = collections.Counter(ts for _, ts, _ in truths.values()).most_common(1)[0][0] if truths else "classic"

    # The project's modules byte-compiled first, as an install leaves them (cv2's and NumPy's are):
    # with PYTHONDONTWRITEBYTECODE set, as on some machines, every reader process would otherwise
    # compile them again from source, 50-70 ms of CPU that no installed reader pays.
    import compileall

    for package in ("companion", "vision"):
        compileall.compile_dir(os.path.join(ROOT, package), quiet=1)
    python = sys.executable
    baseline_argv = [python, "-c", BASELINE, *photos]
    read_argv = [python, "-m", "companion", "vision", "read", "--json", "--tileset", tileset, *photos]
    one_argv = read_argv[:5] + ["--jobs", "1"] + read_argv[5:]
    baseline_times, read_times, one_times = [], [], []
    out = ""
    for _ in range(max(1, args.repeat)):
        baseline_times.append(timed(baseline_argv)[::2])
        elapsed, out, cpu = timed(read_argv)
        read_times.append((elapsed, cpu))
        one_times.append(timed(one_argv)[::2])
    base, read, one = min(baseline_times), min(read_times), min(one_times)

    docs = {doc["image"]: doc for doc in (json.loads(line) for line in out.splitlines() if line.strip())}
    if dev:
        summary = EvalSummary()
        for path, (truth, ts, _) in truths.items():
            name = os.path.basename(path)
            doc = docs.get(path)
            if doc is None:  # refused: exit 2 and a line on stderr
                summary.photos.append(PhotoScore(name, len(truth), 0, 0, 0, 0.0, "refused", "dev"))
                continue
            summary.photos.append(score_json(name, doc, truth, "dev"))
        print(f"development photos: {source} (tile set {tileset})")
        print("\n".join(table({"dev": summary})))
        wrong = [p.name for p in summary.photos if not p.exact]
        if wrong:
            print("not exact: " + ", ".join(wrong))
        print()
    in_reader = [doc["elapsed_ms"] for doc in docs.values()]
    print(f"whole process over {source}:")
    if in_reader:
        print(f"time per photo      {sum(in_reader) / len(in_reader):.0f} ms in the reader (decode included)")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"baseline process    {base[0]:.2f} s   ({base[1]:.2f} s CPU; python, import cv2, cv2.imread of every photo at full size; best of {len(baseline_times)})")
    print(f"read process        {read[0]:.2f} s   ({read[1]:.2f} s CPU; companion vision read --json, photos read {min(cores, 4)} at once on {cores} cores; best of {len(read_times)})")
    print(f"read, --jobs 1      {one[0]:.2f} s   ({one[1]:.2f} s CPU; one photo after another)")
    print(f"ratio               {read[0] / base[0]:.2f}x   (goal 0.8x or less)")
    print(f"ratio, --jobs 1     {one[0] / base[0]:.2f}x   (CPU time: {one[1] / base[1]:.2f}x)")


if __name__ == "__main__":
    main()
