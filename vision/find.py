"""Stage 1, find the tiles: the centre of every design enclosed in a dark tile.

A tile is a black square with one brighter design in its middle, ringed by a
black margin. Tiles that touch merge into one dark blob, so blobs are not
counted; instead each design is found as a *hole* in the dark mask: a
brighter region that the tile's black margin closes off from the table. Its
centroid is the tile's centre whatever the tile's neighbours, and the lattice
stage fits the grid to these centres.

"Dark" is relative to the table around it: the table's brightness is
estimated at coarse scale with the dark pixels left out, so a lighting
gradient or a soft shadow across the table moves the threshold with it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vision.config import FindConfig
from vision.design import array_median, percentile
from vision.errors import NoTilesError


@dataclass
class Candidates:
    """Possible tile centres in one (work) image."""

    centres: Any  # float64 array N x 2 of (x, y) pixels
    areas: Any  # float64 array N: design hole areas in pixels
    boxes: Any  # int array N x 4: x, y, w, h of each hole
    dark: Any  # uint8 array H x W: 1 where the table is covered by dark tile surface
    strict: Any = None  # the same with dark paints kept out (see dark_masks)
    shapes: Any = None  # float64 array N x 3: each hole's second moments (xx, xy, yy) per pixel of area
    face: Any = None  # float64 array N: dark share of the black face right around each hole (see tile_evidence)
    asymmetry: Any = None  # float64 array N: how far each hole is from a four-fold symmetric shape
    trusted: Any = None  # bool array N: holes that look like a design on a tile (the lattice grows from them)
    masks: Any = None  # the Masks the holes were found in
    # Each hole's face level once measured (face_levels), by index: the plane, the unplaced count and
    # the lattice's checks of designs not trusted each ask for the same holes' levels.
    levels: dict = field(default_factory=dict, repr=False, compare=False)


def work_image(image, config: FindConfig):
    """The image scaled down so its long side is about config.work_long_side; and that scale."""
    import cv2

    long_side = max(image.shape[:2])
    factor = int(round(long_side / config.work_long_side))
    if factor <= 1:
        return image, 1.0
    # A whole-number factor takes OpenCV's fast path for area averaging.
    height, width = image.shape[0] // factor, image.shape[1] // factor
    small = cv2.resize(image[: height * factor, : width * factor], (width, height), interpolation=cv2.INTER_AREA)
    return small, 1.0 / factor


@dataclass
class Masks:
    """What the dark masks are made from, for stages that look at the tiles' faces again."""

    loose: Any  # uint8: 1 where a pixel is much darker than the table around it
    strict: Any  # uint8: the same with dark paints kept out
    value: Any  # uint8: the brightest channel (HSV value), designs of every colour bright in it
    table: Any  # float32: the table's brightness around each pixel (dark pixels left out)
    face: float  # the black faces' brightness (a low percentile of the loose mask's pixels)
    least: Any  # uint8: the darkest channel (value - least is a pixel's chroma, see colour_mask)


def dark_masks(image, config: FindConfig):
    """(loose, strict) uint8 masks, 1 where a pixel is much darker than the table around it.

    `loose` compares each pixel with the local table brightness only. On a
    bright table a dark paint (green, blue) can fall under that threshold too,
    filling its design in. `strict` takes the threshold from the black faces'
    own level instead (a few times above it, and at most a larger share of
    the table), which keeps such designs out and, on a dim table, keeps a
    blurred margin closed. Holes are looked for in both.
    """
    masks = surface_masks(image, config)
    return masks.loose, masks.strict


def surface_masks(image, config: FindConfig, valid=None) -> Masks:
    """The dark masks of `image` with the brightness maps they come from (see dark_masks).

    `valid` (bool, optional) marks the pixels that are part of the photo: the
    others (outside a rectified photo's frame) count neither as table nor as dark.
    """
    import math

    import cv2
    import numpy as np

    from vision.design import percentiles_of_counts

    blue, green, red = cv2.split(image)
    value = cv2.max(cv2.max(blue, green), red)  # HSV value: designs of every colour are bright in it
    least = cv2.min(cv2.min(blue, green), red)
    height, width = value.shape
    sample = value[::4, ::4] if valid is None else value[::4, ::4][valid[::4, ::4]]
    # Percentiles of bytes from their counts: np.median's and np.percentile's numbers without a sort.
    median = percentiles_of_counts(np.bincount(sample.ravel(), minlength=256), (50,))[0] if sample.size else 128.0
    # A whole-number value is under a level exactly when it is under the level rounded up:
    # a byte compare instead of a float one (the same mask).
    free = value >= math.ceil(config.dark_ratio * max(median, 1.0))
    if valid is not None:
        free &= valid
    # Table brightness at coarse scale, a normalised blur that skips dark pixels.
    coarse = max(1, min(height, width) // 96)
    small = cv2.resize(value, (width // coarse, height // coarse), interpolation=cv2.INTER_AREA).astype(np.float32)
    weight = cv2.resize(free.astype(np.float32), (small.shape[1], small.shape[0]), interpolation=cv2.INTER_AREA)
    sigma = max(small.shape) / config.background_cells
    num = cv2.GaussianBlur(small * weight, (0, 0), sigma)
    den = cv2.GaussianBlur(weight, (0, 0), sigma)
    table = np.where(den > 0.02, num / np.maximum(den, 1e-6), median).astype(np.float32)
    table = cv2.resize(table, (width, height), interpolation=cv2.INTER_LINEAR)
    loose = value < config.dark_ratio * table
    if valid is not None:
        loose &= valid
    strict = loose
    face = 0.0
    counts = np.bincount(value[loose], minlength=256)
    if counts.any():
        face = percentiles_of_counts(counts, (25,))[0]
        # A low percentile: dark paints let into `loose` must not raise the faces' level.
        cap = max(config.face_ratio * face, face + config.face_margin * median)
        # Below the cap, but up to a higher share of the table than `loose`: on a dim
        # table a blurred margin rises above 0.45 of it, yet stays far below the paints.
        # (Under the lesser of two levels is under both; the cap, a float32 like the
        # table, rounded up as above.)
        strict = value < config.face_table_ratio * table
        strict &= value < math.ceil(np.float32(cap))
        if valid is not None:
            strict &= valid
    return Masks(loose.astype(np.uint8), strict.astype(np.uint8), value, table, face, least)


def colour_mask(strict, value, least):
    """`strict` with colourful pixels taken out: a dark paint (a deep green under a dim lamp, on a
    light board) is still colourful while the black face is grey, so its design is a hole here.

    Only for designs found nowhere else: JPEG keeps colour at half resolution,
    and its bleed can open a thin black margin. `value` and `least` are the image's brightest and
    darkest channels (Masks.value, Masks.least).
    """
    import cv2

    chroma = cv2.subtract(value, least)
    return (strict.astype(bool) & (chroma < 40)).astype("uint8")


def _holes(dark, config: FindConfig):
    """(centres, areas, boxes) of the design-like holes in a dark mask."""
    import cv2
    import numpy as np

    if config.close_margins:
        # Mend hairline breaks in a tile's black margin (a design reaching the edge,
        # blur), which would let its design leak out into the table.
        dark = cv2.morphologyEx(dark, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    height, width = dark.shape
    # Two-level contours: outer outlines of dark blobs, and the holes in them. The
    # dark pixels count as 8-connected, so a hole is closed off by a diagonal step.
    contours, hierarchy = cv2.findContours(dark, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    centres, areas, boxes, shapes = [], [], [], []
    if hierarchy is None:
        return _none()
    max_area = config.max_design_fraction * height * width
    for k in np.nonzero(hierarchy[0][:, 3] >= 0)[0].tolist():  # the holes: outlines with a parent
        contour = contours[k]
        x, y, w, h = cv2.boundingRect(contour)
        if x <= 0 or y <= 0 or x + w >= width or y + h >= height:
            continue
        m = cv2.moments(contour)
        area = m["m00"]
        if not config.min_design_area <= area <= max_area:
            continue
        if max(w, h) > config.max_aspect * max(min(w, h), 1) or area < config.min_fill * w * h:
            continue
        centres.append((m["m10"] / area, m["m01"] / area))
        areas.append(area)
        boxes.append((x, y, w, h))
        shapes.append((m["mu20"] / area, m["mu11"] / area, m["mu02"] / area))
    if not centres:
        return _none()
    return (np.array(centres, np.float64), np.array(areas, np.float64), np.array(boxes, np.int64),
            np.array(shapes, np.float64))


def _none():
    import numpy as np

    return np.zeros((0, 2)), np.zeros(0), np.zeros((0, 4), np.int64), np.zeros((0, 3))


def _merge_holes(loose, strict):
    """The holes of both masks, each design once.

    A design found in both is kept from the loose mask, unless the strict
    mask's hole is clearly bigger: then the loose mask had cut a dim design
    into pieces, and the whole one replaces them.
    """
    import numpy as np

    centres, areas, boxes, shapes = (list(a) for a in loose)
    # The centres as arrays too, kept in step with the lists, to test every box at once.
    xs = np.array([c[0] for c in centres], np.float64)
    ys = np.array([c[1] for c in centres], np.float64)
    for c, a, b, sh in zip(*strict):
        x, y, w, h = b
        inside = np.nonzero((xs >= x) & (xs <= x + w) & (ys >= y) & (ys <= y + h))[0].tolist()
        if inside and a <= 1.2 * sum(areas[k] for k in inside):
            continue
        for k in reversed(inside):
            del centres[k], areas[k], boxes[k], shapes[k]
        if inside:
            xs, ys = np.delete(xs, inside), np.delete(ys, inside)
        centres.append(c)
        areas.append(a)
        boxes.append(b)
        shapes.append(sh)
        xs, ys = np.append(xs, c[0]), np.append(ys, c[1])
    if not centres:
        return _none()
    return (np.array(centres, np.float64), np.array(areas, np.float64), np.array(boxes, np.int64),
            np.array(shapes, np.float64))


def _add_new_holes(found, more):
    """`found` plus the holes of `more` whose box holds no hole already found."""
    import numpy as np

    centres, areas, boxes, shapes = (list(a) for a in found)
    have = np.array(centres) if centres else np.zeros((0, 2))
    for c, a, b, sh in zip(*more):
        x, y, w, h = b
        if len(have) and ((have[:, 0] >= x) & (have[:, 0] <= x + w) & (have[:, 1] >= y) & (have[:, 1] <= y + h)).any():
            continue
        centres.append(c)
        areas.append(a)
        boxes.append(b)
        shapes.append(sh)
    if not centres:
        return _none()
    return (np.array(centres, np.float64), np.array(areas, np.float64), np.array(boxes, np.int64),
            np.array(shapes, np.float64))


def find_tiles(image, config: FindConfig | None = None, valid=None) -> Candidates:
    """Candidate tile centres in a BGR image. Raises NoTilesError if there are none.

    `valid` (bool, optional) marks the pixels that belong to the photo (see surface_masks).
    """
    cfg = config or FindConfig()
    masks = surface_masks(image, cfg, valid)
    loose, strict = masks.loose, masks.strict
    centres, areas, boxes, shapes = _holes(loose, cfg)
    if strict is not loose:
        centres, areas, boxes, shapes = _merge_holes((centres, areas, boxes, shapes), _holes(strict, cfg))
        coloured = colour_mask(strict, masks.value, masks.least)
        centres, areas, boxes, shapes = _add_new_holes((centres, areas, boxes, shapes), _holes(coloured, cfg))
    else:
        coloured = None
    if not len(areas):
        raise NoTilesError("no tiles found: hold the camera over the grid so the black tiles show against the table")
    face, asymmetry = tile_evidence(loose, strict, centres, shapes, cfg, coloured, areas)
    trusted = (face >= cfg.min_face) & (asymmetry <= cfg.max_asymmetry)
    # Designs differ in area by a factor of about two; specks of glare are far smaller.
    # (Measured on the holes that look like designs: a printed board's squares are larger.)
    reference = areas[trusted] if trusted.any() else areas
    keep = areas >= cfg.min_relative_area * percentile(reference, 90)
    centres, areas, boxes, shapes = centres[keep], areas[keep], boxes[keep], shapes[keep]
    face, asymmetry, trusted = face[keep], asymmetry[keep], trusted[keep]
    return Candidates(centres=centres, areas=areas, boxes=boxes, dark=loose, strict=strict, shapes=shapes,
                      face=face, asymmetry=asymmetry, trusted=trusted, masks=masks)


def tile_evidence(loose, strict, centres, shapes, config: FindConfig, coloured=None, areas=None):
    """(face, asymmetry) of each hole: how much it looks like a design on a black tile.

    Every design (and the wild's star) is four-fold symmetric, so its second
    moments are round on the tile: they give the local stretch of the
    photo's perspective, and undoing it (whitening) turns the tile back into
    a square, whatever the angle the photo was taken at. In that frame:

    - face: the dark share of what is not the design within `face_radius`
      standard deviations of its middle, which lies on the tile's black face
      for every design, on its least dark side (of eight). A square of a
      printed board, between lines, or the bowl of a printed letter, does not
      have a black face all round it.
    - asymmetry: the parts of the design's outline (its farthest reach by
      angle) that a four-fold symmetric shape does not have, against its
      mean reach: near 0 for the six designs, large for a letter or a digit.

    Each hole is judged in the first mask it is a hole in: `loose`, `strict`, then `coloured`
    (colour_mask's, where a dark paint that both others take for face is a hole: a deep green under
    a warm lamp; judged where it was no hole, it had no face at all and was not trusted). A mask
    whose hole there holds less than `min_hole_share` of the hole's `areas` (pixels, when given)
    has cut the design into pieces (a dark paint, blurred, speckled as face: _merge_holes took the
    strict mask's whole hole instead): a piece's outline is no design's, and the paint around it no
    face, so the hole is judged in the next mask.
    """
    import math

    import numpy as np

    n = len(centres)
    face = np.zeros(n)
    asymmetry = np.full(n, 9.0)
    if not n:
        return face, asymmetry
    radius = config.face_radius
    # Every hole's frame at once: numpy's batched eigh, inv and matmul give each the very
    # numbers one 2 x 2 at a time would.
    cov, values, vectors = moment_axes(shapes)
    good = np.nonzero(values.min(axis=1) > 1e-6)[0]
    if not len(good):
        return face, asymmetry
    inverse = np.linalg.inv(cov[good])
    whiten = frames_along(vectors[good], 1 / np.sqrt(values[good]))
    # Each hole's pixels and the face around it, as offsets from its centre (loose mask first).
    measured, ring, hole = [], [], []
    # Each hole's reach (as _evidence would take it from its largest eigenvalue) and centre, in
    # Python numbers: the same values, without numpy's overhead per hole.
    reaches = (np.ceil(radius * np.sqrt(values.max(axis=1))).astype(np.int64) + 2).tolist()
    middles = np.asarray(centres, np.float64).tolist()
    wanted = None if areas is None else (config.min_hole_share * np.asarray(areas, np.float64)).tolist()
    for g, k in enumerate(good.tolist()):
        first = None
        for mask in (loose, strict) if coloured is None else (loose, strict, coloured):
            pixels = _evidence(mask, middles[k], reaches[k], inverse[g], radius)
            if pixels is not None and (wanted is None or len(pixels[1][0]) >= wanted[k]):
                break
            first = first or pixels
        else:
            pixels = first
        if pixels is None:
            continue
        if not len(pixels[0][0]):
            face[k], asymmetry[k] = 0.0, 9.0
            continue
        measured.append(g)
        ring.append(pixels[0])
        hole.append(pixels[1])
    if not measured:
        return face, asymmetry
    measured = np.array(measured)
    m = len(measured)
    w = whiten[measured]

    def whitened(parts):
        counts = [len(p[0]) for p in parts]
        owner = np.repeat(np.arange(m), counts)
        ox, oy = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
        # Each pixel's hole's frame, repeated hole by hole (the values w[owner] would gather).
        a, b, c, d = (np.repeat(w[:, i, j], counts) for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)))
        return owner, a * ox + b * oy, c * ox + d * oy

    # The face must be dark on every side: a board's square with tiles on three
    # sides is ringed by black there, but only by a printed line on the fourth.
    owner, ax, ay = whitened(ring)
    sector = owner * 8 + ((np.arctan2(ay, ax) + math.pi) / (2 * math.pi) * 8).astype(np.int64) % 8
    dark = np.concatenate([p[2] for p in ring]).astype(np.float64)
    dark_by_sector = np.bincount(sector, weights=dark, minlength=8 * m).reshape(m, 8)
    count_by_sector = np.bincount(sector, minlength=8 * m).reshape(m, 8)
    shares = np.where(count_by_sector > 0, dark_by_sector / np.maximum(count_by_sector, 1), np.inf)
    keys = good[measured]
    face[keys] = shares.min(axis=1)
    # The outline's farthest reach by angle, in the whitened frame.
    owner, wx, wy = whitened(hole)
    bins = owner * 32 + ((np.arctan2(wy, wx) + math.pi) / (2 * math.pi) * 32).astype(np.int64) % 32
    reach_by_angle = np.zeros(32 * m)
    np.maximum.at(reach_by_angle, bins, np.hypot(wx, wy))
    reach_by_angle = reach_by_angle.reshape(m, 32)
    empty = reach_by_angle == 0
    symmetric = empty.sum(axis=1) <= 8
    for r in np.nonzero(symmetric & empty.any(axis=1))[0]:
        # A small design (a star's narrow middle) leaves a few directions without a pixel.
        row, gaps = reach_by_angle[r], empty[r]
        known = np.nonzero(~gaps)[0]
        row[gaps] = np.interp(np.nonzero(gaps)[0], known, row[known], period=32)
    spectrum = np.abs(np.fft.rfft(reach_by_angle[symmetric], axis=1))
    # In Python floats, one design at a time: x ** 2 of a float is not always x * x of an array.
    for k, row in zip(keys[symmetric], spectrum.tolist()):
        odd = math.sqrt(sum(row[j] ** 2 for j in range(1, len(row)) if j % 4))
        asymmetry[k] = odd / row[0]
    return face, asymmetry


def _levels(masks, rows: slice, cols: slice, pixels):
    """The brightness over the table's around it of the `pixels` (bool) of a window of the masks."""
    import numpy as np

    return masks.value[rows, cols][pixels] / np.maximum(masks.table[rows, cols][pixels], np.float32(1.0))


def face_levels(candidates: Candidates, indices=None):
    """The face level of each hole of `indices` (all by default): the median brightness of the dark
    pixels around it (its box grown by half its size each way, every other pixel) over the
    table's there. A tile's black face is darker against the table than a board's printed dark
    square or strip (1.0 for a hole with no dark around)."""
    import numpy as np

    dark = candidates.dark
    height, width = dark.shape
    boxes = np.asarray(candidates.boxes).reshape(-1, 4)
    indices = range(len(boxes)) if indices is None else indices
    out = []
    for k in indices:
        k = int(k)
        if k not in candidates.levels:
            x, y, w, h = boxes[k].tolist()
            x0, y0 = max(0, x - w // 2), max(0, y - h // 2)
            x1, y1 = min(width, x + w + w // 2), min(height, y + h + h // 2)
            rows, cols = slice(y0, y1, 2), slice(x0, x1, 2)
            pixels = dark[rows, cols] > 0
            candidates.levels[k] = (float(array_median(_levels(candidates.masks, rows, cols, pixels)))
                                    if pixels.any() else 1.0)
        out.append(candidates.levels[k])
    return np.array(out, np.float64)


def faces_without_design(candidates: Candidates, config: FindConfig, max_chroma: int | None = None,
                         min_grey: float = 0.5):
    """(hull centres N x 2, areas N, hull areas N, levels N, clipped N, cut N, face level) of the dark
    blobs of `candidates`' loose mask that hold no hole found, of `min_faceless_area` pixels or more;
    `cut` is how far each runs along the image's border (pixels; 0 where it does not touch it: a
    tile's face the photo's edge cuts shows only in part, its design cut open, no hole). The face
    level is the median of the trusted designs' (face_levels), None without one.

    A tile whose design runs out through its margin (glare across its edge, a far tile's blur)
    leaves no hole, so it is never a candidate: its black face is such a blob, a "C" whose convex
    hull is the tile. A level is a blob's median brightness over the table's around it (a tile's
    face is dark; a printed square, a shadow, a cloth's pattern lighter); with `max_chroma`, over its
    grey pixels (chroma under it) where they are at least `min_grey` of the blob: a dark paint the
    loose mask took in with the face (a deep green design under a highlight, no hole left but the
    highlight's) is no face. `clipped` says where the
    table around a blob (its box grown by half its size each way, the pixels not dark) is mostly
    at the camera's clip (`FindConfig.clipped`): the table's brightness there is only a lower bound
    of the light on it, and the blob's level over it only an upper bound.
    """
    import cv2
    import numpy as np

    dark = candidates.dark
    height, width = dark.shape
    centres = np.asarray(candidates.centres, np.float64).reshape(-1, 2)
    trusted = np.nonzero(np.asarray(candidates.trusted, bool))[0] if candidates.trusted is not None else []
    if not len(trusted):
        return np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, bool), np.zeros(0), None
    contours, _ = cv2.findContours(dark, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    value = candidates.masks.value
    found = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if w * h < config.min_faceless_area:
            continue
        area = cv2.contourArea(contour)
        if area < config.min_faceless_area:
            continue
        near = np.nonzero((centres[:, 0] >= x) & (centres[:, 0] <= x + w) & (centres[:, 1] >= y)
                          & (centres[:, 1] <= y + h))[0].tolist()
        if any(cv2.pointPolygonTest(contour, (float(centres[k, 0]), float(centres[k, 1])), False) >= 0 for k in near):
            continue
        inside = np.zeros((h, w), np.uint8)
        cv2.drawContours(inside, [contour - np.array([x, y])], -1, 1, -1)
        rows, cols = slice(y, y + h, 2), slice(x, x + w, 2)  # every other pixel
        pixels = (inside[::2, ::2] > 0) & (dark[rows, cols] > 0)
        if not pixels.any():
            continue
        if max_chroma is not None:
            # The face's own level: a dark paint (a deep green design under a highlight, no hole left
            # but the highlight's) is in the loose mask with the face and would count as a face
            # lighter than the tiles'. Its pixels are colourful, a tile's face grey: the level is the
            # grey pixels' where they are most of the blob (a tile's face is most of its dark).
            chroma = value[rows, cols][pixels].astype(np.int16) - candidates.masks.least[rows, cols][pixels]
            grey = chroma < max_chroma
            if grey.sum() >= min_grey * grey.size:
                pixels = pixels.copy()
                pixels[pixels] = grey
        level = float(array_median(_levels(candidates.masks, rows, cols, pixels)))
        around = (slice(max(0, y - h // 2), min(height, y + h + h // 2), 2),
                  slice(max(0, x - w // 2), min(width, x + w + w // 2), 2))
        table = value[around][dark[around] == 0]
        clipped = bool(table.size) and float(array_median(table)) >= config.clipped
        m = cv2.moments(cv2.convexHull(contour))
        if m["m00"] > 0:
            # Its extent along each border it touches: a sliver of a tile's face runs along the edge.
            cut = max(w if y <= 0 or y + h >= height else 0, h if x <= 0 or x + w >= width else 0)
            found.append((m["m10"] / m["m00"], m["m01"] / m["m00"], area, m["m00"], level, clipped, cut))
    rows = np.array(found, np.float64).reshape(-1, 7)
    face_level = float(array_median(face_levels(candidates, trusted))) if found else None
    return rows[:, :2], rows[:, 2], rows[:, 3], rows[:, 4], rows[:, 5] > 0, rows[:, 6], face_level


def moment_axes(shapes):
    """(covariances N x 2 x 2, eigenvalues N x 2, eigenvectors N x 2 x 2) of designs' second moments
    (N x 3: xx, xy, yy), all at once (numpy's batched eigh gives each the numbers of its own 2 x 2)."""
    import numpy as np

    shapes = np.asarray(shapes, np.float64).reshape(-1, 3)
    cov = np.empty((len(shapes), 2, 2))
    cov[:, 0, 0], cov[:, 0, 1], cov[:, 1, 0], cov[:, 1, 1] = shapes[:, 0], shapes[:, 1], shapes[:, 1], shapes[:, 2]
    values, vectors = np.linalg.eigh(cov)
    return cov, values, vectors


def frames_along(vectors, diagonal):
    """V diag(d) V^T for each eigenvector matrix V (N x 2 x 2) and pair d (N x 2): with d = 1/sqrt of the
    eigenvalues, the whitening that turns a design round (undoing the photo's local stretch); with
    d = sqrt of them, its inverse."""
    import numpy as np

    scale = np.zeros((len(vectors), 2, 2))
    scale[:, 0, 0], scale[:, 1, 1] = diagonal[:, 0], diagonal[:, 1]
    return np.matmul(np.matmul(vectors, scale), vectors.transpose(0, 2, 1))


def _evidence(dark, centre, reach: int, inverse, radius: float):
    """((x, y, dark) of the face ring, (x, y) of the hole): the offsets from `centre` of the pixels
    within `radius` of the hole of `dark` at `centre` (whose second moments have the inverse
    `inverse`) and not in it, and of the hole's; None if `centre` is not in a hole there. `reach`
    is ceil(radius * sqrt(the moments' largest eigenvalue)) + 2: the pixels looked at lie within
    it of the centre."""
    import cv2
    import numpy as np

    cx, cy = centre
    x0, y0 = int(cx) - reach, int(cy) - reach
    height, width = dark.shape
    if x0 < 0 or y0 < 0 or x0 + 2 * reach >= width or y0 + 2 * reach >= height:
        return None
    roi = dark[y0 : y0 + 2 * reach + 1, x0 : x0 + 2 * reach + 1]
    sx, sy = int(round(cx - x0)), int(round(cy - y0))
    if roi[sy, sx]:
        return None
    free = 1 - roi  # a new uint8 array
    seed_mask = np.zeros((roi.shape[0] + 2, roi.shape[1] + 2), np.uint8)
    cv2.floodFill(free, seed_mask, (sx, sy), 2)
    hole = free == 2
    # Offsets from the centre by column and by row, broadcast: the same numbers as full grids.
    dx = np.arange(roi.shape[1]) + x0 - cx
    dy = np.arange(roi.shape[0]) + y0 - cy
    # i00 dx dx + 2 i01 dx dy + i11 dy dy, term by term as written out over full grids (the
    # same products and sums, in place).
    distance2 = np.multiply.outer(dy, 2 * inverse[0, 1] * dx)
    distance2 += inverse[0, 0] * dx * dx
    distance2 += (inverse[1, 1] * dy * dy)[:, None]
    rows, cols = np.nonzero((distance2 <= radius * radius) & ~hole)
    ring = (dx[cols], dy[rows], roi[rows, cols])
    rows, cols = np.divmod(np.flatnonzero(hole), hole.shape[1])
    return ring, (dx[cols], dy[rows])


def outer_faces(candidates: Candidates, indices, inner: float, outer: float):
    """The dark share of the ring between `inner` and `outer` standard deviations of each hole of
    `indices` (in its own whitened frame, as tile_evidence's face), in each of eight sectors (N x 8),
    in the loose mask: a tile's black face runs on past the ring tile_evidence looks at, to the
    tile's edge; a board's print hole (a light square between its lines, a letter's bowl) is
    ringed by a thin line with the board's light surface beyond it. NaN for a sector with no pixel
    in the image."""
    import math

    import numpy as np

    indices = np.asarray(indices, np.int64).reshape(-1)
    out = np.full((len(indices), 8), np.nan)
    if not len(indices):
        return out
    dark = candidates.dark
    height, width = dark.shape
    cov, values, vectors = moment_axes(candidates.shapes[indices])
    for n, k in enumerate(indices.tolist()):
        if values[n].min() <= 1e-6:
            continue
        inverse = np.linalg.inv(cov[n])
        whiten = frames_along(vectors[n:n + 1], 1 / np.sqrt(values[n:n + 1]))[0]
        reach = int(math.ceil(outer * math.sqrt(values[n].max()))) + 2
        cx, cy = candidates.centres[k]
        # Cut to the image: the sectors the image's edge cuts off measure what shows of them (none
        # of it: NaN). A board's square at the photo's edge is ringed by its line all the same.
        x0, y0 = max(int(cx) - reach, 0), max(int(cy) - reach, 0)
        roi = dark[y0:min(int(cy) + reach + 1, height), x0:min(int(cx) + reach + 1, width)]
        if not roi.size:
            continue
        dx = np.arange(roi.shape[1]) + x0 - cx
        dy = np.arange(roi.shape[0]) + y0 - cy
        gx, gy = np.meshgrid(dx, dy)
        d2 = inverse[0, 0] * gx * gx + 2 * inverse[0, 1] * gx * gy + inverse[1, 1] * gy * gy
        # The hole's own light pixels (within its box) left out, as tile_evidence leaves the hole out
        # of its ring: a star's arms reach past the ring's inner edge, the face between them dark.
        bx, by, bw, bh = candidates.boxes[k].tolist()
        xs, ys = np.arange(roi.shape[1]) + x0, np.arange(roi.shape[0]) + y0
        inside = np.logical_and.outer((ys >= by) & (ys < by + bh), (xs >= bx) & (xs < bx + bw))
        rows, cols = np.nonzero((d2 > inner * inner) & (d2 <= outer * outer) & ~(inside & (roi == 0)))
        if not len(rows):
            continue
        ox, oy = dx[cols], dy[rows]
        ax, ay = whiten[0, 0] * ox + whiten[0, 1] * oy, whiten[1, 0] * ox + whiten[1, 1] * oy
        sector = ((np.arctan2(ay, ax) + math.pi) / (2 * math.pi) * 8).astype(np.int64) % 8
        share = np.bincount(sector, weights=roi[rows, cols].astype(np.float64), minlength=8)
        count = np.bincount(sector, minlength=8)
        out[n] = np.where(count > 0, share / np.maximum(count, 1), np.nan)
    return out
