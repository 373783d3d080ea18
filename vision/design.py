"""Stage 4, classify the design: which of the six shapes a tile carries.

The input is a tile's patch, resampled grid-aligned (see lattice.cell_patch),
so a square's sides run along the patch's axes and a diamond's corners point
along them, whatever the photo's rotation. The design is segmented from the
black face by Otsu's threshold on brightness (taken from the tile's middle,
where the table cannot show), the component covering the middle kept, and
described by four numbers that do not depend on its size or colour:

- solidity: area / convex hull area (the stars are hollow between their points);
- roundness: shortest / longest ray from the centroid to the outline;
- axis harmonic: the cos(4 phi) part of the outline's radius, positive when
  the design reaches out along the grid axes (diamond, clover), negative when
  it reaches for the corners (square, four-point star);
- eight harmonic: the strength of the 8-fold part (eight-point star).

Blur moves every design's numbers along a path towards the circle's (the
stars' points round off, the clover's notches fill in). So each design is a
curve: from the printed tile's measured numbers (sharp) through the numbers
of the same shape drawn and blurred by up to 6% of a tile. A tile gets the
design whose curve passes nearest, scaled by how far each number may
wander. The shapes (1 circle, 2 clover, 3 diamond, 4 square, 5 four-point
star, 6 eight-point star) are also what vision.synthetic draws.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Any

from vision.config import DesignConfig
from vision.errors import ClassifyError

# The printed designs' outlines in tile units (side 1, centred on 0) come from
# companion.games.pivit_tiles.artwork: one source for the camera, its synthetic photos and
# the phones' pictures.

# (solidity, roundness, axis harmonic, eight harmonic) of each printed design, sharp.
PROTOTYPES: dict[str, tuple[float, float, float, float]] = {
    "1": (0.985, 0.93, 0.0, 0.0),
    "2": (0.80, 0.43, 0.153, 0.052),
    "3": (0.965, 0.70, 0.071, 0.021),
    "4": (0.97, 0.69, -0.073, 0.022),
    "5": (0.49, 0.33, -0.232, 0.084),
    "6": (0.52, 0.455, 0.0, 0.17),
}
# How far a feature may wander before a design looks like another: about half
# the gap between the closest prototypes in that feature.
SCALES = (0.06, 0.06, 0.035, 0.04)


# Blur, as a Gaussian sigma in tiles: a far or shaky shot rounds the stars' points
# and fills the clover's notches, moving every design towards the circle.
BLUR_STEPS = (0.0, 0.012, 0.024, 0.036, 0.048, 0.06)


def design_polygons(design: str) -> list[Any]:
    """A printed design as polygons in tile units (N x 2 arrays) whose union is the shape. Raises ValueError."""
    import numpy as np

    from companion.games.pivit_tiles.artwork import design_polygons as outlines

    return [np.array(poly) for poly in outlines(design)]


def draw_design(design: str, size: int, blur: float = 0.0, face: int = 30, paint: int = 230):
    """A grey tile patch (size x size, uint8) of a printed design, blurred by `blur` tiles."""
    import cv2
    import numpy as np

    big = 4 * size
    canvas = np.full((big, big), face, np.uint8)
    for poly in design_polygons(design):
        pts = np.round((poly * big + big / 2) * 16).astype(np.int32)
        cv2.fillPoly(canvas, [pts], paint, cv2.LINE_AA, shift=4)
    patch = cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)
    if blur > 0:
        patch = cv2.GaussianBlur(patch, (0, 0), blur * size)
    return patch


# Each design's features from sharp (the measured prototype) to blurred, one row per
# BLUR_STEPS entry: compute_prototype_curves() with the shapes above. Kept as a table
# so a read does not redraw the designs; tests/vision check the two agree.
PROTOTYPE_CURVES: dict[str, tuple[tuple[float, float, float, float], ...]] = {
    "1": ((0.985, 0.930, 0.000, 0.000), (0.986, 0.933, 0.000, 0.000), (0.986, 0.934, 0.003, 0.000), (0.985, 0.930, 0.001, 0.000), (0.985, 0.934, 0.002, -0.002), (0.983, 0.931, 0.001, 0.000)),
    "2": ((0.800, 0.430, 0.153, 0.052), (0.796, 0.439, 0.156, 0.051), (0.806, 0.469, 0.154, 0.049), (0.816, 0.520, 0.146, 0.043), (0.833, 0.582, 0.135, 0.033), (0.842, 0.635, 0.129, 0.022)),
    "3": ((0.965, 0.700, 0.071, 0.021), (0.965, 0.700, 0.071, 0.021), (0.965, 0.699, 0.069, 0.020), (0.965, 0.724, 0.067, 0.017), (0.966, 0.751, 0.061, 0.012), (0.965, 0.750, 0.057, 0.011)),
    "4": ((0.970, 0.690, -0.073, 0.022), (0.970, 0.700, -0.073, 0.022), (0.970, 0.718, -0.071, 0.021), (0.968, 0.735, -0.067, 0.017), (0.969, 0.738, -0.068, 0.016), (0.966, 0.760, -0.062, 0.011)),
    "5": ((0.490, 0.330, -0.232, 0.084), (0.529, 0.351, -0.226, 0.079), (0.574, 0.389, -0.217, 0.074), (0.618, 0.406, -0.207, 0.066), (0.670, 0.442, -0.188, 0.055), (0.720, 0.503, -0.166, 0.045)),
    "6": ((0.520, 0.455, 0.000, 0.170), (0.559, 0.481, 0.005, 0.158), (0.629, 0.556, 0.005, 0.134), (0.707, 0.612, 0.003, 0.103), (0.800, 0.697, 0.004, 0.071), (0.887, 0.790, 0.010, 0.040)),
}


def compute_prototype_curves() -> dict[str, Any]:
    """Each design's features from sharp to blurred (len(BLUR_STEPS) x 4 arrays).

    The sharp end is the printed tile's measured prototype; the rest follows
    it by how blur moves the drawn design's features.
    """
    import numpy as np

    curves = {}
    for design, proto in PROTOTYPES.items():
        drawn = np.array([design_features(design_mask(draw_design(design, 64, b))) for b in BLUR_STEPS])
        curves[design] = np.array(proto) + drawn - drawn[0]
    return curves


_scaled_curves: dict[str, Any] | None = None


def _curves_in_scale_units() -> dict[str, Any]:
    global _scaled_curves
    if _scaled_curves is None:
        import numpy as np

        _scaled_curves = {d: np.array(c) / np.array(SCALES) for d, c in PROTOTYPE_CURVES.items()}
    return _scaled_curves


@dataclass
class DesignReading:
    design: str  # "1".."6"
    confidence: float  # 0 (a tie between two designs) to 1
    mask: Any  # uint8 patch-sized array, 1 on the design
    features: tuple[float, float, float, float]
    centre: tuple[float, float] = (0.0, 0.0)  # the design's centroid in the patch, (x, y) pixels


def design_mask(patch, config: DesignConfig | None = None):
    """The design's pixels in a tile patch (uint8, 1 on the design). Raises ClassifyError if none."""
    import cv2
    import numpy as np

    cfg = config or DesignConfig()
    size = patch.shape[0]
    value = brightest(patch)
    margin = int(round(size * (1 - cfg.inner) / 2))
    inner = value[margin : size - margin, margin : size - margin]
    # The threshold between face and paint comes from the tile's middle, where the
    # table (a gap between tiles, a tile nudged off its place) cannot show.
    c0 = int(round(size * (1 - cfg.core) / 2))
    core = value[c0 : size - c0, c0 : size - c0]
    threshold, _ = cv2.threshold(np.ascontiguousarray(core), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # One histogram of the 8-bit values: how many lie above the threshold, and both medians
    # below (np.median's own numbers, without two sorts).
    cut = int(threshold) + 1  # the values above the threshold
    running = np.cumsum(np.bincount(inner.ravel(), minlength=256)).tolist()
    if running[cut - 1] in (0, running[-1]):  # all above it, or none
        raise ClassifyError("no design on the tile")
    above = inner > threshold
    # A design is much brighter than the black face it is printed on.
    paint, face = _median_of_running(running, cut, 256), _median_of_running(running, 0, cut)
    if paint - face < cfg.min_contrast or paint < cfg.min_ratio * face:
        raise ClassifyError("no design on the tile")
    mask = np.zeros(value.shape, np.uint8)
    mask[margin : size - margin, margin : size - margin] = above
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count < 2:
        raise ClassifyError("no design on the tile")
    # Every design covers its tile's middle: take the component covering most of it,
    # else (a design that lost its middle to glare) the one nearest, big ones first.
    mid = slice(int(size * 0.4), int(size * 0.6) + 1)
    covering = np.bincount(labels[mid, mid].ravel(), minlength=count)[1:]
    if covering.max() > 0:
        label = 1 + int(np.argmax(covering))
    else:
        dist = np.linalg.norm(centroids[1:] - (size - 1) / 2, axis=1) - 0.5 * np.sqrt(stats[1:, cv2.CC_STAT_AREA])
        label = 1 + int(np.argmin(dist))
    mask = (labels == label).astype(np.uint8)
    if stats[label, cv2.CC_STAT_AREA] < 0.02 * size * size:
        raise ClassifyError("no design on the tile")
    # Specks of glare or dirt inside a design are part of it.
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 1, thickness=cv2.FILLED)
    return filled


def brightest(patch):
    """A patch's brightest channel (HSV value), or the patch itself if it has one: patch.max(axis=2),
    several times faster on a tile's small patch."""
    import numpy as np

    if patch.ndim != 3:
        return patch
    return np.maximum(np.maximum(patch[:, :, 0], patch[:, :, 1]), patch[:, :, 2])


def _median_of_running(running: list[int], start: int, stop: int) -> float:
    """np.median of the whole numbers start .. stop - 1, each counted as often as `running` says
    (running[i]: how many of all the values are i or less); the mean of the middle two for an
    even count."""
    base = running[start - 1] if start else 0
    total = running[stop - 1] - base if stop > start else 0
    low = bisect.bisect_right(running, base + (total - 1) // 2, start, stop)
    high = bisect.bisect_right(running, base + total // 2, start, stop)
    return (low + high) / 2


def blur_of(patch) -> float | None:
    """How blurred a tile's patch is: the width of its design's edges, as a fraction of the tile.

    A sharp step of contrast C blurred by a Gaussian of width s has a steepest
    slope of C / (s sqrt(2 pi)), so s is read back from the design's contrast
    (bright paint over black face) and its steepest slopes. Across and along
    the photo separately, the worse of the two: a phone moved while the
    shutter was open smears one way only. A sharp tile measures about 0.015
    (its resampling), a photo blurred by 5% of a tile about 0.05. None when
    the patch shows too little contrast to say.
    """
    import numpy as np

    value = brightest(patch)
    n = value.shape[0]
    m = n // 8  # the tile's own outline (against any table) stays out
    # A photo's patch is bytes: its percentiles come from counts of its values, no sorting.
    counted = value.dtype == np.uint8 and m >= 1
    if not counted:
        value = value.astype(np.float32)
    middle = value[m:n - m, m:n - m]
    if counted:
        low, high = percentiles_of_counts(np.bincount(middle.ravel(), minlength=256), (5, 95))
    else:
        low, high = percentiles(middle, (5, 95))
    contrast = float(high - low)
    if contrast < 40.0:
        return None
    steepest = _steepest(value, m, counted)
    return contrast / (max(steepest, 1e-6) * math.sqrt(2 * math.pi)) / n


def _steepest(value, m: int, counted: bool) -> float:
    """The lesser of the 99th percentiles of the brightness's slopes across and along a patch,
    `m` pixels in from its edges (np.gradient's central differences, only where looked at);
    `counted`: `value` is bytes, and the percentiles come from counts."""
    import numpy as np

    n = value.shape[0]
    if counted:
        # The central differences (a - b) / 2 of bytes are halves of whole numbers, counted by |a - b|.
        wide = value.astype(np.int16)
        inside = slice(m, n - m)
        return min(percentiles_of_counts(np.bincount(np.abs(d).ravel(), minlength=256), (99,), unit=0.5)[0] for d in (
            wide[inside, m + 1:n - m + 1] - wide[inside, m - 1:n - m - 1],
            wide[m + 1:n - m + 1, inside] - wide[m - 1:n - m - 1, inside]))
    if m >= 1:
        inside = slice(m, n - m)
        gx = (value[inside, m + 1:n - m + 1] - value[inside, m - 1:n - m - 1]) / 2.0
        gy = (value[m + 1:n - m + 1, inside] - value[m - 1:n - m - 1, inside]) / 2.0
    else:
        gy, gx = np.gradient(value)
    return min(percentiles(np.abs(g), (99,))[0] for g in (gx, gy))


def percentiles_of_counts(counts, qs, unit: float = 1.0) -> list[float]:
    """percentiles() of the values 0, unit, 2 unit, ... counted by `counts` (whole-number counts of
    bytes, say): the same numbers, found in their running count instead of by sorting them."""
    import numpy as np

    below = np.cumsum(counts)
    n = int(below[-1])
    out = []
    for q in qs:
        r = q / 100 * (n - 1)
        lo = int(math.floor(r))
        hi = min(lo + 1, n - 1)
        a = int(np.searchsorted(below, lo, side="right")) * unit
        b = int(np.searchsorted(below, hi, side="right")) * unit
        out.append(a + (b - a) * (r - lo))
    return out


def percentiles(values, qs) -> list[float]:
    """np.percentile(values, qs) (linear interpolation) from one partial sort: several times faster
    on the small arrays of a tile, where np.percentile's own overhead is most of its cost."""
    import numpy as np

    flat = np.ravel(values)
    n = flat.size
    ranks = [q / 100 * (n - 1) for q in qs]
    below = sorted({int(math.floor(r)) for r in ranks} | {min(int(math.floor(r)) + 1, n - 1) for r in ranks})
    part = np.partition(flat, below)
    out = []
    for r in ranks:
        lo = int(math.floor(r))
        hi = min(lo + 1, n - 1)
        a, b, t = float(part[lo]), float(part[hi]), r - lo
        out.append(a + (b - a) * t)
    return out


def design_features(mask) -> tuple[float, float, float, float]:
    """(solidity, roundness, axis harmonic, eight harmonic) of a design mask."""
    import cv2
    import numpy as np

    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contour = max(contours, key=cv2.contourArea)
    area = float(mask.sum())
    outline = cv2.convexHull(contour)
    hull = cv2.contourArea(outline) + 0.5 * cv2.arcLength(outline, True)
    solidity = min(1.0, area / max(hull, 1.0))
    m = cv2.moments(mask, binaryImage=True)
    cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
    pts = contour[:, 0, :].astype(np.float64)
    # Pixel centres lie half a pixel inside the outline.
    phi = np.arctan2(pts[:, 1] - cy, pts[:, 0] - cx)
    r = np.hypot(pts[:, 1] - cy, pts[:, 0] - cx) + 0.5
    bins = 72
    idx = ((phi + math.pi) / (2 * math.pi) * bins).astype(int) % bins
    profile = np.zeros(bins)
    np.maximum.at(profile, idx, r)
    empty = profile == 0
    if empty.all():
        return (solidity, 1.0, 0.0, 0.0)
    if empty.any():
        known = np.nonzero(~empty)[0]
        profile[empty] = np.interp(np.nonzero(empty)[0], known, profile[known], period=bins)
    cos4, exp8 = _harmonics(bins)
    mean = profile.mean()
    axis4 = float((profile * cos4).mean() / mean)
    eight = float(abs((profile * exp8).mean()) / mean)
    return (solidity, float(profile.min() / profile.max()), axis4, eight)


_harmonic_tables: dict[int, Any] = {}


def _harmonics(bins: int):
    """(cos 4a, exp 8ia) at the middles of `bins` angle bins from -pi to pi, computed once."""
    import numpy as np

    if bins not in _harmonic_tables:
        angles = (np.arange(bins) + 0.5) / bins * 2 * math.pi - math.pi
        _harmonic_tables[bins] = (np.cos(4 * angles), np.exp(8j * angles))
    return _harmonic_tables[bins]


def classify_design(patch, config: DesignConfig | None = None) -> DesignReading:
    """The design on a grid-aligned tile patch. Raises ClassifyError if there is none."""
    import cv2

    mask = design_mask(patch, config)
    features = design_features(mask)
    design, confidence = nearest_design(features)
    m = cv2.moments(mask, binaryImage=True)
    # Moments count pixel centres from 0; the patch's middle is at size / 2 in pixel edges.
    centre = (m["m10"] / m["m00"] + 0.5, m["m01"] / m["m00"] + 0.5) if m["m00"] else (patch.shape[1] / 2, patch.shape[0] / 2)
    return DesignReading(design, confidence, mask, features, centre)


def nearest_design(features) -> tuple[str, float]:
    """The design whose sharp-to-blurred curve passes nearest `features`, and a confidence from the runner-up."""
    import numpy as np

    f = np.asarray(features, dtype=np.float64) / np.array(SCALES)
    designs, starts, a, ab, ab2 = _curve_segments()
    # The distance to each design's curve: to every segment of every curve at once, the nearest per design.
    t = np.clip(((f - a) * ab).sum(axis=1) / ab2, 0.0, 1.0)
    nearest = a + t[:, None] * ab
    by_design = np.minimum.reduceat(np.sqrt(((f - nearest) ** 2).sum(axis=1)), starts)
    dists = sorted(zip(by_design.tolist(), designs))
    (d1, best), (d2, _) = dists[0], dists[1]
    return best, _margin(d1, d2)


_segments = None


def _curve_segments():
    """(designs, index of each design's first segment, segment starts, segment vectors, their squared
    lengths floored) of all the designs' curves in scale units, one array each, made once."""
    global _segments
    if _segments is None:
        import numpy as np

        designs, starts, a, ab = [], [], [], []
        for design, vertices in _curves_in_scale_units().items():
            designs.append(design)
            starts.append(sum(len(x) for x in a))
            a.append(vertices[:-1])
            ab.append(vertices[1:] - vertices[:-1])
        a, ab = np.vstack(a), np.vstack(ab)
        _segments = (designs, np.array(starts), a, ab, np.maximum((ab * ab).sum(axis=1), 1e-12))
    return _segments


def _margin(d1: float, d2: float) -> float:
    """1 when the best is much nearer than the runner-up, 0 at a tie."""
    if d1 + d2 == 0:
        return 1.0
    return max(0.0, min(1.0, (d2 - d1) / (d2 + d1)))
