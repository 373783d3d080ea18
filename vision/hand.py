"""Reading a hand: loose tiles spread on the table, in no grid, as a hand file.

A player who is stuck spreads their tiles on the table, anywhere and each
turned its own way, some pushed against others or leaning on them; the
camera reads them into the hand notation ("3G 1R ** ..."). There is no
lattice to fit, so each tile gets its own square:

1. **Find** the designs exactly as the grid reader does (vision.find): each
   is a brighter hole closed off from the table by its tile's black margin,
   and its centroid is the tile's middle, whatever the tiles it touches.
2. **Fit each tile's square** (`fit_square`): a tile's outline is where the
   picture gets brighter going outwards (black face to table), so a square
   (middle, side, angle) is scored by the mean outward brightness step
   along its four sides. Sides pressed against another black tile show no
   step and add nothing, but do not pull the square either; the design's
   own outline gets darker going outwards and is ignored. A search over
   every size on some tiles gives the hand's tile side (every tile of a box
   is the same size); each tile is then searched at about that side over
   the quarter turn, and refined.
3. **Check** each square (`_check_square`): inside it, black face and one
   design in the middle, clearly brighter than the face, about as large as
   its hole, with black corners or side middles, and the same turned a
   quarter (every design is). The square is moved onto the design's
   centroid: the outline fixes the angle and side, and where tiles touch it
   cannot also fix the middle. Tiles are solid, so squares that overlap are
   one tile found twice or a tile and a patch of table shut in beside it:
   the most symmetric design keeps its place.
4. **Look again where black is left over** (`_unexplained_tiles`): a design
   whose tip blur joined to the table (a diamond reaching for its tile's
   edge) is no hole, but its tile's black face is still there.
5. **Read** each tile as the grid reader reads a cell: the square is a
   lattice of one cell, so vision.pipeline's patch cutting, design
   classifier, recentring and colour classifier are used unchanged. The
   patch's axes run along the tile's edges, which is what tells a square
   from a diamond.

Tiles are listed in reading order (rows of the photo, top to bottom, each
left to right) so a player can match the hand against the table; the
annotated picture outlines and labels each tile.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any

from vision.colour import Calibration, colour_sample
from vision.config import VisionConfig
from vision.errors import ClassifyError, NoTilesError
from vision.find import Candidates, find_tiles, work_image
from vision.lattice import Lattice


@dataclass(frozen=True)
class HandConfig:
    """Settings of the loose-tile reader (lengths in pixels of the detection image, or in tile sides)."""

    # Fitting each tile's square to its outline.
    design_share: tuple[float, float] = (0.12, 0.75)  # a design covers this share of its tile (the wide search)
    side_sample: int = 15  # tiles searched over every size to find the hand's tile side
    side_tolerance: float = 0.12  # every tile's side is within this share of the hand's median side
    angle_step: float = 3.0  # degrees, the first angle search over the quarter turn
    samples_per_side: int = 9  # points where the outward brightness step is measured on each side
    gradient_blur: float = 1.2  # sigma in pixels before taking the brightness step
    min_side: float = 24.0  # smaller tiles are found again at a higher resolution
    # Telling tiles from patches of table shut in by tiles.
    min_edge: float = 0.4  # a tile's outline is at least this share of the hand's median outline step
    min_contrast: float = 20.0  # a design is this much brighter than its tile's face (0-255)
    min_ratio: float = 1.5  # and this many times as bright
    design_in_square: tuple[float, float] = (0.08, 0.75)  # the design's share of its square
    max_growth: float = 1.6  # the design in the square is at most this times the hole it was found from
    max_foreign: float = 0.12  # of a tile's square (rim left out): bright pixels that are not its design
    min_face: float = 0.75  # dark share of a tile's corners, or of its sides' middles
    min_symmetry: float = 0.5  # a design's overlap with itself turned a quarter (real ones: 0.65 and more)
    max_design_offset: float = 0.25  # tile sides: a design this far off its square's middle is not its tile's
    max_overlap: float = 0.15  # of a tile's square: two tiles' squares overlap by no more than this
    # Tiles whose design is no clean hole, found from their black face.
    min_leftover: float = 0.3  # tile sides squared: black surface no found tile explains, worth a look
    leftover_reach: float = 0.3  # tile sides: pieces of such surface this close are one tile's face
    leftover_step: float = 0.15  # tile sides: spacing of the places a missing tile's middle is tried
    leftover_places: int = 400  # at most about this many places per region
    leftover_tries: int = 4  # strongest outlines tried there, best first
    # The hand's order.
    row_band: float = 0.6  # tile sides: tiles whose middles are this close in height share a row


# ---------------------------------------------------------------- squares


@dataclass
class TileSquare:
    """One tile's square in an image: middle (x, y), side and angle in pixels and degrees."""

    centre: tuple[float, float]
    side: float
    angle: float  # degrees in [0, 90): a square looks the same turned a quarter
    edge: float = 0.0  # mean outward brightness step along its outline (0-255 per pixel)
    design_area: float = 0.0  # of the hole it was found from, pixels

    def lattice(self) -> Lattice:
        """The square as a lattice of one cell, (0, 0), so the grid reader's per-cell tools apply."""
        import numpy as np

        t = math.radians(self.angle)
        c, s = math.cos(t) * self.side, math.sin(t) * self.side
        homography = np.array([[c, -s, self.centre[0]], [s, c, self.centre[1]], [0.0, 0.0, 1.0]])
        return Lattice(homography, self.side, self.angle, [(0, 0)], 1.0)

    def corners(self):
        """The four image corners (4 x 2 array)."""
        return self.lattice().cell_corners((0, 0))

    def scaled(self, factor: float) -> "TileSquare":
        """The same square in an image scaled by `factor`."""
        return replace(self, centre=(self.centre[0] * factor, self.centre[1] * factor), side=self.side * factor, design_area=self.design_area * factor**2)


def brightness_steps(image, blur: float):
    """(gx, gy) float32: how the brightness (the brightest channel) changes across the image."""
    import cv2
    import numpy as np

    value = image.max(axis=2).astype(np.float32) if image.ndim == 3 else image.astype(np.float32)
    if blur > 0:
        value = cv2.GaussianBlur(value, (0, 0), blur)
    gx = cv2.Sobel(value, cv2.CV_32F, 1, 0, ksize=3, scale=1 / 8)
    gy = cv2.Sobel(value, cv2.CV_32F, 0, 1, ksize=3, scale=1 / 8)
    return gx, gy


def outline_scores(steps, cx, cy, angle, side, samples: int = 9):
    """The mean outward brightness step along each square's outline (arrays of hypotheses, degrees).

    Only steps that get brighter going out count: the black face meeting the
    table. A side against another black tile adds about 0, and the design's
    outline (brighter inside) is left out. Corners are skipped, where a
    neighbour's corner can sit.
    """
    import cv2
    import numpy as np

    gx, gy = steps
    theta = np.radians(np.asarray(angle, np.float64))
    c, s = np.cos(theta), np.sin(theta)
    half = np.asarray(side, np.float64) / 2
    nx = np.stack([c, -s, -c, s], axis=-1)[..., None]  # H x 4 x 1 outward normals
    ny = np.stack([s, c, -s, -c], axis=-1)[..., None]
    t = np.linspace(-0.8, 0.8, samples)[None, None, :]
    px = np.asarray(cx, np.float64)[:, None, None] + half[:, None, None] * (nx - t * ny)
    py = np.asarray(cy, np.float64)[:, None, None] + half[:, None, None] * (ny + t * nx)
    shape = px.shape
    # cv2.remap takes maps of fewer than 32767 rows: lay the points out in wide rows.
    n = px.size
    width = 4096
    pad = (-n) % width
    mx = np.concatenate([px.ravel(), np.full(pad, -10.0)]).astype(np.float32).reshape(-1, width)
    my = np.concatenate([py.ravel(), np.full(pad, -10.0)]).astype(np.float32).reshape(-1, width)
    sx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0).ravel()[:n].reshape(shape)
    sy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0).ravel()[:n].reshape(shape)
    outward = sx * nx + sy * ny
    return np.maximum(outward, 0).mean(axis=(1, 2))


def _best(steps, centre, angles, sides, offsets, samples: int, count: int = 1, apart: float = 0.0):
    """The best (score, x, y, angle, side) over the grid of hypotheses given, best first.

    With `count` > 1, up to that many whose middles are at least `apart`
    pixels from each better one's.
    """
    import numpy as np

    # All combinations: offsets (K x 2) x angles x sides.
    k, a, s = np.meshgrid(np.arange(len(offsets)), angles, sides, indexing="ij")
    k, a, s = k.ravel(), a.ravel(), s.ravel()
    cx = centre[0] + offsets[k, 0]
    cy = centre[1] + offsets[k, 1]
    # In chunks, so a wide search never holds more than a few megabytes of samples.
    chunk = 20_000
    scores = np.concatenate(
        [outline_scores(steps, cx[i : i + chunk], cy[i : i + chunk], a[i : i + chunk], s[i : i + chunk], samples) for i in range(0, len(cx), chunk)]
    )
    picked: list[tuple[float, float, float, float, float]] = []
    for i in np.argsort(-scores, kind="stable"):
        if all(math.hypot(cx[i] - p[1], cy[i] - p[2]) >= apart for p in picked):
            picked.append((float(scores[i]), float(cx[i]), float(cy[i]), float(a[i]) % 90.0, float(s[i])))
            if len(picked) == count:
                break
    return picked


def fit_square(steps, centre, side_range: tuple[float, float], config: HandConfig | None = None, search=None, count: int = 1):
    """The square whose outline best matches a tile's edges, for a tile whose design sits at `centre`.

    The side is searched over `side_range` (pixels), the angle over the
    quarter turn, the middle at `centre` or, if given, at each of the
    `search` offsets from it (K x 2 pixels), then the middle, side and angle
    are refined together. With `count` > 1, a list of up to that many
    squares, best first, from distinct places (for a tile whose middle is
    not known: the strongest outline nearby can be a neighbour's).
    """
    import numpy as np

    cfg = config or HandConfig()
    lo, hi = side_range
    n = max(2, int(math.ceil(math.log(hi / lo) / math.log(1.03))) + 1)
    sides = np.geomspace(lo, hi, n)
    angles = np.arange(0.0, 90.0, cfg.angle_step)
    around = np.zeros((1, 2)) if search is None else np.asarray(search, np.float64).reshape(-1, 2)
    starts = _best(steps, centre, angles, sides, around, cfg.samples_per_side, count, 0.35 * math.sqrt(lo * hi))
    squares = [_refine(steps, start, cfg) for start in starts]
    return squares[0] if count == 1 else sorted(squares, key=lambda q: -q.edge)


def _refine(steps, start, cfg: HandConfig) -> TileSquare:
    """A square refined from a coarse (score, x, y, angle, side), angle and side then middle in
    turn, in ever finer steps: the first search is coarse, and a hole's centroid can sit a
    little off its tile's middle (a design cut short by blur or glare)."""
    import numpy as np

    score, x, y, angle, side = start
    step_angle, step_side, step_move = cfg.angle_step / 4, 0.01, 0.02
    grid = np.arange(-3, 4)
    still = np.zeros((1, 2))
    for _ in range(3):
        _, x, y, angle, side = _best(steps, (x, y), angle + grid * step_angle, side * (1 + grid * step_side), still, cfg.samples_per_side)[0]
        offsets = np.array([(i, j) for i in grid for j in grid], np.float64) * step_move * side
        score, x, y, angle, side = _best(steps, (x, y), [angle], [side], offsets, cfg.samples_per_side)[0]
        step_angle, step_side, step_move = step_angle / 2, step_side / 2, step_move / 2
    return TileSquare((x, y), side, angle, score)


def _check_square(work, square: TileSquare, config: HandConfig, size: int = 32) -> tuple[bool, float, TileSquare]:
    """(is a tile, how symmetric its design is, the square centred on its design), from the detection image.

    Inside a tile's square there is black face and one design in the middle.
    The design is whatever is clearly brighter than the face (the square's
    darkest pixels), so a dark paint on a bright table and every sector of a
    wild count. Every design is centred on its tile, so the square is moved
    to the design's centroid (the outline fixes the angle and the side; where
    tiles touch it cannot fix the middle as well). The design must be about
    as large as the hole it was found from, the tile's corners or the
    middles of its sides must be black, and the design must look the same
    turned a quarter about the tile's middle, as every design does: the
    symmetry is the overlap of the design with itself turned (1 for a
    perfect match). A patch of table shut in by other tiles fails, or
    scores low: its square takes in pieces of those tiles and its shape
    follows their edges. The square's rim is left out, since a diamond's
    tips come within a few percent of its tile's edge.
    """
    for attempt in range(2):
        found = _design_in_square(work, square, config, size)
        if found is None:
            return False, 0.0, square
        ok, symmetry, (dx, dy) = found
        if attempt or max(abs(dx), abs(dy)) <= 1.0 / size:
            break
        if max(abs(dx), abs(dy)) > config.max_design_offset:
            return False, 0.0, square
        centre = square.lattice().to_image([(dx, dy)])[0]
        square = replace(square, centre=(float(centre[0]), float(centre[1])))
    return ok, symmetry, square


def _design_in_square(work, square: TileSquare, config: HandConfig, size: int):
    """(passes, symmetry, design centroid off the square's middle in sides) or None if no design."""
    import cv2
    import numpy as np

    from vision.lattice import cell_patch

    patch = cell_patch(work, square.lattice(), (0, 0), size)
    value = (patch.max(axis=2) if patch.ndim == 3 else patch).astype(np.float32)
    k = np.abs(np.arange(size) + 0.5 - size / 2) / (size / 2)
    inset = np.maximum(k[None, :], k[:, None]) < 0.88
    inner = value[inset]
    # The face covers at least a quarter of the inset square, even around a circle.
    face, top = float(np.percentile(inner, 15)), float(np.percentile(inner, 90))
    if top - face < config.min_contrast or top < config.min_ratio * max(face, 1.0):
        return None
    bright = (value > face + max(config.min_contrast, 0.3 * (top - face))) & inset
    count, labels = cv2.connectedComponents(bright.astype(np.uint8), connectivity=4)
    mid = slice(int(size * 0.38), int(size * 0.62) + 1)
    covering = np.bincount(labels[mid, mid].ravel(), minlength=count)[1:]
    if not len(covering) or covering.max() == 0:
        return None
    design = labels == 1 + int(np.argmax(covering))
    # Specks inside the design (glare, a wild's seams) are part of it.
    contours, _ = cv2.findContours(design.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros((size, size), np.uint8)
    cv2.drawContours(filled, contours, -1, 1, thickness=cv2.FILLED)
    design = filled.astype(bool)
    m = cv2.moments(filled, binaryImage=True)
    offset = ((m["m10"] / m["m00"] + 0.5) / size - 0.5, (m["m01"] / m["m00"] + 0.5) / size - 0.5)
    turned = np.rot90(design)
    symmetry = float((design & turned).sum() / max(1, (design | turned).sum()))
    design_share = float(design.mean())  # of the whole square, as the hole's share is
    foreign = float((bright & ~design).sum() / inset.sum())
    # The black face where no design reaches: the corners (all but the four-point
    # star, whose tips point there) or the middles of the sides (all but the circle,
    # clover and diamond), as lattice.tileness samples it. A square half off its
    # tile has table in two corners and two sides.
    kx, ky = k[None, :], k[:, None]
    corners = (kx > 0.62) & (kx < 0.88) & (ky > 0.62) & (ky < 0.88)
    sides = ((kx > 0.74) & (kx < 0.88) & (ky < 0.35)) | ((ky > 0.74) & (ky < 0.88) & (kx < 0.35))
    face_share = max(float(1 - bright[corners].mean()), float(1 - bright[sides].mean()))
    low, high = config.design_in_square
    ok = (
        foreign <= config.max_foreign
        and low <= design_share <= high
        and symmetry >= config.min_symmetry
        and face_share >= config.min_face
    )
    if square.design_area:
        ok = ok and design_share <= config.max_growth * square.design_area / square.side**2 + 0.05
    return ok, symmetry, offset


def fit_squares(work, candidates: Candidates, config: HandConfig | None = None) -> list[TileSquare]:
    """Each tile's square in the detection image, one per tile, from the designs found.

    Raises NoTilesError if no design sits in a tile-shaped square.
    """
    import numpy as np

    cfg = config or HandConfig()
    steps = brightness_steps(work, cfg.gradient_blur)
    centres = np.asarray(candidates.centres, np.float64)
    areas = np.asarray(candidates.areas, np.float64)
    lo, hi = cfg.design_share
    # Every tile of a box is the same size: a wide search on some of them (spread over
    # the sizes of their holes) gives the hand's tile side, the median of the sides
    # found on the tiles whose outlines show best; every tile is then fitted near it.
    by_area = np.argsort(areas, kind="stable")
    sample = sorted({int(by_area[int(round(i))]) for i in np.linspace(0, len(areas) - 1, min(len(areas), cfg.side_sample))})
    first = [fit_square(steps, centres[i], (math.sqrt(areas[i] / hi), math.sqrt(areas[i] / lo)), cfg) for i in sample]
    strong = [sq for sq in first if sq.edge >= 0.5 * float(np.median([s.edge for s in first]))]
    side = float(np.median([sq.side for sq in strong]))
    band = (side * (1 - cfg.side_tolerance), side * (1 + cfg.side_tolerance))
    squares = [replace(fit_square(steps, c, band, cfg), design_area=float(a)) for c, a in zip(centres, areas)]
    floor = cfg.min_edge * float(np.median([sq.edge for sq in squares]))
    kept = _one_per_place(work, squares, [], floor, cfg)
    if not kept:
        raise NoTilesError("no tiles found: the bright shapes in the photo are not on black tiles")
    return kept + _one_per_place(work, _unexplained_tiles(work, candidates.dark, steps, kept, band, cfg), kept, floor, cfg)


def _one_per_place(work, squares: list[TileSquare], kept: list[TileSquare], floor: float, config: HandConfig) -> list[TileSquare]:
    """The squares that are tiles, none overlapping another or those `kept` already.

    Tiles are solid: two squares that overlap are one tile found twice (a
    design split in two) or a tile and a patch of table shut in beside it.
    The most symmetric design wins, since every real design looks the same
    turned a quarter and a patch of table rarely does.
    """
    checked = []
    for sq in squares:
        if sq.edge < floor:
            continue
        ok, symmetry, centred = _check_square(work, sq, config)
        if ok:
            checked.append((symmetry, sq.edge, centred))
    new: list[TileSquare] = []
    for _, _, sq in sorted(checked, key=lambda t: (-t[0], -t[1])):
        if not any(_overlap(sq, other) > config.max_overlap for other in kept + new):
            new.append(sq)
    return new


def _overlap(a: TileSquare, b: TileSquare) -> float:
    """The share of the smaller square that the two squares have in common."""
    import cv2
    import numpy as np

    if math.dist(a.centre, b.centre) > (a.side + b.side) * 0.75:
        return 0.0
    area, _ = cv2.intersectConvexConvex(a.corners().astype(np.float32), b.corners().astype(np.float32))
    return float(area) / min(a.side, b.side) ** 2


def _unexplained_tiles(work, dark, steps, kept: list[TileSquare], band: tuple[float, float], config: HandConfig) -> list[TileSquare]:
    """Squares fitted where black tile surface is left over once the found tiles are taken away.

    A design whose tips blur has joined to the table (a diamond reaching for
    its tile's edge, a small tile far away) is no hole, so its tile was not
    found; its black face is still there, perhaps cut into pieces by the
    leaks. Pieces within about a third of a tile of each other are taken
    together; the strongest tile outline in their reach that passes for a
    tile is taken, cut out, and the rest looked at again (two such tiles can
    touch).
    """
    import cv2
    import numpy as np

    side = (band[0] + band[1]) / 2
    covered = np.zeros(dark.shape, np.uint8)
    for sq in kept:
        _fill_square(covered, replace(sq, side=sq.side * 1.12))
    left = (dark.astype(bool) & ~covered.astype(bool)).astype(np.uint8)
    # Thin slivers (a found tile's blurred outline, shadows) are not a tile's face.
    left = cv2.morphologyEx(left, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    reach = max(5, int(config.leftover_reach * side) | 1)
    count, labels = cv2.connectedComponents(cv2.dilate(left, np.ones((reach, reach), np.uint8)), connectivity=8)
    areas = np.bincount(labels[left.astype(bool)], minlength=count)
    enough = config.min_leftover * side * side
    found = []
    for label in range(1, count):
        if areas[label] < enough:
            continue
        region = (left.astype(bool) & (labels == label)).astype(np.uint8)
        for _ in range(8):
            if region.sum() < enough:
                break
            # Where the missing tile's middle is, its face does not say exactly (a
            # leak, a neighbour's remains): look all over the region for the
            # strongest tile outline.
            x, y, w, h = cv2.boundingRect(region)
            # At most a few hundred places, however large the region (a phone left on the table).
            step = max(config.leftover_step * side, math.sqrt(w * h / config.leftover_places))
            xs = np.arange(x + (w % step) / 2, x + w + 1e-9, step)
            ys = np.arange(y + (h % step) / 2, y + h + 1e-9, step)
            grid = np.array([(gx, gy) for gx in xs for gy in ys], np.float64)
            tries = fit_square(steps, (0.0, 0.0), band, config, search=grid, count=config.leftover_tries)
            square = None
            for attempt in tries:
                ok, _, centred = _check_square(work, attempt, config)
                if ok and not any(_overlap(centred, o) > config.max_overlap for o in kept + found):
                    square = centred
                    break
            if square is None:
                break
            found.append(square)
            cut = np.zeros_like(region)
            _fill_square(cut, replace(square, side=square.side * 1.12))
            region &= 1 - cut
    return found


def _fill_square(mask, square: TileSquare) -> None:
    import cv2
    import numpy as np

    cv2.fillPoly(mask, [np.round(square.corners()).astype(np.int32)], 1)



# ---------------------------------------------------------------- reading


@dataclass(frozen=True)
class HandTile:
    """One loose tile as read: its notation, how sure, and where its middle is in the photo (pixels)."""

    tile: str  # "3G" or "**"
    confidence: float
    x: float
    y: float

    @property
    def sure(self) -> bool:
        """False: "not sure", the player is asked to look (vision.config.SURE_AT)."""
        from vision.config import SURE_AT

        return self.confidence >= SURE_AT

    def to_json(self) -> dict:
        return {"tile": self.tile, "confidence": round(self.confidence, 3), "x": round(self.x, 1), "y": round(self.y, 1)}


@dataclass
class HandResult:
    """A photo of loose tiles read as a hand. `hand` is the hand-file text, `tiles` in reading order."""

    tiles: list[HandTile]
    hand: str
    elapsed_ms: float
    image: Any = field(repr=False)  # the decoded BGR photo the squares refer to
    squares: list[TileSquare] = field(default_factory=list, repr=False)  # in `image` pixels, as `tiles`

    def tile_list(self) -> list[str]:
        """The hand as a list of tiles, for the trade advisor."""
        return [t.tile for t in self.tiles]

    def to_json(self, image_name: str | None = None) -> dict:
        return {
            "image": image_name,
            "tiles": [t.to_json() for t in self.tiles],
            "hand": self.hand,
            "elapsed_ms": round(self.elapsed_ms, 1),
        }

    def annotated(self, max_side: int = 1280):
        """The photo with each tile's square outlined and labelled (BGR array), at most `max_side` pixels."""
        import cv2
        import numpy as np

        from vision.annotate import SURE, UNSURE, label

        scale = min(1.0, max_side / max(self.image.shape[:2]))
        canvas = cv2.resize(self.image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else self.image.copy()
        for tile, square in zip(self.tiles, self.squares):
            sq = square.scaled(scale)
            sure = tile.sure
            thickness = max(1, int(round(sq.side / 28)))
            cv2.polylines(canvas, [np.round(sq.corners()).astype(np.int32)], True, SURE if sure else UNSURE, thickness, cv2.LINE_AA)
            # Below the middle in the picture, so the design stays visible above the label.
            at = (sq.centre[0], sq.centre[1] + 0.3 * sq.side)
            label(canvas, tile.tile if sure else tile.tile + "?", at, max(0.3, sq.side / 110), (255, 255, 255) if sure else UNSURE, centred=True)
        return canvas

    def annotated_png(self, max_side: int = 1280) -> bytes:
        """The annotated picture as PNG bytes."""
        from vision.annotate import encode_png

        return encode_png(self.annotated(max_side))


def _locate(image, config: VisionConfig, hand_config: HandConfig) -> list[TileSquare]:
    """Each tile's square in `image` pixels, found again at a higher resolution if the tiles are small."""
    find_cfg = config.find
    work, scale = work_image(image, find_cfg)
    squares = fit_squares(work, find_tiles(work, find_cfg), hand_config)
    side = sorted(sq.side for sq in squares)[len(squares) // 2]
    if side < hand_config.min_side and scale < 1.0:
        wanted = min(1.0, scale * 1.5 * hand_config.min_side / max(side, 1.0))
        find_cfg = replace(find_cfg, work_long_side=int(max(image.shape[:2]) * wanted))
        work, scale = work_image(image, find_cfg)
        squares = fit_squares(work, find_tiles(work, find_cfg), hand_config)
    return [sq.scaled(1.0 / scale) for sq in squares]


def reading_order(centres, side: float, band: float = 0.6) -> list[int]:
    """Indices of tile middles (x, y) in reading order: rows top to bottom, each left to right.

    A row is started by the highest tile not yet placed and takes every tile
    whose middle is within `band` sides of the row's mean height.
    """
    left = sorted(range(len(centres)), key=lambda k: (centres[k][1], centres[k][0]))
    order: list[int] = []
    while left:
        row = [left[0]]
        for k in left[1:]:
            mean_y = sum(centres[j][1] for j in row) / len(row)
            if abs(centres[k][1] - mean_y) <= band * side:
                row.append(k)
        order.extend(sorted(row, key=lambda k: centres[k][0]))
        left = [k for k in left if k not in row]
    return order


def read_hand(
    image,
    tileset: str = "classic",
    calibration: Calibration | None = None,
    config: VisionConfig | None = None,
    hand_config: HandConfig | None = None,
    started: float | None = None,
    photo_scale: float = 1.0,
) -> HandResult:
    """Read the loose tiles in a BGR photo (numpy uint8, H x W x 3) as a hand.

    `photo_scale` is the decoded image's size over the photo's (vision.capture's
    Decoded.scale), so the tiles' x, y are given in the photo's own pixels.
    Raises NoTilesError (no tile found or none could be read) or TileError
    for an unknown tile set name.
    """
    from companion.games.pivit_tiles.tiles import get_tileset, hand_str
    from vision.assemble import tile_code
    from vision.pipeline import read_colours, read_tile, tile_confidence, use_opencv_threads

    t0 = time.perf_counter() if started is None else started
    cfg = config or VisionConfig()
    use_opencv_threads(cfg)
    hcfg = hand_config or HandConfig()
    colours = get_tileset(tileset).colours
    squares, designs, samples, patches = [], [], [], []
    for square in _locate(image, cfg, hcfg):
        lattice = square.lattice()
        try:
            patch, design, offset = read_tile(image, lattice, (0, 0), (0.0, 0.0), cfg)
        except ClassifyError:
            continue  # a black square without a design: not a tile
        if offset != (0.0, 0.0):
            # The design sat off the square's middle: the tile is where the design is.
            centre = tuple(float(v) for v in lattice.to_image([offset])[0])
            square = replace(square, centre=centre)
        squares.append(square)
        designs.append(design)
        patches.append(patch)
        samples.append(colour_sample(patch, design.mask, cfg.colour))
    if not squares:
        raise NoTilesError("no tiles could be read in the photo")
    height, width = image.shape[:2]
    positions = [(sq.centre[0] / (width / 2) - 1, sq.centre[1] / (height / 2) - 1) for sq in squares]
    colour_readings = read_colours(patches, designs, samples, colours, calibration, cfg, positions)
    side = sorted(sq.side for sq in squares)[len(squares) // 2]
    order = reading_order([sq.centre for sq in squares], side, hcfg.row_band)
    tiles = []
    for k in order:
        d, c = designs[k], colour_readings[k]
        x, y = squares[k].centre
        tiles.append(HandTile(tile_code(d.design, c.colour), tile_confidence(d, c), x / photo_scale, y / photo_scale))
    elapsed = (time.perf_counter() - t0) * 1000
    return HandResult(tiles, hand_str([t.tile for t in tiles]), elapsed, image, [squares[k] for k in order])


def read_hand_bytes(
    data: bytes,
    tileset: str = "classic",
    calibration: Calibration | None = None,
    config: VisionConfig | None = None,
    hand_config: HandConfig | None = None,
) -> HandResult:
    """Read the loose tiles in a photo's bytes (JPEG, PNG, WebP or BMP) as a hand.

    Raises a VisionError subclass whose `.status` is an HTTP hint: 400
    BadImageError (not a usable photo), 413 ImageTooLargeError, 422
    NoTilesError (no tiles found). An unknown tile set name raises TileError.
    """
    from vision.capture import decode_image_bytes

    t0 = time.perf_counter()
    cfg = config or VisionConfig()
    decoded = decode_image_bytes(data, cfg.decode)
    return read_hand(decoded.image, tileset, calibration, cfg, hand_config, started=t0, photo_scale=decoded.scale)


def read_hand_file(
    path: str,
    tileset: str = "classic",
    calibration: Calibration | None = None,
    config: VisionConfig | None = None,
    hand_config: HandConfig | None = None,
) -> HandResult:
    """Read the loose tiles in a photo file. Raises OSError for an unreadable file, and as read_hand_bytes."""
    from vision.capture import read_image_file as decode_file

    t0 = time.perf_counter()
    cfg = config or VisionConfig()
    decoded = decode_file(path, cfg.decode)
    return read_hand(decoded.image, tileset, calibration, cfg, hand_config, started=t0, photo_scale=decoded.scale)


__all__ = ["HandConfig", "HandResult", "HandTile", "TileSquare", "fit_squares", "read_hand", "read_hand_bytes", "read_hand_file", "reading_order"]
