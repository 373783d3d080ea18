"""Something over the grid (a finger, a hand): the lattice cells it may hide a tile under.

A finger reaching over the tiles hides a tile, or part of one, without
leaving anything the lattice's cell rules can read: its cell looks empty, or
shows only a strip of black beside its neighbours, like a thick tile's side
seen at an angle. The finger itself is found instead:

- skin's hue is red-yellow (CIELAB a* and b* above grey), and its colour
  stands apart from the table's (the median of the table seen more than a
  tile away from the tiles and outside the cells already asked about, by
  more than the table's own spread: the design of a tile asked about is no
  table); it is not
  as dark as the tiles' faces. A limb already standing apart from the
  table's median is left out of the table's sample first: a finger lying
  where the table is sampled would otherwise set the table's spread itself;
- it comes in from an edge of the photo: the blob of such pixels touches the
  photo's border, unless it is at least `min_free_length` tiles long (a
  finger whose hand is out of view of a photo taken from far);
- it is a limb, not a fleck, a printed line or a patch of table lit
  differently: at least `min_length` tiles long, wider than a printed line
  and at most about a tile wide all along (on average, and nowhere thicker
  than `max_thickness`: a wedge of table in a corner of the photo is not),
  its outline smooth (it fills most of its convex hull, and its outline is
  hardly longer than the hull's: a patch of grain standing apart is ragged).

Every lattice cell beside the tiles (or beside a cell already asked about)
that the blob covers in part becomes "a tile may be missing here", and from
those the cells next along it, up to `max_run` cells out: a finger laid along
a line of tiles hides several. The read tiles are left to their own
confidences.

A finger of the table's own hue (a pale finger on a pale wood) is found by
its texture when nothing stands apart so: wood has grain, fine detail
running one way, and a finger none; skin-hued pixels standing apart by part
of the table's spread whose grain is under the table's least make limbs by
the same rules. Last, by its lightness: a finger much lighter or darker than
the table round it steps from it on both sides, where a lamp's light is a
ramp and the edge of a lighter patch steps on one side only. Last of all, by
its hue: a finger redder than a wood lit unevenly, whose lamp-lit side moves
the wood's colour along its own hue (not across it) and sets its spread; a
limb found so must reach the photo's edge (a redder streak of a plank lies
anywhere). On a table of skin's hue, a limb standing apart whose colour lies
along the table's hue is the table's own light (a lighter streak, a shaded
strip), not a finger.
Not found: a finger of the colour and lightness of a table without grain, or
one too blurred to stand apart.
"""
from __future__ import annotations

import math

from vision.colour import to_linear
from vision.config import OccluderConfig
from vision.design import array_median, percentile
from vision.lattice import Lattice

Cell = tuple[int, int]


def covered_cells(image, lattice: Lattice, tiles: list[Cell], asked: list[Cell],
                  config: OccluderConfig | None = None, glimpsed=()) -> list[Cell]:
    """Lattice cells beside or among `tiles` (the cells read) that something coming in from the
    photo's edge covers in part; none of `asked` (cells already asked about). `glimpsed`: cells
    showing a glimpse of a tile's face (lattice._glimpsed)."""
    cfg = config or OccluderConfig()
    if not tiles:
        return []
    blob, lat, t = find_occluder(image, lattice, tiles, cfg, asked, glimpsed)
    if blob is None:
        return []
    return _cells_under(blob, lat, t, lattice.tile, tiles, asked, cfg)


def find_occluder(image, lattice: Lattice, tiles: list[Cell], cfg: OccluderConfig, asked=(), glimpsed=()):
    """(mask of the occluder in a scaled copy of `image` or None, the lattice in that copy, a tile's side there).
    `asked`: cells already asked about, left out of the table's sample; `glimpsed`: cells showing a
    glimpse of a tile's face (lattice._glimpsed)."""
    import cv2
    import numpy as np

    tile_px = lattice.pitch * lattice.tile
    small, k = reduced(image, tile_px / cfg.work_tile_px)
    t = tile_px / k
    height, width = small.shape[:2]
    lat = lattice.scaled(1.0 / k)
    light, red, yellow = _lab(small)

    # The tiles read, a little enlarged: the table is sampled away from them, their faces' level
    # says what is too dark to be skin.
    grow = lattice.tile / 2 + cfg.tile_margin
    tile_mask = _squares(lat, tiles, grow, (height, width))
    # The table: away from the tiles (more than `table_gap` tiles), not as dark as their faces.
    # (A distance, not a dilation: a tile-wide round kernel costs as much as the rest of the search.)
    near = cv2.distanceTransform(1 - tile_mask, cv2.DIST_L2, cv2.DIST_MASK_PRECISE) <= cfg.table_gap * t
    faces = light[tile_mask > 0]
    dark = float(percentile(faces, 25)) * cfg.dark_ratio + cfg.dark_margin if faces.size else 60.0
    bare = (tile_mask == 0) & (light > dark)
    table = ~near & bare
    if len(asked):
        # Nor in the cells asked about, which may hold tiles: their designs set the table's spread
        # (occluded 113, a close-up on a white table, two tiles read and three cells asked about:
        # the spread 27-45 with the asked tiles' purple designs in it, the finger 27 from the
        # table's median; 1.5 without them). Only their squares: a table_gap around each took
        # a close-up's table below min_table_share (occluded 164, its finger not found).
        asked_mask = _squares(lat, asked, grow, (height, width)) == 0
        table &= asked_mask
        bare &= asked_mask
    if table.sum() < cfg.min_table_share * table.size:
        return None, lat, t
    # Skin's hue: red and yellow (a* and b* both above grey), unlike a blue, green or purple table.
    skin = (red > 128 + cfg.min_skin_red) & (yellow > 128 + cfg.min_skin_yellow) & (light > dark)
    width_px = max(1, int(round(cfg.min_width * t)))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (width_px, width_px))

    def apart_from(sample):
        a0, b0 = float(array_median(red[sample])), float(array_median(yellow[sample]))
        apart = np.hypot(red - a0, yellow - b0)
        return apart, float(percentile(apart[sample], cfg.spread_percentile))

    apart, spread = apart_from(table)
    if cfg.loose_apart > 0:
        # A finger lying where the table is sampled: over a tenth of the sample, it sets the table's
        # spread, and stands apart from nothing. Limbs standing apart from the table's median by
        # loose_apart alone are left out of the sample first.
        loose = cv2.morphologyEx((skin & (apart > cfg.loose_apart)).astype(np.uint8), cv2.MORPH_OPEN, disc)
        limbs, count = _limbs(loose, t, cfg)
        # At most a hand's fingers: more bands than that are the table's own pattern (a striped
        # cloth repeats its band across the photo: cloth 152's ten), which the sample must keep.
        if (0 < count <= cfg.max_loose_limbs
                and (table & ~limbs).sum() >= cfg.min_table_share * table.size):
            apart, spread = apart_from(table & ~limbs)
    threshold = max(cfg.min_apart, cfg.apart_spread * spread)
    grains = []  # (_grain's plane, the table's level of it), measured once: both texture searches use them

    def grain():
        if not grains:
            plane = _grain(image, k, cfg)
            grains.append((plane, float(percentile(plane[table], cfg.grain_percentile))))
        return grains[0]

    foreign = cv2.morphologyEx((skin & (apart > threshold)).astype(np.uint8), cv2.MORPH_OPEN, disc)
    blob, count = _limbs(foreign, t, cfg)
    if count and cfg.apart_off_hue:
        # On a table of skin's own hue, a limb along the table's hue (a lighter streak of its wood, a
        # shaded strip along the photo's edge) stands apart by its lightness and saturation only. Left
        # out, the searches for less are not made: what stands apart most is the table's own light.
        blob, count = _off_table_hue(blob, count, red, yellow, table, cfg)
        if not count:
            return None, lat, t
    if not count and cfg.smooth_spread > 0:
        candidate = skin & (apart > cfg.smooth_spread * spread)
        opened = cv2.morphologyEx(candidate.astype(np.uint8), cv2.MORPH_OPEN, disc)
        if _may_hold_limb(opened, t, cfg):
            blob, count = _smooth_limbs(*grain(), candidate, disc, t, cfg)
            if not count and len(glimpsed):
                blob, count = _over_glimpses(opened, lat, t, lattice.tile, glimpsed, cfg)
    if not count and cfg.still_grain > 0:
        # A finger of the table's hue and lightness on a grained table: no grain at all along it.
        blob, count = _still_limbs(*grain(), skin, t, cfg)
    if not count and cfg.step_spread > 0:
        # The table's level beside the tiles too (their shadows darken it there; sampled a tile away
        # only, the tiles' shadowed ring stepped down from it like a darker finger).
        blob, count = _step_limbs(light, skin, bare, disc, t, cfg)
    if not count and cfg.hue_spread > 0:
        # A finger off the table's hue, though no farther from its median than the table's own spread.
        blob, count = _hue_limbs(red, yellow, skin, table, disc, t, cfg)
    return (blob if count else None), lat, t


def _hue_limbs(red, yellow, skin, table, disc, t: float, cfg: OccluderConfig):
    """(the limbs of `skin` (skin's hue, a bool mask on the shrunk photo) whose hue is off the table's
    towards red, a bool mask; how many): a finger redder than a wood of its own lightness and of
    about its colour (occluded 383: a* 12, b* 19 on a wood of 4, 17). A lamp's pool or the wood's lighter
    grain makes the wood lighter and more saturated, its colour moving along its own hue from grey,
    and sets the table's spread about its median (7.6 in 383, the finger 7.5-9 from it); the
    colour's distance across that hue, from the line through grey and the table's median a*, b*,
    is the wood's own spread only (1.1 in 383; the finger 6.4-7.7). Kept where it is over
    `hue_spread` times the table's `spread_percentile`-th percentile of it and `min_across`, on the
    red side at the limb's median, and where the table round the limb is not as far across (a lamp
    warming half the table turns its hue there: the edge of that half is off hue on both of its
    sides). A table of no colour (its median under `min_hue_chroma` from grey) has no hue to be off.
    With `hue_from_edge`, only limbs reaching the photo's edge: a redder streak of a plank lies
    anywhere in the photo, a finger found by its hue alone comes in from the edge."""
    import cv2
    import numpy as np
    from dataclasses import replace

    redward = _redward(red, yellow, table, cfg)
    if redward is None:
        return np.zeros(red.shape, bool), 0
    across = np.abs(redward)
    threshold = max(cfg.min_across, cfg.hue_spread * float(percentile(across[table], cfg.spread_percentile)))
    limbs, count = _limbs(cv2.morphologyEx((skin & (across > threshold)).astype(np.uint8), cv2.MORPH_OPEN, disc),
                          t, replace(cfg, min_free_length=0.0) if cfg.hue_from_edge else cfg)
    if not count:
        return limbs, count
    # Redder than the table: skin's hue is redder than a wood's (the fingers of occluded 0-383 found so,
    # 4.0-14.1 towards red at their median); a lamp's warm pool turns the wood yellower (tinted 12: a
    # wedge beside the tiles, 8.4 towards yellow, the table beyond it as near its hue as round a finger).
    if cfg.hue_redward:
        limbs, count = _parts_over(limbs, redward, threshold)
    return _apart_on_both_sides(limbs, across, table, threshold, t, cfg)


def _off_table_hue(limbs, count: int, red, yellow, table, cfg: OccluderConfig):
    """(the parts of `limbs` (a bool mask of `count` limbs) whose colour lies off the table's hue, a
    bool mask; how many): on a table of skin's hue, a part whose median distance across the table's
    hue (_redward) is under `min_across` and under the table's `spread_percentile`-th percentile of
    that distance is the table's own colour, lighter or more saturated (a streak of its wood, a
    shaded strip along the photo's edge). On any other table, every part."""
    import numpy as np

    redward = _redward(red, yellow, table, cfg, skin_hued=True)
    if redward is None:
        return limbs, count
    across = np.abs(redward)
    return _parts_over(limbs, across, min(cfg.min_across, float(percentile(across[table], cfg.spread_percentile))))


def _parts_over(limbs, measure, threshold: float):
    """(the parts of `limbs` (a bool mask) whose median of `measure` (a plane) is over `threshold`, a
    bool mask; how many)."""
    import cv2
    import numpy as np

    parts, labels = cv2.connectedComponents(limbs.astype(np.uint8))
    kept = np.zeros(limbs.shape, bool)
    count = 0
    for part in range(1, parts):
        component = labels == part
        if float(array_median(measure[component])) > threshold:
            kept |= component
            count += 1
    return kept, count


def _redward(red, yellow, table, cfg: OccluderConfig, skin_hued: bool = False):
    """How far each pixel's colour lies across the table's hue towards red (a float plane; negative:
    towards yellow or blue), from the line through grey and the median a*, b* of the table (`table`, a
    bool mask); None for a table nearer grey than `min_hue_chroma`, which has no hue, and with
    `skin_hued` for a table not of skin's hue (a* and b* above grey by `min_skin_red`, `min_skin_yellow`)."""
    a0, b0 = float(array_median(red[table])) - 128.0, float(array_median(yellow[table])) - 128.0
    chroma = math.hypot(a0, b0)
    if chroma < cfg.min_hue_chroma or (skin_hued and (a0 <= cfg.min_skin_red or b0 <= cfg.min_skin_yellow)):
        return None
    # Signed: towards red (a hue angle below the table's) is positive.
    return (red - 128.0) * (b0 / chroma) - (yellow - 128.0) * (a0 / chroma)


def _step_limbs(light, skin, sample, disc, t: float, cfg: OccluderConfig):
    """(the limbs of skin-hued pixels whose lightness steps from the table's round them, a bool mask;
    how many): a finger of the table's own hue, lighter or darker than it. The table's level is its
    mean lightness within `step_scale` tiles where `sample` (a bool mask: the table, outside the
    tiles' squares) holds it, so a lamp's ramp over the photo is no step; a finger's side is, within
    a pixel or two. Kept where the step is over `step_spread` times the sample's median step (its
    grain, a cloth's weave, the camera's noise; a median, since a finger lying where the table is
    sampled sets a high percentile itself) and `min_step`, lighter or darker all along: a finger is
    one surface. The level is taken again without those pixels: near the photo's edge a finger is
    much of the table round it."""
    import cv2
    import numpy as np

    height, width = light.shape
    # The level is smooth over tiles: measured on a copy shrunk to a few pixels a tile (one blur over
    # two tiles at 12 pixels a tile cost 0.85 ms of CPU on a 1200 x 900 photo; this takes four).
    q = max(1, int(t / cfg.step_tile_px))
    coarse = (max(1, width // q), max(1, height // q))
    sigma = cfg.step_scale * t / q

    def smooth(plane):
        small = cv2.resize(plane, coarse, interpolation=cv2.INTER_AREA)
        return cv2.resize(cv2.GaussianBlur(small, (0, 0), sigma), (width, height), interpolation=cv2.INTER_LINEAR)

    def steps(weights):
        weight = weights.astype(np.float32)
        total = smooth(weight)
        level = smooth(light * weight) / np.maximum(total, 1e-3)
        return np.where(total > cfg.step_support, light - level, 0.0)

    step = steps(sample)
    threshold = max(cfg.min_step, cfg.step_spread * float(array_median(np.abs(step[sample]))))
    step = steps(sample & (np.abs(step) <= threshold))
    blob = np.zeros(light.shape, bool)
    count = 0
    for sign in (1.0, -1.0):
        limbs, n = _limbs(cv2.morphologyEx((skin & (sign * step > threshold)).astype(np.uint8), cv2.MORPH_OPEN, disc),
                          t, cfg)
        if n:
            # Lighter (or darker) than the table on both sides, as a finger lies on it: the edge of
            # a lighter plank or of a lamp's pool steps as far on its other side, where the level
            # has not caught up (tinted 94, 95, 107 at 4 times the median step: the ring's median
            # 0.84-0.98 of the threshold; the fingers of occluded 195, 290, 292, 296: -0.66-0.39).
            kept, n = _apart_on_both_sides(limbs, sign * step, sample, threshold, t, cfg)
            blob |= kept
            count += n
    return blob, count


def _apart_on_both_sides(limbs, measure, sample, threshold: float, t: float, cfg: OccluderConfig):
    """(the parts of `limbs` (a bool mask) round which the table stays near its own level, a bool mask;
    how many): the median of `measure` (a plane, the same measure the limbs stand apart by) over the
    table (`sample`, a bool mask) within `ring_width` tiles of a part is at most `max_ring_step` times
    `threshold`. A finger lies on the table and stands apart from it on both sides; the edge of a
    lighter plank, of a lamp's pool or of its warmer half stands apart on one side only, the table
    beyond it as far off."""
    import cv2
    import numpy as np

    size = max(3, 2 * int(round(cfg.ring_width * t)) + 1)
    ring_disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    blob = np.zeros(limbs.shape, bool)
    count = 0
    parts, labels = cv2.connectedComponents(limbs.astype(np.uint8))
    for part in range(1, parts):
        component = labels == part
        ring = (cv2.dilate(component.astype(np.uint8), ring_disc) > 0) & ~component & sample
        if ring.any() and float(array_median(measure[ring])) <= cfg.max_ring_step * threshold:
            blob |= component
            count += 1
    return blob, count


def _smooth(component, cfg: OccluderConfig) -> bool:
    """Whether `component` (a bool mask) is smooth-edged: it fills most of its convex hull
    (`min_solidity`), and its outline is hardly longer than the hull's (`max_ragged`). A patch of table
    standing apart (a plank's grain, a corner the lens darkens) follows the grain, ragged."""
    import cv2
    import numpy as np

    ys, xs = np.nonzero(component)
    points = np.column_stack([xs, ys]).astype(np.float32)
    if len(xs) < cfg.min_solidity * cv2.contourArea(cv2.convexHull(points)):
        return False
    outline = max(cv2.findContours(component.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0],
                  key=cv2.contourArea)
    return cv2.arcLength(outline, True) <= cfg.max_ragged * cv2.arcLength(cv2.convexHull(outline), True)


def _over_glimpses(opened, lat: Lattice, t: float, tile: float, glimpsed, cfg: OccluderConfig):
    """(the parts of `opened` (a 0/1 mask: skin's hue standing apart from the table by part of its
    spread, opened by a finger's disc) from the photo's edge, large enough for a limb, that cover a
    cell of `glimpsed`, a bool mask; how many). Neither alone is a finger: a lighter plank of the wood
    stands apart so, and a board's printed square beside the tiles looks like a tile's glimpsed face;
    a finger of the wood's own hue over a tile, one side of the tile showing past it, is both."""
    import numpy as np

    blob = np.zeros(opened.shape, bool)
    limbs = 0
    for component, _, _ in _edge_parts(opened, t, cfg, cfg.min_glimpse_patch):
        if any(_share_covered(component, lat, cell, tile, cfg) >= cfg.min_cover for cell in glimpsed):
            blob |= component
            limbs += 1
    return blob, limbs


def _may_hold_limb(opened, t: float, cfg: OccluderConfig) -> bool:
    """Whether `opened` (a 0/1 mask, opened by a finger's disc) has a part large enough for a limb
    (`min_area`) that touches the photo's edge. A limb _smooth_limbs keeps lies inside such a part
    (it opens a subset of the same mask by the same disc), so without one its texture, the costly
    measure, need not be taken: the hues standing apart from a wood in a photo with no finger are
    specks and the tiles' rims."""
    return next(_edge_parts(opened, t, cfg, free=True), None) is not None


def _edge_parts(mask, t: float, cfg: OccluderConfig, inner: float = math.inf, free: bool = False):
    """The parts of `mask` (a 0/1 mask) of at least `min_area` that touch the photo's edge, where a
    limb comes in from, and those of at least `inner` tiles squared anywhere: (a bool mask of the part,
    its area, whether it touches the edge) for each, one at a time. `free`: those inside the photo too
    that may hold a limb `min_free_length` long (at least as large as one `min_width` wide, and as
    long across one way or diagonally)."""
    import cv2

    height, width = mask.shape
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    long = cfg.min_free_length * t if free and cfg.min_free_length > 0 else math.inf
    for n in range(1, count):
        x, y, w, h, area = stats[n]
        edge = bool(x == 0 or y == 0 or x + w >= width or y + h >= height)
        if area >= cfg.min_area * t * t and (edge or area >= inner * t * t
                                             or (area >= long * cfg.min_width * t and max(w, h) * math.sqrt(2) >= long)):
            yield labels == n, area, edge


def _smooth_limbs(grain, level: float, candidate, disc, t: float, cfg: OccluderConfig):
    """(the limbs of `candidate` (a bool mask on the shrunk photo) without the table's grain (`grain`,
    _grain's plane; `level`, its `grain_percentile`-th percentile where the table is sampled), a bool
    mask; how many): a finger of the table's own hue, found by its texture at the photo's own
    resolution. Wood has grain, fine detail running one way; skin, a sleeve or a cup has none, only
    the camera's noise, which runs every way. Each block of the shrunk photo measures how much of its
    fine detail runs one way; a limb is kept where that is under `max_grain` times the table's level.
    A table without grain (laminate, cloth's crossed weave, white) gives no measure: its blocks are as
    free of grain as a finger's."""
    import cv2
    import numpy as np

    smooth = candidate & (grain < cfg.max_grain * level)
    limbs, count = _limbs(cv2.morphologyEx(smooth.astype(np.uint8), cv2.MORPH_OPEN, disc), t, cfg)
    return limbs, count


def _still_limbs(grain, level: float, skin, t: float, cfg: OccluderConfig):
    """(the limbs of `skin` (skin's hue, a bool mask on the shrunk photo) with no grain along them
    (`grain`, _grain's plane; `level`, the table's, as for _smooth_limbs), a bool mask; how many): a
    finger of the table's own hue and lightness on wood, which stands apart from it by nothing but its
    texture (occluded 345, 353: a pale finger on pale wood, its hue within the wood's spread, so
    _smooth_limbs' candidates miss it). Only its middle is free of grain
    (its sides step from the wood), so its limbs are looked for with a narrower disc
    (`still_width`), and must be `still_length` long: a patch of wood whose grain curls away is
    short (wood 338: 2.3 tiles)."""
    import cv2
    import numpy as np
    from dataclasses import replace

    still = skin & (grain < cfg.still_grain * level)
    size = max(2, int(round(cfg.still_width * t)))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    return _limbs(cv2.morphologyEx(still.astype(np.uint8), cv2.MORPH_OPEN, disc), t,
                  replace(cfg, min_width=cfg.still_width, min_length=cfg.still_length))


def _grain(image, k: int, cfg: OccluderConfig):
    """How much of the fine detail of each k x k block of `image` runs one way (a float32 plane the
    size of the photo shrunk by `k`): wood's grain, where skin has only the camera's noise."""
    import cv2
    import numpy as np

    # Three planes the photo's size, each written over once done with (the same arithmetic as a
    # fresh plane for each step): a fresh plane is fresh memory, or memory just left, not in the
    # cache (eight planes: 13.8 ms of CPU a development photo with `vision read`'s malloc settings,
    # three: 10.7; without them each page faulted in anew, 23 ms against 9).
    gray = image[..., 1].astype(np.float32)
    blur = cv2.GaussianBlur(gray, (0, 0), cfg.grain_sigma)
    fine = np.subtract(gray, blur, out=gray)
    gx = cv2.Sobel(fine, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(fine, cv2.CV_32F, 0, 1, dst=blur)
    xy = reduced(np.multiply(gx, gy, out=fine), k)[0]
    xx = reduced(np.multiply(gx, gx, out=gx), k)[0]
    yy = reduced(np.multiply(gy, gy, out=gy), k)[0]
    return np.sqrt(np.sqrt((xx - yy) ** 2 + 4 * xy * xy))  # the structure tensor's excess one way


def _squares(lat: Lattice, cells, half: float, shape):
    """A 0/1 uint8 mask of `shape`: the squares `half` cells from the middles of `cells` on `lat`."""
    import cv2
    import numpy as np

    mask = np.zeros(shape, np.uint8)
    corners = np.array([(-half, -half), (half, -half), (half, half), (-half, half)])
    middles = np.array([(c, r) for r, c in cells], np.float64)
    quads = lat.to_image((middles[:, None, :] + corners).reshape(-1, 2))  # every cell's at once
    for quad in np.round(quads).astype(np.int32).reshape(-1, 4, 2):
        cv2.fillConvexPoly(mask, quad, 1)
    return mask


def _limbs(foreign, t: float, cfg: OccluderConfig):
    """(the parts of `foreign` (a 0/1 mask) shaped like a limb coming in from the photo's edge, a bool
    mask; how many limbs)."""
    import cv2
    import numpy as np

    blob = np.zeros(foreign.shape, bool)
    limbs = 0
    # Parts inside the photo too, those long enough (min_free_length) for a limb whose end is in view.
    for component, area, edge in _edge_parts(foreign, t, cfg, free=True):
        ys, xs = np.nonzero(component)
        length = max(cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))[1])
        # A limb: long, about a finger wide all along; a long one needs not reach the photo's edge.
        if length < cfg.min_length * t or area > cfg.max_width * t * length:
            continue
        if not edge and length < cfg.min_free_length * t:
            continue
        # Nowhere thicker than a finger (the widest disc inside it): a wedge of table in a corner of
        # the photo, lit differently, can have a finger's mean width and be two tiles across at the
        # corner.
        thickness = 2.0 * float(cv2.distanceTransform(component.astype(np.uint8), cv2.DIST_L2, 5).max())
        if thickness > cfg.max_thickness * t:
            continue
        # As wide all along, not a wedge: a stripe of wood cut off by the photo's edge, thin at one
        # end and thick at the other, has a finger's mean width.
        if cfg.max_taper > 0 and thickness * length > cfg.max_taper * area:
            continue
        # Smooth-edged, not a patch of table lit differently, ragged with its grain.
        if not _smooth(component, cfg):
            continue
        blob |= component
        limbs += 1
    return blob, limbs


def reduced(image, factor: float):
    """(`image` shrunk by k, the least whole number at or above `factor` (at least 1), each pixel the
    mean of a k x k block; k). A whole factor: OpenCV's area resampling by one averages blocks, about
    three times faster than by a fraction (rows and columns past the last whole block are left out)."""
    import cv2

    k = max(1, math.ceil(factor))
    if k == 1:
        return image, 1
    height, width = image.shape[:2]
    return cv2.resize(image[:height - height % k, :width - width % k], (width // k, height // k),
                      interpolation=cv2.INTER_AREA), k


# sRGB (D65) to CIE XYZ, each row divided by the white's X, Y or Z: rows X/Xn, Y, Z/Zn; columns B, G, R.
_BGR_TO_XYZN = (
    (0.180423 / 0.950456, 0.357580 / 0.950456, 0.412453 / 0.950456),
    (0.072169, 0.715160, 0.212671),
    (0.950227 / 1.088754, 0.119193 / 1.088754, 0.019334 / 1.088754),
)


def _lab(bgr):
    """CIELAB of an 8-bit BGR image in OpenCV's 8-bit scaling (L * 255 / 100, a + 128, b + 128), as
    float32 planes. Computed here: OpenCV's own conversion builds its tables on first use, about
    0.3 s of CPU in every process that reads a photo, more than the whole search. The sRGB table and
    the matrix go through OpenCV (LUT, transform), the cube roots' linear toe only where it applies:
    half the CPU of the same formulas in numpy alone."""
    import cv2
    import numpy as np

    global _linear_lut, _xyz_matrix
    if _linear_lut is None:
        _linear_lut = np.ascontiguousarray(to_linear(np.arange(256, dtype=np.uint8)).reshape(1, 256), np.float32)
        _xyz_matrix = np.asarray(_BGR_TO_XYZN, np.float32)
    xyz = cv2.transform(cv2.LUT(bgr, _linear_lut), _xyz_matrix)
    f = np.cbrt(xyz)
    toe = xyz <= 0.008856
    f[toe] = 7.787 * xyz[toe] + 16.0 / 116.0
    fx, fy, fz = cv2.split(f)
    y = xyz[..., 1]
    light = 116.0 * fy - 16.0
    toe = y <= 0.008856
    light[toe] = 903.3 * y[toe]
    light *= 255.0 / 100.0
    return light, 500.0 * (fx - fy) + 128.0, 200.0 * (fy - fz) + 128.0


_linear_lut = _xyz_matrix = None


def _share_covered(mask, lat: Lattice, cell: Cell, tile: float, cfg: OccluderConfig) -> float:
    """The share of a grid of points over `cell`'s tile that `mask` (bool) holds, of those inside it (0
    when none is)."""
    import numpy as np

    height, width = mask.shape
    steps = np.linspace(-0.4, 0.4, 5) * tile
    r, c = cell
    pts = np.round(lat.to_image(np.array([(a + c, b + r) for a in steps for b in steps]))).astype(int)
    inside = (pts[:, 0] >= 0) & (pts[:, 0] < width) & (pts[:, 1] >= 0) & (pts[:, 1] < height)
    return float(mask[pts[inside, 1], pts[inside, 0]].mean()) if inside.any() else 0.0


def _cells_under(blob, lat: Lattice, t: float, tile: float, tiles: list[Cell], asked: list[Cell], cfg: OccluderConfig):
    """The cells beside the tiles that `blob` covers in part."""
    import cv2
    import numpy as np

    have = set(tiles) | set(asked)
    reach = cv2.distanceTransform((~blob).astype(np.uint8), cv2.DIST_L2, cv2.DIST_MASK_PRECISE) <= cfg.reach * t

    def covered(cell) -> bool:
        return _share_covered(reach, lat, cell, tile, cfg) >= cfg.min_cover

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
