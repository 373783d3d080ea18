"""Stage 3, the lattice in the plane: rectify the photo, fit the grid there, decide cell by cell.

vision.plane gives a first homography of the table plane from the tiles'
own frames and rows. Here the photo is *rectified* with it: resampled so
the plane is seen straight from above, every cell the same square of
`LatticeConfig.cell_px` pixels (`rectify`). In that picture every tile is
the same size whatever the angle the photo was taken at, so:

1. the designs are found again (vision.find on the rectified picture; a far
   tile, small in the work image, is resampled from the decoded photo at the
   size of the near ones), and the lattice is fitted to them as in a photo
   taken from straight above: each design's nearest node, and a mild
   correction map (similarity, affine or gentle homography, as the tiles'
   spread allows) from the nodes to where the designs are; the photo is
   rectified again if the correction moved the grid by more than a little;
2. every cell of the tiles' region (their bounding box and two cells around)
   is measured at once, the rectified masks cut into cell-sized blocks: how
   dark the band just inside a tile's edge is, on each side; its corners and
   side middles (a tile's black face); whether its middle is bright (a
   design); how dark the dark part is against the table around it (a tile's
   face is black; a printed square, a shadow or a board's line is not as
   dark); and how much of it lies outside the photo;
3. a cell is a tile if its design was found there ringed by black face, or,
   next to a tile, if its face is there and its middle is bright (a design
   whose tips touch the tile's edge is no clean hole); a cell that is not a
   tile but is mostly covered by tile-black face is reported as "a tile may
   be missing here" (but one whose face shows plainly beside a tile is read
   as a tile, its design left to the design reader; one dark only along the
   thick sides of tiles seen at an angle, or dark all over but lighter than
   the faces, is not asked about), and a cell whose tile-black face runs out
   of the photo means part of the grid is cut off.

`check_view` refuses what cannot be read reliably (too oblique, cut off,
tiles too small) with a RetakePhotoError saying what to do.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from vision.config import FindConfig, LatticeConfig
from vision.design import array_median, distinct
from vision.errors import LatticeError, NoTilesError, RetakePhotoError

Cell = tuple[int, int]  # (row, col)


@dataclass
class Lattice:
    """A square grid in an image: H maps (col, row, 1) to image pixels."""

    homography: Any  # 3x3 float64
    pitch: float  # pixels between neighbouring cell centres, near the grid's middle
    angle: float  # degrees the grid's rows are turned from the image's rows
    cells: list[Cell] = field(default_factory=list)  # (row, col) of each tile found
    tile: float = 1.0  # a tile's side in pitches (less than 1 when tiles are laid with gaps)

    def to_image(self, points):
        """Image (x, y) of lattice points given as an N x 2 array of (col, row)."""
        from vision.plane import to_image

        return to_image(self.homography, points)

    def to_lattice(self, points):
        """Lattice (col, row) of image points given as an N x 2 array of (x, y)."""
        from vision.plane import to_lattice

        return to_lattice(self.homography, points)

    def cell_corners(self, cell: Cell):
        """The four image corners of a cell (top-left, top-right, bottom-right, bottom-left)."""
        row, col = cell
        return self.to_image([(col - 0.5, row - 0.5), (col + 0.5, row - 0.5), (col + 0.5, row + 0.5), (col - 0.5, row + 0.5)])

    def scaled(self, factor: float) -> "Lattice":
        """The same lattice in an image scaled by `factor`."""
        import numpy as np

        scale = np.diag([factor, factor, 1.0])
        return Lattice(scale @ self.homography, self.pitch * factor, self.angle, list(self.cells), self.tile)


def cell_patch(image, lattice: Lattice, cell: Cell, size: int, border: float = 0.0, offset=(0.0, 0.0)):
    """A cell of `image` resampled to a size x size square, grid-aligned.

    `border` widens the square by that many cells on each side (a negative
    border narrows it, to a tile smaller than its cell); `offset` (cols,
    rows) moves it, to centre a hand-placed tile that sits a little off its
    lattice node. The patch's x axis runs along the grid's columns and y
    along its rows, so a design lies in the patch as it lies on the tile,
    whatever the photo's rotation.
    """
    import cv2
    import numpy as np

    row, col = cell[0] + offset[1], cell[1] + offset[0]
    span = 1.0 + 2 * border
    step = span / size
    to_lattice = np.array(
        [[step, 0, col - span / 2 + step / 2], [0, step, row - span / 2 + step / 2], [0, 0, 1.0]]
    )
    return cv2.warpPerspective(
        image,
        lattice.homography @ to_lattice,
        (size, size),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


# ---------------------------------------------------------------- rectifying


@dataclass
class Rectified:
    """The photo resampled onto the lattice: cell (top + i, left + j) is the block of rows
    i*px .. (i+1)*px and columns j*px .. (j+1)*px."""

    image: Any  # BGR uint8
    inside: Any  # bool, same size: the pixel comes from inside the photo
    top: int
    left: int
    rows: int
    cols: int
    px: int  # pixels per cell
    homography: Any  # the lattice -> photo map it was made with

    def to_lattice(self, points):
        """Lattice (col, row) of rectified pixel positions (x, y), pixel centres at whole numbers."""
        import numpy as np

        pts = np.asarray(points, np.float64).reshape(-1, 2)
        return np.column_stack([self.left - 0.5 + (pts[:, 0] + 0.5) / self.px,
                                self.top - 0.5 + (pts[:, 1] + 0.5) / self.px])


def rectify(image, homography, top: int, left: int, rows: int, cols: int, px: int) -> Rectified:
    """The cells `top`.. `top + rows - 1` x `left`.. `left + cols - 1` of the lattice seen straight
    from above, `px` pixels a cell, resampled from `image` through `homography` ((col, row) -> pixels)."""
    import cv2
    import numpy as np

    step = 1.0 / px
    to_lattice = np.array([[step, 0, left - 0.5 + step / 2], [0, step, top - 0.5 + step / 2], [0, 0, 1.0]])
    m = homography @ to_lattice
    width, height = cols * px, rows * px
    out = cv2.warpPerspective(image, m, (width, height), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REPLICATE)
    # Which pixels come from the photo: mapped on a coarse grid, then spread to full size.
    coarse = 4
    xs = np.arange(0, width, coarse) + coarse / 2 - 0.5
    ys = np.arange(0, height, coarse) + coarse / 2 - 0.5
    gx, gy = np.meshgrid(xs, ys)
    homog = np.stack([gx, gy, np.ones_like(gx)], axis=-1) @ m.T
    w = homog[..., 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        sx, sy = homog[..., 0] / w, homog[..., 1] / w
    inside = (w > 0) & (sx >= 0) & (sy >= 0) & (sx <= image.shape[1] - 1) & (sy <= image.shape[0] - 1)
    inside = np.repeat(np.repeat(inside, coarse, axis=0), coarse, axis=1)[:height, :width]
    return Rectified(out, inside, top, left, rows, cols, px, homography)


# ---------------------------------------------------------------- the fit


@dataclass
class TileCell:
    """A tile's cell and where its design's centre sits in it (cols, rows off the node)."""

    cell: Cell
    offset: tuple[float, float]
    found: bool  # True if its design was a clean hole; False if found from its black face
    doubt: bool = False  # its place on the grid is not sure (a group placed by a small margin)
    # Its dark is lighter than the nearest other tiles' faces (_lighter_than_near) and the light in its
    # middle as bright as the surface around it (_surface_light): a board's print (a digit's strokes
    # and the board's lines round a light square) unless its design reads sure (pipeline.read_image).
    pale: bool = False
    # Found from its face alone (no clean design) and its dark far lighter than the nearest other tiles'
    # faces (LatticeConfig.min_printed_square_ratio): a board's printed dark square unless a design
    # reads sure on it (pipeline.read_image).
    printed: bool = False


@dataclass
class GridInPlane:
    """The grid read in the rectified plane."""

    lattice: Lattice  # in the pixels of the image given to fit_in_plane
    tiles: list[TileCell]
    missing: list[Cell]  # cells where a tile may be missing: tile-black face, no tile read
    cut_off: list[Cell]  # cells whose tile-black face runs out of the photo
    tilt: float  # degrees between the camera's axis and straight down (from the plane's map)
    near_far: float  # the smallest cell's side over the largest, over the tiles
    smallest_cell: float  # pixels: the side of the smallest cell holding a tile
    printed: list[Cell] = field(default_factory=list)  # cells where a design seen was judged print (see _evidence)
    # Cells asked about only for a clear design on them (see _decide): not counted as asked about
    # when the first search's designs are placed (pipeline.unplaced) or a finger's cells counted.
    clear_missing: list[Cell] = field(default_factory=list)
    # Cells left out of `missing` for a dark lighter than the nearest tiles' faces (_lighter_than_near):
    # print, unless the design on it reads sure as a tile's (pipeline.read_asked).
    pale: list[Cell] = field(default_factory=list)
    # Cells showing a glimpse of a tile's face, too little to ask about alone (see _glimpsed).
    glimpsed: list[Cell] = field(default_factory=list)


def fit_in_plane(image, plane, scale: float, find_config: FindConfig, config: LatticeConfig | None = None,
                 candidates=None) -> GridInPlane:
    """The lattice, its tiles and the cells where one may be missing, from a rectified view of `image`.

    `plane` is vision.plane's estimate in a work image `scale` times the size
    of `image`; `candidates` are the designs found there (those on the
    lattice widen the region looked at). Raises LatticeError if no tile is
    left on the grid.
    """
    import numpy as np

    cfg = config or LatticeConfig()
    homography = np.diag([1 / scale, 1 / scale, 1.0]) @ plane.homography
    placed = [cell for cell in plane.cells.values()]
    if candidates is not None and len(candidates.centres):
        # Designs that sit on a node near the tiles placed (a design that is not a clean
        # hole, a tile the plane left out) widen the region; the rectified view decides.
        from vision.plane import to_lattice

        seen = to_lattice(plane.homography, candidates.centres)
        cells = np.rint(seen)
        near = np.linalg.norm(seen - cells, axis=1) <= cfg.max_residual
        have = np.array([(c, r) for r, c in placed], np.float64)
        for k in np.nonzero(near)[0]:
            if np.abs(have - cells[k]).max(axis=1).min() <= cfg.region_margin:
                placed.append((int(cells[k, 1]), int(cells[k, 0])))
    box = _region(placed, homography, image.shape, cfg)
    doubtful_cells = {plane.cells[k] for k, g in plane.group_of.items() if g in plane.doubtful_groups}

    def look(box):
        rect = rectify(image, homography, *box, cfg.cell_px)
        return rect, _designs(rect, find_config, cfg)

    for _ in range(cfg.rectify_rounds):
        rect, found = look(box)
        correction, moved = _correction(found, cfg)
        homography = homography @ correction
        if moved <= cfg.settled_move:
            break
    else:
        rect, found = look(box)
    evidence = _evidence(rect, found, find_config, cfg, image)
    tiles, missing, cut_off, clear_missing, pale = _decide(evidence, cfg)
    glimpsed = _glimpsed(evidence, cfg, {t.cell for t in tiles}, set(missing) | set(cut_off) | set(clear_missing))
    # Tiles the rectified view found beyond the plane's (far, blurred designs the first search did
    # not see) may lie on the region's edge: the cells past them were not looked at, and a tile
    # there would be dropped without a word (extreme 173: a far row found at the region's top,
    # the tile beyond it never looked at). The region is grown round them and looked at again,
    # for the cells past the first region and its edge on that side (below) only: its other cells
    # keep the first look's decisions (a larger rectified picture finds and measures them a little
    # differently).
    printed = list(evidence.printed)
    top, left, rows, cols = box
    m = cfg.region_margin
    wider = box
    if any(not (top + m <= r < top + rows - m and left + m <= c < left + cols - m) for r, c in (t.cell for t in tiles)):
        try:
            wider = _region(placed + [t.cell for t in tiles], homography, image.shape, cfg)
        except LatticeError:
            pass  # too large a grid with them: the region looked at stays
    if wider != box:
        beyond = _evidence(*look(wider), find_config, cfg, image)
        more_tiles, *more = _decide(beyond, cfg)

        # The first region's edge row or column on a side the wider one grows past, where the first
        # look found nothing, is taken from the wider look too: the first picture ended at those
        # cells' outer sides, so a far tile there lay at its edge, its outer band cut by it (mixed
        # 310: a far row of blurred circles on the first region's top row, beside a tile read, their
        # far sides 0.01-0.44 dark there and 0.31-0.52 seen whole; left out of the first look's tiles
        # and dropped without a word). The cut can only hide a tile's face, so a cell the first look
        # read or asked about keeps that.
        (wtop, wleft, wrows, wcols) = wider
        inner_top = top + (wtop < top)
        inner_left = left + (wleft < left)
        inner_bottom = top + rows - (wtop + wrows > top + rows)
        inner_right = left + cols - (wleft + wcols > left + cols)
        decided = {t.cell for t in tiles} | set(missing) | set(cut_off) | set(clear_missing) | set(pale)

        def first(cell) -> bool:
            if inner_top <= cell[0] < inner_bottom and inner_left <= cell[1] < inner_right:
                return True
            return cell in decided and top <= cell[0] < top + rows and left <= cell[1] < left + cols

        def past(cells):
            return [c for c in cells if not first(c)]

        tiles = sorted([t for t in tiles if first(t.cell)] + [t for t in more_tiles if not first(t.cell)],
                       key=lambda t: t.cell)
        missing, cut_off, clear_missing, pale = (sorted([c for c in a if first(c)] + past(b)) for a, b in
                                                 zip((missing, cut_off, clear_missing, pale), more))
        printed = [c for c in printed if first(c)] + past(beyond.printed)
    if not tiles:
        raise LatticeError("no tiles found: the dark shapes in the photo are not tiles with designs")
    # A group of tiles placed on the lattice by a small margin over another place: its tiles'
    # cells, and so every line through them, are not sure (pipeline.read_image refuses the photo).
    if doubtful_cells:
        for tile in tiles:
            if tile.cell in doubtful_cells:
                tile.doubt = True
    lattice = Lattice(homography, 0.0, 0.0, [t.cell for t in tiles], evidence.tile_side)
    lattice.pitch, lattice.angle = _pitch_and_angle(homography, lattice.cells)
    tilt, near_far, smallest = _view(homography, lattice.cells, image.shape)
    return GridInPlane(lattice, tiles, missing, cut_off, tilt, near_far, smallest, sorted(printed),
                       clear_missing, pale, glimpsed)


def _region(cells, homography, shape, cfg: LatticeConfig) -> tuple[int, int, int, int]:
    """(top, left, rows, cols) of the cells looked at: the tiles' box, `region_margin` cells around,
    trimmed where whole rows or columns of it lie outside the photo or the box grows too large."""
    import numpy as np

    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    m = cfg.region_margin
    top, bottom, left, right = min(rows) - m, max(rows) + m, min(cols) - m, max(cols) + m
    height, width = shape[:2]

    def outside(points) -> bool:
        from vision.plane import to_image_in_front

        p = to_image_in_front(homography, points)
        if p is None:
            return True
        return bool(((p[:, 0] < -0.5 * width) | (p[:, 0] > 1.5 * width) | (p[:, 1] < -0.5 * height)
                     | (p[:, 1] > 1.5 * height)).all())

    # Margin rows and columns far outside the photo (or behind the camera) are dropped.
    while top < min(rows) and outside(np.array([(c, top) for c in range(left, right + 1)], np.float64)):
        top += 1
    while bottom > max(rows) and outside(np.array([(c, bottom) for c in range(left, right + 1)], np.float64)):
        bottom -= 1
    while left < min(cols) and outside(np.array([(left, r) for r in range(top, bottom + 1)], np.float64)):
        left += 1
    while right > max(cols) and outside(np.array([(right, r) for r in range(top, bottom + 1)], np.float64)):
        right -= 1
    if bottom - top + 1 > cfg.max_cells or right - left + 1 > cfg.max_cells:
        raise LatticeError("the tiles found do not lie on one grid of a sensible size")
    return top, left, bottom - top + 1, right - left + 1


@dataclass
class _Designs:
    """Designs found in a rectified picture, on cells."""

    lattice: Any  # N x 2 (col, row) of each design's centre
    cells: Any  # N x 2 int (row, col): the node each is nearest
    residual: Any  # N: cells from that node
    trusted: Any  # bool N
    area: Any  # N: share of a cell
    asymmetry: Any  # N
    candidates: Any  # vision.find.Candidates of the rectified picture (or None)


def _designs(rect: Rectified, find_config: FindConfig, cfg: LatticeConfig) -> _Designs:
    """The designs in the rectified picture and the node each sits nearest."""
    import numpy as np

    from vision.find import find_tiles

    try:
        found = find_tiles(rect.image, find_config, valid=rect.inside)
    except NoTilesError:
        return _Designs(np.zeros((0, 2)), np.zeros((0, 2), np.int64), np.zeros(0), np.zeros(0, bool),
                        np.zeros(0), np.zeros(0), None)
    at = rect.to_lattice(found.centres)
    nodes = np.rint(at)
    residual = np.linalg.norm(at - nodes, axis=1)
    area = found.areas / float(rect.px * rect.px)
    cells = np.column_stack([nodes[:, 1], nodes[:, 0]]).astype(np.int64)
    return _Designs(at, cells, residual, np.asarray(found.trusted, bool), area, np.asarray(found.asymmetry), found)


def _correction(found: _Designs, cfg: LatticeConfig):
    """(3x3 map from ideal lattice (col, row) to the rectified lattice's, how far it moves a cell at most).

    Fitted to the trusted designs near a node, one per cell: as general as
    their spread allows (a shift, a similarity, an affine map, a gentle
    homography), so a few tiles cannot bend the grid.
    """
    import numpy as np

    use = found.trusted & (found.residual <= cfg.max_residual) & (found.area >= cfg.min_design_area) \
        & (found.area <= cfg.max_design_area)
    best: dict[tuple[int, int], int] = {}
    for k in np.nonzero(use)[0]:
        key = (int(found.cells[k, 0]), int(found.cells[k, 1]))
        if key not in best or found.residual[k] < found.residual[best[key]]:
            best[key] = k
    if not best:
        return np.eye(3), 0.0
    keys = list(best)
    ideal = np.array([(c, r) for r, c in keys], np.float64)
    seen = np.array([found.lattice[best[key]] for key in keys])
    h = _fit_correction(ideal, seen, cfg)
    lo, hi = ideal.min(axis=0) - 1, ideal.max(axis=0) + 1
    probe = np.array([(lo[0], lo[1]), (hi[0], lo[1]), (hi[0], hi[1]), (lo[0], hi[1]), ideal.mean(axis=0)])
    from vision.plane import to_image

    moved = float(np.linalg.norm(to_image(h, probe) - probe, axis=1).max())
    return h, moved


def _fit_correction(ideal, seen, cfg: LatticeConfig):
    """Least-squares map ideal -> seen, as general as the points' spread allows, kept gentle."""
    import numpy as np

    from vision.plane import fit_homography

    n = len(ideal)
    cols, rows = len(distinct(ideal[:, 0])), len(distinct(ideal[:, 1]))
    if n >= 8 and cols >= 3 and rows >= 3:
        h = fit_homography(ideal, seen)
        if h is not None and np.abs(h[2, :2]).max() <= cfg.max_correction_perspective:
            return h
    if n >= 4 and cols >= 2 and rows >= 2:
        design = np.hstack([ideal, np.ones((n, 1))])
        sol, *_ = np.linalg.lstsq(design, seen, rcond=None)
        h = np.vstack([sol.T, [0, 0, 1.0]])
        if _gentle(h, cfg):
            return h
    if n >= 2:
        g = ideal[:, 0] + 1j * ideal[:, 1]
        p = seen[:, 0] + 1j * seen[:, 1]
        gm, pm = g.mean(), p.mean()
        denom = np.sum(np.abs(g - gm) ** 2)
        if denom > 0:
            a = np.sum(np.conj(g - gm) * (p - pm)) / denom
            h = np.array([[a.real, -a.imag, 0], [a.imag, a.real, 0], [0, 0, 1.0]])
            h[:2, 2] = [(pm - a * gm).real, (pm - a * gm).imag]
            if _gentle(h, cfg):
                return h
    h = np.eye(3)
    h[:2, 2] = (seen - ideal).mean(axis=0)
    return h


def _gentle(h, cfg: LatticeConfig) -> bool:
    """A correction that keeps cells square and about their size."""
    import numpy as np

    a = h[:2, :2]
    s = np.linalg.svd(a, compute_uv=False)
    return bool(np.linalg.det(a) > 0 and s[1] > 1 - cfg.max_correction_scale and s[0] < 1 + cfg.max_correction_scale)


# ---------------------------------------------------------------- cell by cell


@dataclass
class _Evidence:
    """Measures of every cell of a rectified picture (arrays rows x cols), and the designs on them."""

    rect: Rectified
    band: Any  # dark share of the band inside the tile's edge, mean of the four sides
    band_min: Any  # the least dark of the four sides
    band_second: Any  # the second least dark (a line's end tile, blurred, may lose its outer side)
    sides: Any  # dark share of the band on each side: rows x cols x (top, bottom, left, right)
    face: Any  # dark share of the corners or side middles, whichever is darker
    middle: Any  # bright share of the middle (strict mask: a dark paint counts as bright)
    dark: Any  # dark share of the tile's square
    level: Any  # the dark part's brightness over the table's around it (a tile's face: low)
    outside: Any  # share of the cell outside the photo
    dark_inside: Any  # dark share of the part of the cell inside the photo
    design: dict  # cell -> index of the design found on it (nearest its node)
    offset: dict  # cell -> (cols, rows) of its design off the node
    designs: _Designs
    tile_side: float
    face_level: float  # a typical tile face's level (median over the designs' cells)
    printed: list = field(default_factory=list)  # cells whose design was judged print, far off the node
    # cell -> its four sides (as `sides`) where a tile's square fits it best, for the cells
    # _register_squares looked at but left measured where they were (no side dark enough there)
    squares: dict = field(default_factory=dict)
    # The masks of the rectified picture (vision.find.surface_masks: the loose dark mask, each pixel's
    # brightness and the table's around it) and the middle of a tile's square (px x px).
    masks: Any = None
    middle_pattern: Any = None
    # The share of the whole cell (its pitch square, not only a tile's square on its node) outside the
    # photo, and the dark share of the part of it inside (see _unseen_cell).
    cell_outside: Any = None
    cell_dark_inside: Any = None
    photo: Any = None  # the photo the rectified picture was taken from (its own pixels at the frame's edge)
    dark_ratio: float = 0.45  # find's bound: darker than this share of the table is dark (FindConfig.dark_ratio)


def _block_sums(mask, rows: int, cols: int, px: int, weights):
    """Sum of `mask` under each weight pattern (K x px x px) over every cell: rows x cols x K."""
    blocks = mask.reshape(rows, px, cols, px).transpose(0, 2, 1, 3).reshape(rows, cols, px * px)
    return blocks @ weights.reshape(len(weights), px * px).T


def _patterns(px: int, tile: float):
    """Weight patterns of a cell (K x px x px): the band on each side, corners, side middles, middle, square."""
    import numpy as np

    centre = (np.arange(px) + 0.5) / px - 0.5  # cell units, 0 at the node
    half = tile / 2
    kx = np.abs(centre)[None, :] / half
    ky = np.abs(centre)[:, None] / half
    k = np.maximum(kx, ky)
    ring = (k > 0.78) & (k < 0.95)
    x = np.broadcast_to(centre[None, :], (px, px))
    y = np.broadcast_to(centre[:, None], (px, px))
    top = ring & (y < 0) & (np.abs(y) >= np.abs(x))
    bottom = ring & (y > 0) & (np.abs(y) >= np.abs(x))
    left = ring & (x < 0) & (np.abs(x) > np.abs(y))
    right = ring & (x > 0) & (np.abs(x) > np.abs(y))
    corners = (kx > 0.62) & (kx < 0.92) & (ky > 0.62) & (ky < 0.92)
    edges = ((kx > 0.74) & (kx < 0.92) & (ky < 0.35)) | ((ky > 0.74) & (ky < 0.92) & (kx < 0.35))
    middle = k < 0.3
    square = k < 0.95
    return np.array([top, bottom, left, right, corners, edges, middle, square], np.float32)


def _tile_side(designs: _Designs, dark, rect: Rectified) -> float:
    """A tile's side in cells, from where the black ends beside tiles with an empty neighbour."""
    import numpy as np

    px = rect.px
    have = {(int(r), int(c)) for (r, c), res in zip(designs.cells, designs.residual) if res < 0.3}
    reaches = []
    for r, c in have:
        i, j = r - rect.top, c - rect.left
        if not (0 <= i < rect.rows and 0 <= j < rect.cols):
            continue
        cy, cx = int((i + 0.5) * px), int((j + 0.5) * px)
        band = max(1, px // 6)
        for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            if (r + dr, c + dc) in have:
                continue
            # The band's mean across, over the one cell out from the middle that is looked at.
            if dc:
                out = slice(cx, cx + px) if dc > 0 else slice(max(cx - px + 1, 0), cx + 1)
                line = dark[cy - band : cy + band, out].mean(axis=0)
                ray = line if dc > 0 else line[::-1]
            else:
                out = slice(cy, cy + px) if dr > 0 else slice(max(cy - px + 1, 0), cy + 1)
                line = dark[out, cx - band : cx + band].mean(axis=1)
                ray = line if dr > 0 else line[::-1]
            # Out from the middle: the design (light), the tile's face (dark), then the table.
            ray = ray[: px] >= 0.5
            face = np.nonzero(ray)[0]
            if not len(face):
                continue
            light = np.nonzero(~ray[face[0] :])[0]
            if len(light):
                reaches.append((face[0] + light[0]) / px)
    if len(reaches) < 2:
        return 1.0
    return float(min(1.0, max(0.75, 2 * float(array_median(reaches)) + 0.02)))


def _padded(image, pad: int):
    """np.pad(image, pad) of a 2-D array (zeros `pad` wide all round): the same array, without np.pad's
    general machinery (its cost was most of a rectified picture's padding)."""
    import numpy as np

    height, width = image.shape
    out = np.zeros((height + 2 * pad, width + 2 * pad), image.dtype)
    out[pad:pad + height, pad:pad + width] = image
    return out


def _evidence(rect: Rectified, designs: _Designs, find_config: FindConfig, cfg: LatticeConfig, photo=None) -> _Evidence:
    """Every cell's measures (see _Evidence) from the rectified picture's masks; `photo`, the photo it
    was taken from (its own pixels at the frame's edge, _unseen_cell; None: not looked at)."""
    import numpy as np

    from vision.find import surface_masks

    masks = designs.candidates.masks if designs.candidates is not None else surface_masks(rect.image, find_config, rect.inside)
    rows, cols, px = rect.rows, rect.cols, rect.px
    loose = masks.loose.astype(np.float32)
    strict = masks.strict.astype(np.float32)
    tile = _tile_side(designs, loose, rect)
    pats = _patterns(px, tile)
    area = pats.reshape(len(pats), -1).sum(axis=1)
    inside = rect.inside.astype(np.float32)
    # The dark pixels' brightness against the table's around them.
    ratio = np.where(masks.loose > 0, masks.value.astype(np.float32) / np.maximum(masks.table, 1.0), 0).astype(np.float32)
    sums_loose = _block_sums(loose, rows, cols, px, pats)
    sums_strict = _block_sums(strict, rows, cols, px, pats[6:7])
    sums_ratio = _block_sums(ratio, rows, cols, px, pats[7:8])[..., 0]
    sums_inside = _block_sums(inside, rows, cols, px, pats[7:8])[..., 0]
    sums_dark_in = _block_sums(loose * inside, rows, cols, px, pats[7:8])[..., 0]
    sides = sums_loose[..., 0:4] / area[0:4]
    face = np.maximum(sums_loose[..., 4] / area[4], sums_loose[..., 5] / area[5])
    middle = 1.0 - sums_strict[..., 0] / area[6]
    dark = sums_loose[..., 7] / area[7]
    level = np.where(sums_loose[..., 7] > 0, sums_ratio / np.maximum(sums_loose[..., 7], 1e-6), 1.0)
    outside = 1.0 - sums_inside / area[7]
    dark_inside = np.where(sums_inside > 0, sums_dark_in / np.maximum(sums_inside, 1e-6), 0.0)
    cell_inside = inside.reshape(rows, px, cols, px).sum(axis=(1, 3))
    cell_dark_in = (loose * inside).reshape(rows, px, cols, px).sum(axis=(1, 3))
    cell_outside = 1.0 - cell_inside / float(px * px)
    cell_dark_inside = np.where(cell_inside > 0, cell_dark_in / np.maximum(cell_inside, 1e-6), 0.0)
    # Each design on the cell it sits nearest (the nearest one where two share a cell), with
    # the cell's measures taken again around it where it sits off its node.
    design, offset = {}, {}
    for k in range(len(designs.cells)):
        if designs.residual[k] > cfg.max_residual:
            continue
        key = (int(designs.cells[k, 0]), int(designs.cells[k, 1]))
        i, j = key[0] - rect.top, key[1] - rect.left
        if not (0 <= i < rows and 0 <= j < cols):
            continue
        if key in design and designs.residual[design[key]] <= designs.residual[k]:
            continue
        design[key] = k
        off = designs.lattice[k] - (key[1], key[0])
        offset[key] = (float(off[0]), float(off[1]))
    padded = None
    node_measures = {}  # cell -> its measures at its node, where a design sits far off it
    for key, k in design.items():
        dx, dy = int(round(offset[key][0] * px)), int(round(offset[key][1] * px))
        if not dx and not dy:
            continue
        if padded is None:
            pad = px // 2
            padded = (_padded(loose, pad), _padded(strict, pad), _padded(ratio, pad), pad)
        lp, sp, rp, pad = padded
        i, j = key[0] - rect.top, key[1] - rect.left
        y0, x0 = i * px + dy + pad, j * px + dx + pad
        if not (0 <= y0 and 0 <= x0 and y0 + px <= lp.shape[0] and x0 + px <= lp.shape[1]):
            continue
        if designs.residual[k] > min(cfg.max_dark_design_offset, cfg.max_light_design_offset):
            node_measures[key] = (sides[i, j].copy(), face[i, j], middle[i, j], dark[i, j], level[i, j])
        _measure_at((sides, face, middle, dark, level), (lp, sp, rp), pats, area, (i, j), (y0, x0))
    tile_levels = [level[key[0] - rect.top, key[1] - rect.left] for key, k in design.items() if designs.trusted[k]]
    face_level = float(array_median(tile_levels)) if tile_levels else cfg.default_face_level
    # A design far off its node ringed by dark lighter than the tiles' faces is printed (a board's
    # square between its lines, beside tiles; the board's pitch is not the tiles'): the cell is
    # measured at its node, without it.
    # Nearer its node, a design is print when its ring is lighter still.
    printed = [key for key in node_measures
               if (designs.residual[design[key]] > cfg.max_dark_design_offset
                   and level[key[0] - rect.top, key[1] - rect.left] > cfg.max_off_node_level_ratio * face_level)
               or (designs.residual[design[key]] > cfg.max_light_design_offset
                   and level[key[0] - rect.top, key[1] - rect.left] > cfg.max_light_level_ratio * face_level)]
    for key in printed:
        i, j = key[0] - rect.top, key[1] - rect.left
        sides[i, j], face[i, j], middle[i, j], dark[i, j], level[i, j] = node_measures[key]
        del design[key], offset[key]
    if printed:
        tile_levels = [level[key[0] - rect.top, key[1] - rect.left] for key, k in design.items() if designs.trusted[k]]
        face_level = float(array_median(tile_levels)) if tile_levels else cfg.default_face_level
    squares = _register_squares((sides, face, middle, dark, level), (loose, strict, ratio), pats, offset, set(printed),
                                rect, cfg)
    # The four sides' measures, every cell's taken around its design where it sits off its node.
    band = sides.mean(axis=2)
    band_min = sides.min(axis=2)
    band_second = np.sort(sides, axis=2)[..., 1]
    return _Evidence(rect, band, band_min, band_second, sides, face, middle, dark, level, outside, dark_inside, design, offset,
                     designs, tile, face_level, printed, squares, masks, pats[6], cell_outside, cell_dark_inside,
                     photo, find_config.dark_ratio)


def _measure_at(measures, masks, pats, area, cell, corner) -> None:
    """Measure one cell (`cell`: its row and column in the arrays of `measures`, the sides, face,
    middle, dark and level updated in place) on the block of the padded `masks` (loose, strict, ratio)
    whose top-left pixel is `corner` (y, x)."""
    sides, face, middle, dark, level = measures
    loose, strict, ratio = masks
    i, j = cell
    px = pats.shape[1]
    y0, x0 = corner
    flat = pats.reshape(len(pats), -1)
    s = flat @ loose[y0 : y0 + px, x0 : x0 + px].reshape(-1)
    sides[i, j] = s[0:4] / area[0:4]
    face[i, j] = max(s[4] / area[4], s[5] / area[5])
    middle[i, j] = 1.0 - float((flat[6] @ strict[y0 : y0 + px, x0 : x0 + px].reshape(-1)) / area[6])
    dark[i, j] = s[7] / area[7]
    if s[7] > 0:
        level[i, j] = float((flat[7] @ ratio[y0 : y0 + px, x0 : x0 + px].reshape(-1)) / s[7])


def _register_squares(measures, masks, pats, offset: dict, printed, rect: Rectified, cfg: LatticeConfig) -> dict:
    """Measure again, where the tile's square lies, each cell whose face is a tile's but whose band
    is broken on a side (`measures`: sides, face, middle, dark, level, updated in place).

    Every tile is a square of the same size, but the rectified view puts its edges a few pixels off
    the band looked at: a homography fitted to designs' centres (a highlight joined to a design pulls
    its centre off), a tile's thick side seen at an angle, a tile laid a little off its node. Its band
    then falls on the table on one side, the cell is no tile, and it is asked about. The square of the
    tile's size is moved by up to `square_search` of a cell each way, and the cell measured where its
    least dark side is darkest, if that side is then as dark as a tile's (`min_side_band`): the same
    square, so a cell between two tiles cannot take one's edge on its left and the other's on its
    right. A cell with a design on it is measured from where its design sits (`offset`); a cell whose
    design was judged print (`printed`) is not moved.

    Returns the four sides where the square fits best of each cell left where it was because a side
    stayed lighter there (cell (rows, cols) in the arrays -> sides): a tile laid off its node whose
    highlight eats into one side still has its outer sides dark there (see _partly_hidden).
    """
    import numpy as np
    from numpy.lib.stride_tricks import sliding_window_view

    sides, face = measures[0], measures[1]
    px = rect.px
    reach = int(round(cfg.square_search * px))
    todo = np.argwhere((sides.min(axis=2) < cfg.min_side_band) & (face >= cfg.min_square_face))
    fitted: dict = {}
    if not reach or not len(todo):
        return fitted
    pad = reach + px // 2
    lp, sp, rp = (_padded(m, pad) for m in masks)
    flat = pats.reshape(len(pats), -1)
    area = flat.sum(axis=1)
    for i, j in todo.tolist():
        if (rect.top + i, rect.left + j) in printed:
            # Its design was judged print (a board's square between tiles, see _evidence): the tiles
            # about it would lend it their faces.
            continue
        dx, dy = offset.get((rect.top + i, rect.left + j), (0.0, 0.0))
        y0, x0 = i * px + int(round(dy * px)) + pad - reach, j * px + int(round(dx * px)) + pad - reach
        if y0 < 0 or x0 < 0 or y0 + px + 2 * reach > lp.shape[0] or x0 + px + 2 * reach > lp.shape[1]:
            continue
        windows = sliding_window_view(lp[y0 : y0 + px + 2 * reach, x0 : x0 + px + 2 * reach], (px, px))
        shifts = windows.reshape(-1, px * px)
        side = shifts @ flat[0:4].T / area[0:4]
        # The darkest least side; of those as dark, the square nearest where it was measured.
        yy, xx = np.divmod(np.arange(len(shifts)), 2 * reach + 1)
        moved = np.abs(yy - reach) + np.abs(xx - reach)
        best = int(np.lexsort((moved, -side.mean(axis=1), -side.min(axis=1)))[0])
        corners_edges = flat[4:6] @ shifts[best] / area[4:6]
        if corners_edges.max() < face[i, j]:
            continue  # its corners and side middles lighter: not the tile's square either
        if side[best].min() < cfg.min_side_band:
            # No square of a tile's size is dark on every side here: no tile's face to move onto (the
            # dark about an empty cell ringed by tiles, their faces and thick sides seen at an angle).
            fitted[(i, j)] = side[best]
            continue
        _measure_at(measures, (lp, sp, rp), pats, area, (i, j), (y0 + int(yy[best]), x0 + int(xx[best])))
    return fitted


def _decide(ev: _Evidence, cfg: LatticeConfig) -> tuple[list[TileCell], list[Cell], list[Cell], list[Cell], list[Cell]]:
    """(tiles, cells where a tile may be missing, cells cut off by the photo's edge, cells where a tile
    may be missing asked about only for a clear design on them, cells left out of those where one may
    be missing for a dark lighter than the nearest tiles' faces: _lighter_than_near)."""
    import numpy as np

    rect = ev.rect
    designs = ev.designs
    # Tile-black: as dark against the table as the tiles' own faces are (a printed square,
    # a shadow, a patterned cloth is lighter), with some room for uneven light.
    black_level = max(cfg.max_face_level_ratio * ev.face_level, ev.face_level + cfg.face_level_margin)
    black = ev.level <= black_level
    strict_black = cfg.missing_face_level_ratio * ev.face_level  # the same, for a face whose design is not seen
    askable = ev.level <= cfg.missing_level_ratio * ev.face_level  # dark enough for a cell to be asked about
    tiles: dict[Cell, TileCell] = {}
    looked: set[Cell] = set()
    glared: list[Cell] = []
    for key, k in ev.design.items():
        i, j = key[0] - rect.top, key[1] - rect.left
        if ev.outside[i, j] > cfg.max_outside:
            continue
        area_ok = cfg.min_design_area <= designs.area[k] <= cfg.max_design_area
        if not area_ok or not black[i, j]:
            looked.add(key)
            continue
        trusted = bool(designs.trusted[k])
        if trusted and ev.face[i, j] >= cfg.min_trusted_face and ev.band[i, j] >= cfg.min_trusted_band:
            tiles[key] = TileCell(key, ev.offset[key], True)
        elif ev.band[i, j] >= cfg.min_face_band and ev.band_min[i, j] >= cfg.min_side_band \
                and ev.face[i, j] >= cfg.min_tileness and designs.asymmetry[k] <= cfg.max_untrusted_asymmetry:
            tiles[key] = TileCell(key, ev.offset[key], True)
        else:
            looked.add(key)
            if ev.face[i, j] >= cfg.min_tileness and ev.band[i, j] >= cfg.min_trusted_band \
                    and designs.asymmetry[k] <= cfg.max_untrusted_asymmetry \
                    and designs.residual[k] <= cfg.max_glared_offset \
                    and ev.level[i, j] <= cfg.max_glared_level_ratio * ev.face_level:
                glared.append(key)
    # A design whose ring of face lies only where tiles stand beside it is print between them (a
    # board's letter or light square): a tile's own black face runs along each of its sides.
    alone = set(tiles)
    for key in sorted(alone):
        if _ringed_by_neighbours(key, ev, alone, cfg):
            del tiles[key]
            ev.printed.append(key)
    printed = set(ev.printed)
    # A design a highlight has bent (its outline lopsided, its ring broken where the glare spills
    # onto the face: not trusted), on its node, ringed by face as dark as the tiles' own, beside a
    # tile: a tile as the trusted ones are; again from each one added.
    added = True
    while added:
        added = False
        for key in glared:
            if key not in tiles and _touches(key, tiles):
                tiles[key] = TileCell(key, ev.offset[key], True)
                looked.discard(key)
                added = True
    # Tiles whose design is no clean hole (its tips touch the tile's edge, blur), next to
    # tiles found; again from each one added, so a run of them is found from its ends.
    frontier = set(tiles)
    while frontier:
        around = {(r + dr, c + dc) for r, c in frontier for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))}
        frontier = set()
        for key in sorted(around - set(tiles)):
            i, j = key[0] - rect.top, key[1] - rect.left
            if not (0 <= i < rect.rows and 0 <= j < rect.cols) or ev.outside[i, j] > cfg.max_outside:
                continue
            if ev.face[i, j] >= cfg.min_added_tileness and ev.middle[i, j] >= 0.5 \
                    and ev.band[i, j] >= cfg.min_added_band and ev.band_min[i, j] >= cfg.min_added_side and black[i, j]:
                near = [tiles[n] for n in ((key[0] + 1, key[1]), (key[0] - 1, key[1]), (key[0], key[1] + 1),
                                           (key[0], key[1] - 1)) if n in tiles]
                drift = (sum(t.offset[0] for t in near) / len(near), sum(t.offset[1] for t in near) / len(near))
                tiles[key] = TileCell(key, ev.offset.get(key, drift), False)
                frontier.add(key)
    # A cell covered by tile-black face but not read as a tile: a tile may be missing there.
    missing, cut_off, faces, corners = [], [], [], []
    for i in range(rect.rows):
        for j in range(rect.cols):
            key = (rect.top + i, rect.left + j)
            if key in tiles:
                continue
            if ev.outside[i, j] > cfg.min_outside_cut:
                if cfg.cut_sliver_outside < ev.outside[i, j] <= cfg.max_outside_unseen \
                        and ev.dark_inside[i, j] < cfg.min_sliver_dark:
                    # A sliver at the photo's edge, much of it light: no tile's black edge band but the
                    # thick side of the tile beside it seen at an angle, or print.
                    continue
                # Partly outside the photo: tile-black in the part that shows, or too little shows
                # to tell, beside a tile.
                level = min(float(ev.level[i, j]), _grey_level(ev, i, j, cfg))
                cut_black = level <= cfg.cut_level_ratio * ev.face_level
                shows_black = ev.dark_inside[i, j] >= cfg.min_missing_dark and level <= black_level and cut_black
                if (shows_black and _joined_at_edge(key, tiles, ev, cfg)) \
                        or (ev.dark_inside[i, j] >= cfg.min_cut_dark and level <= strict_black and cut_black
                            and _touches(key, tiles)) \
                        or (ev.outside[i, j] > cfg.max_outside_unseen and _touches(key, tiles)
                            and not _unseen_cell(ev, i, j, cfg)):
                    cut_off.append(key)
                    continue
                if shows_black and ev.outside[i, j] <= cfg.max_outside_unseen:
                    # Apart from the tiles read: a loose tile off the grid (a part of a loose grid)
                    # running out of the photo. The grid read is whole; that tile is asked about.
                    # (A sliver of a cell at the photo's edge is too little to tell a tile's black
                    # from a board's print.)
                    missing.append(key)
                    continue
            if ev.outside[i, j] > cfg.max_outside or not askable[i, j]:
                continue
            # A tile's face rings it on every side (a printed square or a shadow lies beside the
            # tiles, a dark band on one or two sides of the cell).
            ringed = ev.band_min[i, j] >= cfg.min_missing_side or (
                # three sides of face, a design's bright middle, as dark as the tiles' faces: a tile
                # at a line's end whose outer edge blur or glare has faded
                ev.band_second[i, j] >= cfg.min_missing_three_sides and ev.middle[i, j] >= 0.5
                and ev.face[i, j] >= cfg.min_missing_face and ev.level[i, j] <= strict_black and _touches(key, tiles))
            if _only_sides(key, ev.sides[i, j], tiles, rect.homography, cfg):
                continue
            if key in ev.design and _overlaps(key, ev.offset[key], tiles, ev.tile_side, cfg):
                continue
            if ev.middle[i, j] < 0.5 and key not in ev.design \
                    and _dark_level(ev, i, j, cfg) > cfg.max_plain_level_ratio * ev.face_level:
                # Dark all over, the middle too, but lighter than the tiles' faces: a board's
                # printed square (a tile turned over is as dark as the faces).
                continue
            # Between two tiles of a line, its face all but whole round a bright middle, as dark as
            # the tiles' faces: a tile laid off its node (its sides measured at the node thin) whose
            # design glare hides. An empty cell between two tiles shows the table in its middle and
            # at most their sides and shadows at its edges.
            between = ((key[0], key[1] - 1) in tiles and (key[0], key[1] + 1) in tiles) \
                or ((key[0] - 1, key[1]) in tiles and (key[0] + 1, key[1]) in tiles)
            if between and ev.face[i, j] >= cfg.min_between_face and ev.middle[i, j] >= 0.5 \
                    and ev.level[i, j] <= strict_black:
                missing.append(key)
                continue
            if black[i, j] and ringed and (ev.dark[i, j] >= cfg.min_missing_dark or
                                (key in looked and ev.band[i, j] >= cfg.min_missing_band) or
                                # a tile's face beside a tile, its design not seen
                                (ev.face[i, j] >= cfg.min_missing_face and ev.dark[i, j] >= cfg.min_missing_face_dark
                                 and ev.middle[i, j] >= 0.5 and ev.level[i, j] <= strict_black
                                 and _touches(key, tiles))):
                if ev.face[i, j] >= cfg.min_read_face and ev.band_second[i, j] >= cfg.min_read_sides \
                        and ev.middle[i, j] >= 0.5 and ev.level[i, j] <= strict_black and _touches(key, tiles):
                    faces.append(key)
                else:
                    missing.append(key)
            elif ev.dark[i, j] >= cfg.min_missing_black and ev.level[i, j] <= cfg.missing_black_level_ratio * ev.face_level \
                    and ev.band_second[i, j] >= cfg.min_missing_black_sides and _touches(key, tiles):
                missing.append(key)
            elif ev.level[i, j] <= cfg.max_corner_level_ratio * ev.face_level and ev.face[i, j] >= cfg.min_corner_face \
                    and ev.middle[i, j] >= 0.5:
                corners.append(key)
    # A tile's face with no design found on it: read as a tile, where the tiles beside it drift.
    for key in faces:
        near = [tiles[n] for n in ((key[0] + 1, key[1]), (key[0] - 1, key[1]), (key[0], key[1] + 1),
                                   (key[0], key[1] - 1)) if n in tiles]
        tiles[key] = TileCell(key, ev.offset.get(key, (sum(t.offset[0] for t in near) / len(near),
                                                       sum(t.offset[1] for t in near) / len(near))), False)
    # A face dark along two sides that meet at a corner, beside a tile read (those read for their face
    # just above too) or a cell asked about: a tile off its node towards that corner (_dark_corner).
    # From each cell found, so a run of them is found from its end (extreme 217: a far row of blurred
    # circles at 62 degrees beside one tile read, each dark along its near side and the next one's).
    corners = [key for key in corners
               if _dark_corner(key, ev.sides[key[0] - rect.top, key[1] - rect.left], tiles, rect.homography, cfg)]
    beside = set(tiles) | set(missing)
    found = True
    while found:
        found = [key for key in corners if key not in beside and _touches(key, beside)]
        missing += found
        beside.update(found)
    # A design on a tile's black face that no rule above took: a tile the player should be asked about.
    # So is a clear tile's design (trusted, the tiles' size, four-fold symmetric, ringed by face
    # in the search itself) whose cell's measures failed: a tile nudged off its node, its face
    # measured on the cell, not around the design, thins on the sides it left.
    asked = set(missing) | set(cut_off)
    trusted = np.asarray(designs.trusted, bool)
    clear = np.zeros(len(trusted), bool)
    if designs.candidates is not None and trusted.any():
        clear = trusted & clear_designs(designs.area, designs.asymmetry, designs.candidates.face, designs.area[trusted],
                                        cfg.clear_design_face, cfg)
    clear_missing = []
    for key, k in ev.design.items():
        i, j = key[0] - rect.top, key[1] - rect.left
        if key in tiles or key in asked or key in printed or ev.outside[i, j] > cfg.max_outside or not askable[i, j]:
            continue
        if ev.face[i, j] >= cfg.min_lone_face and ev.dark[i, j] >= cfg.min_lone_dark \
                and not _overlaps(key, ev.offset[key], tiles, ev.tile_side, cfg):
            missing.append(key)
        elif clear[k]:
            clear_missing.append(key)
    pale = [key for key in missing if _lighter_than_near(key, ev, tiles, cfg)]
    missing = [key for key in missing if key not in pale]
    # A tile read is judged by the same measure against the other tiles nearest it, when the light in
    # its middle, taken for its design, is as bright as the surface around the tiles: a board's light
    # square between printed strokes. A tile's paint is darker, a dark paint (a green's) darker still,
    # and raises the level of a tile's cell (config.LatticeConfig.min_surface_light).
    # A tile found from its face alone whose dark is far lighter than that is a board's printed dark
    # square beside the tiles: a tile's face, turned over or its design unseen, is as black as its
    # neighbours' (config.LatticeConfig.min_printed_square_ratio).
    placed = sorted(tiles)
    for key, tile in tiles.items():
        ratio = _near_level_ratio(key, ev, [c for c in placed if c != key], cfg)
        tile.pale = ratio > cfg.max_near_level_ratio and _surface_light(ev, key) >= cfg.min_surface_light
        tile.printed = not tile.found and ratio > cfg.min_printed_square_ratio
    missing += _partly_hidden(ev, cfg, set(tiles), set(missing) | set(cut_off) | set(clear_missing))
    return [tiles[c] for c in sorted(tiles)], sorted(missing), sorted(cut_off), sorted(clear_missing), sorted(pale)


def _surface_light(ev: _Evidence, cell: Cell) -> float:
    """The brightness of the light (not dark) pixels in the middle of a tile on `cell`, where its
    design sits, over the table's around them (0 where none is light or it runs out of the picture)."""
    import numpy as np

    px = ev.rect.px
    dx, dy = (int(round(v * px)) for v in ev.offset.get(cell, (0.0, 0.0)))
    y0, x0 = (cell[0] - ev.rect.top) * px + dy, (cell[1] - ev.rect.left) * px + dx
    loose = ev.masks.loose
    if y0 < 0 or x0 < 0 or y0 + px > loose.shape[0] or x0 + px > loose.shape[1]:
        return 0.0
    block = (slice(y0, y0 + px), slice(x0, x0 + px))
    weights = ev.middle_pattern * (loose[block] == 0)
    light = float(np.sum(weights))
    ratio = ev.masks.value[block].astype(np.float32) / np.maximum(ev.masks.table[block].astype(np.float32), 1.0)
    return float(np.sum(weights * ratio)) / light if light > 0 else 0.0


def _lighter_than_near(cell: Cell, ev: _Evidence, tiles, cfg: LatticeConfig) -> bool:
    """Whether the dark on `cell` is more than `max_near_level_ratio` times as light as the faces of the
    `near_level_tiles` tiles read nearest it (the median of their levels). Every tile's face is the same
    black, and the light changes little from a tile to the next, so a tile there, its design unseen, is
    as dark as they are; a board's printed square or letters, lighter than the faces, are not
    (board 17, 65, 104, 172, 195 and mixed 88: 1.26-1.74 times; the photo-wide bound,
    `missing_level_ratio`, must leave room for uneven light across the photo)."""
    return _near_level_ratio(cell, ev, tiles, cfg) > cfg.max_near_level_ratio


def _near_level_ratio(cell: Cell, ev: _Evidence, tiles, cfg: LatticeConfig) -> float:
    """The dark's level on `cell` over the median of the faces' levels of the `near_level_tiles` tiles
    read nearest it (0 where none of them is in the rectified view)."""
    rect = ev.rect
    near = sorted(tiles, key=lambda t: (t[0] - cell[0]) ** 2 + (t[1] - cell[1]) ** 2)[:cfg.near_level_tiles]
    levels = [float(ev.level[r - rect.top, c - rect.left]) for r, c in near
              if 0 <= r - rect.top < rect.rows and 0 <= c - rect.left < rect.cols]
    if not levels:
        return 0.0
    return _dark_level(ev, cell[0] - rect.top, cell[1] - rect.left, cfg) / max(float(array_median(levels)), 1e-6)


def _dark_level(ev: _Evidence, i: int, j: int, cfg: LatticeConfig) -> float:
    """The level of the dark on the cell at row `i`, column `j` of the rectified picture (as
    _Evidence.level); where its middle is dark too (under half bright in the strict mask), that of its
    grey dark pixels when lower (_grey_level). Used where a cell dark all over is judged a printed
    square and where a cell is judged against the faces of the tiles nearest it (_near_level_ratio).

    A far blurred tile's deep paint (a green, a blue) is dark in both masks, fills its middle and
    lightens the cell's level, while its face, grey, is as dark as the other tiles' (extreme 352: a far
    green diamond at a line's end, 1.41 times the faces' level with its paint, 0.91 without; judged a
    board's printed square and dropped without a word). A board's print is grey, its level the same
    either way; a cell with a bright middle shows its design as light, its level is its face's."""
    level = float(ev.level[i, j])
    if ev.middle[i, j] >= 0.5:
        return level
    return min(level, _grey_level(ev, i, j, cfg))


def clear_designs(areas, asymmetry, face, reference, min_face: float, config, size=None):
    """Which designs (their `areas`, `asymmetry` and `face`, arrays) are clearly a tile's: the size of
    the median of `reference` (`clear_unplaced_area` of it, or the (low, high) `size`), four-fold
    symmetric (`clear_unplaced_asymmetry`) and ringed by face (`min_face`). `config`: a LatticeConfig."""
    ratio = areas / float(array_median(reference))
    low, high = config.clear_unplaced_area if size is None else size
    return (ratio >= low) & (ratio <= high) & (asymmetry <= config.clear_unplaced_asymmetry) & (face >= min_face)


def _partly_hidden(ev: _Evidence, cfg: LatticeConfig, tiles: set, asked: set) -> list[Cell]:
    """Cells where part of a tile shows from under something over the grid (a finger, a hand).

    A tile half under a finger keeps a part of its black face, but no design
    to read and not the face on every side that the rules above want. Such a
    cell is asked about when its corners or side middles are as dark as a
    tile's face (`min_hidden_face`), its band too (`min_hidden_band`), as dark
    as the tiles' faces, and one of its sides that no tile stands beside is
    dark along nearly its whole length (`min_hidden_outer_side`): the tile's
    own outer edge, on its node or where the tile's square fits the cell
    best (`_Evidence.squares`: a tile laid off its node, a highlight eating
    into one side, measured only 0.24-0.44 on its outer sides at the node,
    0.58-0.93 where it lies; tinted 153), if every side of that square shows
    face (`min_hidden_fitted_side`). (A tile's thick side seen at an
    angle, a shadow, darkens only the side beside that tile; a board's
    printed square is lighter.)
    Beside the tiles, and from each cell found, so a run of them under one
    finger is found from its end.
    """
    found: list[Cell] = []
    rect = ev.rect
    near = tiles | asked
    level = cfg.hidden_level_ratio * ev.face_level
    grew = True
    while grew:
        grew = False
        for i in range(rect.rows):
            for j in range(rect.cols):
                key = (rect.top + i, rect.left + j)
                if key in near or ev.outside[i, j] > cfg.max_outside or ev.level[i, j] > level \
                        or ev.face[i, j] < cfg.min_hidden_face or ev.band[i, j] < cfg.min_hidden_band:
                    continue
                around = _beside(key)
                fitted = ev.squares.get((i, j))
                if fitted is None or min(fitted) < cfg.min_hidden_fitted_side:
                    fitted = ev.sides[i, j]
                outer = [max(float(side), float(fit)) for n, side, fit in zip(around, ev.sides[i, j], fitted)
                         if n not in near]
                if outer and max(outer) >= cfg.min_hidden_outer_side and any(n in near for n in around):
                    found.append(key)
                    near.add(key)
                    grew = True
    return found


def _glimpsed(ev: _Evidence, cfg: LatticeConfig, tiles: set, asked: set) -> list[Cell]:
    """Cells beside a tile read that show a glimpse of a tile's face, too little for _partly_hidden.

    A tile mostly under a finger keeps a corner or an edge of its face in
    view: its corners or side middles and its square partly as dark as the
    tiles' faces, and its own outer edge, the sides facing no tile, dark
    along part of their length (`min_glimpse_side` of one, `min_glimpse_sides`
    in all), where the finger does not cross it. An empty cell beside the
    tiles of a steep view is darkened by their thick sides and shadows on the
    sides facing them, and at the ends of the others only. A board's printed
    square shows the same, so such a cell is not asked about: it is evidence
    for a finger (occluder.find_occluder).
    """
    found = []
    rect = ev.rect
    level = cfg.glimpse_level_ratio * ev.face_level
    for i in range(rect.rows):
        for j in range(rect.cols):
            key = (rect.top + i, rect.left + j)
            if key in tiles or key in asked or ev.outside[i, j] > cfg.max_outside or ev.level[i, j] > level \
                    or ev.face[i, j] < cfg.min_glimpse_face or ev.dark[i, j] < cfg.min_glimpse_dark:
                continue
            around = _beside(key)
            outer = [float(side) for n, side in zip(around, ev.sides[i, j]) if n not in tiles]
            if len(outer) < 4 and outer and max(outer) >= cfg.min_glimpse_side \
                    and sum(outer) >= cfg.min_glimpse_sides:
                found.append(key)
    return found


def _toward_camera(homography, cell: Cell) -> tuple[float, float]:
    """The unit (cols, rows) direction on the plane toward the camera, at `cell`.

    The homography's third row is proportional to a plane point's depth along
    the camera's axis; the depth falls fastest toward the foot of the camera.
    """
    h = homography[2]
    depth = h[0] * cell[1] + h[1] * cell[0] + h[2]
    way = -math.copysign(1.0, depth) * h[0], -math.copysign(1.0, depth) * h[1]
    norm = math.hypot(*way)
    return (way[0] / norm, way[1] / norm) if norm > 0 else (0.0, 0.0)


def _dark_corner(cell: Cell, sides, tiles, homography, cfg: LatticeConfig) -> bool:
    """Whether two sides of `cell` that meet at a corner (`sides`: top, bottom, left, right) are both
    tile-black along their length (`min_corner_side`), one of them where no tile read stands beside the
    cell: a tile's face laid off the cell's node towards that corner, its own outer edge dark. Its face
    then leaves the two sides away from it light (mixed 180, a far blurred clover at the corner of an L
    of tiles 0.1 of a cell off its node: those sides 0.07 and 0, the corner ones 0.77 and 0.82, its
    corners and side middles 0.41 dark; extreme 250 and 217, far circles at a line's end: 0.54-0.71),
    so no rule that wants a tile's face round it asked about it, and it was dropped without a word.
    A dark band against a tile read may be that tile's: its thick side seen at an angle, its face where
    the lattice is a little off, the gap's shadow (oblique 256, steep 249 and the development photo
    1_17 tilted 45 degrees: empty cells in an L's inner corner, both sides against tiles, 0.57-1.0).
    A band against a tile standing away from the camera dark along all its length (`min_thick_side_band`)
    is that tile's thick side (`_thick_side`: it shows on the camera's side of the tile, the whole
    tile's edge long, and fills the band where the view is steep enough for it to reach it), so it is
    no evidence of a tile in the cell: extreme 223 and 219, empty cells in front of a tile at about 60
    degrees (that band 1.0 and 0.99, the tile 0.65 and 0.85 of a step away from the camera), were asked
    about, and 223's read as a yellow square, sure. A tile's face off its node covers part of the band
    (tinted 272, a tile off its node towards one away from the camera: 0.51; set aside too, its design
    left out refused the photo read exactly before). In mixed 180, extreme 250 and 217 the band against
    a tile read lies on the tile's far side (the tile 0.55-0.68 of a step towards the camera), where
    its thick side cannot show.
    (Mixed 262, a glared tile in an L's corner off its node towards both tiles beside it, stays
    dropped: its cell looks as those do.)"""
    steps = ((-1, 0), (1, 0), (0, -1), (0, 1))  # (rows, cols) to the neighbour across each band
    way = _toward_camera(homography, cell)
    dark = [float(side) >= cfg.min_corner_side
            and not (float(side) >= cfg.min_thick_side_band and _thick_side(cell, step, tiles, way, cfg))
            for side, step in zip(sides, steps)]
    open_side = [(cell[0] + dr, cell[1] + dc) not in tiles for dr, dc in steps]
    return any(dark[a] and dark[b] and (open_side[a] or open_side[b]) for a in (0, 1) for b in (2, 3))


def _thick_side(cell: Cell, step, tiles, way, cfg: LatticeConfig) -> bool:
    """Whether the band of `cell` towards its neighbour `step` (rows, cols) away lies against a tile read
    standing at least `min_side_facing` of a step away from the camera (`way`: _toward_camera at the
    cell): the band the tile's thick side, seen at an angle, darkens."""
    dr, dc = step
    return (cell[0] + dr, cell[1] + dc) in tiles and dc * way[0] + dr * way[1] <= -cfg.min_side_facing


def _only_sides(cell: Cell, sides, tiles, homography, cfg: LatticeConfig) -> bool:
    """Whether the dark bands of a cell that is no tile are only the sides of the tiles beside it.

    A tile's side, seen at an angle, shows on the camera's side of the tile,
    so it darkens the band of the cell beside it there. The cell's bands
    (`sides`: top, bottom, left, right) against tiles standing away from the
    camera are set aside; if some are and every other band is lighter than
    `max_open_side`, nothing of the cell's own is tile-black along a side (a
    tile there, however its design fares, has its face along the others).
    """
    way = _toward_camera(homography, cell)
    steps = ((-1, 0), (1, 0), (0, -1), (0, 1))  # (rows, cols) to the neighbour across each band
    explained, other = 0, []
    for step, side in zip(steps, sides):
        if _thick_side(cell, step, tiles, way, cfg):
            explained += 1
        else:
            other.append(float(side))
    return explained > 0 and max(other) < cfg.max_open_side


def _overlaps(cell: Cell, offset, tiles, tile_side: float, cfg: LatticeConfig) -> bool:
    """Whether a tile centred on a design seen at `offset` (cols, rows) off `cell`'s node would lie over
    a tile read beside it by more than `max_tile_overlap` of a pitch: tiles lie side by side, never one
    on another, so such a design is no tile's. A board's light square between its lines, sitting
    between two tiles and ringed on those sides by their black, measured 0.3 off its node, over them
    by 0.26-0.31 (board 36, 78, 99, 121: asked about as "a tile may be missing"; 43, 130: read as a
    tile, not sure)."""
    r, c = cell
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        beside = tiles.get((r + dr, c + dc))
        if beside is None:
            continue
        axis, step = (0, dc) if dc else (1, dr)
        if 1 + step * (beside.offset[axis] - offset[axis]) < tile_side - cfg.max_tile_overlap:
            return True
    return False


def _grey_level(ev: _Evidence, i: int, j: int, cfg: LatticeConfig) -> float:
    """The level (as _Evidence.level) of the grey dark pixels of the cell at row `i`, column `j` of the
    rectified picture: its colourful ones (chroma `max_face_chroma` or more) left out, or 1.0 if none.

    A tile's face is grey; a deep paint (a green, a blue under a dim lamp) is dark enough for the loose
    mask too, and raises the level of a cell whose dark it takes much of. A whole tile's face rings its
    design, but of a tile the photo's edge cuts the part that shows may be mostly design: cutoff 252
    and 259, a green clover and a green circle at the photo's edge beside tiles read, measured 1.67 and
    1.97 times the faces' level with their paint, and were dropped without a word."""
    import numpy as np

    masks, px = ev.masks, ev.rect.px
    block = (slice(i * px, (i + 1) * px), slice(j * px, (j + 1) * px))
    value = masks.value[block].astype(np.float32)
    grey = (masks.loose[block] > 0) & (value - masks.least[block] < cfg.max_face_chroma)
    if not grey.any():
        return 1.0
    return float((value[grey] / np.maximum(masks.table[block][grey], 1.0)).mean())


def _unseen_cell(ev: _Evidence, i: int, j: int, cfg: LatticeConfig) -> bool:
    """Whether no tile on the cell (row `i`, column `j` of the rectified picture), beside a tile, shows
    in the photo: the photo cannot tell whether one lies there, and the grid read is not cut off there.

    A tile lies within its cell (the pitch leaves room for its jitter and turn: it would overlap its
    neighbour otherwise). Where at least `min_unseen_cell` of the whole cell lies outside the photo in
    the rectified picture and the part that shows is light (at most `max_unseen_cell_dark` dark), a
    tile on it could show at most a sliver along the photo's edge, thinner than the rectified
    picture's pixels (the cut-off set's tiles 29, 75 and 178: 1-3 pixels of a tile's face at the
    photo's edge, their cells measured wholly outside). So the photo's own pixels are looked at too:
    along the photo's edge (`unseen_edge_px` wide) where the cell, grown by `unseen_cell_reach` of a
    cell on every side for the lattice's error, meets it, at most `max_unseen_edge_dark` may be dark
    as find's masks count dark (a tile's face; a tile's side seen at an angle is dark too and keeps
    the photo refused). The photo's edge at the last tiles' outer sides, the table showing there
    (rough 17, cloth 81, tinted 60: the tiles' own cells whole in the photo), is read whole; a tile
    wholly beyond the photo is in no photo of it."""
    if ev.cell_outside[i, j] < cfg.min_unseen_cell or ev.cell_dark_inside[i, j] > cfg.max_unseen_cell_dark \
            or ev.photo is None:
        return False
    return _edge_dark(ev, i, j, cfg) <= cfg.max_unseen_edge_dark


def _edge_dark(ev: _Evidence, i: int, j: int, cfg: LatticeConfig) -> float:
    """The dark share of the photo's own pixels along its edge where the cell (row `i`, column `j` of
    the rectified picture), grown by `unseen_cell_reach` of a cell, meets it (see _unseen_cell): 0 where
    the grown cell does not meet the edge inside the photo, 1 where it reaches behind the camera."""
    import cv2
    import numpy as np

    from vision.plane import to_image_in_front

    rect, photo = ev.rect, ev.photo
    row, col = rect.top + i, rect.left + j
    reach = 0.5 + cfg.unseen_cell_reach
    corners = np.array([(col - reach, row - reach), (col + reach, row - reach), (col + reach, row + reach),
                        (col - reach, row + reach)], np.float64)
    quad = to_image_in_front(rect.homography, corners)
    if quad is None:
        return 1.0  # the cell reaches behind the camera: nothing to tell from
    height, width = photo.shape[:2]
    lo = np.floor(quad.min(axis=0)).astype(int)
    hi = np.ceil(quad.max(axis=0)).astype(int)
    x0, y0 = max(lo[0], 0), max(lo[1], 0)
    x1, y1 = min(hi[0], width - 1), min(hi[1], height - 1)
    if x0 > x1 or y0 > y1:
        return 0.0  # the grown cell lies wholly outside the photo
    mask = np.zeros((y1 - y0 + 1, x1 - x0 + 1), np.uint8)
    cv2.fillConvexPoly(mask, np.rint(quad - (x0, y0)).astype(np.int32), 1)
    edge = cfg.unseen_edge_px
    ys, xs = np.mgrid[y0:y1 + 1, x0:x1 + 1]
    band = (mask > 0) & ((ys < edge) | (xs < edge) | (ys >= height - edge) | (xs >= width - edge))
    if not band.any():
        return 0.0  # the grown cell does not meet the photo's edge inside it: it lies outside
    from vision.design import percentiles_of_counts

    part = photo[y0:y1 + 1, x0:x1 + 1]
    value = part.max(axis=2) if part.ndim == 3 else part  # HSV value, as find's masks take it
    # The table's brightness there: the brightest tenth of the grown cell's pixels in the photo (the
    # table beside the tile, or the tile's design; a tile's face is far darker than either).
    table = percentiles_of_counts(np.bincount(value[mask > 0].ravel(), minlength=256), (90,))[0]
    return float((value[band].astype(np.float32) < ev.dark_ratio * table).mean())


def _joined_at_edge(cell: Cell, tiles, ev: _Evidence, cfg: LatticeConfig) -> bool:
    """Whether a tile on `cell`, partly outside the photo, would join the tiles read: beside one, or at
    one's corner with a cell joining the two (beside both) that the photo does not show empty.

    Tiles are laid side by side, so a tile at a tile's corner is joined to it through a cell beside
    both. Where both those cells show in the photo (at most `max_outside_unseen` outside) and are
    not tile-black where they show (as a cut-off tile's face is: `min_cut_dark`, `cut_level_ratio`;
    or a face round a design's paint that takes most of the part showing: `min_join_dark`,
    `join_level_ratio`),
    the dark at the photo's edge by the corner touches the grid at a point only: a board's letters
    or lines there are as dark as a tile's face (board 65, mixed 10 and 141: 1.29-1.49 times the
    faces' level, the cut-off set's tiles 0.68-1.43). It is asked about as a loose tile at the
    photo's edge is, not taken for the grid running out of the photo."""
    if _touches(cell, tiles):
        return True
    rect = ev.rect
    r, c = cell
    for dr, dc in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        if (r + dr, c + dc) not in tiles:
            continue
        for jr, jc in ((r + dr, c), (r, c + dc)):
            i, j = jr - rect.top, jc - rect.left
            if not (0 <= i < rect.rows and 0 <= j < rect.cols) or ev.outside[i, j] > cfg.max_outside_unseen:
                return True
            if ev.outside[i, j] > cfg.min_outside_cut and (
                    (ev.dark_inside[i, j] >= cfg.min_cut_dark and ev.level[i, j] <= cfg.cut_level_ratio * ev.face_level)
                    or (ev.dark_inside[i, j] >= cfg.min_join_dark
                        and ev.level[i, j] <= cfg.join_level_ratio * ev.face_level)):
                return True
    return False


def _ringed_by_neighbours(cell: Cell, ev: _Evidence, tiles, cfg: LatticeConfig) -> bool:
    """Whether the face about a design read as a tile on `cell` is only its neighbours' (`tiles`): at
    least `min_print_outer_sides` of its sides face no tile and every one of those is lighter than
    `max_print_outer_side`, and the dark about it is lighter than the tiles' faces
    (`min_print_level_ratio` times their level). Every tile is a square of the same size with its own
    black face along each side; a board's letter or light square between tiles is ringed by their
    faces on the sides they stand and by the board elsewhere (board 17, 44, 90: such sides 0.11-0.33
    dark, 1.17-1.44 times as light as the faces; the tiles of the board photos 0-191 at least 0.57 on
    their least dark side facing no tile). A tile laid well off the grid's node (turned 178: sides
    0.05 and 0.30 where it left them) keeps its face as dark as the others'."""
    rect = ev.rect
    i, j = cell[0] - rect.top, cell[1] - rect.left
    if ev.level[i, j] <= cfg.min_print_level_ratio * ev.face_level:
        return False
    around = _beside(cell)
    outer = [float(side) for n, side in zip(around, ev.sides[i, j]) if n not in tiles]
    return len(outer) >= cfg.min_print_outer_sides and max(outer) < cfg.max_print_outer_side


def _beside(cell: Cell) -> tuple[Cell, Cell, Cell, Cell]:
    """The four cells beside `cell`, in the order of a cell's measured sides (top, bottom, left, right)."""
    r, c = cell
    return (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)


def _touches(cell: Cell, tiles, diagonal: bool = False) -> bool:
    r, c = cell
    steps = [(1, 0), (-1, 0), (0, 1), (0, -1)]
    if diagonal:
        steps += [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    return any((r + dr, c + dc) in tiles for dr, dc in steps)


# ---------------------------------------------------------------- the view


def _pitch_and_angle(h, cells) -> tuple[float, float]:
    """Pixels per cell at the middle of the tiles' box, and the rows' angle there (degrees)."""
    import numpy as np

    from vision.plane import jacobian

    rows = [r for r, _ in cells] or [0]
    cols = [c for _, c in cells] or [0]
    jac = jacobian(h, (min(cols) + max(cols)) / 2, (min(rows) + max(rows)) / 2)
    pitch = float((np.linalg.norm(jac[:, 0]) + np.linalg.norm(jac[:, 1])) / 2)
    return pitch, math.degrees(math.atan2(jac[1, 0], jac[0, 0]))


def _view(h, cells, shape) -> tuple[float, float, float]:
    """(tilt in degrees, smallest over largest cell, smallest cell's side in pixels) of the plane's map.

    At the photo's middle (where the camera's axis meets the plane) a pinhole
    camera foreshortens the plane by the cosine of its tilt along one
    direction only, so the tilt is the arc cosine of the ratio of the map's two
    stretches there, whatever the lens.
    """
    import numpy as np

    from vision.plane import jacobian, to_lattice

    centre = to_lattice(h, [(shape[1] / 2, shape[0] / 2)])[0]
    s = np.linalg.svd(jacobian(h, *centre), compute_uv=False)
    tilt = math.degrees(math.acos(max(-1.0, min(1.0, s[1] / max(s[0], 1e-9)))))
    sizes = [math.sqrt(abs(np.linalg.det(jacobian(h, c, r)))) for r, c in cells]
    return tilt, min(sizes) / max(sizes), min(sizes)


def check_view(grid: GridInPlane, scale: float, config: LatticeConfig | None = None) -> None:
    """Refuse a view the tiles cannot be read from reliably. Raises RetakePhotoError.

    `scale` is the decoded image's size over the photo's, so sizes are judged
    in the photo's own pixels.
    """
    cfg = config or LatticeConfig()
    if grid.cut_off:
        raise RetakePhotoError(
            "part of the grid is outside the photo: step back or move the phone so every tile is in the picture",
            "cut-off")
    if grid.tilt > cfg.max_tilt or grid.near_far < cfg.min_near_far:
        raise RetakePhotoError(
            f"the photo is taken too much from the side (about {grid.tilt:.0f} degrees from straight down): "
            "hold the phone higher, more nearly above the grid", "oblique")
    if grid.smallest_cell / scale < cfg.min_cell_photo_px:
        raise RetakePhotoError(
            "the tiles are too small in the photo to be read: move the phone closer to the grid", "small")
