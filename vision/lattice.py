"""Stage 2, fit the grid lattice: which cell (row, col) each tile centre sits in.

Tiles are laid on a square grid, so their centres lie near the nodes of a
lattice: image point = H (col, row, 1) for one projective map H (a
homography covers rotation, scale and the mild perspective of a hand-held
photo). The fit:

1. the grid's angle from the straight edges of the dark blobs the designs
   sit in (segment directions taken four times over, so the four sides of a
   square agree), else from the directions to each centre's nearest
   neighbours;
2. the pitch from the nearest-neighbour distances along the grid's axes;
3. the nodes' phase from the circular mean of the centres' positions, then
   integer cells by rounding, and a least-squares similarity, affine or
   homography fit (as many degrees of freedom as the spread of the tiles
   supports), re-rounding and dropping centres that sit off every node.

Rows are the lattice axis nearest the image's downward direction, columns the
one nearest rightward; a grid turned by exactly 45 degrees is ambiguous and is
read one way or the other.

Afterwards `verify_tiles` checks each found centre against the dark mask (a
sunlit spot of table ringed by tiles is not a tile) and looks at every cell
next to a tile for a tile whose design was not a clean hole (its margin
broken by blur or by a design reaching the tile's edge).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from vision.config import LatticeConfig
from vision.errors import LatticeError
from vision.find import Candidates

Cell = tuple[int, int]
MAX_PERSPECTIVE = 0.02  # change of scale per cell the flat fit's homography may have
GROW_TOLERANCE = 0.4  # a design this far from where its cell is predicted, in steps, is not taken


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
        import numpy as np

        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        homog = np.hstack([pts, np.ones((len(pts), 1))]) @ self.homography.T
        return homog[:, :2] / homog[:, 2:3]

    def to_lattice(self, points):
        """Lattice (col, row) of image points given as an N x 2 array of (x, y)."""
        import numpy as np

        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        homog = np.hstack([pts, np.ones((len(pts), 1))]) @ np.linalg.inv(self.homography).T
        return homog[:, :2] / homog[:, 2:3]

    def cell_corners(self, cell: Cell):
        """The four image corners of a cell (top-left, top-right, bottom-right, bottom-left)."""
        row, col = cell
        return self.to_image([(col - 0.5, row - 0.5), (col + 0.5, row - 0.5), (col + 0.5, row + 0.5), (col - 0.5, row + 0.5)])

    def scaled(self, factor: float) -> "Lattice":
        """The same lattice in an image scaled by `factor`."""
        import numpy as np

        scale = np.diag([factor, factor, 1.0])
        return Lattice(scale @ self.homography, self.pitch * factor, self.angle, list(self.cells), self.tile)


def fit_lattice(candidates: Candidates, config: LatticeConfig | None = None) -> tuple[Lattice, list[int]]:
    """The lattice through the candidate centres, and the indices of the centres on it.

    `lattice.cells[k]` is the cell of candidate `kept[k]`. Raises LatticeError
    if no grid fits (for instance two tiles overlapping in one cell only).
    """
    import numpy as np

    cfg = config or LatticeConfig()
    pts = np.asarray(candidates.centres, dtype=np.float64)
    if len(pts) == 0:
        raise LatticeError("no tiles to fit a grid to")
    edges = _edge_geometry(candidates)
    lattice = None
    if len(pts) >= 2 and candidates.shapes is not None:
        lattice = _fit_perspective(candidates, cfg)
    if lattice is None:
        lattice = _fit_flat(pts, edges, cfg)
    trusted = getattr(candidates, "trusted", None)
    lattice, kept = _settle(lattice, pts, cfg, perspective=len(pts) >= 2 and candidates.shapes is not None,
                            trusted=trusted)
    lattice = _upright(lattice, pts, kept, cfg)
    grid = lattice.to_lattice(pts[kept])
    cells = np.rint(grid)
    lattice.cells = [(int(cells[k, 1]), int(cells[k, 0])) for k in range(len(kept))]
    lattice.pitch = _local_pitch(lattice)
    lattice.tile = _tile_side(lattice, edges)
    return lattice, kept


def _fit_flat(pts, edges, cfg: LatticeConfig) -> Lattice:
    """A first lattice from the centres' directions and spacing, with no perspective (one tile, a few)."""
    import numpy as np

    if len(pts) == 1:
        if edges is None or edges[1] == 0:
            raise LatticeError("the tile's edges cannot be made out")
        angle, pitch = edges[0], edges[1]
    else:
        angle, pitch = _orientation_and_pitch(pts, cfg, edges)
    theta = math.radians(angle)
    c, s = math.cos(theta), math.sin(theta)
    # (col, row) -> pixels: columns run along u = (c, s), rows along v = (-s, c).
    origin = _phase_origin(pts, angle, pitch, pts[_medoid(pts)])
    homography = np.array([[c * pitch, -s * pitch, origin[0]], [s * pitch, c * pitch, origin[1]], [0, 0, 1.0]])
    return Lattice(homography, pitch, angle)


def _settle(lattice: Lattice, pts, cfg: LatticeConfig, perspective: bool, trusted=None) -> tuple[Lattice, list[int]]:
    """Round every centre to its cell and refit the map to them, a few times; the centres kept.

    The map is refitted to the trusted centres only (designs ringed by a black
    face) when there are enough of them: a printed square between tiles may
    sit near a node, but must not pull the grid towards itself.
    """
    import numpy as np

    kept: list[int] = []
    for _ in range(cfg.iterations + 1):
        grid = lattice.to_lattice(pts)
        cells = np.rint(grid)
        resid = _cell_residuals(lattice, pts, grid, cells)
        kept = _one_per_cell(cells, resid, cfg.max_residual)
        if not kept:
            raise LatticeError("the tiles do not sit on a square grid")
        fit = kept
        if trusted is not None:
            sure = [k for k in kept if trusted[k]]
            if len(sure) >= 2:
                fit = sure
        if perspective:
            fitted = _fit_projective(cells[fit], pts[fit], lattice.homography)
        else:
            fitted = _fit_map(cells[fit], pts[fit], lattice.homography)
        if fitted is not None:
            lattice.homography = fitted
    grid = lattice.to_lattice(pts)
    cells = np.rint(grid)
    kept = _one_per_cell(cells, _cell_residuals(lattice, pts, grid, cells), cfg.max_residual)
    if not kept:
        raise LatticeError("the tiles do not sit on a square grid")
    return lattice, kept


def _cell_residuals(lattice: Lattice, pts, grid, cells):
    """How far each centre sits from its cell's middle, in cells (the map's own units)."""
    import numpy as np

    return np.linalg.norm(grid - cells, axis=1)


# ---------------------------------------------------------------- perspective

def whitening(shape):
    """(W, W^-1) for a design's second moments (xx, xy, yy): W turns the design round, undoing the
    local stretch of the photo's perspective (every design is four-fold symmetric). None if degenerate."""
    import numpy as np

    xx, xy, yy = shape
    values, vectors = np.linalg.eigh(np.array([[xx, xy], [xy, yy]]))
    if values.min() <= 1e-9:
        return None
    w = vectors @ np.diag(1 / np.sqrt(values)) @ vectors.T
    return w, vectors @ np.diag(np.sqrt(values)) @ vectors.T


def _fit_perspective(candidates: Candidates, cfg: LatticeConfig) -> Lattice | None:
    """The lattice grown tile by tile from the most surrounded design, its map refitted as it grows.

    Each design's own moments say how the photo stretches the table around
    it, so a tile's neighbours are found along the grid's axes there,
    however oblique the photo. From the first tile the grid grows to each
    neighbour the map predicts (a similarity, then an affine map, then a
    homography as the tiles found spread out), each step predicted from the
    tile it starts at, so the far side of an oblique grid, whose pitch is
    half the near side's, is followed as well as the near. None if no two
    designs are neighbours.
    """
    import numpy as np

    pts = np.asarray(candidates.centres, np.float64)
    trusted = candidates.trusted if getattr(candidates, "trusted", None) is not None else np.ones(len(pts), bool)
    idx = np.nonzero(trusted)[0]
    if len(idx) < 2:
        idx = np.arange(len(pts))
    frames = {}
    for k in idx:
        w = whitening(candidates.shapes[k])
        if w is not None:
            frames[int(k)] = w
    idx = np.array([k for k in idx if int(k) in frames], np.int64)
    if len(idx) < 2:
        return None
    P = pts[idx]
    # Distances seen from each design's own (whitened) frame.
    norm = np.empty((len(idx), len(idx)))
    for a, k in enumerate(idx):
        w, _ = frames[int(k)]
        norm[a] = np.linalg.norm((P - P[a]) @ w.T, axis=1)
    np.fill_diagonal(norm, np.inf)
    nearest = norm.min(axis=1)
    near = norm <= 1.3 * nearest[:, None]
    count = near.sum(axis=1)
    middle = np.median(P, axis=0)
    outlines = _single_outlines(candidates)
    # Grow one group of touching tiles after another (a photo may hold several), each
    # from its most surrounded design, then put them on one lattice.
    free = np.ones(len(idx), bool)
    groups: list[tuple[Lattice, dict]] = []
    while free.sum() >= 2:
        order = sorted(np.nonzero(free)[0], key=lambda a: (-int(count[a]), float(np.linalg.norm(P[a] - middle))))
        best = None
        for a in order[:3]:
            grown = _grow_from(int(a), idx, P, norm, nearest, frames, cfg, free, outlines)
            if grown is not None and (best is None or len(grown[1]) > len(best[1])):
                best = grown
            if best is not None and len(best[1]) >= 0.8 * free.sum():
                break
        if best is None:
            break
        groups.append(best)
        for k in best[1].values():
            free[k] = False
    if not groups:
        return None
    groups.sort(key=lambda g: -len(g[1]))
    lattice, assigned = groups[0]
    for _, other in groups[1:]:
        joined = _join(lattice, assigned, other, P, frames, idx)
        if joined is not None:
            lattice, assigned = joined
    return lattice


def _single_outlines(candidates: Candidates) -> dict:
    """{candidate: outline polygon} for each dark blob that holds one design only (a lone tile)."""
    import cv2
    import numpy as np

    contours, _ = cv2.findContours(candidates.dark, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    pts = candidates.centres
    out = {}
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        inside = np.nonzero((pts[:, 0] >= x) & (pts[:, 0] <= x + w) & (pts[:, 1] >= y) & (pts[:, 1] <= y + h))[0]
        held = [int(i) for i in inside if cv2.pointPolygonTest(contour, (float(pts[i, 0]), float(pts[i, 1])), False) > 0]
        if len(held) != 1:
            continue
        area = cv2.contourArea(contour)
        if area < 1.2 * candidates.areas[held[0]]:
            continue
        out[held[0]] = cv2.approxPolyDP(contour, max(1.0, 0.02 * math.sqrt(area)), True)[:, 0, :].astype(np.float64)
    return out


def _join(lattice: Lattice, assigned: dict, other: dict, P, frames, idx):
    """(lattice, cells) with the group `other` (its own cells) put on `lattice`, or None if it does not fit.

    The group's cells are turned by the quarter turn and moved by the whole
    number of cells that bring them nearest where the lattice's map puts its
    designs; the map is then refitted to both groups together, which fixes
    the perspective better than either alone.
    """
    import numpy as np

    cells = np.array([(c, r) for (r, c) in other], np.float64)
    points = np.array([P[k] for k in other.values()], np.float64)
    seen = lattice.to_lattice(points)
    # The map from one group alone may be off by a fraction of a cell that far away:
    # try the nearby placements and keep the one both groups fit best together.
    best = None
    for k in range(4):
        a = k * math.pi / 2
        turn = np.array([[round(math.cos(a)), -round(math.sin(a))], [round(math.sin(a)), round(math.cos(a))]])
        turned = cells @ turn.T
        centre = np.rint(np.median(seen - turned, axis=0))
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                placed = turned + centre + (dx, dy)
                if np.linalg.norm(seen - placed, axis=1).mean() > 1.0:
                    continue
                merged = dict(assigned)
                clash = False
                for (col, row), index in zip(placed, other.values()):
                    key = (int(row), int(col))
                    if key in merged:
                        clash = True
                        break
                    merged[key] = index
                if clash:
                    continue
                model = _growth_model(merged, P, frames, idx)
                if model is None:
                    continue
                grid = np.array([(c, r) for (r, c) in merged], np.float64)
                pts = np.array([P[i] for i in merged.values()], np.float64)
                fitted = Lattice(model, lattice.pitch, 0.0).to_lattice(pts)
                resid = float(np.linalg.norm(fitted - grid, axis=1).max())
                if best is None or resid < best[0]:
                    best = (resid, model, merged)
    if best is None or best[0] > 0.3:
        return None
    return Lattice(best[1], lattice.pitch, 0.0), best[2]


def _grow_from(a: int, idx, P, norm, nearest, frames, cfg: LatticeConfig, free=None, outlines=None):
    """(lattice, {cell: point}) grown from point `a` (an index into P) over the `free` points, or None."""
    import numpy as np

    w, w_inv = frames[int(idx[a])]
    neighbours = np.nonzero(norm[a] <= 1.3 * nearest[a])[0]
    vecs = (P[neighbours] - P[a]) @ w.T
    phi = np.arctan2(vecs[:, 1], vecs[:, 0])
    theta = math.atan2(np.sin(4 * phi).sum(), np.cos(4 * phi).sum()) / 4
    outline = (outlines or {}).get(int(idx[a]))
    if outline is not None:
        # The tile's own edges say which way the grid runs: its designs cannot (a
        # square is a diamond turned), and its nearest neighbours may be diagonal.
        seg = (np.roll(outline, -1, axis=0) - outline) @ w.T
        length = np.hypot(seg[:, 0], seg[:, 1])
        angle = np.arctan2(seg[:, 1], seg[:, 0])
        edges = math.atan2((length * np.sin(4 * angle)).sum(), (length * np.cos(4 * angle)).sum()) / 4
        apart = abs((edges - theta + math.pi / 4) % (math.pi / 2) - math.pi / 4)
        if apart > math.radians(30):
            theta = edges  # the neighbours found are diagonal ones
    off_axis = np.abs(((phi - theta) + math.pi / 4) % (math.pi / 2) - math.pi / 4)
    steps = np.linalg.norm(vecs, axis=1)[off_axis < math.radians(20)]
    if not len(steps):
        diagonal = np.linalg.norm(vecs, axis=1)[off_axis > math.radians(25)]
        if not len(diagonal):
            return None
        steps = diagonal / math.sqrt(2)
    d = float(np.median(steps))
    rot = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    basis = w_inv @ rot * d  # columns: one column step, one row step, in pixels
    assigned: dict[tuple[int, int], int] = {(0, 0): a}
    used = np.zeros(len(P), bool) if free is None else ~free
    used[a] = True
    model = None
    # Best first: of every step from a tile found to a neighbouring cell (or the next but
    # one, across a gap), take the one whose design lies nearest its prediction, then
    # predict again with the map refitted. A printed mark near a cell is taken only if
    # nothing fits better, by which time the map is sure enough to see it is off.
    while True:
        best = None
        for cell, here in assigned.items():
            for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                for reach in (1, 2):
                    target = (cell[0] + dr * reach, cell[1] + dc * reach)
                    if target in assigned:
                        break
                    step = _line_step(assigned, P, cell, (dr, dc), reach)
                    if step is None:
                        step = _predicted_step(model, basis, cell, (dr * reach, dc * reach))
                    guess = P[here] + step
                    scale = np.linalg.norm(step) / reach
                    dist = np.linalg.norm(P - guess, axis=1)
                    dist[used] = np.inf
                    b = int(np.argmin(dist))
                    error = dist[b] / max(scale, 1e-9)
                    if error < GROW_TOLERANCE and (best is None or error < best[0]):
                        best = (error, target, b)
                    if reach == 1 and error < GROW_TOLERANCE:
                        break  # the neighbour is there: no need to look across a gap
        if best is None:
            break
        _, target, b = best
        assigned[target] = b
        used[b] = True
        refitted = _growth_model(assigned, P, frames, idx)
        if refitted is not None:
            model = refitted
    if len(assigned) < 2:
        return None
    h = model if model is not None else _similarity_from_basis(assigned, P, basis)
    lattice = Lattice(h, float(np.sqrt(abs(np.linalg.det(basis)))), 0.0)
    return lattice, assigned


def _line_step(assigned, P, cell, direction, reach: int):
    """Pixels from the tile at `cell` to the cell `reach` steps along `direction`, from the tiles
    already on that line: a line of tiles in perspective is a 1-D projective map, fixed by three
    of its tiles; with two, the next step repeats the last. None with fewer."""
    import numpy as np

    dr, dc = direction
    line = []
    for t in range(-12, 1):
        other = (cell[0] + dr * t, cell[1] + dc * t)
        if other in assigned:
            line.append((float(t), P[assigned[other]]))
    if len(line) < 2:
        return None
    here = P[assigned[cell]]
    if len(line) == 2:
        (t0, p0), (t1, p1) = line
        return (p1 - p0) / (t1 - t0) * reach
    # p(t) = (A t + B) / (c t + 1): linear in A, B, c.
    rows, rhs = [], []
    for t, p in line:
        for axis in range(2):
            row = np.zeros(5)
            row[axis] = t
            row[2 + axis] = 1.0
            row[4] = -t * p[axis]
            rows.append(row)
            rhs.append(p[axis])
    sol, *_ = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)
    a, b, c = sol[0:2], sol[2:4], sol[4]
    denominator = c * reach + 1
    if denominator <= 0.2:
        return None
    return (a * reach + b) / denominator - here


def _predicted_step(model, basis, cell, delta):
    """Pixels from the tile at `cell` to the cell `delta` (rows, cols) away, by the map so far."""
    import numpy as np

    if model is None:
        return basis @ np.array([delta[1], delta[0]], np.float64)
    here = np.array([cell[1], cell[0], 1.0])
    there = np.array([cell[1] + delta[1], cell[0] + delta[0], 1.0])
    a, b = model @ here, model @ there
    if a[2] <= 0 or b[2] <= 0:
        return basis @ np.array([delta[1], delta[0]], np.float64)
    return b[:2] / b[2] - a[:2] / a[2]


def _growth_model(assigned, P, frames, idx):
    """The map (col, row) -> pixels through the tiles grown so far, as general as they allow."""
    import numpy as np

    cells = np.array([(c, r) for (r, c) in assigned], np.float64)
    pts = np.array([P[k] for k in assigned.values()], np.float64)
    return _fit_projective(cells, pts, None, frames=[frames[int(idx[k])] for k in assigned.values()])


def _similarity_from_basis(assigned, P, basis):
    import numpy as np

    (r, c), k = next(iter(assigned.items()))
    origin = P[k] - basis @ np.array([c, r], np.float64)
    return np.array([[basis[0, 0], basis[0, 1], origin[0]], [basis[1, 0], basis[1, 1], origin[1]], [0, 0, 1.0]])


def _fit_projective(grid, pts, previous, frames=None):
    """Least-squares map from grid (col, row) to pixels: a homography when the tiles span two
    directions well, else an affine map, else None. A line of tiles alone cannot fix the
    perspective across it: with `frames` (each tile's whitening) each tile lends a point one row
    across, where its own round frame puts it."""
    import numpy as np

    grid = np.asarray(grid, np.float64)
    pts = np.asarray(pts, np.float64)
    n = len(grid)
    cols = np.unique(grid[:, 0])
    rows = np.unique(grid[:, 1])
    if (len(cols) < 2 or len(rows) < 2) and n >= 2:
        grid, pts = _across_the_line(grid, pts, frames)
        if grid is None:
            return None
        n = len(grid)
        cols = np.unique(grid[:, 0])
        rows = np.unique(grid[:, 1])
    if n >= 5 and len(cols) >= 2 and len(rows) >= 2:
        h = _fit_homography(grid, pts)
        if h is not None and _unfolded(h, grid):
            return h
    if n >= 3 and len(cols) >= 2 and len(rows) >= 2:
        design = np.hstack([grid, np.ones((n, 1))])
        sol, *_ = np.linalg.lstsq(design, pts, rcond=None)
        h = np.vstack([sol.T, [0, 0, 1.0]])
        if _unfolded(h, grid):
            return h
    return None


def _across_the_line(grid, pts, frames):
    """Points one row (or column) across a line of tiles, put where each tile's round frame says."""
    import numpy as np

    if frames is None or len(frames) != len(grid):
        return None, None
    along = grid[:, 0] if len(np.unique(grid[:, 1])) == 1 else grid[:, 1]
    order = np.argsort(along)
    extra_grid, extra_pts = [], []
    horizontal = len(np.unique(grid[:, 1])) == 1
    for i, k in enumerate(order):
        j = order[i + 1] if i + 1 < len(order) else order[i - 1]
        gap = along[j] - along[k]
        if gap == 0:
            continue
        step = (pts[j] - pts[k]) / gap  # one cell along the line, here
        w, w_inv = frames[k]
        # A quarter turn in the tile's round frame: one cell across the line. The sign
        # keeps the map orientation-preserving (rows 90 degrees clockwise of columns).
        turn = np.array([[0.0, -1.0], [1.0, 0.0]]) if horizontal else np.array([[0.0, 1.0], [-1.0, 0.0]])
        across = w_inv @ turn @ w @ step
        offset = np.array([0.0, 1.0]) if horizontal else np.array([1.0, 0.0])
        extra_grid.append(grid[k] + offset)
        extra_pts.append(pts[k] + across)
    if not extra_grid:
        return None, None
    return np.vstack([grid, extra_grid]), np.vstack([pts, extra_pts])


def _unfolded(h, grid) -> bool:
    """True if the map keeps every cell of the tiles' box (and one around) the right way round, in front."""
    import numpy as np

    lo = grid.min(axis=0) - 1
    hi = grid.max(axis=0) + 1
    corners = np.array([(lo[0], lo[1]), (hi[0], lo[1]), (hi[0], hi[1]), (lo[0], hi[1])], np.float64)
    w = np.hstack([corners, np.ones((4, 1))]) @ h[2]
    if (w <= 0).any():
        return False
    for x, y in corners:
        jac = _jacobian(h, x, y)
        if np.linalg.det(jac) <= 0:
            return False
    # Square-ish cells: a cell's sides at most 4 to 1, at most 35 degrees off square.
    jac = _jacobian(h, *(grid.mean(axis=0)))
    u, v = jac[:, 0], jac[:, 1]
    lu, lv = np.linalg.norm(u), np.linalg.norm(v)
    if not 0.25 < lv / lu < 4:
        return False
    return abs(u @ v) / (lu * lv) < math.sin(math.radians(55))


def _jacobian(h, x: float, y: float):
    """d(pixel)/d(col, row) of the map h at grid point (x, y)."""
    import numpy as np

    p = h @ np.array([x, y, 1.0])
    w = p[2]
    return (h[:2, :2] * w - np.outer(p[:2], h[2, :2])) / (w * w)


def _upright(lattice: Lattice, pts, kept, cfg: LatticeConfig) -> Lattice:
    """The same lattice with its cells renamed by a quarter turn so rows run down the photo."""
    import numpy as np

    grid = lattice.to_lattice(pts[kept])
    centre = grid.mean(axis=0)
    jac = _jacobian(lattice.homography, *centre)
    best, best_score = 0, -np.inf
    for k in range(4):
        a = k * math.pi / 2
        turn = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        j = jac @ turn
        row_dir = j[:, 1] / np.linalg.norm(j[:, 1])
        score = row_dir[1]  # rows grow downwards: the row axis points down the photo
        if score > best_score + 1e-9:
            best, best_score = k, score
    if best == 0:
        return lattice
    a = best * math.pi / 2
    turn = np.array([[round(math.cos(a)), -round(math.sin(a)), 0], [round(math.sin(a)), round(math.cos(a)), 0], [0, 0, 1.0]])
    lattice.homography = lattice.homography @ turn
    return lattice


def _tile_side(lattice: Lattice, edges) -> float:
    """A tile's side in cells: from blobs holding one design (gaps make a tile smaller than its cell)."""
    if edges is None or not edges[2]:
        return lattice.tile
    import numpy as np

    sides = []
    for centre, side in edges[2]:
        grid = lattice.to_lattice([centre])[0]
        local = math.sqrt(abs(np.linalg.det(_jacobian(lattice.homography, *grid))))
        sides.append(side / local)
    # Blur eats into a blob's edge a little, hence the allowance.
    return float(min(1.0, max(0.75, float(np.median(sides)) + 0.03)))


def _phase_origin(pts, angle: float, pitch: float, near):
    """A lattice node near `near`, placed by the centres' common phase.

    Each centre's position along an axis, in pitches, has a fractional part;
    their circular mean is where the nodes sit, and a stray centre (a speck
    between two tiles) barely moves it.
    """
    import numpy as np

    theta = math.radians(angle)
    c, s = math.cos(theta), math.sin(theta)
    rel = pts - near
    along = np.column_stack([rel[:, 0] * c + rel[:, 1] * s, -rel[:, 0] * s + rel[:, 1] * c]) / pitch
    turns = np.exp(2j * math.pi * along)
    phase = np.angle(turns.sum(axis=0)) / (2 * math.pi)  # nodes sit at phase + integers
    du, dv = phase * pitch
    return near + np.array([du * c - dv * s, du * s + dv * c])


def _medoid(pts) -> int:
    import numpy as np

    centre = np.median(pts, axis=0)
    return int(np.argmin(np.linalg.norm(pts - centre, axis=1)))


def _orientation_and_pitch(pts, cfg: LatticeConfig, edges) -> tuple[float, float]:
    """Grid angle in degrees (-45, 45] and pitch in pixels.

    The angle comes from the tiles' edges where they show, else from the
    directions to each centre's nearest neighbours; the pitch from the
    nearest-neighbour distances along the grid's axes, or the tile side if no
    two tiles are neighbours along an axis.
    """
    import numpy as np

    diff = pts[None, :, :] - pts[:, None, :]
    dist = np.linalg.norm(diff, axis=2)
    np.fill_diagonal(dist, np.inf)
    nearest = dist.min(axis=1)
    near = dist <= cfg.neighbour_slack * nearest[:, None]
    vx, vy = diff[..., 0][near], diff[..., 1][near]
    phi = np.arctan2(vy, vx)
    if edges is not None:
        angle = edges[0]
    else:
        # Four times the angle maps the four grid directions onto one.
        angle = math.degrees(math.atan2(np.sin(4 * phi).sum(), np.cos(4 * phi).sum()) / 4)
        if angle <= -45:
            angle += 90
    theta = math.radians(angle)
    # Components along the grid axes; neighbours along an axis give the pitch.
    a = np.abs(vx * math.cos(theta) + vy * math.sin(theta))
    b = np.abs(-vx * math.sin(theta) + vy * math.cos(theta))
    along = np.maximum(a, b)
    on_axis = np.minimum(a, b) < 0.3 * along
    # In a connected grid every tile's nearest neighbour is one pitch away, so the
    # median nearest distance holds even if a few centres are spurious or a line
    # has a gap.
    owner = np.nonzero(near)[0]
    steps = np.full(len(pts), np.inf)
    np.minimum.at(steps, owner[on_axis], along[on_axis])
    steps = steps[np.isfinite(steps)]
    if not len(steps) and edges is not None and edges[1] > 0:
        return angle, edges[1]
    first = float(np.median(steps)) if len(steps) else float(np.median(nearest))
    near_first = along[on_axis & (along > 0.8 * first) & (along < 1.25 * first)]
    pitch = float(np.median(near_first)) if len(near_first) else first
    return angle, pitch


def _edge_geometry(candidates: Candidates):
    """(grid angle, tile side, [(centre, side) of each one-design blob]) from the outlines of the dark
    blobs holding the designs.

    A blob's outline is made of tile edges (touching tiles merge, but their
    outer edges stay straight), so its straight segments, taken four times
    over in angle and weighted by length, give the grid's angle even when no
    two tiles share an edge. The side is the square root of a one-design
    blob's area. None if no blob holds a design.
    """
    import cv2
    import numpy as np

    contours, _ = cv2.findContours(candidates.dark, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    min_area = 2.0 * float(np.min(candidates.areas))
    sum_cos = sum_sin = 0.0
    sides = []
    pts = candidates.centres
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < min_area:
            continue
        x, y, w, h = cv2.boundingRect(contour)
        inside_box = (pts[:, 0] >= x) & (pts[:, 0] <= x + w) & (pts[:, 1] >= y) & (pts[:, 1] <= y + h)
        held = [i for i in np.nonzero(inside_box)[0] if cv2.pointPolygonTest(contour, (float(pts[i, 0]), float(pts[i, 1])), False) > 0]
        if not held:
            continue
        poly = cv2.approxPolyDP(contour, max(1.0, 0.02 * math.sqrt(area)), True)[:, 0, :].astype(np.float64)
        seg = np.roll(poly, -1, axis=0) - poly
        length = np.hypot(seg[:, 0], seg[:, 1])
        phi = np.arctan2(seg[:, 1], seg[:, 0])
        sum_cos += float((length * np.cos(4 * phi)).sum())
        sum_sin += float((length * np.sin(4 * phi)).sum())
        if len(held) == 1:
            sides.append((pts[held[0]], math.sqrt(area)))
    if sum_cos == 0 and sum_sin == 0:
        return None
    angle = math.degrees(math.atan2(sum_sin, sum_cos) / 4)
    if angle <= -45:
        angle += 90
    side = float(np.median([s for _, s in sides])) if sides else 0.0
    return angle, side, sides


def _one_per_cell(cells, resid, max_residual: float) -> list[int]:
    """Indices of centres near a node, the nearest one where two share a cell."""
    best: dict[tuple[int, int], int] = {}
    for k in range(len(cells)):
        if resid[k] > max_residual:
            continue
        key = (int(cells[k, 0]), int(cells[k, 1]))
        if key not in best or resid[k] < resid[best[key]]:
            best[key] = k
    return sorted(best.values())


def _fit_map(grid, pts, previous):
    """Least-squares map from grid (col, row) to pixels, as general as the tiles' spread allows."""
    import numpy as np

    cols = np.unique(grid[:, 0])
    rows = np.unique(grid[:, 1])
    n = len(grid)
    if n >= 8 and len(cols) >= 3 and len(rows) >= 3:
        h = _fit_homography(grid, pts)
        # Mild perspective only: the scale changes by at most a few percent a cell.
        # A stronger fit is tile placement noise that would bend the grid at its ends.
        if h is not None and np.abs(h[2, :2]).max() <= MAX_PERSPECTIVE and _sane(h, previous, grid):
            return h
    if n >= 4 and len(cols) >= 2 and len(rows) >= 2:
        # Affine: pts = A grid + t.
        design = np.hstack([grid, np.ones((n, 1))])
        sol, *_ = np.linalg.lstsq(design, pts, rcond=None)
        h = np.vstack([sol.T, [0, 0, 1.0]])
        if _sane(h, previous, grid):
            return h
    if n >= 2:
        # Similarity: rotation and one scale, the only shape two points or one line can fix.
        g = grid[:, 0] + 1j * grid[:, 1]
        p = pts[:, 0] + 1j * pts[:, 1]
        gm, pm = g.mean(), p.mean()
        denom = np.sum(np.abs(g - gm) ** 2)
        if denom > 0:
            a = np.sum(np.conj(g - gm) * (p - pm)) / denom
            t = pm - a * gm
            return np.array([[a.real, -a.imag, t.real], [a.imag, a.real, t.imag], [0, 0, 1.0]])
    # One point: keep the shape, move it onto the point.
    h = previous.copy()
    h[:2, 2] += pts[0] - (previous @ np.array([grid[0, 0], grid[0, 1], 1.0]))[:2]
    return h


def _fit_homography(grid, pts):
    import cv2
    import numpy as np

    h, _ = cv2.findHomography(grid.astype(np.float64), pts.astype(np.float64), 0)
    if h is None or not np.isfinite(h).all():
        return None
    return h / h[2, 2]


def _sane(h, previous, grid) -> bool:
    """A fit that keeps cells square-ish and the pitch near the previous one (no fold-overs)."""
    import numpy as np

    centre = grid.mean(axis=0)
    probe = np.array([centre, centre + [1, 0], centre + [0, 1]])
    homog = np.hstack([probe, np.ones((3, 1))])

    def image(m):
        q = homog @ m.T
        return q[:, :2] / q[:, 2:3]

    new, old = image(h), image(previous)
    u, v = new[1] - new[0], new[2] - new[0]
    ou = old[1] - old[0]
    lu, lv, lo = np.linalg.norm(u), np.linalg.norm(v), np.linalg.norm(ou)
    if not (0.7 < lu / lo < 1.4 and 0.7 < lv / lu < 1.4):
        return False
    cross = u[0] * v[1] - u[1] * v[0]
    return abs(cross) / (lu * lv) > 0.85 and cross > 0


def _local_pitch(lattice: Lattice) -> float:
    """Pixels per cell at the middle of the tiles' bounding box."""
    import numpy as np

    rows = [r for r, _ in lattice.cells] or [0]
    cols = [c for _, c in lattice.cells] or [0]
    centre = np.array([(min(cols) + max(cols)) / 2, (min(rows) + max(rows)) / 2])
    p = lattice.to_image([centre, centre + [1, 0], centre + [0, 1]])
    return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 2)


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


@dataclass
class TileCell:
    """A tile's cell and where its design's centre sits in it (cols, rows off the node)."""

    cell: Cell
    offset: tuple[float, float]
    found: bool  # True if its design was a clean hole; False if added by the cell check


def tileness(dark, lattice: Lattice, cell: Cell, offset=(0.0, 0.0), size: int = 24) -> tuple[float, float]:
    """(dark share of the tile's black face, bright share of the tile's middle).

    The face is sampled where no design reaches: the four corners (every
    design but the four-point star, whose tips point there) or the middles of
    the four edges (every design but the circle, clover and diamond, which
    reach out along the axes), whichever is darker. A tile gives a first near
    1 and a second well above 0; bare table gives a first near 0.
    """
    import numpy as np

    patch = cell_patch(dark * 255, lattice, cell, size, border=(lattice.tile - 1) / 2, offset=offset).astype(np.float32) / 255.0
    k = np.abs(np.arange(size) + 0.5 - size / 2) / (size / 2)  # 0 at the centre, 1 at the edge
    kx, ky = k[None, :], k[:, None]
    corners = (kx > 0.62) & (kx < 0.92) & (ky > 0.62) & (ky < 0.92)
    edges = ((kx > 0.74) & (kx < 0.92) & (ky < 0.35)) | ((ky > 0.74) & (ky < 0.92) & (kx < 0.35))
    middle = np.maximum(kx, ky) < 0.3
    face = max(float(patch[corners].mean()), float(patch[edges].mean()))
    return face, float(1.0 - patch[middle].mean())


def face_band(dark, lattice: Lattice, cell: Cell, offset=(0.0, 0.0), size: int = 32) -> float:
    """Dark share of a band just inside the tile's edge, all the way round.

    A tile's black face runs unbroken round its edge (a diamond's tips barely
    touch it); a square of a printed board, even between thick lines, is
    light there, and so is bare table.
    """
    import numpy as np

    patch = cell_patch(dark * 255, lattice, cell, size, border=(lattice.tile - 1) / 2, offset=offset).astype(np.float32) / 255.0
    k = np.abs(np.arange(size) + 0.5 - size / 2) / (size / 2)
    ring = np.maximum(k[None, :], k[:, None])
    band = (ring > 0.82) & (ring < 0.95)
    return float(patch[band].mean())


def verify_tiles(candidates: Candidates, lattice: Lattice, kept: list[int], config: LatticeConfig | None = None) -> list[TileCell]:
    """The tiles of the grid: found centres whose cell is a dark tile, plus tiles the holes missed.

    Every cell next to a tile is sampled from the dark mask, and next to each
    tile so added. Raises LatticeError if no tile remains.
    """
    import numpy as np

    cfg = config or LatticeConfig()
    dark = candidates.dark
    strict = candidates.strict if candidates.strict is not None else dark
    grid = lattice.to_lattice(candidates.centres[kept])
    tiles: dict[Cell, TileCell] = {}
    for k, idx in enumerate(kept):
        cell = lattice.cells[k]
        # The cell's own area in the photo: in perspective the near cells are larger.
        area_of_cell = abs(float(np.linalg.det(_jacobian(lattice.homography, cell[1], cell[0]))))
        share = candidates.areas[idx] / area_of_cell
        if not cfg.min_design_area <= share <= cfg.max_design_area:
            continue
        offset = (float(grid[k, 0] - cell[1]), float(grid[k, 1] - cell[0]))
        ring, _ = tileness(dark, lattice, cell, offset)
        if ring < cfg.min_tileness:
            continue
        trusted = candidates.trusted is None or bool(candidates.trusted[idx])
        if not trusted and face_band(dark, lattice, cell, offset) < cfg.min_face_band:
            continue  # a hole on the grid without a tile's black face round it: print, not a tile
        tiles[cell] = TileCell(cell, offset, True)
    if not tiles:
        raise LatticeError("no tiles found: the dark shapes in the photo are not tiles with designs")
    # Tiles whose design was not a clean hole, next to known tiles; again from each
    # tile added, so a run of such tiles is found from its ends.
    frontier = set(tiles)
    while frontier:
        around = {
            (r + dr, c + dc)
            for r, c in frontier
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
        }
        frontier = set()
        for cell in sorted(around - set(tiles)):
            if tileness(dark, lattice, cell, size=12)[0] < 0.3:
                continue  # bare table: most cells around a grid, settled cheaply
            near = _neighbours(tiles, *cell)
            # A hand-placed tile drifts with its neighbours: look where they point,
            # and on the node itself.
            drift = (
                sum(t.offset[0] for t in near) / len(near),
                sum(t.offset[1] for t in near) / len(near),
            )
            for offset in (drift, (0.0, 0.0)):
                face, _ = tileness(dark, lattice, cell, offset)
                # The middle from the strict mask, where a dark paint is not taken for face.
                _, middle = tileness(strict, lattice, cell, offset)
                if face >= cfg.min_added_tileness and middle >= 0.5 and \
                        face_band(dark, lattice, cell, offset) >= cfg.min_face_band:
                    tiles[cell] = TileCell(cell, offset, False)
                    frontier.add(cell)
                    break
    return [tiles[c] for c in sorted(tiles)]


def _neighbours(tiles, row: int, col: int) -> list[TileCell]:
    near = ((row + 1, col), (row - 1, col), (row, col + 1), (row, col - 1))
    return [tiles[c] for c in near if c in tiles]
