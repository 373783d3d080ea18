"""Stage 3, classify colour: which of the tile set's colours each design is painted in.

Per tile, `colour_sample` takes the median colour of the design (its edge
trimmed, where paint and black blend) minus the black face's colour (the
haze a lens and a glossy tile add to everything), in linear light.

Colours are compared by log-chromaticity, (ln R/G, ln B/G): it does not
change with how brightly a tile is lit (shadow, gradient, exposure), and a
colour cast of the light (channel gains) only moves every design by the same
small offset. The paints lie far apart in it, red and orange included (red
has almost no green), so even a strong cast (gains of 0.6 and 1.6) leaves
every paint nearest its own reference; estimating the cast per photo was
tried and changed no reading. `classify_colours` gives each design the
nearest reference paint of the tile set, and calls a design painted in
several colours a wild.

The reference paints are daylight measurements of the printed tiles, or a
per-table `Calibration` made from one photo of known tiles under the table's
own light (colour is the weak spot: red against orange, white against yellow).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from vision.config import ColourConfig
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


@dataclass
class ColourSample:
    """What one design's colour looks like in the photo."""

    design_bgr: tuple[float, float, float]  # median of the design in linear light (0-1), black subtracted
    pixels_bgr: Any  # float32 N x 3: design pixels the same way (for telling a wild)

    def chroma(self) -> tuple[float, float]:
        """(ln R/G, ln B/G) of the design."""
        x = log_chroma([self.design_bgr])[0]
        return (float(x[0]), float(x[1]))


@dataclass
class ColourReading:
    colour: str  # a colour letter of the tile set, or "*" for a wild
    confidence: float
    chroma: tuple[float, float]  # the design's (ln R/G, ln B/G)


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


def to_linear(bgr):
    """sRGB values (0-255) to linear light (0-1), any shape."""
    import numpy as np

    v = np.asarray(bgr, dtype=np.float32) / 255.0
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4).astype(np.float32)


def log_chroma(linear_bgr):
    """(ln R/G, ln B/G) of N x 3 linear BGR values, each channel floored at CHANNEL_FLOOR of the brightest."""
    import numpy as np

    bgr = np.asarray(linear_bgr, dtype=np.float32).reshape(-1, 3)
    floor = CHANNEL_FLOOR * bgr.max(axis=1, keepdims=True) + 1e-6
    b, g, r = (bgr + floor).T
    return np.column_stack([np.log(r / g), np.log(b / g)])


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
    design = to_linear(patch[core])
    black = np.median(to_linear(patch[face]), axis=0) if face.sum() >= 8 else np.zeros(3, np.float32)
    black = np.minimum(black, design.min(axis=0))
    pixels = np.maximum(design - black, 0)
    median = np.median(pixels, axis=0)
    return ColourSample(tuple(float(x) for x in median), pixels)


def _nearest(chroma, paints_arr):
    """Squared distances N x K from chromas to paints."""
    return ((chroma[:, None, :] - paints_arr[None, :, :]) ** 2).sum(axis=2)


def classify_colours(
    samples: list[ColourSample],
    colours: str,
    calibration: Calibration | None = None,
    config: ColourConfig | None = None,
) -> list[ColourReading]:
    """The colour of each design of one photo, from the letters in `colours` or a wild."""
    import numpy as np

    cfg = config or ColourConfig()
    paints = paints_for(colours, calibration)
    letters = list(paints)
    paints_arr = np.array(list(paints.values()), dtype=np.float32)
    readings = []
    for sample in samples:
        chroma = log_chroma([sample.design_bgr])
        d = np.sqrt(_nearest(chroma, paints_arr)[0])
        order = np.argsort(d)
        best, second = float(d[order[0]]), float(d[order[1]])
        confidence = max(0.0, min(1.0, (second - best) / (second + best))) if second + best > 0 else 1.0
        colour = letters[order[0]]
        if _is_wild(sample, paints_arr, cfg):
            colour = WILD_COLOUR
        readings.append(ColourReading(colour, confidence, (float(chroma[0, 0]), float(chroma[0, 1]))))
    return readings


def _is_wild(sample: ColourSample, paints_arr, cfg: ColourConfig) -> bool:
    """A design painted in several of the set's colours (a wild) rather than one."""
    import numpy as np

    pixels = sample.pixels_bgr
    if len(pixels) < 20:
        return False
    if len(pixels) > 600:
        pixels = pixels[:: len(pixels) // 600]
    nearest = _nearest(log_chroma(pixels), paints_arr).argmin(axis=1)
    shares = np.bincount(nearest, minlength=len(paints_arr)) / len(nearest)
    return int((shares >= cfg.wild_min_share).sum()) >= cfg.wild_min_colours


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
