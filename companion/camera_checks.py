"""Camera checks of a finished Pivit grid: photo in, tiles read, grid checked, faults drawn.

The table page's "Check with camera" flow. A player says done; someone takes a
photo (the table's camera, or a phone's upload); the service reads every tile,
checks the grid with the table's rules and keeps the result in memory with the
annotated picture. The group may correct a misread cell with one tap, which
re-checks the grid; confirming turns the verdict into the round's
``verify {player, valid, source: "camera"}`` event.

The reader is never confidently wrong on purpose: a tile it is not sure of is
listed in ``unsure``, a cell where it saw part of a tile it could not read in
``missing``. The verdict cannot be recorded while any of those cells is
unsettled; a correction of the cell settles it (to the tile read = confirm,
to another tile, or to no tile).

Checks are kept in memory only (the last few per table): a photo is evidence
for a moment at the table, not part of the game's record. The verdict that
counts is the `verify` event, which goes into the event log like any other.
Vision (cv2, numpy) is imported on the first check, never at start-up.
"""
from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from companion.errors import InputError
from vision.config import SURE_AT  # the reader's one "not sure" threshold (a small module, no OpenCV)

Cell = tuple[int, int]
UNSURE_BELOW = SURE_AT  # readings less sure than this are pointed out for a second look


class CameraCheckError(Exception):
    """A check that cannot be done; `status` is the HTTP status that fits."""

    def __init__(self, message: str, status: int, reason: str = ""):
        super().__init__(message)
        self.status = status
        self.reason = reason  # for a photo to take again: "oblique", "cut-off", "blurred", "small", "unplaced", "unsure", "covered"


@dataclass(frozen=True)
class GridRules:
    """The rules a table checks grids with."""

    tileset: str = "classic"
    young: bool = False
    tiles: int = 24


@dataclass
class CameraCheck:
    id: str
    table_id: str
    player: int
    rules: GridRules
    reading: Any  # vision.ReadResult: the photo, its lattice and the tiles as read
    cells: dict[Cell, str]  # the grid with the group's corrections applied
    corrected: set[Cell] = field(default_factory=set)
    revision: int = 0
    result: Any = None  # CheckResult of `cells`
    created: float = field(default_factory=time.time)
    _png: tuple[int, bytes] | None = None

    def unsure(self) -> list[Cell]:
        """Cells read without certainty that nobody has settled yet."""
        return sorted(
            (t.row, t.col) for t in self.reading.tiles
            if not getattr(t, "sure", t.confidence >= UNSURE_BELOW) and (t.row, t.col) not in self.corrected
        )

    def missing(self) -> list[Cell]:
        """Cells where a tile may be missing (the reader saw part of one) that nobody has settled yet."""
        return sorted(tuple(cell) for cell in getattr(self.reading, "missing", []) if tuple(cell) not in self.corrected)

    def pending(self) -> list[Cell]:
        """Every cell that needs a look before the verdict can be recorded."""
        return sorted(set(self.unsure()) | set(self.missing()))

    def to_json(self) -> dict[str, Any]:
        from companion.games.pivit_tiles.grid import grid_str

        confidence = {(t.row, t.col): t.confidence for t in self.reading.tiles}
        return {
            "id": self.id,
            "table": self.table_id,
            "player": self.player,
            "revision": self.revision,
            "grid": grid_str(self.cells),
            "tiles": [
                {
                    "row": r,
                    "col": c,
                    "tile": tile,
                    "confidence": 1.0 if (r, c) in self.corrected else round(confidence.get((r, c), 0.0), 3),
                    "corrected": (r, c) in self.corrected,
                }
                for (r, c), tile in sorted(self.cells.items())
            ],
            "unsure": [[r, c] for r, c in self.unsure()],
            "missing": [[r, c] for r, c in self.missing()],
            "valid": self.result.valid,
            "violations": [v.to_json() for v in self.result.violations],
            "rules": {"tileset": self.rules.tileset, "young": self.rules.young, "tiles": self.rules.tiles},
            "elapsed_ms": round(self.reading.elapsed_ms, 1),
        }


def _default_read(data: bytes, tileset: str):
    from vision import read_image_bytes

    return read_image_bytes(data, tileset)


def _default_read_frame(frame, tileset: str):
    from vision import read_image

    return read_image(frame, tileset)


class CameraChecks:
    """The recent camera checks of every table, and the table's camera if one is attached.

    `camera` is an object with `capture() -> BGR array` (vision.capture's
    PiCamera or Webcam), or None. Thread-safe: the web server calls it from
    many threads, and only one capture runs at a time (one camera owner).
    """

    def __init__(
        self,
        camera: Any = None,
        camera_detail: str = "no camera attached to the service",
        read_bytes: Callable[[bytes, str], Any] = _default_read,
        read_frame: Callable[[Any, str], Any] = _default_read_frame,
        keep_per_table: int = 8,
    ):
        self.camera = camera
        self.camera_detail = camera_detail
        self._read_bytes = read_bytes
        self._read_frame = read_frame
        self._keep = keep_per_table
        self._checks: dict[str, OrderedDict[str, CameraCheck]] = {}
        self._lock = threading.Lock()
        self._camera_lock = threading.Lock()
        self.reads = 0
        self.failures = 0

    def open_camera_in_background(self, config: dict[str, Any]) -> threading.Thread:
        """Open the [camera] the config names without delaying the start (cv2 and picamera2 are slow to import)."""
        self.camera_detail = "opening the camera"

        def run() -> None:
            camera, detail = open_table_camera(config)
            self.camera, self.camera_detail = camera, detail

        thread = threading.Thread(target=run, name="camera-open", daemon=True)
        thread.start()
        self._opening = thread
        return thread

    def close(self, wait: float = 20.0) -> None:
        """Release the camera. Waits for a camera still being opened: a thread left inside
        cv2's or picamera2's import while the interpreter exits can abort the process."""
        opening = getattr(self, "_opening", None)
        if opening is not None:
            opening.join(wait)
        camera, self.camera = self.camera, None
        if camera is not None and hasattr(camera, "close"):
            camera.close()

    # -- status ------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """For /api/health."""
        return {
            "ok": self.camera is not None,
            "attached": self.camera is not None,
            "detail": self.camera_detail,
            "uploads": True,
            "reads": self.reads,
            "failures": self.failures,
        }

    # -- checks ------------------------------------------------------------------

    def check(self, table_id: str, player: int, rules: GridRules, photo: bytes | None) -> CameraCheck:
        """Read and check a photo of `player`'s grid (the camera's picture when `photo` is None).

        Raises CameraCheckError: 409 no camera attached, 400 / 413 / 422 from
        vision for a bad, too large or gridless photo.
        """
        from vision.errors import VisionError

        try:
            if photo is None:
                if self.camera is None:
                    raise CameraCheckError(f"{self.camera_detail}: upload a photo instead", 409)
                with self._camera_lock:
                    frame = self.camera.capture()
                reading = self._read_frame(frame, rules.tileset)
            else:
                reading = self._read_bytes(photo, rules.tileset)
        except VisionError as exc:
            self.failures += 1
            raise CameraCheckError(str(exc), getattr(exc, "status", 422), getattr(exc, "reason", "")) from None
        self.reads += 1
        check = CameraCheck(
            id=secrets.token_urlsafe(6),
            table_id=table_id,
            player=player,
            rules=rules,
            reading=reading,
            cells=reading.cells(),
        )
        self._recheck(check)
        with self._lock:
            checks = self._checks.setdefault(table_id, OrderedDict())
            checks[check.id] = check
            while len(checks) > self._keep:
                checks.popitem(last=False)
        return check

    def get(self, table_id: str, check_id: str) -> CameraCheck:
        """A kept check. Raises CameraCheckError 404."""
        with self._lock:
            check = self._checks.get(table_id, {}).get(check_id)
        if check is None:
            raise CameraCheckError(f"no camera check {check_id!r} at this table (take the photo again)", 404)
        return check

    def correct(self, table_id: str, check_id: str, cells: Any) -> CameraCheck:
        """Apply the group's corrections: [{"row", "col", "tile": "3G" | "**" | null}], null empties the cell.

        Raises InputError for a malformed correction, CameraCheckError 404.
        """
        from companion.games.pivit_tiles.tiles import TileError, parse_tile

        check = self.get(table_id, check_id)
        if not isinstance(cells, list) or not cells:
            raise InputError("'cells' must be a list of {row, col, tile} corrections")
        changes: dict[Cell, str | None] = {}
        for item in cells:
            if not isinstance(item, dict):
                raise InputError("each correction must be an object {row, col, tile}")
            row, col, tile = item.get("row"), item.get("col"), item.get("tile")
            if not all(isinstance(v, int) and not isinstance(v, bool) and -50 <= v <= 50 for v in (row, col)):
                raise InputError("a correction's row and col must be whole numbers near the grid")
            if tile is not None:
                if not isinstance(tile, str):
                    raise InputError("a correction's tile must be a tile like 3G, ** or null")
                try:
                    tile = parse_tile(tile, check.rules.tileset)
                except TileError as exc:
                    raise InputError(str(exc)) from None
            changes[row, col] = tile
        with self._lock:
            for cell, tile in changes.items():
                if tile is None:
                    check.cells.pop(cell, None)
                else:
                    check.cells[cell] = tile
                check.corrected.add(cell)
            check.revision += 1
            self._recheck(check)
        return check

    def annotated_png(self, table_id: str, check_id: str) -> bytes:
        """The photo with every tile labelled (corrections included) and the faulty lines outlined."""
        from vision.assemble import TileReading

        check = self.get(table_id, check_id)
        with self._lock:
            if check._png is not None and check._png[0] == check.revision:
                return check._png[1]
            read = {(t.row, t.col): t for t in check.reading.tiles}
            tiles = []
            for (r, c), tile in sorted(check.cells.items()):
                if (r, c) in check.corrected or (r, c) not in read:
                    tiles.append(TileReading(r, c, tile, 1.0, True))
                else:
                    was = read[r, c]
                    tiles.append(TileReading(r, c, tile, was.confidence, getattr(was, "sure", True)))
            reading = replace(check.reading, tiles=tiles)
            violations = check.result.violations
            missing = check.missing()
            revision = check.revision
        png = reading.annotated_png(violations, missing=missing)
        with self._lock:
            check._png = (revision, png)
        return png

    def verdict(self, table_id: str, check_id: str) -> tuple[CameraCheck, bool]:
        """(the check, its verdict) once every unsure or missing cell is settled.

        Raises CameraCheckError 404, or 409 while a cell still needs a look
        (the reader never records a verdict it is not sure of).
        """
        check = self.get(table_id, check_id)
        with self._lock:
            unsure, missing = check.unsure(), check.missing()
            valid = check.result.valid
        if unsure or missing:
            parts = []
            if unsure:
                parts.append(f"{len(unsure)} tile{'s' if len(unsure) > 1 else ''} the camera was not sure of")
            if missing:
                parts.append(f"{len(missing)} place{'s' if len(missing) > 1 else ''} where a tile may be missing")
            raise CameraCheckError(
                f"look at the grid first: {' and '.join(parts)} (marked ?); tap each one to confirm or correct it", 409)
        return check, valid

    def forget_table(self, table_id: str) -> None:
        with self._lock:
            self._checks.pop(table_id, None)

    @staticmethod
    def _recheck(check: CameraCheck) -> None:
        from companion.games.pivit_tiles.check import check_grid

        check.result = check_grid(check.cells, check.rules.tileset, young=check.rules.young, tiles=check.rules.tiles)


def open_table_camera(config: dict[str, Any]) -> tuple[Any, str]:
    """The camera the [camera] config table names, or (None, why not).

    `kind`: "auto" (default: the Pi camera, else the first USB webcam), "pi",
    "webcam" or "none". A missing camera is not an error: phones upload photos.
    """
    kind = config.get("kind", "auto")
    if kind == "none":
        return None, "no camera: turned off in the config ([camera] kind = \"none\"); phones upload photos"
    try:
        from vision.capture import open_camera

        camera = open_camera(kind)
    except Exception as exc:  # no camera, no driver, busy: phones can still upload photos
        return None, f"no camera attached ({exc}); phones upload photos"
    return camera, f"{type(camera).__name__} attached"
