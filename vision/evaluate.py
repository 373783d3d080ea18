"""Scoring reads against truth files: per-tile accuracy, photos read exactly, time per photo.

A folder holds NAME.jpg (or .jpeg, .png) photos beside NAME.json truth files:
``{"image": "1_05.jpg", "tileset": "connect", "tiles": [{"row": 0, "col": 1,
"tile": "4W"}, ...]}``. Truth and read are compared after the translation of
one onto the other that matches the most tiles, so a grid read whole but
framed one column further left still counts as right.

Per-tile accuracy is the tiles read right in their cell, divided by the truth
tiles plus any tiles read where the truth has none.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

Grid = dict[tuple[int, int], str]
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")


@dataclass
class PhotoScore:
    name: str
    truth: int  # tiles in the truth file
    read: int  # tiles read
    correct: int  # tiles read right, in the right cell
    extra: int  # tiles read in cells the truth leaves empty
    elapsed_ms: float
    error: str = ""  # the read failed with this message

    @property
    def exact(self) -> bool:
        return not self.error and self.correct == self.truth and self.read == self.truth


@dataclass
class EvalSummary:
    photos: list[PhotoScore] = field(default_factory=list)

    @property
    def tile_accuracy(self) -> float:
        denom = sum(p.truth + p.extra for p in self.photos)
        return sum(p.correct for p in self.photos) / denom if denom else 0.0

    @property
    def exact_rate(self) -> float:
        return sum(p.exact for p in self.photos) / len(self.photos) if self.photos else 0.0

    @property
    def ms_per_photo(self) -> float:
        return sum(p.elapsed_ms for p in self.photos) / len(self.photos) if self.photos else 0.0

    def to_json(self) -> dict:
        return {
            "photos": len(self.photos),
            "tile_accuracy": round(self.tile_accuracy, 5),
            "exact_rate": round(self.exact_rate, 5),
            "ms_per_photo": round(self.ms_per_photo, 1),
        }


def load_truth(path: str) -> tuple[Grid, str]:
    """(grid, tileset) from a truth file. Raises ValueError naming the file if it is malformed."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        grid = {(int(t["row"]), int(t["col"])): str(t["tile"]).upper() for t in data["tiles"]}
        return grid, str(data.get("tileset", "classic"))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a truth file ({exc})") from None


def photo_pairs(folder: str) -> list[tuple[str, str]]:
    """(photo, truth file) pairs of a folder, sorted by name. Raises ValueError if there are none."""
    try:
        names = sorted(os.listdir(folder))
    except OSError as exc:
        raise ValueError(f"{folder}: cannot list: {exc.strerror or exc}") from None
    pairs = []
    for name in names:
        stem, ext = os.path.splitext(name)
        if ext.lower() in PHOTO_SUFFIXES and os.path.exists(os.path.join(folder, stem + ".json")):
            pairs.append((os.path.join(folder, name), os.path.join(folder, stem + ".json")))
    if not pairs:
        raise ValueError(f"{folder}: no photos with NAME.json truth files")
    return pairs


def best_translation(read: Grid, truth: Grid) -> tuple[int, int]:
    """The (drow, dcol) to add to read cells that makes the most of them equal the truth."""
    best, best_key = (0, 0), (-1, -1)
    shifts = {(tr - rr, tc - rc) for (rr, rc) in read for (tr, tc) in truth} or {(0, 0)}
    for dr, dc in sorted(shifts):
        same = sum(1 for (r, c), t in read.items() if truth.get((r + dr, c + dc)) == t)
        overlap = sum(1 for (r, c) in read if (r + dr, c + dc) in truth)
        if (same, overlap) > best_key:
            best, best_key = (dr, dc), (same, overlap)
    return best


def score(name: str, read: Grid, truth: Grid, elapsed_ms: float) -> PhotoScore:
    dr, dc = best_translation(read, truth)
    moved = {(r + dr, c + dc): t for (r, c), t in read.items()}
    correct = sum(1 for cell, t in moved.items() if truth.get(cell) == t)
    extra = sum(1 for cell in moved if cell not in truth)
    return PhotoScore(name, len(truth), len(read), correct, extra, elapsed_ms)


def evaluate_folder(folder: str, calibration=None, config=None, on_photo=None) -> EvalSummary:
    """Read every photo of a folder and score it. Raises ValueError for a folder without truth files."""
    import time

    from vision.errors import VisionError
    from vision.pipeline import read_image_file

    summary = EvalSummary()
    for photo, truth_path in photo_pairs(folder):
        truth, tileset = load_truth(truth_path)
        name = os.path.basename(photo)
        t0 = time.perf_counter()
        try:
            result = read_image_file(photo, tileset, calibration, config)
            s = score(name, result.cells(), truth, result.elapsed_ms)
        except (VisionError, OSError) as exc:
            s = PhotoScore(name, len(truth), 0, 0, 0, (time.perf_counter() - t0) * 1000, str(exc))
        summary.photos.append(s)
        if on_photo is not None:
            on_photo(s)
    return summary
