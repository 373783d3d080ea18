"""Stage 2, the table's plane: where each found tile sits on the grid, and the homography of the plane.

The tiles are the calibration target. Every tile is a square of the same
size lying on one plane, and every design on a tile is four-fold symmetric,
so each design's second moments are round on the table: in the photo they
are an ellipse that says how the plane is stretched right there (the local
Jacobian of the homography, up to a turn and a scale). Undoing it (the
design's *whitening*) turns the tile back into a square, however oblique the
photo. In that frame around each tile:

1. the grid's directions come from the tile's own outline (the straight
   edges of the dark surface around it, four times their angle so the four
   sides agree) or, inside a packed block where no outline shows, from the
   directions to its nearest neighbours;
2. the step to the next cell from the distances to the neighbours along
   those directions (the photo's own median step where a tile has none);
3. which cell each neighbour is in from the offset measured from both ends
   (so a one-cell step in a steep photo, where the far tile is smaller, is
   measured at its middle); only offsets that are close to whole cells are
   kept.

The tiles are then put on cells best offset first (Prim's algorithm on the
neighbour graph), one group of neighbouring tiles after another. Each
group's homography (grid (col, row) to pixels) is fitted to its tiles'
centres, a line of tiles borrowing one point across the line from each
tile's round frame. Separate groups lie on the same plane: each is placed on
the largest group's lattice by the quarter turn and whole-cell shift that
fit both groups with one homography best (centres, and each tile's ellipse
against the joint map's stretch), nearest group first.

The result is only the first estimate: vision.lattice rectifies the photo
with it and fits the lattice again in the plane, where every tile is the
same square.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Any

from vision.config import PlaneConfig
from vision.design import array_median, distinct, median
from vision.errors import LatticeError
from vision.find import Candidates, face_levels, frames_along, moment_axes

Cell = tuple[int, int]  # (row, col)
QUARTER_TURNS = None  # filled lazily: the four 2 x 2 rotation matrices by a multiple of 90 degrees
MAX_THIN_ROWS = 3  # tiles on at most this many rows (or columns) lend points across their lines
# ... when the map through their centres alone stretches their round frames by this much (log ratio, rms)
MIN_LENT_SHAPE_ERROR = 0.1


@dataclass
class Plane:
    """The first estimate of the grid on the table plane, in the work image."""

    homography: Any  # 3x3: (col, row, 1) -> work image pixels
    cells: dict[int, Cell]  # candidate index -> (row, col) of the tiles placed
    groups: int = 1  # separate groups of tiles joined on the lattice
    placement: float = 1.0  # how clearly the best placement of the groups beat the next (0 to 1)
    group_of: dict[int, int] = field(default_factory=dict)  # candidate index -> its group (0 the largest)
    doubtful_groups: set = field(default_factory=set)  # groups whose place on the lattice is not clear
    off_grid: list = field(default_factory=list)  # lone designs well off the grid's nodes: print (see _join)
    printed: list = field(default_factory=list)  # designs of groups far lighter than the tiles' faces: print


@dataclass
class TileFrames:
    """Each candidate's local view of the plane (arrays over candidates; `ok` where it has one)."""

    whiten: Any  # N x 2 x 2: image offsets -> the design's round frame
    unwhiten: Any  # N x 2 x 2: the inverse
    ok: Any  # bool N
    basis: Any  # N x 2 x 2: columns = image offset of one column step, one row step (where `oriented`)
    oriented: Any  # bool N: a grid direction and step are known at this tile


def _turns():
    global QUARTER_TURNS
    if QUARTER_TURNS is None:
        import numpy as np

        QUARTER_TURNS = [np.array([[round(math.cos(k * math.pi / 2)), -round(math.sin(k * math.pi / 2))],
                                   [round(math.sin(k * math.pi / 2)), round(math.cos(k * math.pi / 2))]], np.float64)
                         for k in range(4)]
    return QUARTER_TURNS


def outline_segments(dark):
    """(middles M x 2, vectors M x 2) of the straight pieces of the dark surface's outlines."""
    import cv2
    import numpy as np

    contours, _ = cv2.findContours(dark, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    mids, vecs = [], []
    for contour in contours:
        if len(contour) < 4:
            continue
        area = cv2.contourArea(contour)
        if area < 30:
            continue
        poly = cv2.approxPolyDP(contour, max(1.0, 0.01 * math.sqrt(area)), True)[:, 0, :].astype(np.float64)
        if len(poly) < 3:
            continue
        seg = np.roll(poly, -1, axis=0) - poly
        mids.append(poly + seg / 2)
        vecs.append(seg)
    if not mids:
        return np.zeros((0, 2)), np.zeros((0, 2))
    return np.vstack(mids), np.vstack(vecs)


def tile_frames(candidates: Candidates, config: PlaneConfig) -> TileFrames:
    """Each trusted candidate's round frame, grid direction and step (see the module's docstring)."""
    import numpy as np

    pts = np.asarray(candidates.centres, np.float64)
    n = len(pts)
    whiten = np.tile(np.eye(2), (n, 1, 1))
    unwhiten = np.tile(np.eye(2), (n, 1, 1))
    ok = np.zeros(n, bool)
    usable = np.nonzero(_usable(candidates))[0]
    if len(usable):
        # Each usable design's whitening W (it turns the design round, undoing the local stretch of the
        # photo's perspective) and W^-1, all at once: batched eigh and matmul give each the numbers one
        # 2 x 2 at a time would. A degenerate design (a flat ellipse) has none.
        _, values, vectors = moment_axes(np.asarray(candidates.shapes, np.float64)[usable])
        good = values.min(axis=1) > 1e-9
        values, vectors, usable = values[good], vectors[good], usable[good]
        whiten[usable] = frames_along(vectors, 1 / np.sqrt(values))
        unwhiten[usable] = frames_along(vectors, np.sqrt(values))
        ok[usable] = True
    basis = np.zeros((n, 2, 2))
    oriented = np.zeros(n, bool)
    idx = np.nonzero(ok)[0]
    if not len(idx):
        return TileFrames(whiten, unwhiten, ok, basis, oriented)
    # Offsets from each usable tile to every other, in the first one's round frame.
    diff = pts[idx][None, :, :] - pts[idx][:, None, :]  # [a, b] = P[b] - P[a]
    local = np.einsum("aij,abj->abi", whiten[idx], diff)
    dist = np.linalg.norm(local, axis=2)
    np.fill_diagonal(dist, np.inf)
    nearest = dist.min(axis=1) if len(idx) > 1 else np.full(1, np.inf)
    mids, vecs = outline_segments(candidates.dark)
    thetas = np.full(len(idx), np.nan)
    for a, k in enumerate(idx):
        thetas[a] = _direction(a, k, pts, whiten, local, dist, nearest, mids, vecs, config)
    # The step between neighbouring cells, in round-frame units: from the neighbours along the
    # grid's directions, one cell (or a whole number of cells) away.
    steps = np.full(len(idx), np.nan)
    singles = []
    for a in range(len(idx)):
        if math.isnan(thetas[a]):
            continue
        near = np.nonzero(dist[a] <= config.reach_whitened)[0]
        if not len(near):
            continue
        phi = np.arctan2(local[a, near, 1], local[a, near, 0])
        off = np.abs(((phi - thetas[a]) + math.pi / 4) % (math.pi / 2) - math.pi / 4)
        along = dist[a, near][off < math.radians(config.axis_tolerance)]
        if len(along):
            singles.append(float(along.min()))
    unit = float(median(singles)) if singles else config.default_step  # np.median's value, faster
    # A photo's one-cell steps differ by design (their sizes) and gaps, but never by half.
    unit = min(max(unit, 0.7 * config.default_step), 1.5 * config.default_step)
    for a in range(len(idx)):
        if math.isnan(thetas[a]):
            continue
        near = np.nonzero(dist[a] <= config.reach_whitened)[0]
        estimates = []
        if len(near):
            phi = np.arctan2(local[a, near, 1], local[a, near, 0])
            off = np.abs(((phi - thetas[a]) + math.pi / 4) % (math.pi / 2) - math.pi / 4)
            for d, o in zip(dist[a, near], off):
                if o < math.radians(config.axis_tolerance):
                    # Only next neighbours: across a gap the count of cells is a guess (a star's
                    # round frame is smaller than a circle's, and 2.6 steps may be 2 or 3).
                    if abs(d / unit - 1) < 0.3:
                        estimates.append(d)
        steps[a] = float(median(estimates)) if estimates else unit
    for a, k in enumerate(idx):
        if math.isnan(thetas[a]):
            continue
        c, s = math.cos(thetas[a]), math.sin(thetas[a])
        basis[k] = unwhiten[k] @ np.array([[c, -s], [s, c]]) * steps[a]
        oriented[k] = True
    return TileFrames(whiten, unwhiten, ok, basis, oriented)


def _usable(candidates: Candidates):
    """The candidates the plane is estimated from: those that look like a design on a tile."""
    import numpy as np

    n = len(candidates.centres)
    trusted = getattr(candidates, "trusted", None)
    if trusted is None:
        return np.ones(n, bool)
    trusted = np.asarray(trusted, bool)
    return trusted if trusted.sum() >= 1 else np.ones(n, bool)


def _direction(a, k, pts, whiten, local, dist, nearest, mids, vecs, config: PlaneConfig) -> float:
    """The grid's direction at tile `k` (radians, mod 90 degrees, in its round frame), NaN if unknown.

    The tile's outline decides where it shows (its neighbours may be diagonal
    ones, and its design cannot: a square is a diamond turned); the
    neighbours' directions decide inside a packed block.
    """
    import numpy as np

    w = whiten[k]
    theta_edges, weight_edges = math.nan, 0.0
    if len(mids):
        # Each straight piece counts by its length within reach of the design (a line of
        # tiles has one long edge, whose middle may lie far from this tile).
        rel = (mids - pts[k]) @ w.T
        seg = vecs @ w.T
        full = np.hypot(seg[:, 0], seg[:, 1])
        t = np.clip(-(rel * seg).sum(axis=1) / np.maximum(full ** 2, 1e-12), -0.5, 0.5)
        gap = np.hypot(rel[:, 0] + t * seg[:, 0], rel[:, 1] + t * seg[:, 1])
        close = gap <= config.outline_reach
        if close.any():
            seg = seg[close]
            length = np.minimum(full[close], 2 * np.sqrt(np.maximum(config.outline_reach ** 2 - gap[close] ** 2, 0)))
            angle = np.arctan2(seg[:, 1], seg[:, 0])
            c4, s4 = float((length * np.cos(4 * angle)).sum()), float((length * np.sin(4 * angle)).sum())
            total = float(length.sum())
            if total > 0 and math.hypot(c4, s4) >= config.min_coherence * total:
                theta_edges, weight_edges = math.atan2(s4, c4) / 4, total
    theta_near = math.nan
    if math.isfinite(nearest[a]):
        near = np.nonzero(dist[a] <= config.neighbour_slack * nearest[a])[0]
        near = near[dist[a, near] <= config.reach_whitened]
        if len(near):
            phi = np.arctan2(local[a, near, 1], local[a, near, 0])
            c4, s4 = float(np.cos(4 * phi).sum()), float(np.sin(4 * phi).sum())
            if math.hypot(c4, s4) >= 0.5 * len(near):
                theta_near = math.atan2(s4, c4) / 4
    if weight_edges >= config.min_outline:
        return theta_edges
    if not math.isnan(theta_near):
        return theta_near
    return theta_edges


def _neighbour_offsets(pts, frames: TileFrames, config: PlaneConfig):
    """Edges (a, b, cells from a to b in a's frame, quarter turn from b's frame to a's, error) between tiles."""
    import numpy as np

    idx = np.nonzero(frames.oriented)[0]
    turns = _turns()
    edges = []
    if len(idx) < 2:
        return edges
    # Every pair at once. Batched matmul, inv, det and dot give each pair the very numbers the
    # 2 x 2 products of one pair would (numpy runs the same kernel per matrix).
    inverses = np.linalg.inv(frames.basis[idx])
    a_of, b_of = np.nonzero(np.triu(np.ones((len(idx), len(idx)), bool), k=1))
    d = pts[idx[b_of]] - pts[idx[a_of]]
    oa = np.matmul(inverses[a_of], d[:, :, None])[:, :, 0]
    ob = np.matmul(inverses[b_of], (-d)[:, :, None])[:, :, 0]
    keep = (np.abs(oa).max(axis=1) <= config.reach_cells + 0.5) & (np.abs(ob).max(axis=1) <= config.reach_cells + 0.5)
    a_of, b_of, oa, ob = a_of[keep], b_of[keep], oa[keep], ob[keep]
    m = np.matmul(inverses[a_of], frames.basis[idx[b_of]])  # b's cell steps in a's cells: about a quarter turn
    # trace(turn.T @ m) of the four quarter turns, the best one's index.
    along, across = m[:, 0, 0] + m[:, 1, 1], m[:, 1, 0] - m[:, 0, 1]
    q = np.argmax(np.stack([along, across, -along, -across], axis=1), axis=1)
    scale = np.sqrt(np.abs(np.linalg.det(m)))
    from_b = -np.matmul(np.array(turns)[q], ob[:, :, None])[:, :, 0]
    offset = (oa + from_b) / 2
    step = np.rint(offset)

    def norms(v):
        return np.sqrt(np.matmul(v[:, None, :], v[:, :, None])[:, 0, 0])

    error, disagree = norms(offset - step), norms(oa - from_b)
    good = (0.6 < scale) & (scale < 1.6) & step.any(axis=1) & (np.abs(step).max(axis=1) <= config.reach_cells) \
        & (error <= config.max_offset_error) & (disagree <= 2 * config.max_offset_error)
    for e in np.nonzero(good)[0]:
        # Shorter steps first at equal error: a neighbour is surer than a cell across a gap.
        rank = float(error[e]) + 0.05 * (abs(step[e]).sum() - 1)
        edges.append((rank, int(idx[a_of[e]]), int(idx[b_of[e]]), (int(step[e, 0]), int(step[e, 1])), int(q[e])))
    return edges


def _grow(edges, pts, frames: TileFrames):
    """Groups of tiles placed on cells: [{cell (row, col): candidate}] largest first, by Prim's algorithm."""
    import numpy as np

    turns = _turns()
    adjacency: dict[int, list] = {}
    for rank, a, b, step, q in edges:
        adjacency.setdefault(a, []).append((rank, a, b, np.array(step, np.float64), q))
        # From b: the step seen in b's frame, the turn from a's frame to b's.
        back = -(turns[(4 - q) % 4] @ np.array(step, np.float64))
        adjacency.setdefault(b, []).append((rank, b, a, back, (4 - q) % 4))
    # Most connected tiles first (nearest the middle at a tie), each seeding a group if still free.
    middle = array_median(pts[list(adjacency)], axis=0) if adjacency else None
    seeds = sorted(adjacency, key=lambda k: (-len(adjacency[k]), float(np.linalg.norm(pts[k] - middle))))
    placed: dict[int, tuple[Cell, int]] = {}  # candidate -> (cell in its group's frame, group)
    turn_of: dict[int, Any] = {}
    groups: list[dict[Cell, int]] = []
    for seed in seeds:
        if seed in placed:
            continue
        group: dict[Cell, int] = {(0, 0): seed}
        g = len(groups)
        placed[seed] = ((0, 0), g)
        turn_of[seed] = np.eye(2)
        heap = []
        counter = 0
        for edge in adjacency[seed]:
            heapq.heappush(heap, (edge[0], counter, edge))
            counter += 1
        while heap:
            _, _, (rank, a, b, step, q) = heapq.heappop(heap)
            if b in placed:
                continue
            ra = turn_of[a]
            (row, col), _ = placed[a]
            # Steps are (col, row) in the tile's frame; the group's frame is the seed's.
            move = ra @ step
            cell = (row + int(round(move[1])), col + int(round(move[0])))
            if cell in group:
                continue
            group[cell] = b
            placed[b] = (cell, g)
            turn_of[b] = ra @ turns[q]
            for edge in adjacency[b]:
                if edge[2] not in placed:
                    heapq.heappush(heap, (edge[0], counter, edge))
                    counter += 1
        groups.append(group)
    # Tiles with a frame but no neighbour: a group of their own.
    for k in np.nonzero(frames.oriented)[0]:
        if int(k) not in placed:
            groups.append({(0, 0): int(k)})
    groups.sort(key=lambda g: -len(g))
    return groups


def _group_map(group: dict[Cell, int], pts, frames: TileFrames):
    """The homography (col, row, 1) -> pixels of one group, from its tiles (and their frames)."""
    import numpy as np

    cells = np.array([(c, r) for (r, c) in group], np.float64)
    points = np.array([pts[k] for k in group.values()], np.float64)
    if len(group) == 1:
        (k,) = group.values()
        b = frames.basis[k]
        return np.array([[b[0, 0], b[0, 1], points[0, 0]], [b[1, 0], b[1, 1], points[0, 1]], [0, 0, 1.0]])
    h = fit_projective(cells, points, [(frames.whiten[k], frames.unwhiten[k]) for k in group.values()])
    if h is None:
        # Two tiles a gap apart, or a line the frames cannot widen: a similarity through them.
        return _similarity(cells, points)
    return h


def _similarity(cells, points):
    import numpy as np

    g = cells[:, 0] + 1j * cells[:, 1]
    p = points[:, 0] + 1j * points[:, 1]
    gm, pm = g.mean(), p.mean()
    denom = np.sum(np.abs(g - gm) ** 2)
    a = np.sum(np.conj(g - gm) * (p - pm)) / denom if denom > 0 else 1.0
    t = pm - a * gm
    return np.array([[a.real, -a.imag, t.real], [a.imag, a.real, t.imag], [0, 0, 1.0]])


def _settle_group(group: dict[Cell, int], pts, frames: TileFrames, config: PlaneConfig) -> dict[Cell, int]:
    """The group with tiles that sit off their cell by the group's own map dropped (a wrong step)."""
    import numpy as np

    for _ in range(3):
        if len(group) < 5:
            return group
        h = _group_map(group, pts, frames)
        cells = np.array([(c, r) for (r, c) in group], np.float64)
        seen = to_lattice(h, np.array([pts[k] for k in group.values()]))
        error = np.linalg.norm(seen - cells, axis=1)
        worst = int(np.argmax(error))
        if error[worst] <= config.max_offset_error:
            return group
        key = list(group)[worst]
        group = {c: k for c, k in group.items() if c != key}
    return group


def estimate_plane(candidates: Candidates, config: PlaneConfig | None = None) -> Plane:
    """The plane's homography and the cell of each tile found, from the tiles' frames and rows.

    Raises LatticeError when no tile has a frame (no design could be measured)
    or the tiles do not lie on one square grid.
    """
    import numpy as np

    cfg = config or PlaneConfig()
    pts = np.asarray(candidates.centres, np.float64)
    if not len(pts):
        raise LatticeError("no tiles to fit a grid to")
    frames = tile_frames(candidates, cfg)
    if not frames.oriented.any():
        raise LatticeError("the tiles' edges cannot be made out")
    edges = _neighbour_offsets(pts, frames, cfg)
    groups = [_settle_group(g, pts, frames, cfg) for g in _grow(edges, pts, frames)]
    groups = [g for g in groups if g]
    groups.sort(key=lambda g: -len(g))
    levels = None
    if candidates.masks is not None and len(groups) > 1:
        levels = [float(array_median(face_levels(candidates, list(g.values())))) for g in groups]
        groups, levels = _darkest_first(groups, levels, cfg)
    main = dict(groups[0])
    homography = _group_map(main, pts, frames)
    group_of = {k: 0 for k in main.values()}
    placement = 1.0
    doubtful: set = set()
    off_grid: list = []
    printed: list = []
    rest = groups[1:]
    if levels is not None:
        # A group of two designs or more whose faces are far lighter against the table than the
        # main group's is print (a board's dark strip of row numbers at the photo's edge), not
        # tiles: joined, it bent the map and its cells ran out of the photo (refused as cut off).
        # (A lone design is judged in _join; the board's lone prints, joined, were not read.)
        light = [g for g, level in zip(rest, levels[1:])
                 if len(g) >= 2 and level > cfg.max_group_level_ratio * levels[0]]
        for g in light:
            printed.extend(g.values())
        rest = [g for g in rest if g not in light]
    # Nearest group first: the shorter the reach from the placed tiles, the surer the placement.
    while rest:
        placed_pts = np.array([pts[k] for k in main.values()])
        rest.sort(key=lambda g: min(float(np.linalg.norm(placed_pts - pts[k], axis=1).min()) for k in g.values()))
        group = rest.pop(0)
        joined = _join(main, group, homography, pts, frames, cfg)
        gi = len(set(group_of.values()))
        if joined is None:
            continue  # a group that fits nowhere on the plane: not tiles of this grid
        if joined[0] is None:
            off_grid.extend(group.values())
            continue
        main, homography, margin = joined
        for k in group.values():
            group_of[k] = gi
        placement = min(placement, margin)
        if margin < cfg.min_placement_margin:
            doubtful.add(gi)
    cells = {k: cell for cell, k in main.items()}
    return Plane(homography, cells, len(set(group_of.values())), placement, group_of, doubtful, off_grid, printed)


def _darkest_first(groups: list, levels: list[float], config: PlaneConfig) -> tuple[list, list[float]]:
    """The groups (largest first) and their faces' levels, with the group the lattice grows from
    put first: the largest of those whose faces are about as dark as the darkest group's of
    `main_group_min_size` designs or more.

    Only black tiles carry a design ringed by black: a board's printed squares with numbers are
    lighter against the table (find.face_levels), however many of them pair up as neighbours.
    Grown from eight such squares, the largest group, the tiles' group was not joined and the map
    read a 65-degree tilt (board photo 44, refused as too oblique). A lone design is no reference
    (one glyph on a shadow), hence the size guard.
    """
    sizeable = [level for g, level in zip(groups, levels) if len(g) >= config.main_group_min_size]
    if not sizeable:
        return groups, levels
    darkest = min(sizeable)
    first = next(i for i, (g, level) in enumerate(zip(groups, levels))
                 if level <= config.max_group_level_ratio * darkest)
    order = [first] + [i for i in range(len(groups)) if i != first]
    return [groups[i] for i in order], [levels[i] for i in order]


def _join(main: dict[Cell, int], group: dict[Cell, int], homography, pts, frames: TileFrames, config: PlaneConfig):
    """(cells, homography, margin) with `group` placed on the lattice of `main`, None if it fits nowhere,
    or (None, None, 0) for a lone design judged print (below).

    The group's own cells are turned by the quarter turn that matches its
    frame to the lattice's there, and shifted by the whole number of cells
    that brings them nearest where the lattice's map puts them, or one cell
    more or less each way (and beyond, while the best is on the edge of
    those tried); of these placements, the one whose joint fit
    (centres, and each tile's ellipse against the map's stretch) is best
    wins. `margin` is how clearly it beat the runner-up.
    """
    import numpy as np

    turns = _turns()
    keys = list(group)
    members = [group[c] for c in keys]
    own = np.array([(c, r) for (r, c) in keys], np.float64)
    points = np.array([pts[k] for k in members], np.float64)
    seen = to_lattice(homography, points)
    # The quarter turn: the group's steps against the lattice's at the group's place.
    local = jacobian(homography, *seen.mean(axis=0))
    own_map = _group_map(group, pts, frames)
    own_steps = jacobian(own_map, *own.mean(axis=0))
    m = np.linalg.solve(local, own_steps)
    q = int(np.argmax([np.trace(t.T @ m) for t in turns]))
    turned = own @ turns[q].T
    centre = np.rint(array_median(seen - turned, axis=0))

    def fit(placed):
        """(score, worst centre's error, cells, homography) of the group at `placed`, or None."""
        cells = dict(main)
        for (col, row), k in zip(placed, members):
            key = (int(round(row)), int(round(col)))
            if key in cells:
                return None
            cells[key] = k
        grid = np.array([(c, r) for (r, c) in cells], np.float64)
        at = np.array([pts[k] for k in cells.values()], np.float64)
        h = fit_projective(grid, at, [(frames.whiten[k], frames.unwhiten[k]) for k in cells.values()])
        if h is None:
            return None
        error = np.linalg.norm(to_lattice(h, at) - grid, axis=1)
        shape = _shape_error(h, grid, [frames.whiten[k] for k in cells.values()])
        return float(np.sqrt(np.mean(error ** 2)) + config.shape_weight * shape), float(error.max()), cells, h

    # Shifts of the group (whole cells) from where the lattice's map puts it, each tried once.
    shifts = {(dx, dy): fit(turned + centre + (dx, dy)) for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
    # The lattice's map reaches a far group only as well as the tiles it was fitted to fix it: a line
    # of three fixes the perspective along it from its own three tiles, and put a group beyond a gap
    # half a cell per cell (groups 375: a line of three two cells past a line of three on one row, its
    # own steps 0.45 of a cell on the map, placed a cell short, four tiles confidently wrong). A best
    # shift on the edge of those tried is no proof that it beats the shifts beyond it: they are tried
    # too, the shifts round the best, until the best has a shift tried on every side of it (at most
    # `join_reach` cells out). Not for a lone design: it has no steps of its own to show that the map
    # misjudges its place, and moved cells from where the map puts it, it is print the map bends to
    # take in (board 154: a printed glyph 1.8 cells from where the map put it, joined there).
    for _ in range(config.join_reach if len(group) >= config.join_reach_min_size else 0):
        tried = [(fitted[0], shift) for shift, fitted in shifts.items() if fitted is not None]
        if not tried:
            break
        bx, by = min(tried)[1]
        ring = [(bx + dx, by + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
        new = [shift for shift in ring if shift not in shifts]
        if not new:
            break
        for shift in new:
            shifts[shift] = fit(turned + centre + shift)
    scored = [fitted for fitted in shifts.values() if fitted is not None]
    if float(np.abs(seen - np.rint(seen)).max()) <= config.snap_join_offset:
        # Every tile of the group on a node of the lattice's map: each on its own node, whatever the
        # group's own steps say (a step across a gap taken one cell too long puts one tile a cell
        # off in the group's frame, and no shift of it fits one plane with the lattice).
        snapped = np.rint(seen)
        if not any(np.array_equal(snapped, turned + centre + shift) for shift in shifts):
            fitted = fit(snapped)
            if fitted is not None:
                scored.append(fitted)
    if not scored:
        return None
    scored.sort(key=lambda s: s[0])
    best = scored[0]
    if best[1] > config.max_join_error:
        return None
    pair_too_close = len(group) == 2 and float(np.linalg.norm(seen[0] - seen[1])) < config.pair_join_min_step
    if (len(group) == 1 or pair_too_close) and len(main) >= config.lone_join_min_tiles:
        # A lone design well off every node of the grid's map, which the map must bend to take in
        # (its tiles' ellipses fit it worse), is print beside the grid (a board's dark square with
        # a number), not a tile: taken in, it sheared the lattice off the tiles. So is a pair of
        # designs closer together on that map than two tiles can lie (the two glyphs of a board's
        # dark "x2" square, each a hole in black, paired as neighbours by their own small frames).
        off = float(np.abs(seen - np.rint(seen)).max())
        if off > config.lone_join_offset:
            main_grid = np.array([(c, r) for (r, c) in main], np.float64)
            before = _shape_error(homography, main_grid, [frames.whiten[k] for k in main.values()])
            grid = np.array([(c, r) for (r, c) in best[2]], np.float64)
            after = _shape_error(best[3], grid, [frames.whiten[k] for k in best[2].values()])
            if after > config.lone_join_bend * before and after - before > config.lone_join_rise:
                return None, None, 0.0
    margin = 1.0 if len(scored) == 1 else min(1.0, (scored[1][0] - best[0]) / max(scored[1][0], 1e-9))
    return best[2], best[3], margin


def _shape_error(h, grid, whitens) -> float:
    """How far the map's stretch at each tile is from the tile's own ellipse: 0 when the map turns
    every design round (log of the ratio of the two stretches, root mean square)."""
    import numpy as np

    total = 0.0
    if len(grid):
        # Every tile at once: batched matmul and svd give each tile the numbers of its own 2 x 2.
        stretch = np.linalg.svd(np.matmul(np.array(whitens), jacobians(h, grid)), compute_uv=False)
        for big, small in stretch.tolist():
            total += math.log(max(big, 1e-9) / max(small, 1e-9)) ** 2
    return math.sqrt(total / max(len(grid), 1))


# ---------------------------------------------------------------- homographies


def to_lattice(h, points):
    """Lattice (col, row) of image points (N x 2) under the map h: (col, row, 1) -> pixels."""
    import numpy as np

    pts = np.asarray(points, np.float64).reshape(-1, 2)
    homog = np.hstack([pts, np.ones((len(pts), 1))]) @ np.linalg.inv(h).T
    return homog[:, :2] / homog[:, 2:3]


def to_image(h, points):
    """Image (x, y) of lattice points (col, row) (N x 2) under h."""
    return _project(h, points)[0]


def to_image_in_front(h, points):
    """to_image, or None when a point maps behind the camera (the map's w <= 0): its image
    would come out mirrored, meaningless."""
    image, w = _project(h, points)
    return None if (w <= 0).any() else image


def _project(h, points):
    """(image (x, y) of lattice points (col, row) under h, each point's w)."""
    import numpy as np

    pts = np.asarray(points, np.float64).reshape(-1, 2)
    homog = np.hstack([pts, np.ones((len(pts), 1))]) @ h.T
    return homog[:, :2] / homog[:, 2:3], homog[:, 2]


def jacobian(h, x: float, y: float):
    """d(pixel)/d(col, row) of the map h at grid point (x, y)."""
    import numpy as np

    p = h @ np.array([x, y, 1.0])
    w = p[2]
    return (h[:2, :2] * w - np.outer(p[:2], h[2, :2])) / (w * w)


def jacobians(h, points):
    """jacobian(h, x, y) at each grid point (x, y) of `points` (N x 2): N x 2 x 2, the same numbers."""
    import numpy as np

    points = np.asarray(points, np.float64).reshape(-1, 2)
    p = np.matmul(h, np.hstack([points, np.ones((len(points), 1))])[:, :, None])[:, :, 0]
    w = p[:, 2]
    return (h[None, :2, :2] * w[:, None, None] - p[:, :2, None] * h[None, None, 2, :2]) / (w * w)[:, None, None]


def fit_projective(grid, pts, frames=None):
    """Least-squares map from grid (col, row) to pixels: a homography when the tiles span two
    directions well, else an affine map, else None. A line of tiles alone cannot fix the
    perspective across it: with `frames` ((W, W^-1) of each tile) each tile lends a point one
    row across, where its own round frame puts it."""
    import numpy as np

    grid = np.asarray(grid, np.float64)
    pts = np.asarray(pts, np.float64)
    n = len(grid)
    cols = distinct(grid[:, 0])
    rows = distinct(grid[:, 1])
    if (len(cols) < 2 or len(rows) < 2) and n >= 2:
        grid, pts = _across_the_line(grid, pts, frames)
        if grid is None:
            return None
    else:
        # A line of tiles with one tile beside it fixes no more of the perspective across the line
        # than the line alone (a homography wants four points, no three on a line): the line's
        # tiles lend their points across it too.
        line = _longest_line(grid)
        if frames is not None and len(frames) == n and line is not None and n - len(line) <= 1:
            more_grid, more_pts = _across_the_line(grid[line], pts[line], [frames[k] for k in line])
            if more_grid is not None:
                grid, pts = np.vstack([grid, more_grid[len(line):]]), np.vstack([pts, more_pts[len(line):]])
        elif frames is not None and len(frames) == n and n >= 6:
            # Tiles on a few rows (lines of separate groups side by side, a line with a short arm)
            # leave the perspective across those rows to their centres' noise: a group joined a
            # cell off was taken in as a 63-degree tilt of a photo taken at 10. When the map through
            # the centres alone disagrees with the tiles' own ellipses, the lines lend their points
            # across too, and the map the ellipses agree with better is kept. (Through five centres or
            # fewer the map is barely fixed or affine, its ellipses off by noise or the perspective
            # alone: a held-out mixed photo's groups of 4 and 5 took the lent points' maps, joined
            # otherwise, and the photo was refused as too oblique.)
            more_grid, more_pts = _across_the_lines(grid, pts, frames)
            if more_grid is not None:
                plain = _fit_centres(grid, pts)
                lent = _fit_centres(np.vstack([grid, more_grid]), np.vstack([pts, more_pts]))
                if plain is None or lent is None:
                    return plain if lent is None else lent
                whitens = [w for w, _ in frames]
                own = _shape_error(plain, grid, whitens)
                if own > MIN_LENT_SHAPE_ERROR and _shape_error(lent, grid, whitens) < own:
                    return lent
                return plain
    return _fit_centres(grid, pts)


def _fit_centres(grid, pts):
    """A homography through the points when they span two directions well, else an affine map, else None."""
    import numpy as np

    n = len(grid)
    cols = distinct(grid[:, 0])
    rows = distinct(grid[:, 1])
    if n >= 5 and len(cols) >= 2 and len(rows) >= 2:
        h = fit_homography(grid, pts)
        if h is not None and unfolded(h, grid):
            return h
    if n >= 3 and len(cols) >= 2 and len(rows) >= 2:
        design = np.hstack([grid, np.ones((n, 1))])
        sol, *_ = np.linalg.lstsq(design, pts, rcond=None)
        h = np.vstack([sol.T, [0, 0, 1.0]])
        if unfolded(h, grid):
            return h
    return None


def fit_homography(grid, pts):
    import numpy as np

    # Normalised DLT (Hartley): well conditioned whatever the pixel scale.
    def normaliser(p):
        mean = p.mean(axis=0)
        spread = np.sqrt(((p - mean) ** 2).sum(axis=1).mean()) or 1.0
        s = math.sqrt(2) / spread
        return np.array([[s, 0, -s * mean[0]], [0, s, -s * mean[1]], [0, 0, 1.0]])

    tg, tp = normaliser(grid), normaliser(pts)
    g = np.hstack([grid, np.ones((len(grid), 1))]) @ tg.T
    p = np.hstack([pts, np.ones((len(pts), 1))]) @ tp.T
    # Two rows a point, [x, y, 1, 0, 0, 0, -ux, -uy, -u] and [0, 0, 0, x, y, 1, -vx, -vy, -v], filled by column.
    x, y, u, v = g[:, 0], g[:, 1], p[:, 0], p[:, 1]
    rows = np.zeros((2 * len(g), 9))
    rows[0::2, 0], rows[0::2, 1], rows[0::2, 2] = x, y, 1
    rows[0::2, 6], rows[0::2, 7], rows[0::2, 8] = -u * x, -u * y, -u
    rows[1::2, 3], rows[1::2, 4], rows[1::2, 5] = x, y, 1
    rows[1::2, 6], rows[1::2, 7], rows[1::2, 8] = -v * x, -v * y, -v
    _, _, vt = np.linalg.svd(rows)
    hn = vt[-1].reshape(3, 3)
    h = np.linalg.inv(tp) @ hn @ tg
    if not np.isfinite(h).all() or abs(h[2, 2]) < 1e-12:
        return None
    return h / h[2, 2]


def _longest_line(grid):
    """The indices of the tiles on the row or column that holds the most of them (at least 3), or None."""
    import numpy as np

    best = None
    for axis in (0, 1):
        # np.unique(..., return_counts=True) written out: its values and counts, a fraction of its cost.
        ordered = np.sort(grid[:, axis])
        starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
        values, counts = ordered[starts], np.diff(np.append(starts, len(ordered)))
        k = int(np.argmax(counts))
        if counts[k] >= 3 and (best is None or counts[k] > len(best)):
            best = np.nonzero(grid[:, axis] == values[k])[0]
    return best


def _across_the_lines(grid, pts, frames, thin: int = MAX_THIN_ROWS):
    """Points lent across each line of 3 or more tiles when the tiles lie on at most `thin` rows (or
    columns), as `_across_the_line` puts them; (None, None) when the tiles span more."""
    import numpy as np

    extra_grid, extra_pts = [], []
    for axis in (1, 0):
        values = distinct(grid[:, axis])
        if len(values) > thin:
            continue
        for value in values:
            line = np.nonzero(grid[:, axis] == value)[0]
            if len(line) < 3:
                continue
            more_grid, more_pts = _across_the_line(grid[line], pts[line], [frames[k] for k in line])
            if more_grid is not None:
                extra_grid.append(more_grid[len(line):])
                extra_pts.append(more_pts[len(line):])
        if extra_grid:
            return np.vstack(extra_grid), np.vstack(extra_pts)
    return None, None


def _across_the_line(grid, pts, frames):
    """Points one row (or column) across a line of tiles, put where each tile's round frame says."""
    import numpy as np

    if frames is None or len(frames) != len(grid):
        return None, None
    horizontal = len(distinct(grid[:, 1])) == 1
    along = grid[:, 0] if horizontal else grid[:, 1]
    order = np.argsort(along)
    extra_grid, extra_pts = [], []
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


def unfolded(h, grid, margin: float = 1.0) -> bool:
    """True if the map keeps every cell of the tiles' box (and `margin` around) the right way round,
    in front of the camera, and square-ish at the middle."""
    import numpy as np

    lo = grid.min(axis=0) - margin
    hi = grid.max(axis=0) + margin
    corners = np.array([(lo[0], lo[1]), (hi[0], lo[1]), (hi[0], hi[1]), (lo[0], hi[1])], np.float64)
    w = np.hstack([corners, np.ones((4, 1))]) @ h[2]
    if (w <= 0).any():
        return False
    if (np.linalg.det(jacobians(h, corners)) <= 0).any():
        return False
    jac = jacobian(h, *(grid.mean(axis=0)))
    u, v = jac[:, 0], jac[:, 1]
    lu, lv = np.linalg.norm(u), np.linalg.norm(v)
    if not 0.2 < lv / lu < 5:
        return False
    return abs(u @ v) / (lu * lv) < math.sin(math.radians(60))


def plane_pitch(plane: Plane) -> float:
    """Pixels per cell of the work image at the tiles placed (the median of their cells' sides)."""
    import numpy as np

    sides = [math.sqrt(abs(np.linalg.det(jacobian(plane.homography, c, r)))) for r, c in plane.cells.values()]
    return float(array_median(sides)) if sides else 0.0
