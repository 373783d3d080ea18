"""Something over the grid (a finger, a hand): the lattice cells it may hide a tile under.

A finger reaching over the tiles hides a tile, or part of one, without
leaving anything the lattice's cell rules can read: its cell looks empty, or
shows only a strip of black beside its neighbours, like a thick tile's side
seen at an angle. The finger itself is found instead:

- skin's hue is red-yellow (CIELAB a* and b* above grey), and its colour
  stands apart from the table's (the median of the table seen more than a
  tile away from the tiles, by more than the table's own spread); it is not
  as dark as the tiles' faces;
- it comes in from an edge of the photo: the blob of such pixels touches the
  photo's border;
- it is a limb, not a fleck, a printed line or a patch of table lit
  differently: at least `min_length` tiles long, wider than a printed line
  and at most about a tile wide all along, its outline smooth (it fills most
  of its convex hull).

Every lattice cell beside the tiles (or beside a cell already asked about)
that the blob covers in part becomes "a tile may be missing here", and from
those the cells next along it, up to `max_run` cells out: a finger laid along
a line of tiles hides several. The read tiles are left to their own
confidences. Not found: a finger the colour of the table (a pale wood under
a pale finger), or one too blurred to stand apart.
"""
from __future__ import annotations

from vision.colour import to_linear
from vision.config import OccluderConfig
from vision.lattice import Lattice

Cell = tuple[int, int]


def covered_cells(image, lattice: Lattice, tiles: list[Cell], asked: list[Cell],
                  config: OccluderConfig | None = None) -> list[Cell]:
    """Lattice cells beside or among `tiles` (the cells read) that something coming in from the
    photo's edge covers in part; none of `asked` (cells already asked about)."""
    cfg = config or OccluderConfig()
    if not tiles:
        return []
    blob, lat, t = find_occluder(image, lattice, tiles, cfg)
    if blob is None:
        return []
    return _cells_under(blob, lat, t, lattice.tile, tiles, asked, cfg)


def find_occluder(image, lattice: Lattice, tiles: list[Cell], cfg: OccluderConfig):
    """(mask of the occluder in a scaled copy of `image` or None, the lattice in that copy, a tile's side there)."""
    import cv2
    import numpy as np

    tile_px = lattice.pitch * lattice.tile
    f = min(1.0, cfg.work_tile_px / max(tile_px, 1e-6))
    small = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1.0 else image
    t = tile_px * f
    height, width = small.shape[:2]
    lat = lattice.scaled(f)
    light, red, yellow = _lab(small)

    # The tiles read, a little enlarged: the table is sampled away from them, their faces' level
    # says what is too dark to be skin.
    tile_mask = np.zeros((height, width), np.uint8)
    grow = lattice.tile / 2 + cfg.tile_margin
    for r, c in tiles:
        quad = lat.to_image([(c - grow, r - grow), (c + grow, r - grow), (c + grow, r + grow), (c - grow, r + grow)])
        cv2.fillConvexPoly(tile_mask, np.round(quad).astype(np.int32), 1)
    # The table: away from the tiles (more than `table_gap` tiles), not as dark as their faces.
    # (A distance, not a dilation: a tile-wide round kernel costs as much as the rest of the search.)
    near = cv2.distanceTransform(1 - tile_mask, cv2.DIST_L2, cv2.DIST_MASK_PRECISE) <= cfg.table_gap * t
    faces = light[tile_mask > 0]
    dark = float(np.percentile(faces, 25)) * cfg.dark_ratio + cfg.dark_margin if faces.size else 60.0
    table = ~near & (light > dark)
    if table.sum() < cfg.min_table_share * table.size:
        return None, lat, t
    a0, b0 = float(np.median(red[table])), float(np.median(yellow[table]))
    apart = np.hypot(red - a0, yellow - b0)
    spread = float(np.percentile(apart[table], 90))
    # Skin's hue: red and yellow (a* and b* both above grey), unlike a blue, green or purple table.
    skin = (red > 128 + cfg.min_skin_red) & (yellow > 128 + cfg.min_skin_yellow)
    foreign = skin & (apart > max(cfg.min_apart, cfg.apart_spread * spread)) & (light > dark)
    foreign = foreign.astype(np.uint8)
    k = max(1, int(round(cfg.min_width * t)))
    foreign = cv2.morphologyEx(foreign, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(foreign, connectivity=8)
    blob = np.zeros((height, width), bool)
    for n in range(1, count):
        x, y, w, h, area = stats[n]
        if area < cfg.min_area * t * t:
            continue
        if x > 0 and y > 0 and x + w < width and y + h < height:
            continue  # not from the photo's edge
        ys, xs = np.nonzero(labels == n)
        points = np.column_stack([xs, ys]).astype(np.float32)
        length = max(cv2.minAreaRect(points)[1])
        hull = cv2.contourArea(cv2.convexHull(points))
        # A limb: long, about a finger wide all along, and smooth-edged (most of its hull filled),
        # not a patch of table lit differently, ragged with its grain.
        if length < cfg.min_length * t or area > cfg.max_width * t * length or area < cfg.min_solidity * hull:
            continue
        blob |= labels == n
    return (blob if blob.any() else None), lat, t


# sRGB (D65) to CIE XYZ, each row divided by the white's X, Y or Z: rows X/Xn, Y, Z/Zn; columns B, G, R.
_BGR_TO_XYZN = (
    (0.180423 / 0.950456, 0.357580 / 0.950456, 0.412453 / 0.950456),
    (0.072169, 0.715160, 0.212671),
    (0.950227 / 1.088754, 0.119193 / 1.088754, 0.019334 / 1.088754),
)


def _lab(bgr):
    """CIELAB of an 8-bit BGR image in OpenCV's 8-bit scaling (L * 255 / 100, a + 128, b + 128), as
    float32 planes. Computed here: OpenCV's own conversion builds its tables on first use, about
    0.3 s of CPU in every process that reads a photo, more than the whole search."""
    import numpy as np

    xyz = to_linear(bgr) @ np.asarray(_BGR_TO_XYZN, np.float32).T
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16.0 / 116.0)
    light = np.where(xyz[..., 1] > 0.008856, 116.0 * f[..., 1] - 16.0, 903.3 * xyz[..., 1]) * (255.0 / 100.0)
    red = 500.0 * (f[..., 0] - f[..., 1]) + 128.0
    yellow = 200.0 * (f[..., 1] - f[..., 2]) + 128.0
    return light.astype(np.float32), red.astype(np.float32), yellow.astype(np.float32)


def _cells_under(blob, lat: Lattice, t: float, tile: float, tiles: list[Cell], asked: list[Cell], cfg: OccluderConfig):
    """The cells beside the tiles that `blob` covers in part."""
    import cv2
    import numpy as np

    height, width = blob.shape
    have = set(tiles) | set(asked)
    reach = cv2.distanceTransform((~blob).astype(np.uint8), cv2.DIST_L2, cv2.DIST_MASK_PRECISE) <= cfg.reach * t
    steps = np.linspace(-0.4, 0.4, 5) * tile
    grid_pts = np.array([(a, b) for a in steps for b in steps])

    def covered(cell) -> bool:
        r, c = cell
        pts = np.round(lat.to_image(grid_pts + (c, r))).astype(int)
        inside = (pts[:, 0] >= 0) & (pts[:, 0] < width) & (pts[:, 1] >= 0) & (pts[:, 1] < height)
        return bool(inside.any()) and float(reach[pts[inside, 1], pts[inside, 0]].mean()) >= cfg.min_cover

    # From the tiles read, along the blob: a finger laid along a line of tiles hides several.
    found: list[Cell] = []
    seen = set(have)
    edge = list(have)
    for _ in range(cfg.max_run):
        step = []
        for r, c in edge:
            for cell in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if cell not in seen:
                    seen.add(cell)
                    if covered(cell):
                        step.append(cell)
        found += step
        edge = step
    return found
