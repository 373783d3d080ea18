"""Stage 3, classify colour: which of the tile set's colours each design is painted in.

Per tile, `colour_sample` takes the median colour of the design (its edge
trimmed, where paint and black blend; its pixels paled by glare left out)
minus the black face's colour (the haze a lens and a glossy tile add to
everything; a highlight on the face left out), in linear light.

Colours are compared by log-chromaticity, (ln R/G, ln B/G): it does not
change with how brightly a tile is lit (shadow, gradient, exposure), and a
colour cast of the light (channel gains) moves every design by the same
offset, before each channel is floored at a fiftieth of the brightest (a
saturated paint's weak channel, floored, hardly moves: see `unfloored`).
The paints lie far apart in it, red and orange included (red has almost no
green). `classify_colours` estimates the photo's light from its own tiles
(`estimate_light`), gives each design the nearest reference paint of the
tile set under it, and calls a design painted in several colours a wild.

The reference paints are daylight measurements of the printed tiles, or a
per-table `Calibration` made from one photo of known tiles under the table's
own light (colour is the weak spot: red against orange, white against yellow).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from vision.config import SURE_AT, ColourConfig
from vision.design import array_median, percentile
from vision.errors import CalibrationError

WILD_COLOUR = "*"

# (ln R/G, ln B/G) of each paint in daylight, linear light, black face subtracted.
DEFAULT_PAINTS: dict[str, tuple[float, float]] = {
    "R": (3.69, 0.61),
    "O": (2.37, -1.24),
    "Y": (-0.02, -3.65),
    "G": (-3.3, -2.4),
    "B": (-2.43, 1.31),
    "P": (1.2, 1.8),  # no purple in the daylight set: a violet, redder than blue
    "W": (-0.34, 0.05),
}
# Each channel is floored at this fraction of the brightest, so a channel lost in
# noise (the green of a red paint) cannot push a colour to infinity.
CHANNEL_FLOOR = 0.02
# How much further than the light's estimated cast each paint is moved by it: under the light's
# correction (`estimate_light`, one offset for every paint's own chromaticity), a paint at a tile
# where the light's offset is o still lies CAST_RESPONSE[paint] @ o off its reference. The fit is
# held towards no cast by its prior and led by the saturated paints, whose weak channel hardly
# moves; the pale ones, white and purple, with no weak channel, follow a strong cast about 1.6
# times as far as the estimate. A saturated paint is left off across the cast too (an orange's
# ln B/G rises under a warm light whose ln B/G falls: its floored blue and the camera's
# saturation), so each paint's response is a 2 x 2 matrix, held towards a multiple of the identity
# where few tiles show it. Measured on the tiles of tinted seeds 0-143 (1200x900) by
# bench/paint_response.py (the comments: each paint's residuals' 95th percentile with no response,
# with a share of the offset, with the matrix).
CAST_RESPONSE: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "R": ((-0.07, -0.16), (-0.15, 0.19)),  # 209 tiles, 95% 0.39 -> 0.38 -> 0.36
    "O": ((0.17, -0.11), (0.28, 0.06)),  # 247 tiles, 95% 0.48 -> 0.47 -> 0.40
    "Y": ((0.32, -0.05), (0.30, 0.20)),  # 252 tiles, 95% 0.52 -> 0.49 -> 0.44
    "G": ((0.02, -0.05), (0.09, 0.29)),  # 248 tiles, 95% 0.55 -> 0.54 -> 0.52
    "B": ((-0.19, 0.21), (-0.25, 0.30)),  # 254 tiles, 95% 0.62 -> 0.63 -> 0.47
    "P": ((0.67, 0.19), (-0.01, 0.64)),  # 83 tiles, 95% 0.66 -> 0.51 -> 0.47
    "W": ((0.58, -0.06), (-0.21, 0.52)),  # 123 tiles, 95% 0.63 -> 0.44 -> 0.42
}


@dataclass
class ColourSample:
    """What one design's colour looks like in the photo."""

    design_bgr: tuple[float, float, float]  # median of the design's least pale pixels, linear light (0-1), black subtracted
    pixels_bgr: Any  # float32 N x 3: design pixels the same way (for telling a wild)
    face_bgr: tuple[float, float, float] = (0.0, 0.0, 0.0)  # median of the tile's black face, linear light
    spread: float = 0.0  # median distance of those least pale pixels' log-chromaticities from the design's
    # Share of the design's pixels, its edge included, that are saturated while its colour reads pale
    # (0 when it does not): a paint glare paled over the part the colour is taken from (colour_sample).
    saturated: float = 0.0
    # Log-chromaticities, as seen, of up to about a hundred of the least pale pixels (None: too few).
    paint_chroma: Any = None

    def chroma(self) -> tuple[float, float]:
        """(ln R/G, ln B/G) of the design."""
        x = log_chroma([self.design_bgr])[0]
        return (float(x[0]), float(x[1]))

    def paleness(self, floor: float) -> float:
        """The design's least channel over its greatest, both floored at `floor` (linear light): near 0
        for a saturated paint, towards 1 for a white or a light surface."""
        import numpy as np

        return float(_paleness(np.asarray([self.design_bgr], np.float64), floor)[0])


@dataclass
class ColourReading:
    colour: str  # a colour letter of the tile set, or "*" for a wild
    confidence: float
    chroma: tuple[float, float]  # the design's (ln R/G, ln B/G)
    light: tuple[float, float, float] = (1.0, 1.0, 1.0)  # the light's colour at the tile: linear B, G, R, mean 1


@dataclass
class Calibration:
    """Reference paints measured on one table under its own light."""

    paints: dict[str, tuple[float, float]]
    source: str = ""
    samples: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "kind": "companion-colour-calibration",
            "version": 2,
            "source": self.source,
            "paints": {k: [round(x, 4) for x in v] for k, v in sorted(self.paints.items())},
            "samples": dict(sorted(self.samples.items())),
        }

    @classmethod
    def from_json(cls, data: Any, source: str = "<calibration>") -> "Calibration":
        """Raises CalibrationError if the data is not a calibration."""
        try:
            if data.get("kind") != "companion-colour-calibration" or data.get("version") != 2:
                raise CalibrationError(f"{source}: not a colour calibration file (make one with `companion vision calibrate`)")
            paints = {}
            for letter, chroma in data["paints"].items():
                if letter not in DEFAULT_PAINTS or len(chroma) != 2:
                    raise CalibrationError(f"{source}: bad paint entry {letter!r}")
                paints[letter] = (float(chroma[0]), float(chroma[1]))
            return cls(paints, str(data.get("source", "")), {k: int(v) for k, v in data.get("samples", {}).items()})
        except CalibrationError:
            raise
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"{source}: not a colour calibration file ({exc})") from None

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f, indent=1)
            f.write("\n")

    @classmethod
    def load(cls, path: str) -> "Calibration":
        """Raises CalibrationError for a missing or malformed file."""
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except OSError as exc:
            raise CalibrationError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise CalibrationError(f"{path}: not JSON: {exc}") from None
        return cls.from_json(data, path)


def paints_for(colours: str, calibration: Calibration | None = None) -> dict[str, tuple[float, float]]:
    """The reference paint of each colour letter in `colours`."""
    paints = dict(DEFAULT_PAINTS)
    if calibration is not None:
        paints.update(calibration.paints)
    return {c: paints[c] for c in colours}


_linear_table = None
CLIPPED = 250  # an 8-bit channel this bright may have been brighter: the camera clipped it
_balance_table = None  # white_balanced's linear light (12 bits) -> sRGB bytes, made when first asked


def to_linear(bgr):
    """sRGB values (0-255) to linear light (0-1), any shape."""
    import numpy as np

    global _linear_table
    if isinstance(bgr, np.ndarray) and bgr.dtype == np.uint8:
        # Eight-bit pixels (a patch's): looked up, the table made once by the formula below.
        if _linear_table is None:
            _linear_table = to_linear(np.arange(256, dtype=np.int64))
        return _linear_table[bgr]
    v = np.asarray(bgr, dtype=np.float32) / 255.0
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4).astype(np.float32)


def to_srgb(linear):
    """Linear light (0-1, any shape; clipped to it) to sRGB bytes: to_linear's inverse."""
    import numpy as np

    v = np.clip(np.asarray(linear, np.float64), 0.0, 1.0)
    return np.round(255 * np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)).astype(np.uint8)


def white_balanced(patch, light):
    """An 8-bit BGR `patch` as it would look in a white light: each channel's linear light divided by
    the `light`'s (linear B, G, R, as ColourReading.light); a channel clipped (CLIPPED or more) stays
    clipped."""
    import numpy as np

    global _balance_table
    if _balance_table is None:
        _balance_table = to_srgb(np.arange(4096, dtype=np.float64) / 4095)  # linear light, 12 bits
    linear = to_linear(patch) / np.asarray(light, np.float32)
    balanced = _balance_table[np.clip(np.round(linear * 4095), 0, 4095).astype(np.int32)]
    # A channel clipped in the photo was brighter than it shows: it stays clipped (a highlight
    # clipped white stays white, not tinted by the light taken off it).
    balanced[patch >= CLIPPED] = 255
    return balanced


def highlight_light(patch, margin: int):
    """The colour of the highlight on an 8-bit BGR tile `patch` (its middle, `margin` pixels in from
    each side), as linear B, G, R scaled to mean 1, as ColourReading.light: the mean of the 3% of
    its pixels whose dimmest channel is highest (a highlight lifts every channel; a paint or the face
    leaves one low). A highlight is the lamp mirrored, and a lamp from one side may be of another
    colour than the light the paints show (a warm bulb in a cool room)."""
    import numpy as np

    core = np.ascontiguousarray(patch[margin : patch.shape[0] - margin, margin : patch.shape[1] - margin]).reshape(-1, 3)
    least = core.min(axis=1)
    light = to_linear(core[least >= percentile(least, 97)]).mean(axis=0)
    return tuple(float(v) for v in light / max(float(light.mean()), 1e-6))


def log_chroma(linear_bgr):
    """(ln R/G, ln B/G) of N x 3 linear BGR values, each channel floored at CHANNEL_FLOOR of the brightest."""
    import numpy as np

    bgr = np.asarray(linear_bgr, dtype=np.float32).reshape(-1, 3)
    brightest = np.maximum(np.maximum(bgr[:, 0], bgr[:, 1]), bgr[:, 2])  # bgr.max(axis=1), faster
    floor = CHANNEL_FLOOR * brightest + 1e-6
    # Each channel floored on its own: the numbers of bgr + floor[:, None], without an inner loop three long.
    b, g, r = (bgr[:, c] + floor for c in range(3))
    return np.column_stack([np.log(r / g), np.log(b / g)])


def unfloored(chroma):
    """The (ln R/G, ln B/G) that log_chroma's (N x 2) were before its channel floor: the colour's own.

    The floor lifts each channel by CHANNEL_FLOOR of the brightest, so a weak
    channel (the blue of an orange, the red of a blue) hardly moves when a
    light's colour scales it: a cast moves a saturated paint's log-chromaticity
    far less than a white's. Taken off, a cast is the same offset for every
    paint again. A channel the floor leaves no trace of comes back as a
    ten-thousandth of the floor.
    """
    import numpy as np

    c = np.asarray(chroma, np.float64)
    r, b = np.exp(c[..., 0]), np.exp(c[..., 1])  # with G + floor as 1
    floor = CHANNEL_FLOOR / (1 + CHANNEL_FLOOR) * np.maximum(np.maximum(r, b), 1.0)
    least = 1e-4 * floor
    g = np.maximum(1.0 - floor, least)
    return np.stack([np.log(np.maximum(r - floor, least) / g), np.log(np.maximum(b - floor, least) / g)], axis=-1)


def floored(own):
    """log_chroma of a colour whose own (ln R/G, ln B/G) are `own` (... x 2): the inverse of unfloored."""
    import numpy as np

    u = np.asarray(own, np.float64)
    r, b = np.exp(u[..., 0]), np.exp(u[..., 1])  # G = 1
    floor = CHANNEL_FLOOR * np.maximum(np.maximum(r, b), 1.0)
    out = np.empty(u.shape)
    base = np.log(1 + floor)
    out[..., 0] = np.log(r + floor) - base
    out[..., 1] = np.log(b + floor) - base
    return out


def _floor_slopes(own):
    """d floored / d own at `own` (N x 2): N x 2 x 2 (row: floored coordinate, column: own)."""
    import numpy as np

    u = np.asarray(own, np.float64)
    r, b = np.exp(u[:, 0]), np.exp(u[:, 1])
    floor = CHANNEL_FLOOR * np.maximum(np.maximum(r, b), 1.0)
    # The floor grows with the brightest channel: with R when R is, with B when B is.
    by_r = np.where((r >= b) & (r >= 1.0), CHANNEL_FLOOR * r, 0.0)
    by_b = np.where((b > r) & (b >= 1.0), CHANNEL_FLOOR * b, 0.0)
    rf, bf, gf = r + floor, b + floor, 1.0 + floor
    slopes = np.empty((len(u), 2, 2))
    slopes[:, 0, 0] = (r + by_r) / rf - by_r / gf
    slopes[:, 0, 1] = by_b / rf - by_b / gf
    slopes[:, 1, 0] = by_r / bf - by_r / gf
    slopes[:, 1, 1] = (b + by_b) / bf - by_b / gf
    return slopes


def colour_sample(patch, mask, config: ColourConfig | None = None) -> ColourSample:
    """The design's colour in a tile patch, given its mask (1 on the design)."""
    import cv2
    import numpy as np

    cfg = config or ColourConfig()
    size = patch.shape[0]
    kernel = np.ones((2 * cfg.erode + 1, 2 * cfg.erode + 1), np.uint8)
    core = cv2.erode(mask, kernel).astype(bool)
    if core.sum() < 8:
        core = mask.astype(bool)
    # The black face: not design, not near its edge, inside the tile.
    around = cv2.dilate(mask, kernel, iterations=2).astype(bool)
    face = np.zeros(mask.shape, bool)
    m = size // 8
    face[m : size - m, m : size - m] = True
    face &= ~around
    design_bytes = pixels_at(patch, core)
    design = to_linear(design_bytes)
    table = to_linear(np.arange(256, dtype=np.uint8))
    face_bytes = _unglared(pixels_at(patch, face), cfg)
    if len(face_bytes) >= 8:
        # np.median of each channel's linear values, from its 8-bit order statistics (linear light
        # grows with the byte): the mean of the middle two, in float32, as np.median takes it.
        low, high = _middle_bytes(face_bytes)
        black = (table[low] + table[high]) / 2
    else:
        black = np.zeros(3, np.float32)
    # Each channel's least linear value is the linear value of its least byte (the table never falls).
    black = np.minimum(black, table[[int(design_bytes[:, c].min()) for c in range(3)]])
    pixels = np.maximum(design - black, 0)
    median, spread, paint_chroma = _paint_median(pixels, cfg)
    saturated = 0.0
    if _paleness(median[None, :], cfg.paint_floor)[0] >= cfg.pale_paint:
        # Glare only pales a paint: a pale reading beside saturated pixels of the same design is a
        # paint the lamp's highlight paled over the core, its saturated paint left at the edges (the
        # thin tips of a star, which the core's trim takes off). A white design has none.
        whole = np.maximum(to_linear(pixels_at(patch, mask.astype(bool))) - black, 0)
        saturated = float(np.count_nonzero(_paleness(whole, cfg.paint_floor) < cfg.saturated_paleness)) / max(len(whole), 1)
    return ColourSample(tuple(float(x) for x in median), pixels, tuple(float(x) for x in black), spread, saturated,
                        paint_chroma)


def pixels_at(patch, mask):
    """patch[mask]: the N x 3 bytes of a BGR byte patch where the bool `mask` (its height x width) is
    set, in the same order. Each pixel's three bytes taken as one item: several times faster than
    NumPy's boolean indexing over two of three axes, on a tile's patch."""
    import numpy as np

    if patch.dtype != np.uint8 or patch.ndim != 3 or patch.shape[2] != 3:
        return patch[mask]
    patch = np.ascontiguousarray(patch)
    return patch.reshape(-1, 3).view("V3").ravel()[np.ravel(mask)].view(np.uint8).reshape(-1, 3)


def _unglared(face, cfg: ColourConfig):
    """The black face's pixels (N x 3 bytes) without a highlight on them: those whose brightest channel
    lies more than `face_glare` above the face's lower quartile are left out.

    A lamp mirrored in the tile lights part of its face grey; counted in the face's colour, which is
    subtracted from the design's as the haze over everything, it took a paint's weaker channels away
    (an orange read as red). The design mask leaves such a highlight to the face when it is told by
    chroma (design.design_mask)."""
    import numpy as np

    if len(face) < 8:
        return face
    value = np.maximum(np.maximum(face[:, 0], face[:, 1]), face[:, 2])
    counts = np.cumsum(np.bincount(value, minlength=256))
    quartile = int(np.searchsorted(counts, (len(face) - 1) // 4, side="right"))
    if counts[min(255, quartile + cfg.face_glare)] == len(face):
        return face
    return face[value <= quartile + cfg.face_glare]


def _paint_median(pixels, cfg: ColourConfig):
    """(median, spread, chroma) of the design's least pale pixels (N x 3, linear light, black subtracted).

    A lamp mirrored in a glossy tile adds its own (near white) light over part
    of the paint: those pixels are brighter and paler, and a median of every
    pixel slides from the paint towards white (a green half under glare reads
    halfway to white). Glare only pales a pixel (its least channel grows
    against its brightest), so the paint is in the `paint_share` of the pixels
    least pale; a white paint's least pale pixels are as pale as the rest but
    for noise. The spread is how far those pixels' log-chromaticities lie from
    the median's (their median distance): small for one paint, large for a
    wild whose glare left only a few sectors' paint unpaled. `chroma` holds the
    log-chromaticities of up to about a hundred of them (None when too few).
    """
    import numpy as np

    n = len(pixels)
    keep = int(cfg.paint_share * n)
    if keep < 8:
        return (array_median(pixels, axis=0) if n else np.zeros(3, np.float32)), 0.0, None
    # Dark pixels' channels are noise: floored, they count as pale. (Each channel's least and
    # greatest written out, and medians as the middle element: reductions over an axis of three, and
    # np.median, cost more than the rest of the sample.)
    pale = _paleness(pixels, cfg.paint_floor)
    paint = pixels[np.argpartition(pale, keep - 1)[:keep]]
    middle = keep // 2
    median = np.partition(paint, middle, axis=0)[middle]
    # The spread from at most about a hundred of them (a median needs no more).
    chroma = log_chroma(paint[:: max(1, keep // 100)])
    floored = median + (CHANNEL_FLOOR * float(median.max()) + 1e-6)  # log_chroma of the one colour
    squared = ((chroma[:, 0] - math.log(floored[2] / floored[1])) ** 2
               + (chroma[:, 1] - math.log(floored[0] / floored[1])) ** 2)
    return median, math.sqrt(float(np.partition(squared, len(squared) // 2)[len(squared) // 2])), chroma


def _paleness(pixels, floor: float):
    """Each pixel's (N x 3, linear light) least channel over its greatest, both floored at `floor`:
    near 0 for a saturated paint, towards 1 for a white or a highlight."""
    import numpy as np

    b, g, r = pixels[:, 0], pixels[:, 1], pixels[:, 2]
    return (np.minimum(np.minimum(b, g), r) + floor) / (np.maximum(np.maximum(b, g), r) + floor)


def _middle_bytes(bgr):
    """The two middle values of each channel of N x 3 bytes ((N - 1) // 2-th and N // 2-th smallest, 0-based)."""
    import numpy as np

    n = len(bgr)
    counts = np.bincount((bgr.astype(np.int64) + [0, 256, 512]).ravel(), minlength=768).reshape(3, 256)
    below = np.cumsum(counts, axis=1)
    return (below > (n - 1) // 2).argmax(axis=1), (below > n // 2).argmax(axis=1)


def _nearest(chroma, paints_arr):
    """Squared distances ... x K from chromas (... x 2) to paints (K x 2)."""
    import numpy as np

    return np.stack(_paint_columns(chroma, paints_arr), axis=-1)


def _paint_columns(chroma, paints_arr):
    """_nearest's K columns, each the squared distances of every chroma (... x 2) to one paint: the same
    numbers, a paint at a time (each a long run of one operation, where broadcasting the chromas
    against all K paints at once ran an inner loop K long per pixel, several times slower)."""
    import numpy as np

    chroma = np.asarray(chroma)
    paints_arr = np.asarray(paints_arr)
    # The sum over the two coordinates written out: a reduction over an axis of two is slow.
    across, down = np.ascontiguousarray(chroma[..., 0]), np.ascontiguousarray(chroma[..., 1])
    return [(across - paints_arr[k, 0]) ** 2 + (down - paints_arr[k, 1]) ** 2 for k in range(len(paints_arr))]


def _least_column(columns):
    """(index, value) of the least of `columns` (K arrays of one shape) at each place: the numbers of
    np.stack(columns, axis=-1).argmin(axis=-1) and .min(axis=-1) (the first of equal ones), a column
    at a time. Columns holding a NaN are left to argmin itself (np.minimum and argmin treat it alike,
    but which NaN argmin names is its own rule)."""
    import numpy as np

    least = columns[0].copy()
    index = np.zeros(least.shape, np.intp)
    for k in range(1, len(columns)):
        nearer = columns[k] < least
        index[nearer] = k
        np.minimum(least, columns[k], out=least)
    if np.isnan(least).any():
        stacked = np.stack(columns, axis=-1)
        return stacked.argmin(axis=-1), stacked.min(axis=-1)
    return index, least


def classify_colours(
    samples: list[ColourSample],
    colours: str,
    calibration: Calibration | None = None,
    config: ColourConfig | None = None,
    positions=None,
) -> list[ColourReading]:
    """The colour of each design of one photo, from the letters in `colours` or a wild.

    `positions` (N x 2, each tile's middle across the photo from -1 to 1, x
    then y) lets the light's colour vary across the photo (a lamp from one
    side); without them it is one cast for the whole photo. The light is
    estimated from the photo's own tiles (estimate_light) and taken off
    before each design gets its nearest paint. A tile's confidence is the
    margin between its nearest and second-nearest paint, judged under the
    light estimated from the *other* tiles (so a lone tile cannot pull the
    light onto its own paint), and 0 when another light explains the photo
    about as well but gives the tile another colour. A wild's confidence is
    how clearly it holds several colours, a single paint's is also capped by
    how clearly it does not.
    """
    import numpy as np

    cfg = config or ColourConfig()
    paints = paints_for(colours, calibration)
    letters = list(paints)
    paints_arr = np.array(list(paints.values()), dtype=np.float64)
    n = len(samples)
    if n == 0:
        return []
    chroma = log_chroma([s.design_bgr for s in samples]).astype(np.float64)
    pos = np.zeros((n, 2)) if positions is None else np.asarray(positions, np.float64).reshape(n, 2)
    light, in_light, shares = _photo_light(samples, chroma, pos, paints_arr, cfg)
    response = np.array([CAST_RESPONSE[c] for c in letters], np.float64)  # K x 2 x 2
    off_paint = _off_paint_shares(samples, light, pos, paints_arr)
    readings = []
    rows = [in_light.get(k) for k in range(n)]
    for k, (sample, row, corrected) in enumerate(zip(samples, rows, light.correct_each(chroma, pos, rows))):
        # Each paint where the light's correction leaves it under the cast found at the tile.
        expected = paints_arr + response @ light.offset_at(pos[k])
        order, margin = _ranked(np.sqrt(((expected - corrected) ** 2).sum(axis=1)))
        if margin < SURE_AT:
            # Between two paints: glare over the whole design pales a paint towards the light's own
            # colour, never away from it, so the design may be a paint paled (a green halfway to
            # white is no white). Judged against each paint's line to the light's colour, it is
            # taken when that reading is the surer.
            lines = _glare_lines(expected, cfg.max_glared_paleness)
            glared, glared_margin = _ranked(np.sqrt(((lines - corrected) ** 2).sum(axis=2)).min(axis=1))
            if glared_margin > margin:
                order, margin = glared, glared_margin
        tint = light.colour_at(pos[k])
        if margin < SURE_AT and max(tint) >= cfg.strength_doubt_light * min(tint):
            # Still between two paints under a tinted light: judged at the cast's strength that brings
            # each paint nearest (a lamp's fall-off is no straight slide across the photo).
            order, margin = _cast_margin(order, margin, chroma[k], pos[k], light, row, paints_arr, response, cfg)
        share = float(shares[k])
        wild_margin = min(1.0, abs(share - cfg.wild_min_share) / cfg.wild_min_share)
        if share >= cfg.wild_min_share:
            # Glare pales a wild's sectors into one paint and takes their share from the others, so its
            # fourth colour's share may lie just over the bound (not sure). The paint the glare left
            # (the least pale pixels) spread over several paints says the same as its share, as no
            # one paint's does: the surer of the two is the wild's confidence.
            several = min(1.0, max(0.0, 2.0 * off_paint[k] / cfg.max_off_paint - 1.0))
            colour, confidence = WILD_COLOUR, float(max(wild_margin, several))
        elif off_paint[k] >= cfg.max_off_paint and share >= cfg.min_glared_wild_share:
            # No one paint (its least pale pixels in several paints, where a single paint's confidence
            # is 0) with a fourth colour under the wild's share: glare paled a wild's sectors into one
            # paint and took the share from the others. Both say a wild; the share, the weaker, says how
            # surely (ColourConfig.min_glared_wild_share).
            colour, confidence = WILD_COLOUR, float(
                (share - cfg.min_glared_wild_share) / (cfg.wild_min_share - cfg.min_glared_wild_share))
        else:
            # Paint pixels far apart in colour are not one paint (a wild paled by glare but for a few
            # sectors): the confidence falls from half the spread limit to 0 at it.
            one_paint = min(1.0, max(0.0, 2.0 * (1.0 - sample.spread / cfg.paint_spread_limit)))
            colour, confidence = letters[order[0]], min(margin, wild_margin, one_paint)
            if confidence >= SURE_AT:
                # The paint glare left (the least pale pixels) spread over other paints, neighbours
                # in hue or not, is not one paint: a wild whose other sectors a highlight washed out.
                confidence = min(confidence, max(0.0, 2.0 * (1.0 - off_paint[k] / cfg.max_off_paint)))
            if sample.saturated >= cfg.max_paled_saturated:
                confidence = 0.0  # a pale reading of a design saturated elsewhere: glare paled its paint
            if row is not None and light.doubtful[row]:
                confidence = 0.0  # another light reads this tile as another colour
        readings.append(ColourReading(colour, confidence, (float(corrected[0]), float(corrected[1])),
                                      light.colour_at(pos[k])))
    return readings


def _cast_margin(order, margin, chroma, position, light, row, paints_arr, response, cfg: ColourConfig):
    """(order, margin) of a design seen as `chroma` at `position` with each paint judged at the strength
    of the cast that brings it nearest, from 1 - `cast_strength_doubt` to 1 + it times the light's
    estimate there (ColourConfig.cast_strength_doubt: a lamp's fall-off is no straight slide); the light
    estimated without the tile (`row`, its row in the light's fit, or None). `order` and `margin` (the
    paints judged at the estimate's strength, or on their glare lines) stand when the nearest paint
    differs or the margin is no wider: the rule only widens a margin, for the paint already nearest."""
    import numpy as np

    coefficients = light.coefficients_each([row])[0]
    own = unfloored(np.reshape(chroma, (1, 2)))[0]
    offset = light.offset_at(position)
    best = None
    for t in np.linspace(1.0 - cfg.cast_strength_doubt, 1.0 + cfg.cast_strength_doubt, 21):
        scaled = coefficients.copy()
        scaled[1:] *= t
        corrected = floored(_corrected_own(own, position, scaled))
        d = np.sqrt(((paints_arr + response @ (t * offset) - corrected) ** 2).sum(axis=1))
        best = d if best is None else np.minimum(best, d)
    strength_order, strength_margin = _ranked(best)
    if strength_order[0] != order[0] or strength_margin <= margin:
        return order, margin
    return strength_order, strength_margin


def _off_paint_shares(samples, light, positions, paints_arr):
    """Each design's share of its least pale pixels (ColourSample.paint_chroma: its paint as glare left
    it) not nearest the paint most common among them, under `light` at its position (0 without them)."""
    import numpy as np

    shares = np.zeros(len(samples))
    measured = [k for k, s in enumerate(samples) if s.paint_chroma is not None and len(s.paint_chroma)]
    if not measured:
        return shares
    counts = np.array([len(samples[k].paint_chroma) for k in measured])
    owner = np.repeat(np.arange(len(measured)), counts)
    at = np.asarray(positions, np.float64)[measured][owner]
    chroma = light.correct(np.concatenate([samples[k].paint_chroma for k in measured]), (at[:, :1], at[:, 1:]))
    nearest = _least_column(_paint_columns(chroma, np.asarray(paints_arr, np.float32)))[0]
    kinds = len(paints_arr)
    by_paint = np.bincount(owner * kinds + nearest, minlength=len(measured) * kinds).reshape(len(measured), kinds)
    shares[measured] = 1.0 - by_paint.max(axis=1) / counts
    return shares


def _ranked(d):
    """(the paints ordered nearest first, the margin between the nearest two) of distances `d` (K)."""
    import numpy as np

    order = np.argsort(d)
    best, second = float(d[order[0]]), float(d[order[1]])
    return order, (max(0.0, min(1.0, (second - best) / (second + best))) if second + best > 0 else 1.0)


def _glare_lines(paints, max_paleness: float, steps: int = 25):
    """K x steps x 2: each of `paints` (K x 2 log-chromaticities, floored as log_chroma's) with more and
    more of the light's own colour added (glare: the lamp mirrored; in the light's correction it is
    grey), from none to where its least channel over its greatest reaches `max_paleness` (a paint
    already paler, white, stays where it is)."""
    import numpy as np

    paints = np.asarray(paints, np.float64)
    linear = np.stack([np.exp(paints[:, 1]), np.ones(len(paints)), np.exp(paints[:, 0])], axis=1)  # B, G, R
    linear /= linear.max(axis=1, keepdims=True)
    # p + t (1, 1, 1) has least over greatest (low + t) / (1 + t): max_paleness at t = reach.
    reach = np.maximum(0.0, (max_paleness - linear.min(axis=1)) / (1.0 - max_paleness))
    mixed = linear[:, None, :] + (np.linspace(0.0, 1.0, steps)[None, :] * reach[:, None])[..., None]
    mixed += CHANNEL_FLOOR * mixed.max(axis=2, keepdims=True)
    lines = np.stack([np.log(mixed[..., 2] / mixed[..., 1]), np.log(mixed[..., 0] / mixed[..., 1])], axis=2)
    lines[:, 0] = paints  # no glare: the paint itself (floored once, as measured)
    return lines


def _photo_light(samples, chroma, positions, paints_arr, cfg: ColourConfig):
    """(light, rows, shares) of one photo's designs: the light estimated from the designs painted in
    one colour (estimate_light), each of those designs' row in its fit (design index -> row), and each
    design's third-colour share under it (_third_shares)."""
    import numpy as np

    # Wilds first, with the light as it is: the share of a wild's third colour is far
    # from a single paint's (0.15 and more against 0.03 at most), cast or not.
    pixels = _design_pixels(samples, cfg)  # every design's pixels' chromaticities, for both calls below
    third = _third_shares(samples, paints_arr, None, positions, cfg, pixels)
    single = third < cfg.wild_min_share
    light = estimate_light(chroma[single], positions[single], paints_arr, cfg)
    rows = {int(k): i for i, k in enumerate(np.nonzero(single)[0])}  # tile -> its row in the light's fit
    return light, rows, _third_shares(samples, paints_arr, light, positions, cfg, pixels)


def cast_residuals(samples: list[ColourSample], colours: str, painted: str, positions,
                   config: ColourConfig | None = None):
    """(offsets, residuals) of the designs of one photo of the tile set of `colours` whose paints are
    known (`painted`, a colour letter per design; a wild's "*" is left out): the light's offset at
    each (LightEstimate.offset_at) and how far its log-chromaticity, corrected as classify_colours
    corrects it, lies from its paint's reference (N x 2 each). What CAST_RESPONSE is measured from
    (bench/paint_response.py)."""
    import numpy as np

    cfg = config or ColourConfig()
    paints_arr = np.array(list(paints_for(colours).values()), np.float64)
    chroma = log_chroma([s.design_bgr for s in samples]).astype(np.float64)
    pos = np.asarray(positions, np.float64).reshape(len(samples), 2)
    light, rows, _ = _photo_light(samples, chroma, pos, paints_arr, cfg)
    known = [k for k, c in enumerate(painted) if c != WILD_COLOUR]
    offsets = np.array([light.offset_at(pos[k]) for k in known]).reshape(-1, 2)
    residuals = (light.correct_each(chroma[known], pos[known], [rows.get(k) for k in known])
                 - np.array([DEFAULT_PAINTS[painted[k]] for k in known]).reshape(-1, 2))
    return offsets, residuals


@dataclass
class LightEstimate:
    """How the photo's light and camera move every paint's log-chromaticity.

    A colour cast of the light (channel gains) adds the same offset to every
    paint's own (ln R/G, ln B/G), before log_chroma's channel floor (see
    `unfloored`: after it, a saturated paint's weak channel hardly moves); a
    lamp of another colour from one side makes the offset slide across the
    photo (here to first order in the position, x and y from -1 to 1 across
    it); a camera that renders colours more or less saturated scales every
    paint's chromaticity: seen = s paint + o + x gx + y gy, in the paints' own
    chromaticities. `coefficients` is (s - 1, o, gx, gy) flattened: 7 numbers.
    """

    coefficients: Any  # float64 7: s - 1, ox, oy, gx (2), gy (2)
    assigned: Any  # int array N: the paint each tile was put on
    weights: Any  # float64 array N x 2 x 2: each tile's weight in the fit (robust, and the floor's slopes)
    chroma: Any  # N x 2: the tiles' own chromaticities as seen (unfloored)
    positions: Any  # N x 2
    paints: Any  # K x 2: the paints' own chromaticities (unfloored)
    doubtful: Any  # bool array N: another light, nearly as good, gives the tile another paint
    regulariser: Any  # 7 x 7
    parts: Any = None  # each tile's part of the fit's normal equations (N x 7 x 7, N x 7), made when first asked

    def correct(self, chroma, position, coefficients=None):
        """The log-chromaticity (floored, as log_chroma's) the paint seen as `chroma` at `position` has in
        the reference light."""
        return floored(_corrected_own(unfloored(chroma), position,
                                      self.coefficients if coefficients is None else coefficients))

    def offset_at(self, position):
        """The cast at `position`: the offset the light adds to every paint's own (ln R/G, ln B/G) there."""
        return _offset(self.coefficients, position)

    def colour_at(self, position) -> tuple[float, float, float]:
        """The light's own colour at `position` as linear B, G, R scaled to mean 1: what a white (or a
        highlight, the lamp mirrored) looks like there."""
        import numpy as np

        offset = self.offset_at(position)
        bgr = np.exp([offset[1], 0.0, offset[0]])
        return tuple(float(v) for v in bgr / bgr.mean())

    def correct_without(self, chroma, position, k):
        """`correct` with the light estimated from every tile but tile `k` (None: from all of them)."""
        import numpy as np

        return self.correct_each(np.reshape(chroma, (1, 2)), np.reshape(position, (1, 2)), [k])[0]

    def correct_each(self, chroma, positions, rows):
        """`correct` of each of `chroma` (N x 2) at `positions` (N x 2) with the light estimated from every
        tile but tile `rows[i]` for the i-th (None: from all of them): every tile at once, the same numbers
        (numpy's solve runs LAPACK's on each matrix as on one, and the rest is element by element). The
        fit's normal equations are sums over the tiles: tile k's part is taken out."""
        c = self.coefficients_each(rows)
        x, y = positions[:, :1], positions[:, 1:]
        offset = c[:, 1:3] + x * c[:, 3:5] + y * c[:, 5:7]  # _offset, a row of coefficients per tile
        return floored((unfloored(chroma) - offset) / (1.0 + c[:, :1]))

    def coefficients_each(self, rows):
        """The light's coefficients (len(rows) x 7) estimated from every tile but tile `rows[i]` for the
        i-th (None: from all of them)."""
        import numpy as np

        coefficients = np.tile(np.asarray(self.coefficients, np.float64), (len(rows), 1))
        out = [k for k, row in enumerate(rows) if row is not None]
        if out and self.assigned is not None and len(self.assigned):
            if self.parts is None:
                self.parts = _normal_parts(self.chroma, self.positions, self.paints[self.assigned], self.weights)
            lhs, rhs = self.parts
            left = [rows[k] for k in out]
            coefficients[out] = np.linalg.solve(lhs.sum(axis=0) - lhs[left] + self.regulariser,
                                                (rhs.sum(axis=0) - rhs[left])[:, :, None])[:, :, 0]
        return coefficients


def _corrected_own(own, position, c):
    """Own chromaticities (unfloored) seen at `position` (x, y; arrays broadcast) under the light `c`, as
    they are in the reference light."""
    import numpy as np

    own = np.asarray(own, np.float64)
    x, y = position
    if own.ndim == 2 and np.ndim(x) == 2 and np.shape(x) == np.shape(y) == (len(own), 1):
        # A position per row (N x 1 columns, as _third_shares gives each pixel its tile's): the same
        # numbers a coordinate at a time, each a run of N (broadcast against the two coordinates at
        # once, the inner loops were two long).
        xs, ys = np.asarray(x, np.float64)[:, 0], np.asarray(y, np.float64)[:, 0]
        out = np.empty(own.shape)
        for j in (0, 1):
            out[:, j] = (own[:, j] - (c[1 + j] + xs * c[3 + j] + ys * c[5 + j])) / (1.0 + c[0])
        return out
    return (own - _offset(c, position)) / (1.0 + c[0])


def _offset(c, position):
    """The offset of the light `c` (LightEstimate.coefficients) at `position` (x, y; arrays broadcast)."""
    return c[1:3] + position[0] * c[3:5] + position[1] * c[5:7]


def estimate_light(chroma, positions, paints, config: ColourConfig | None = None) -> LightEstimate:
    """How the photo's light and camera move the paints, from its tiles' colours (N x 2 log-chromaticities,
    as log_chroma gives them; `paints` K x 2 the same way).

    Every tile is painted in one of `paints` under the same light, so the
    light is what brings the tiles nearest to paints: put each tile on its
    nearest paint, fit the light to them (robustly, and held towards none by
    a prior, so a few tiles cannot claim a strong one), and repeat. The light
    acts on the colours' own chromaticities (`unfloored`), the distances are
    taken after the floor (where a channel lost in noise counts for little),
    so each tile's part in the fit is weighted by how much the floor lets its
    chromaticity move. That finds the nearest good solution, so it is started
    from no cast and from strong casts every way, and the solution that
    explains the tiles best (with its prior) is kept; tiles that another
    start's solution, almost as good, puts on another paint are marked
    doubtful.
    """
    import numpy as np

    cfg = config or ColourConfig()
    chroma = np.asarray(chroma, np.float64).reshape(-1, 2)
    positions = np.asarray(positions, np.float64).reshape(-1, 2)
    paints = np.asarray(paints, np.float64)
    own, own_paints = unfloored(chroma), unfloored(paints)
    n = len(chroma)
    reg = np.diag([1 / cfg.light_saturation_prior**2] + [1 / cfg.light_prior**2] * 2
                  + [1 / cfg.light_gradient_prior**2] * 4) / 4
    if n == 0:
        return LightEstimate(np.zeros(7), None, np.zeros((0, 2, 2)), own, positions, own_paints,
                             np.zeros(0, bool), reg)
    reach = cfg.light_start
    starts = [(0.0, 0.0)] + [(reach * math.cos(a), reach * math.sin(a)) for a in np.arange(8) * math.pi / 4]
    solutions = sorted(_fit_lights(own, positions, paints, own_paints, np.array(starts), reg, cfg),
                       key=lambda sol: sol[0])
    cost, coefficients, assigned, weights = solutions[0]
    doubtful = np.zeros(n, bool)
    for other in solutions[1:]:
        differs = other[2] != assigned
        if other[0] <= cost + cfg.light_ambiguity and differs.any() and not _joins_clusters(
                chroma, positions, assigned, other, cfg):
            doubtful |= differs
    return LightEstimate(coefficients, assigned, weights, own, positions, own_paints, doubtful, reg)


def _joins_clusters(chroma, positions, assigned, other, cfg: ColourConfig) -> bool:
    """Whether the light `other` (a _fit_lights solution) puts on one paint two clusters of tiles that
    `assigned` (the best light's paints) keeps apart and that it leaves apart too.

    Tiles of one paint under one light (or a smooth gradient of it) look alike: a paint seen on two
    tiles or more is a tight cluster (within `cluster_radius` in log-chromaticity as seen). A light
    under which two such clusters, still `cluster_gap` apart once it is taken off, are the same paint
    explains the photo with one paint seen as two colours: it is no other reading of the photo.
    """
    import numpy as np

    near = np.sqrt(_nearest(chroma, chroma)) <= cfg.cluster_radius
    same = assigned[:, None] == assigned[None, :]
    clustered = (near & same).sum(axis=1) >= 2  # itself and a twin
    _, coefficients, alt, _ = other
    corrected = floored(_corrected_own(unfloored(chroma), (positions[:, :1], positions[:, 1:]), coefficients))
    apart = np.sqrt(_nearest(corrected, corrected)) > cfg.cluster_gap
    joined = (alt[:, None] == alt[None, :]) & ~same & apart & clustered[:, None] & clustered[None, :]
    return bool(joined.any())


def _design_rows(positions, own_paints):
    """... x N x 2 x 7: how each of the light's coefficients moves the own chromaticity of each tile at
    `positions` (N x 2) painted `own_paints` (... x N x 2)."""
    import numpy as np

    x = np.zeros(own_paints.shape[:-1] + (2, 7))
    x[..., 0, 0], x[..., 1, 0] = own_paints[..., 0], own_paints[..., 1]
    x[..., 0, 1], x[..., 1, 2] = 1.0, 1.0
    x[..., 0, 3], x[..., 1, 4] = positions[:, 0], positions[:, 0]
    x[..., 0, 5], x[..., 1, 6] = positions[:, 1], positions[:, 1]
    return x


def _normal_parts(own, positions, own_paints, weights):
    """Each tile's part of the normal equations of the light's fit (_fit_lights) to tiles seen as `own`
    that are painted `own_paints` (N x 2 each, unfloored), each tile's residual weighted by its
    2 x 2 `weights`: (N x 7 x 7, N x 7). Summed with the prior, they give the light."""
    import numpy as np

    x = _design_rows(positions, own_paints)
    wx = np.einsum("nab,nbj->naj", weights, x)
    return np.einsum("nai,naj->nij", x, wx), np.einsum("naj,na->nj", wx, own - own_paints)


def _fit_lights(own, positions, paints, own_paints, starts, reg, cfg: ColourConfig):
    """[(cost, coefficients, assigned paint, weights)] of the light fitted from each of `starts` (S x 2
    constant offsets), all starts at once."""
    import numpy as np

    n_starts, n = len(starts), len(own)
    coefficients = np.zeros((n_starts, 7))
    coefficients[:, 1:3] = starts
    huber = cfg.light_huber
    px, py = positions[None, :, :1], positions[None, :, 1:]

    def fitted(c):
        offset = c[:, None, 1:3] + px * c[:, None, 3:5] + py * c[:, None, 5:7]
        corrected = (own[None] - offset) / (1.0 + c[:, None, :1])  # S x N x 2
        seen = floored(corrected)
        # The nearest paint's index and distance (its column's value at the least: the least itself).
        assigned, nearest = _least_column([np.sqrt(d) for d in _paint_columns(seen, paints)])
        robust = np.where(nearest < huber, 1.0, huber / np.maximum(nearest, 1e-9))
        # The residual is measured after the floor: to first order it is the floor's slopes at the
        # tile times the residual in own chromaticities.
        slopes = _floor_slopes(corrected.reshape(-1, 2)).reshape(len(c), n, 2, 2)
        weights = robust[..., None, None] * np.einsum("snab,snac->snbc", slopes, slopes)
        return assigned, nearest, weights

    active = np.ones(n_starts, bool)
    for _ in range(12):
        # Only the starts still moving: a settled start's coefficients are kept as they are, so its
        # step was computed only to be thrown away. Each start's numbers are its own (every step is
        # element by element, numpy's einsum and batched solve give a start the same numbers in a
        # smaller batch).
        moving = np.nonzero(active)[0]
        assigned, _, weights = fitted(coefficients[moving])
        painted = own_paints[assigned]  # S x N x 2
        x = _design_rows(positions, painted)
        wx = np.einsum("snab,snbj->snaj", weights, x)
        lhs = np.einsum("snai,snaj->sij", x, wx) + reg
        rhs = np.einsum("snaj,sna->sj", wx, own[None] - painted)
        new = np.linalg.solve(lhs, rhs[..., None])[..., 0]
        step = np.abs(new - coefficients[moving]).max(axis=1)
        coefficients[moving] = new
        active[moving] = step >= 1e-4
        if not active.any():
            break
    assigned, nearest, weights = fitted(coefficients)
    robust = np.where(nearest < huber, nearest**2 / 2, huber * (nearest - huber / 2)).sum(axis=1)
    costs = robust + 0.5 * np.einsum("si,ij,sj->s", coefficients, reg, coefficients)
    return [(float(costs[k]), coefficients[k], assigned[k], weights[k]) for k in range(n_starts)]


def _third_shares(samples, paints_arr, light, positions, cfg: ColourConfig, pixels=None):
    """The share of each design's pixels nearest its third most common paint (the `wild_min_colours`-th),
    their chromaticities corrected by `light` at each tile's position (None: as seen).

    A wild is painted in six colours, one sector each, so its third colour
    covers about a sixth of it; a single paint's third colour is noise. Every
    design at once: its pixels' chromaticities one by one are what one design
    at a time would give. `pixels` is what _design_pixels gives for `samples`
    (None: found here), so that a second call, under another light, does not
    take every pixel's chromaticity again.
    """
    import numpy as np

    shares = np.zeros(len(samples))
    measured, counts, owner, chroma = _design_pixels(samples, cfg) if pixels is None else pixels
    rank = cfg.wild_min_colours - 1
    if not measured or len(paints_arr) <= rank:
        return shares
    if light is not None:
        # Each pixel corrected at its tile's position (x and y as columns, so they broadcast).
        at = np.asarray(positions, np.float64)[measured][owner]
        chroma = light.correct(chroma, (at[:, :1], at[:, 1:]))
    nearest, least = _least_column(_paint_columns(chroma, np.asarray(paints_arr, np.float32)))
    k = len(paints_arr)
    m = len(measured)

    def ranked_share(nearest):
        by_paint = np.bincount(owner * k + nearest, minlength=m * k).reshape(m, k)
        return np.sort(by_paint / counts[:, None], axis=1)[:, ::-1][:, rank]

    shares[measured] = ranked_share(nearest)
    if light is not None and cfg.wild_glare_lines:
        far = np.nonzero(least > cfg.wild_line_from**2)[0]
        if len(far):
            along = nearest.copy()
            along[far] = _nearest_line(chroma[far], _glare_lines(paints_arr, cfg.max_glared_paleness, cfg.wild_line_steps))
            shares[measured] = np.maximum(shares[measured], ranked_share(along))
    return shares


def _nearest_line(chroma, lines):
    """The index of the line (K x steps x 2, _glare_lines) nearest each of `chroma` (N x 2)."""
    import numpy as np

    # One line at a time (steps x N, small enough to stay in the cache) rather than N x K x steps at
    # once: the same distances, 3-6 times less time on the 5,000-13,000 pixels of a photo of
    # many designs.
    points = np.asarray(lines, np.float32)
    across, down = np.ascontiguousarray(chroma[:, 0]), np.ascontiguousarray(chroma[:, 1])
    nearest = np.empty((len(points), len(chroma)), np.result_type(chroma.dtype, points.dtype))
    for k, line in enumerate(points):
        ((across - line[:, :1]) ** 2 + (down - line[:, 1:]) ** 2).min(axis=0, out=nearest[k])
    return nearest.argmin(axis=0)


def _design_pixels(samples, cfg: ColourConfig):
    """(measured, counts, owner, chroma) for _third_shares: the samples with at least 20 design pixels
    (their indices), how many of each one's pixels are looked at (at most about 600, evenly spaced),
    which sample each of those pixels belongs to, and their log-chromaticities as seen (float32)."""
    import numpy as np

    measured, parts = [], []
    for k, sample in enumerate(samples):
        pixels = sample.pixels_bgr
        if len(pixels) < 20:
            continue
        if len(pixels) > 600:
            pixels = pixels[:: len(pixels) // 600]
        measured.append(k)
        parts.append(pixels)
    if not measured:
        return measured, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 2), np.float32)
    counts = np.array([len(p) for p in parts])
    owner = np.repeat(np.arange(len(parts)), counts)
    return measured, counts, owner, log_chroma(np.concatenate(parts))


def calibrate(samples_by_colour: dict[str, list[ColourSample]], source: str = "") -> Calibration:
    """A calibration from designs of known colours (colour letter -> samples).

    Raises CalibrationError if a colour has no sample.
    """
    import numpy as np

    paints = {}
    counts = {}
    for letter, samples in samples_by_colour.items():
        if letter == WILD_COLOUR or letter not in DEFAULT_PAINTS:
            continue
        if not samples:
            raise CalibrationError(f"no {letter} tile in the calibration photo")
        chroma = log_chroma([s.design_bgr for s in samples])
        paints[letter] = tuple(float(x) for x in np.median(chroma, axis=0))
        counts[letter] = len(samples)
    if not paints:
        raise CalibrationError("the calibration photo has no tiles of known colour")
    return Calibration(paints, source, counts)
