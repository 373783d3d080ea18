"""Scoring reads against truth files: per-tile accuracy, exact photos, confidently wrong tiles, time.

A folder holds NAME.jpg (or .jpeg, .png) photos beside NAME.json truth files:
``{"image": "1_05.jpg", "tileset": "connect", "tiles": [{"row": 0, "col": 1,
"tile": "4W"}, ...]}``, optionally with a ``"condition"`` (the evaluation
sets of vision.evalsets name theirs), by which the report is grouped.

Read and truth are compared after the quarter turn and translation of the
read that match the most tiles: the grid check does not care which way is
up, and a grid read whole but framed one column further left is right.

- A tile is *right* if it is read in its cell with its code.
- *Per-tile accuracy*: right tiles over the truth's tiles plus any tiles read
  where the truth has none.
- A photo is *exact* if every tile is right, nothing is read where there is
  no tile, and the reader asks nothing of the player: no tile "not sure",
  no cell where "a tile may be missing".
- A tile is *confidently wrong* if it is read wrong (wrong code, or a tile
  where there is none) while the reader is sure of it, or if a truth tile is
  not read and its cell is not among the reader's "missing" cells: the
  errors a player would not be warned about. A photo the reader refuses
  (asking for a better one) has no confidently wrong tile.
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
    error: str = ""  # the read failed with this message (a refusal: a better photo is asked for)
    condition: str = ""
    unsure: int = 0  # tiles the reader flagged "not sure"
    missing: int = 0  # cells the reader flagged "a tile may be missing here"
    confidently_wrong: int = 0

    @property
    def exact(self) -> bool:
        return (not self.error and self.correct == self.truth and self.read == self.truth
                and not self.unsure and not self.missing)


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
    def confidently_wrong(self) -> int:
        return sum(p.confidently_wrong for p in self.photos)

    @property
    def refused(self) -> int:
        return sum(1 for p in self.photos if p.error)

    @property
    def ms_per_photo(self) -> float:
        return sum(p.elapsed_ms for p in self.photos) / len(self.photos) if self.photos else 0.0

    def by_condition(self) -> dict[str, "EvalSummary"]:
        """One summary per condition, in the order conditions first appear."""
        groups: dict[str, EvalSummary] = {}
        for p in self.photos:
            groups.setdefault(p.condition or "all", EvalSummary()).photos.append(p)
        return groups

    def to_json(self) -> dict:
        return {
            "photos": len(self.photos),
            "tiles": sum(p.truth for p in self.photos),
            "tile_accuracy": round(self.tile_accuracy, 5),
            "exact_rate": round(self.exact_rate, 5),
            "confidently_wrong": self.confidently_wrong,
            "unsure": sum(p.unsure for p in self.photos),
            "missing": sum(p.missing for p in self.photos),
            "refused": self.refused,
            "ms_per_photo": round(self.ms_per_photo, 1),
        }

    def line(self) -> str:
        """The summary in one line of words."""
        right = sum(p.correct for p in self.photos)
        total = sum(p.truth + p.extra for p in self.photos)
        exact = sum(p.exact for p in self.photos)
        return (
            f"per-tile accuracy {100 * self.tile_accuracy:.2f}% ({right}/{total}), "
            f"photos read exactly {exact}/{len(self.photos)} ({100 * self.exact_rate:.0f}%), "
            f"confidently wrong {self.confidently_wrong}, "
            f"not sure {sum(p.unsure for p in self.photos)}, may be missing {sum(p.missing for p in self.photos)}, "
            f"refused {self.refused}, {self.ms_per_photo:.0f} ms per photo"
        )


def load_truth(path: str) -> tuple[Grid, str, str]:
    """(grid, tileset, condition) from a truth file. Raises ValueError naming the file if it is malformed."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        grid = {(int(t["row"]), int(t["col"])): str(t["tile"]).upper() for t in data["tiles"]}
        return grid, str(data.get("tileset", "classic")), str(data.get("condition", ""))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
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


def quarter_turn(cells, turns: int):
    """Cells (row, col) turned by `turns` quarter turns (a dict's keys or a list of cells)."""
    def turn(cell):
        r, c = cell
        for _ in range(turns % 4):
            r, c = c, -r
        return r, c

    if isinstance(cells, dict):
        return {turn(cell): t for cell, t in cells.items()}
    return [turn(cell) for cell in cells]


def best_translation(read: Grid, truth: Grid) -> tuple[int, int]:
    """The (drow, dcol) to add to read cells that makes the most of them equal the truth."""
    return _best_placement(read, truth, turns=(0,))[1]


def _best_placement(read: Grid, truth: Grid, turns=(0, 1, 2, 3)) -> tuple[int, tuple[int, int]]:
    """(quarter turns, (drow, dcol)) of the read that match the most truth tiles, then overlap most."""
    best, best_key = (0, (0, 0)), (-1, -1, 0)
    for k in turns:
        turned = quarter_turn(read, k)
        shifts = {(tr - rr, tc - rc) for (rr, rc) in turned for (tr, tc) in truth} or {(0, 0)}
        for dr, dc in sorted(shifts):
            same = sum(1 for (r, c), t in turned.items() if truth.get((r + dr, c + dc)) == t)
            overlap = sum(1 for (r, c) in turned if (r + dr, c + dc) in truth)
            key = (same, overlap, -k)
            if key > best_key:
                best, best_key = (k, (dr, dc)), key
    return best


def score(name: str, read: Grid, truth: Grid, elapsed_ms: float, sure: dict | None = None,
          missing: list | None = None, condition: str = "") -> PhotoScore:
    """The score of one read. `sure` maps read cells to whether the reader was sure (default: all sure);
    `missing` lists the read's "a tile may be missing here" cells (read coordinates)."""
    sure = sure if sure is not None else {cell: True for cell in read}
    missing = list(missing or [])
    turns, (dr, dc) = _best_placement(read, truth)

    def place(cells):
        return [(r + dr, c + dc) for r, c in quarter_turn(list(cells), turns)]

    read_cells = list(read)
    placed = dict(zip(place(read_cells), read_cells))
    flagged = set(place(missing))
    correct = extra = wrong_sure = 0
    for cell, original in placed.items():
        tile = read[original]
        if truth.get(cell) == tile:
            correct += 1
            continue
        if cell not in truth:
            extra += 1
        if sure.get(original, True):
            wrong_sure += 1
    dropped = sum(1 for cell in truth if cell not in placed and cell not in flagged)
    return PhotoScore(
        name, len(truth), len(read), correct, extra, elapsed_ms, condition=condition,
        unsure=sum(1 for v in sure.values() if not v), missing=len(missing),
        confidently_wrong=wrong_sure + dropped,
    )


def score_result(name: str, result, truth: Grid, condition: str = "") -> PhotoScore:
    """Score a vision ReadResult against a truth grid."""
    from vision.config import SURE_AT

    sure = {(t.row, t.col): t.confidence >= SURE_AT for t in result.tiles}
    return score(name, result.cells(), truth, result.elapsed_ms, sure, getattr(result, "missing", []), condition)


def evaluate_folder(folder: str, calibration=None, config=None, on_photo=None) -> EvalSummary:
    """Read every photo of a folder and score it. Raises ValueError for a folder without truth files."""
    import time

    from vision.errors import VisionError
    from vision.pipeline import read_image_file

    summary = EvalSummary()
    for photo, truth_path in photo_pairs(folder):
        truth, tileset, condition = load_truth(truth_path)
        name = os.path.basename(photo)
        t0 = time.perf_counter()
        try:
            result = read_image_file(photo, tileset, calibration, config)
            s = score_result(name, result, truth, condition)
        except (VisionError, OSError) as exc:
            s = PhotoScore(name, len(truth), 0, 0, 0, (time.perf_counter() - t0) * 1000, str(exc), condition)
        summary.photos.append(s)
        if on_photo is not None:
            on_photo(s)
    return summary


def evaluate_photos(photos, calibration=None, config=None, on_photo=None) -> EvalSummary:
    """Read and score in-memory evaluation photos (vision.evalsets.EvalPhoto), without files."""
    import time

    from vision.errors import VisionError
    from vision.pipeline import read_image_bytes

    summary = EvalSummary()
    for photo in photos:
        t0 = time.perf_counter()
        try:
            result = read_image_bytes(photo.data, photo.tileset, calibration, config)
            s = score_result(photo.name, result, photo.cells, photo.condition)
        except VisionError as exc:
            s = PhotoScore(photo.name, len(photo.cells), 0, 0, 0, (time.perf_counter() - t0) * 1000, str(exc),
                           photo.condition)
        summary.photos.append(s)
        if on_photo is not None:
            on_photo(s)
    return summary
