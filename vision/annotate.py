"""The annotated picture: every tile labelled, faulty lines outlined, for phones and --annotate.

Drawn on a copy of the photo scaled to at most `max_side` pixels, since a
phone shows it at a few hundred pixels wide and a smaller PNG is quicker to
send over the table's wifi.
"""
from __future__ import annotations

from typing import Any, Iterable

# BGR colours of the outlines, one per rule of the grid check.
RULE_COLOURS = {
    "short-line": (0, 140, 255),
    "duplicate": (40, 40, 230),
    "mixed-line": (230, 60, 200),
    "wild-conflict": (255, 120, 0),
    "disconnected": (0, 220, 255),
    "too-many-copies": (60, 60, 255),
    "tile-count": (200, 200, 200),
}
SURE = (90, 200, 60)
UNSURE = (0, 170, 255)  # low-confidence readings: ask the players to look
MISSING = (255, 80, 255)  # cells where a tile may be missing


# Rules about the whole grid rather than some of its lines: captioned, not outlined.
WHOLE_GRID_RULES = {"tile-count"}


def _violation_parts(violation: Any) -> tuple[str, list[tuple[int, int]], str]:
    """(rule, cells, message) of a Violation object or its JSON dict."""
    if isinstance(violation, dict):
        cells = [tuple(c) for c in violation.get("cells", [])]
        return str(violation.get("rule", "")), cells, str(violation.get("message", ""))
    return str(violation.rule), [tuple(c) for c in violation.cells], str(getattr(violation, "message", ""))


def annotate(
    image,
    lattice,
    tiles,
    origin: tuple[int, int],
    violations: Iterable[Any] | None = None,
    max_side: int = 1280,
    unsure_below: float | None = None,
    offsets: dict | None = None,
    missing=(),
):
    """A BGR picture of `image` with the tiles' labels and the violations' outlines.

    `lattice` is in `image` pixels; `tiles` are assemble.TileReading in grid
    coordinates, `origin` the lattice cell of grid cell (0, 0); `violations`
    are grid-check Violations (or their JSON dicts) in the same grid coordinates;
    `offsets` maps a grid cell to where its hand-placed tile sits off the node.
    A tile the reader is not sure of (its `sure` flag, else a confidence under
    `unsure_below`, default vision.config.SURE_AT) is labelled with a "?" after
    its code; each `missing` cell (a tile may be missing there) gets a dashed
    outline and a "?" of its own, so neither is told by colour alone.
    """
    from vision.config import SURE_AT

    below = SURE_AT if unsure_below is None else unsure_below

    def is_sure(tile) -> bool:
        sure = getattr(tile, "sure", None)
        return tile.confidence >= below if sure is None or unsure_below is not None else bool(sure)

    import cv2
    import numpy as np

    scale = min(1.0, max_side / max(image.shape[:2]))
    canvas = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image.copy()
    lat = lattice.scaled(scale)
    top, left = origin
    thickness = max(1, int(round(lat.pitch / 28)))
    font_scale = max(0.3, lat.pitch / 110)

    offsets = offsets or {}

    def corners(cell):
        dx, dy = offsets.get(tuple(cell), (0.0, 0.0))
        row, col = cell[0] + top + dy, cell[1] + left + dx
        return lat.to_image([(col - 0.5, row - 0.5), (col + 0.5, row - 0.5), (col + 0.5, row + 0.5), (col - 0.5, row + 0.5)])

    for tile in tiles:
        quad = corners((tile.row, tile.col))
        colour = SURE if is_sure(tile) else UNSURE
        cv2.polylines(canvas, [np.round(quad).astype(np.int32)], True, colour, thickness, cv2.LINE_AA)
    for cell in missing or ():
        quad = corners(tuple(cell))
        _dashed(canvas, quad, MISSING, thickness * 2)
        centre = quad.mean(axis=0)
        label(canvas, "?", centre, font_scale * 1.4, MISSING, centred=True)

    captions = []
    for violation in violations or ():
        rule, cells, message = _violation_parts(violation)
        colour = RULE_COLOURS.get(rule, (0, 0, 255))
        captions.append((f"{rule}: {message}" if message else rule, colour))
        if rule in WHOLE_GRID_RULES:
            continue
        for run in _runs(cells):
            quad = _run_outline(corners, run)
            cv2.polylines(canvas, [np.round(quad).astype(np.int32)], True, colour, thickness * 3, cv2.LINE_AA)
            x, y = quad[0]
            label(canvas, rule, (x, y - 4 * thickness), font_scale * 0.8, colour)

    for tile in tiles:
        dx, dy = offsets.get((tile.row, tile.col), (0.0, 0.0))
        # Below the middle, so the design itself stays visible above the label.
        centre = lat.to_image([(tile.col + left + dx, tile.row + top + dy + 0.3)])[0]
        sure = is_sure(tile)
        colour = (255, 255, 255) if sure else UNSURE
        text = tile.tile if sure else tile.tile + "?"
        label(canvas, text, centre, font_scale, colour, centred=True)

    # One caption per violation along the top, in its outline's colour.
    caption_scale = max(0.45, canvas.shape[1] / 1800)
    line_height = int(32 * caption_scale) + 6
    for k, (text, colour) in enumerate(captions[:8]):
        if len(text) > 90:
            text = text[:87] + "..."
        label(canvas, text, (8, 8 + line_height * (k + 1) - 6), caption_scale, colour)
    return canvas


def _runs(cells: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """Cells split into straight runs of neighbours (a line is one run); others one cell each."""
    cells = sorted(set(cells))
    if len(cells) >= 2:
        rows = {r for r, _ in cells}
        cols = {c for _, c in cells}
        if len(rows) == 1 and max(cols) - min(cols) == len(cells) - 1:
            return [cells]
        if len(cols) == 1 and max(rows) - min(rows) == len(cells) - 1:
            return [cells]
    return [[c] for c in cells]


def _run_outline(corners, run):
    """Outline around a straight run of cells, a little outside the tiles."""
    import numpy as np

    first, last = corners(run[0]), corners(run[-1])
    quad = np.array([first[0], last[1], last[2], first[3]]) if run[0][0] == run[-1][0] else np.array([first[0], first[1], last[2], last[3]])
    centre = quad.mean(axis=0)
    return centre + (quad - centre) * 1.04


def _dashed(canvas, quad, colour, thickness: int) -> None:
    """A closed outline drawn in dashes (a cell to look at, not a tile)."""
    import cv2
    import numpy as np

    for k in range(len(quad)):
        a, b = np.asarray(quad[k], float), np.asarray(quad[(k + 1) % len(quad)], float)
        length = float(np.linalg.norm(b - a))
        dashes = max(2, int(length / (6 * thickness + 4)))
        for i in range(dashes):
            p = a + (b - a) * (i / dashes)
            q = a + (b - a) * ((i + 0.55) / dashes)
            cv2.line(canvas, (int(round(p[0])), int(round(p[1]))), (int(round(q[0])), int(round(q[1]))),
                     colour, thickness, cv2.LINE_AA)


def label(canvas, text: str, at, font_scale: float, colour, centred: bool = False) -> None:
    """Write `text` on a black box at `at` (its middle with `centred`), kept inside the canvas."""
    import cv2

    font = cv2.FONT_HERSHEY_SIMPLEX
    weight = max(1, int(round(font_scale * 2)))
    (w, h), base = cv2.getTextSize(text, font, font_scale, weight)
    x, y = int(at[0]), int(at[1])
    if centred:
        x, y = x - w // 2, y + h // 2
    x = max(0, min(canvas.shape[1] - w - 2, x))
    y = max(h + 2, min(canvas.shape[0] - base - 2, y))
    cv2.rectangle(canvas, (x - 2, y - h - 2), (x + w + 2, y + base), (0, 0, 0), cv2.FILLED)
    cv2.putText(canvas, text, (x, y), font, font_scale, colour, weight, cv2.LINE_AA)


def encode_png(image) -> bytes:
    import cv2

    ok, buf = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 3])
    if not ok:  # pragma: no cover - OpenCV always encodes a uint8 BGR array
        raise RuntimeError("PNG encoding failed")
    return buf.tobytes()
