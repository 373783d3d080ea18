"""Stage 4, classify the design: which of the six shapes a tile carries.

The input is a tile's patch, resampled grid-aligned (see lattice.cell_patch),
so a square's sides run along the patch's axes and a diamond's corners point
along them, whatever the photo's rotation. The design is segmented from the
black face by Otsu's threshold on brightness (taken from the tile's middle,
where the table cannot show), or on chroma for a coloured design under glare
(which adds the same light to every channel), thin lines along the window's
border (the tile's edge, the table) opened away, the component covering the
middle kept, and described by four numbers that do not depend on its size or
colour:

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
import functools
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


@functools.cache
def printed_extent(design: str) -> float:
    """The widest extent of a printed design across a tile (tile units): its polygons' bounding box's
    larger side. Raises ValueError."""
    import numpy as np

    return float(np.ptp(np.vstack(design_polygons(design)), axis=0).max())


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


# The outline's radial profile (see _outline) in this many angle bins: a quarter turn is
# PROFILE_BINS / 4 of them.
PROFILE_BINS = 72


def quarter_profile(profile):
    """A radial profile folded onto a quarter turn (the mean of its four quarters) and scaled to
    mean 1: the same for the design turned a quarter, and blind to what is not four-fold, such as
    a circle seen as an ellipse (2-fold) or a design off its centroid (1-fold). An N x PROFILE_BINS
    array gives each row's."""
    if profile.ndim == 2:  # one profile a row
        folded = profile.reshape(len(profile), 4, -1).mean(axis=1)
        return folded / folded.mean(axis=1, keepdims=True)
    folded = profile.reshape(4, -1).mean(axis=0)
    return folded / folded.mean()


# The profiles' blur runs further than the four numbers': a small tile (20 pixels) is not asked
# about its blur, and a clover blurred past 6% of a tile fits a sharper diamond, a four-point
# star a square. Knowing how far blur takes each design keeps such a tile from looking sure.
PROFILE_BLUR_STEPS = BLUR_STEPS + (0.072, 0.084, 0.096, 0.108)


def compute_prototype_profiles() -> dict[str, tuple[Any, Any]]:
    """Each design's (quarter profiles, log mean radii in patches) drawn at each of PROFILE_BLUR_STEPS:
    (len(PROFILE_BLUR_STEPS) x PROFILE_BINS / 4, len(PROFILE_BLUR_STEPS)) arrays."""
    import numpy as np

    out = {}
    for design in PROTOTYPES:
        profiles = [_outline(design_mask(draw_design(design, 64, b)))[1] for b in PROFILE_BLUR_STEPS]
        out[design] = (np.array([quarter_profile(p) for p in profiles]),
                       np.log([p.mean() / 64 for p in profiles]))
    return out


# Each design's quarter profile and log mean radius (in patches) at each of PROFILE_BLUR_STEPS:
# compute_prototype_profiles() kept as a table, as PROTOTYPE_CURVES is.
PROTOTYPE_PROFILES: dict[str, tuple[tuple[float, ...], ...]] = {
    "1": (
        (0.982, 0.993, 1.007, 0.997, 1.005, 1.002, 1.006, 0.996, 1.001, 1.001, 1.006, 1.006, 1.006, 1.005, 0.997, 1.007, 0.993, 0.991),
        (0.985, 0.995, 1.007, 0.999, 1.002, 1.004, 1.008, 0.996, 1.003, 1.003, 0.996, 1.008, 1.004, 1.002, 0.999, 1.008, 0.995, 0.985),
        (0.994, 1.002, 0.996, 1.002, 1.001, 1.005, 1.003, 0.999, 0.993, 0.993, 0.999, 1.003, 1.005, 1.001, 1.005, 1.000, 1.004, 0.994),
        (0.990, 0.998, 0.997, 1.003, 1.005, 1.003, 1.003, 0.996, 1.001, 1.001, 1.002, 1.003, 1.003, 1.005, 1.003, 0.997, 0.997, 0.990),
        (0.992, 1.000, 1.010, 1.000, 1.000, 0.999, 0.998, 1.002, 1.001, 1.001, 1.002, 1.001, 0.999, 1.000, 1.003, 1.002, 1.000, 0.992),
        (0.998, 0.986, 1.002, 0.998, 1.006, 1.007, 1.002, 1.000, 1.000, 1.000, 1.000, 1.002, 1.007, 1.006, 0.998, 1.002, 0.986, 0.998),
        (1.004, 1.001, 0.988, 1.005, 1.002, 1.006, 0.993, 1.004, 0.997, 0.997, 1.004, 0.999, 1.002, 1.002, 1.005, 0.988, 1.001, 1.004),
        (0.994, 1.004, 0.997, 1.004, 0.993, 1.001, 1.003, 1.007, 0.999, 0.999, 1.007, 0.998, 0.991, 0.997, 1.004, 1.005, 1.004, 0.994),
        (0.995, 0.994, 1.010, 0.996, 0.998, 1.005, 1.000, 1.002, 1.002, 1.002, 1.002, 1.000, 1.005, 1.009, 0.989, 1.010, 0.994, 0.984),
        (1.003, 1.011, 1.003, 1.005, 0.997, 1.000, 0.989, 0.999, 0.988, 0.988, 0.997, 0.995, 1.005, 0.997, 1.005, 1.003, 1.012, 1.003),
    ),
    "2": (
        (1.209, 1.214, 1.176, 1.130, 1.088, 1.002, 0.879, 0.742, 0.562, 0.562, 0.752, 0.879, 1.002, 1.077, 1.130, 1.176, 1.207, 1.210),
        (1.215, 1.220, 1.182, 1.135, 1.072, 0.997, 0.859, 0.746, 0.578, 0.549, 0.755, 0.859, 1.007, 1.083, 1.135, 1.182, 1.209, 1.215),
        (1.221, 1.207, 1.177, 1.138, 1.077, 1.002, 0.863, 0.750, 0.575, 0.575, 0.734, 0.863, 1.002, 1.077, 1.130, 1.180, 1.207, 1.221),
        (1.212, 1.198, 1.171, 1.129, 1.069, 0.994, 0.865, 0.736, 0.625, 0.632, 0.745, 0.865, 0.994, 1.069, 1.122, 1.171, 1.191, 1.212),
        (1.200, 1.188, 1.158, 1.125, 1.047, 0.973, 0.864, 0.751, 0.687, 0.696, 0.760, 0.864, 0.973, 1.047, 1.125, 1.156, 1.188, 1.199),
        (1.189, 1.195, 1.162, 1.114, 1.032, 0.952, 0.872, 0.765, 0.734, 0.742, 0.774, 0.862, 0.931, 1.032, 1.106, 1.156, 1.195, 1.189),
        (1.193, 1.176, 1.146, 1.095, 1.020, 0.929, 0.875, 0.799, 0.769, 0.769, 0.799, 0.865, 0.934, 1.020, 1.095, 1.146, 1.178, 1.192),
        (1.178, 1.162, 1.129, 1.070, 1.013, 0.936, 0.881, 0.830, 0.806, 0.806, 0.830, 0.871, 0.931, 1.017, 1.070, 1.129, 1.163, 1.177),
        (1.166, 1.149, 1.117, 1.058, 0.996, 0.939, 0.896, 0.857, 0.831, 0.831, 0.857, 0.879, 0.939, 0.996, 1.058, 1.117, 1.149, 1.166),
        (1.156, 1.140, 1.105, 1.037, 0.997, 0.940, 0.907, 0.867, 0.858, 0.858, 0.867, 0.903, 0.940, 0.997, 1.037, 1.096, 1.140, 1.156),
    ),
    "3": (
        (1.219, 1.137, 1.063, 0.999, 0.972, 0.927, 0.910, 0.888, 0.884, 0.884, 0.888, 0.910, 0.927, 0.972, 0.999, 1.063, 1.137, 1.219),
        (1.219, 1.137, 1.063, 0.999, 0.972, 0.927, 0.910, 0.888, 0.884, 0.884, 0.888, 0.910, 0.927, 0.972, 0.999, 1.063, 1.137, 1.219),
        (1.201, 1.140, 1.066, 1.002, 0.968, 0.930, 0.913, 0.893, 0.887, 0.887, 0.893, 0.913, 0.930, 0.968, 1.002, 1.066, 1.140, 1.201),
        (1.182, 1.142, 1.068, 1.004, 0.976, 0.931, 0.914, 0.893, 0.888, 0.888, 0.893, 0.914, 0.931, 0.976, 1.004, 1.068, 1.142, 1.182),
        (1.146, 1.140, 1.075, 1.010, 0.982, 0.937, 0.920, 0.898, 0.893, 0.893, 0.898, 0.920, 0.937, 0.982, 1.010, 1.075, 1.140, 1.146),
        (1.140, 1.124, 1.070, 1.013, 0.978, 0.944, 0.923, 0.908, 0.901, 0.901, 0.908, 0.923, 0.944, 0.978, 1.013, 1.070, 1.124, 1.140),
        (1.128, 1.111, 1.078, 1.012, 0.984, 0.939, 0.923, 0.911, 0.904, 0.911, 0.918, 0.929, 0.939, 0.984, 1.012, 1.078, 1.111, 1.128),
        (1.109, 1.085, 1.053, 1.023, 0.998, 0.957, 0.935, 0.923, 0.916, 0.916, 0.923, 0.935, 0.957, 0.998, 1.023, 1.053, 1.085, 1.109),
        (1.108, 1.072, 1.049, 1.029, 0.990, 0.966, 0.943, 0.924, 0.919, 0.919, 0.924, 0.943, 0.966, 0.990, 1.029, 1.049, 1.072, 1.108),
        (1.083, 1.066, 1.043, 1.023, 0.993, 0.980, 0.951, 0.933, 0.928, 0.928, 0.933, 0.951, 0.980, 0.993, 1.023, 1.043, 1.066, 1.083),
    ),
    "4": (
        (0.883, 0.893, 0.906, 0.930, 0.962, 1.011, 1.057, 1.135, 1.222, 1.222, 1.135, 1.057, 1.011, 0.962, 0.930, 0.906, 0.893, 0.883),
        (0.887, 0.891, 0.907, 0.931, 0.963, 1.001, 1.071, 1.123, 1.211, 1.241, 1.123, 1.071, 1.001, 0.963, 0.931, 0.907, 0.891, 0.887),
        (0.888, 0.893, 0.908, 0.932, 0.964, 1.003, 1.073, 1.125, 1.213, 1.213, 1.125, 1.073, 1.003, 0.964, 0.932, 0.908, 0.893, 0.888),
        (0.892, 0.897, 0.912, 0.936, 0.968, 1.007, 1.077, 1.130, 1.179, 1.179, 1.130, 1.077, 1.007, 0.968, 0.936, 0.912, 0.897, 0.892),
        (0.889, 0.894, 0.911, 0.938, 0.973, 1.015, 1.064, 1.141, 1.171, 1.179, 1.141, 1.064, 1.015, 0.973, 0.938, 0.911, 0.894, 0.889),
        (0.895, 0.900, 0.917, 0.944, 0.979, 1.022, 1.071, 1.120, 1.152, 1.152, 1.120, 1.071, 1.022, 0.979, 0.944, 0.917, 0.900, 0.895),
        (0.905, 0.910, 0.928, 0.955, 0.990, 1.034, 1.061, 1.103, 1.115, 1.115, 1.103, 1.061, 1.034, 0.990, 0.955, 0.928, 0.910, 0.905),
        (0.911, 0.917, 0.934, 0.958, 0.973, 1.016, 1.067, 1.093, 1.118, 1.118, 1.100, 1.074, 1.016, 0.984, 0.958, 0.934, 0.917, 0.911),
        (0.913, 0.920, 0.940, 0.954, 0.989, 1.033, 1.061, 1.089, 1.100, 1.100, 1.089, 1.065, 1.033, 0.989, 0.954, 0.940, 0.920, 0.913),
        (0.925, 0.933, 0.953, 0.967, 1.003, 1.031, 1.051, 1.060, 1.081, 1.081, 1.060, 1.051, 1.025, 1.003, 0.967, 0.953, 0.933, 0.925),
    ),
    "5": (
        (0.618, 0.664, 0.719, 0.778, 0.881, 0.985, 1.134, 1.383, 1.812, 1.812, 1.392, 1.161, 0.997, 0.869, 0.782, 0.716, 0.664, 0.632),
        (0.635, 0.668, 0.724, 0.782, 0.886, 0.991, 1.141, 1.391, 1.764, 1.764, 1.400, 1.168, 1.003, 0.874, 0.787, 0.720, 0.668, 0.635),
        (0.665, 0.670, 0.723, 0.785, 0.889, 0.994, 1.145, 1.415, 1.691, 1.691, 1.405, 1.183, 1.006, 0.895, 0.785, 0.723, 0.670, 0.665),
        (0.670, 0.689, 0.745, 0.808, 0.883, 1.002, 1.173, 1.406, 1.625, 1.616, 1.415, 1.192, 1.014, 0.883, 0.791, 0.728, 0.689, 0.670),
        (0.701, 0.719, 0.745, 0.812, 0.900, 1.018, 1.158, 1.401, 1.543, 1.533, 1.362, 1.197, 1.018, 0.918, 0.825, 0.745, 0.705, 0.701),
        (0.737, 0.742, 0.768, 0.835, 0.929, 1.030, 1.172, 1.338, 1.452, 1.443, 1.358, 1.172, 1.030, 0.910, 0.835, 0.771, 0.742, 0.737),
        (0.750, 0.785, 0.798, 0.849, 0.939, 1.035, 1.160, 1.289, 1.365, 1.375, 1.289, 1.180, 1.048, 0.939, 0.849, 0.829, 0.771, 0.750),
        (0.792, 0.829, 0.840, 0.896, 0.955, 1.032, 1.138, 1.228, 1.305, 1.305, 1.228, 1.138, 1.032, 0.955, 0.863, 0.843, 0.815, 0.807),
        (0.835, 0.843, 0.871, 0.910, 0.964, 1.036, 1.104, 1.195, 1.242, 1.231, 1.195, 1.116, 1.029, 0.970, 0.924, 0.857, 0.841, 0.835),
        (0.874, 0.882, 0.896, 0.949, 0.987, 1.020, 1.074, 1.145, 1.171, 1.181, 1.154, 1.074, 1.020, 0.981, 0.935, 0.899, 0.882, 0.874),
    ),
    "6": (
        (1.408, 1.061, 0.869, 0.758, 0.720, 0.761, 0.903, 1.097, 1.419, 1.419, 1.097, 0.895, 0.761, 0.720, 0.758, 0.883, 1.061, 1.408),
        (1.385, 1.065, 0.899, 0.776, 0.748, 0.764, 0.906, 1.100, 1.366, 1.366, 1.100, 0.898, 0.776, 0.741, 0.761, 0.886, 1.078, 1.385),
        (1.318, 1.080, 0.913, 0.816, 0.777, 0.801, 0.907, 1.121, 1.289, 1.289, 1.121, 0.911, 0.801, 0.777, 0.796, 0.900, 1.080, 1.304),
        (1.226, 1.082, 0.927, 0.834, 0.827, 0.850, 0.932, 1.098, 1.229, 1.229, 1.098, 0.924, 0.850, 0.827, 0.847, 0.940, 1.054, 1.226),
        (1.151, 1.058, 0.958, 0.890, 0.869, 0.905, 0.942, 1.079, 1.153, 1.153, 1.079, 0.942, 0.905, 0.869, 0.890, 0.958, 1.058, 1.138),
        (1.088, 1.035, 0.978, 0.950, 0.938, 0.923, 0.969, 1.028, 1.085, 1.085, 1.028, 0.961, 0.923, 0.930, 0.950, 0.992, 1.051, 1.086),
        (1.049, 1.013, 0.982, 0.973, 0.962, 0.979, 0.978, 1.025, 1.038, 1.039, 1.025, 0.978, 0.966, 0.962, 0.973, 0.997, 1.013, 1.049),
        (1.002, 1.011, 0.993, 0.992, 0.972, 0.989, 1.001, 1.015, 1.028, 1.028, 1.015, 1.001, 0.989, 0.972, 0.987, 0.993, 1.011, 1.002),
        (1.001, 1.011, 0.992, 0.992, 0.991, 0.989, 1.000, 1.006, 1.018, 1.018, 1.006, 1.000, 0.989, 0.991, 0.992, 0.992, 1.011, 1.001),
        (0.997, 1.006, 1.006, 0.987, 1.000, 0.992, 0.996, 1.001, 1.014, 1.014, 1.001, 0.996, 0.992, 1.000, 0.987, 1.006, 1.006, 0.997),
    ),
}
PROTOTYPE_SIZES: dict[str, tuple[float, ...]] = {
    "1": (-0.881, -0.884, -0.893, -0.908, -0.930, -0.956, -0.983, -1.015, -1.049, -1.069),
    "2": (-1.052, -1.057, -1.061, -1.064, -1.063, -1.072, -1.075, -1.082, -1.092, -1.104),
    "3": (-1.024, -1.024, -1.027, -1.029, -1.035, -1.069, -1.080, -1.093, -1.125, -1.145),
    "4": (-1.025, -1.040, -1.042, -1.046, -1.093, -1.100, -1.111, -1.159, -1.175, -1.189),
    "5": (-1.256, -1.262, -1.265, -1.273, -1.276, -1.288, -1.305, -1.322, -1.338, -1.349),
    "6": (-1.252, -1.256, -1.257, -1.271, -1.290, -1.310, -1.315, -1.325, -1.325, -1.321),
}
# Residual rotation after the grid alignment: profiles are also compared turned by up to this many
# bins (5 degrees each) either way; square and diamond are 9 bins apart.
PROFILE_SHIFTS = (-2, -1, 0, 1, 2)
# How far a quarter profile (RMS, in units of its mean) may wander from its design's; and how far
# the design's size may be off its drawn size (log mean radius) before it counts, and by how much.
PROFILE_SCALE = 0.03
SIZE_TOLERANCE = 0.10
SIZE_SCALE = 0.06
# A design is compared with each design's profile blurred at most this many times the blur its patch
# measures (blur_of): a shape is not a design blurred much further than the tile it is on. A clover
# blurred by 11% of a tile has a diamond's profile (0.8 from the sharp diamond's, 4.7 sharp), and
# every diamond of small tiles was nearest the clover's curve at that end, its patch measuring
# 0.03-0.05: diamonds read right were 0.17-0.44 sure for it (groups 67, 178, 205, 209, large 153,
# extreme 15, 190). The clovers read right lay nearest their curve at 1.0-1.9 times their patch's
# blur (the clovers of groups 30 and 67, large 153 and mixed 15, 1200x900); the clovers mixed 15
# reads as diamonds measure 0.10-0.11, and are compared along the whole curve as before.
BLUR_REACH = 2.0
# A design whose four numbers lie far from every design's curve (in SCALES units: about half the gap
# between the closest designs) is no design's whole outline, whichever it is nearest: a highlight
# took part of it (a clover's lower lobe and middle, tinted 175: 6.3 from every curve, its nearest
# two 0.27 apart). A tile's confidence falls from full at the first distance to none at the second
# (design_fit). On the 16 conditions' seeds 0-23 and tinted seeds 24-85 the designs read right lay
# at most 2.7 from their curve (5,004 tiles).
UNLIKE_ANY = (3.0, 6.0)


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
    blur: float | None = None  # its outline's (DesignOutline.blur)
    # Both readings' confidence together where they agree on a patch whose blur is within the four
    # numbers' curves (agreed_confidence); None elsewhere. pipeline.tile_confidence takes it.
    agreed: float | None = None


def design_mask(patch, config: DesignConfig | None = None, glare: bool | None = None):
    """The design's pixels in a tile patch (uint8, 1 on the design). Raises ClassifyError if none.
    `glare`: the patch's glared(), when the caller has it (None: measured here)."""
    import cv2
    import numpy as np

    cfg = config or DesignConfig()
    size = patch.shape[0]
    c0 = core_margin(size, cfg)
    value = _design_image(patch, c0, cfg, glare)
    margin = int(round(size * (1 - cfg.inner) / 2))
    inner = value[margin : size - margin, margin : size - margin]
    # The threshold between face and paint comes from the tile's middle, where the
    # table (a gap between tiles, a tile nudged off its place) cannot show.
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
    # The tile's own edge (its bevel, the table beside it) may show along the window's border as a
    # thin bright line, which a design reaching near it would join: in a band along each side, what
    # is thinner than 3 pixels across that side (a line along it) is opened away. A design's point
    # reaching into the band runs across it, and stays.
    band = int(round(size * cfg.edge_band))
    if band > 0 and size > 2 * (margin + band):
        lo, hi = margin + band, size - margin - band
        across = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 1), np.uint8))  # rows: top, bottom
        along = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((1, 3), np.uint8))  # columns: left, right
        mask[:lo] &= across[:lo]
        mask[hi:] &= across[hi:]
        mask[:, :lo] &= along[:, :lo]
        mask[:, hi:] &= along[:, hi:]
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
    return _filled(mask)


def _design_image(patch, c0: int, cfg: DesignConfig, glare: bool | None = None):
    """The image the design is told from the face in: the patch's brightest channel, or, for a
    coloured design under glare, its chroma (`_glared_chroma`), stretched from the face's median
    (0) to the paint's (255)."""
    import numpy as np

    told = _glared_chroma(patch, c0, cfg, glare)
    if told is None:
        return brightest(patch)
    value, chroma, face, paint = told
    # Where glare drives the paint's brightest channel to the top of its range, the other channels
    # still rise and the chroma falls: a pixel clipped there that keeps some colour is paint (glare
    # on the black face clips, if ever, to grey).
    clipped = (value >= 250) & (chroma >= cfg.clipped_chroma)
    if clipped.any():
        chroma = chroma.copy()
        chroma[clipped] = np.maximum(chroma[clipped], int(paint))
    # Every paint of a design is paint, however much colour it has: a wild's blue and green have
    # less than its red and yellow, and Otsu's threshold on the chroma itself may part them. The
    # chroma is stretched so that the face's median is the bottom and the paint's the top: the
    # design's own threshold then falls between the face and its least coloured paint.
    stretched = (chroma.astype(np.float32) - face) * (255 / (paint - face))
    return np.clip(stretched, 0, 255).astype(np.uint8)


def _glared_chroma(patch, c0: int, cfg: DesignConfig, glare: bool | None = None):
    """(brightest channel, chroma, the face's median chroma, the paint's) of a coloured design under
    glare, whose design is told by its chroma (brightest minus dimmest channel); None when it is
    told by brightness.

    Glare (a lamp mirrored in a glossy tile) adds near-white light, the same to every channel:
    in the brightest channel a highlight on the black face is as bright as a dark paint (a dark
    green, a dark red), and Otsu's threshold may part the highlight from everything else. The
    chroma does not change with light added to all three channels, so a coloured paint stands
    out of it with or without a highlight. A white paint has none: its design is told by
    brightness, as is any design whose chroma does not stand `chroma_contrast` above the face's
    or is less than `chroma_share` of its brightness (a white under a coloured light),
    and any tile whose dimmest channel does not rise `glare_contrast` above its median somewhere
    (no glare). `glare`: the patch's glared(), when the caller has it (None: measured here).
    """
    import cv2
    import numpy as np

    if patch.ndim != 3 or patch.dtype != np.uint8 or glare is False:
        return None
    dimmest = darkest(patch)
    size = patch.shape[0]
    # Glare shows in the dimmest channel, which face and coloured paint alike keep low: a tile
    # without it is read by brightness, as it always was.
    if glare is None and _glare_rise(dimmest, c0) < cfg.glare_contrast:
        return None
    value = brightest(patch)
    chroma = value - dimmest
    core = np.ascontiguousarray(chroma[c0 : size - c0, c0 : size - c0])
    threshold, _ = cv2.threshold(core, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    cut = int(threshold) + 1
    running = np.cumsum(np.bincount(core.ravel(), minlength=256)).tolist()
    if running[cut - 1] in (0, running[-1]):
        return None
    paint, face = _median_of_running(running, cut, 256), _median_of_running(running, 0, cut)
    if paint - face < cfg.chroma_contrast:
        return None
    # A white paint under a coloured light has some chroma, but little for its brightness: its
    # chroma is mostly noise, and its brightness tells it better. The brightness is the paint's
    # where glare lies least on it (its half with the lower dimmest channel): glare over much of a
    # coloured paint brightens it without adding colour, a white's dimmest channel is high all over.
    on_paint = core > threshold
    lit = value[c0 : size - c0, c0 : size - c0][on_paint]
    least = dimmest[c0 : size - c0, c0 : size - c0][on_paint]
    if paint < cfg.chroma_share * float(array_median(lit[least <= array_median(least)])):
        return None
    return value, chroma, face, paint


def _glare_rise(dimmest, c0: int) -> float:
    """How far a patch's dimmest channel (`dimmest`) rises above its median somewhere (its 98th
    percentile) in the tile's middle (`c0` pixels in from each side): glare's mark."""
    import numpy as np

    size = dimmest.shape[0]
    low, high = percentiles_of_counts(np.bincount(dimmest[c0 : size - c0, c0 : size - c0].ravel(), minlength=256), (50, 98))
    return high - low


def glared(patch, config: DesignConfig | None = None) -> bool:
    """Whether a BGR tile patch shows glare, as the design's mask judges it (see _design_image)."""
    cfg = config or DesignConfig()
    if patch.ndim != 3:
        return False
    return _glare_rise(darkest(patch), core_margin(patch.shape[0], cfg)) >= cfg.glare_contrast


def glare_share(patch, first, second, config: DesignConfig | None = None) -> float:
    """The share of the pixels two design masks of a BGR tile `patch` disagree on that lie under a
    highlight (under_highlight, measured on the `first` mask's paint). 0 when the masks agree
    everywhere."""
    first = first.astype(bool)
    changed = first != second.astype(bool)
    if patch.ndim != 3 or not changed.any() or not first.any():
        return 0.0
    return float(under_highlight(patch, first, config)[changed].mean())


def under_highlight(patch, mask, config: DesignConfig | None = None):
    """Which pixels of a BGR tile `patch` lie under a highlight (a bool plane): their dimmest channel
    `glare_contrast` or more above both its median in the tile's middle (glared's mark) and its median
    on the design's `mask` (a white paint's dimmest channel is high all over, a highlight lifts it
    further)."""
    import numpy as np

    cfg = config or DesignConfig()
    dimmest = darkest(patch)
    size, c0 = dimmest.shape[0], core_margin(dimmest.shape[0], cfg)
    middle, paint = (percentiles_of_counts(np.bincount(values.ravel(), minlength=256), (50,))[0]
                     for values in (dimmest[c0 : size - c0, c0 : size - c0], dimmest[mask.astype(bool)]))
    return dimmest >= max(middle, paint) + cfg.glare_contrast


def core_margin(size: int, cfg: DesignConfig) -> int:
    """Pixels from each side of a `size` patch to its middle (`cfg.core` of it), where the table cannot show."""
    return int(round(size * (1 - cfg.core) / 2))


def darkest(patch):
    """A BGR patch's dimmest channel at each pixel (patch.min(axis=2), faster on a tile's small patch)."""
    import numpy as np

    return np.minimum(np.minimum(patch[:, :, 0], patch[:, :, 1]), patch[:, :, 2])


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


def blur_of(patch, config: DesignConfig | None = None, glare: bool | None = None) -> float | None:
    """How blurred a tile's patch is: the width of its design's edges, as a fraction of the tile.

    A sharp step of contrast C blurred by a Gaussian of width s has a steepest
    slope of C / (s sqrt(2 pi)), so s is read back from the design's contrast
    (bright paint over black face) and its steepest slopes. Across and along
    the photo separately, the worse of the two: a phone moved while the
    shutter was open smears one way only. A sharp tile measures about 0.015
    (its resampling), a photo blurred by 5% of a tile about 0.05. None when
    the patch shows too little contrast to say.

    Measured where the design is told from (`_design_image`): under glare, a
    coloured design's chroma (unstretched: stretched between the face's and the
    paint's medians, a blurred edge's ramp is cut short). In brightness a highlight on a dark
    paint (a green, a blue) sets the contrast, two or three times the paint's
    own step at its edge, and a sharp tile measured 0.06-0.08. `glare`: the patch's glared(), when
    the caller has it (None: measured here).
    """
    import numpy as np

    cfg = config or DesignConfig()
    told = _glared_chroma(patch, core_margin(patch.shape[0], cfg), cfg, glare)
    value = brightest(patch) if told is None else told[1]
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
        # The array's own searchsorted: np.searchsorted's wrapper costs more than the search.
        a = int(below.searchsorted(lo, side="right")) * unit
        b = int(below.searchsorted(hi, side="right")) * unit
        out.append(a + (b - a) * (r - lo))
    return out


def median(values):
    """statistics.median of `values`, the same number (the middle one of the sorted values, or the mean
    of the two middle ones), without importing statistics and the fractions and decimal it loads
    (3-4 ms of every reader process's start). Raises ValueError for no values."""
    data = sorted(values)
    n = len(data)
    if not n:
        raise ValueError("no median of no values")
    if n % 2:
        return data[n // 2]
    return (data[n // 2 - 1] + data[n // 2]) / 2


def percentile(values, q: float):
    """np.percentile(values, q) of finite numbers and one q (linear interpolation): the same number,
    in the same type and with the same roundings, from one partial sort. np.percentile sorts its
    indices with np.unique, which loads numpy.ma on first use (12-13 ms of a reader process's start)
    to ask whether they are masked. Raises ValueError for no values."""
    import numpy as np

    flat = np.ravel(values)
    n = flat.size
    if not n:
        raise ValueError("no percentile of no values")
    # np.percentile's own steps: its virtual index (q from 0 to 100), the indices either side of it
    # (the last value at or past the end), the weight between them as a Python float, then its lerp.
    virtual = (n - 1) * (q / 100)
    lo = -1 if virtual >= n - 1 else int(math.floor(virtual))
    hi = -1 if lo == -1 else lo + 1
    t = float(virtual - lo)
    part = np.partition(flat, sorted({lo % n, hi % n}))
    a, b = part[lo], part[hi]
    step = b - a
    return b - step * (1 - t) if t >= 0.5 else a + step * t


def array_median(values, axis=None):
    """np.median(values, axis) of finite numbers: the same numbers, from the same partition and mean,
    without its check for NaN, which loads numpy.ma on first use (see percentile)."""
    import numpy as np

    a = np.asanyarray(values)
    if a.ndim == 0:
        return a.item()
    size = a.size if axis is None else a.shape[axis]
    if not size:
        return np.mean(a, axis=axis)  # NaN, with NumPy's warning
    half = size // 2
    part = np.partition(a, [half - 1, half] if size % 2 == 0 else [half], axis=axis)
    if axis is None and part.dtype.kind in "biuf" and part.dtype.itemsize >= (4 if part.dtype.kind == "f" else 1):
        # np.mean of the middle one or two, its steps written out (several times its cost on a scalar):
        # floats summed and halved in their own type, whole numbers and bools in float64.
        kind = part.dtype.type if part.dtype.kind == "f" else np.float64
        if size % 2:
            return kind(part[half])
        return kind((kind(part[half - 1]) + kind(part[half])) / 2)
    indexer = [slice(None)] * part.ndim
    indexer[0 if axis is None else axis] = slice(half - 1, half + 1) if size % 2 == 0 else slice(half, half + 1)
    return np.mean(part[tuple(indexer)], axis=0 if axis is None else axis)


def distinct(values):
    """np.unique(values) of numbers (no NaN): each value once, in order. np.unique loads numpy.ma on
    first use (see percentile)."""
    import numpy as np

    ordered = np.sort(np.ravel(values))
    if ordered.size < 2:
        return ordered
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


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
    return _outline(mask)[0]


def _outline(mask):
    """(design_features, radial profile, centroid) of a design mask: the profile is the outline's
    distance from the centroid (x, y, pixel centres counted from 0) in PROFILE_BINS angle bins from
    -pi, in pixels."""
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
    bins = PROFILE_BINS
    idx = ((phi + math.pi) / (2 * math.pi) * bins).astype(int) % bins
    profile = np.zeros(bins)
    np.maximum.at(profile, idx, r)
    empty = profile == 0
    if empty.all():
        return (solidity, 1.0, 0.0, 0.0), np.full(bins, 0.5), (cx, cy)
    if empty.any():
        known = np.nonzero(~empty)[0]
        profile[empty] = np.interp(np.nonzero(empty)[0], known, profile[known], period=bins)
    cos4, exp8 = _harmonics(bins)
    mean = profile.mean()
    axis4 = float((profile * cos4).mean() / mean)
    eight = float(abs((profile * exp8).mean()) / mean)
    return (solidity, float(profile.min() / profile.max()), axis4, eight), profile, (cx, cy)


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
    return classify_designs([design_outline(patch, config)], patch.shape[0])[0]


@dataclass
class DesignOutline:
    """What a patch's design shows before it is compared with the designs (design_outline)."""

    mask: Any  # uint8 patch-sized array, 1 on the design
    features: tuple[float, float, float, float]
    profile: Any  # radial profile, PROFILE_BINS
    centre: tuple[float, float]  # the design's centroid in the patch, (x, y) pixels
    blur: float | None = None  # the patch's blur (blur_of); None: not measured, or too little contrast


def design_outline(patch, config: DesignConfig | None = None, glare: bool | None = None) -> DesignOutline:
    """The design's mask, four numbers, radial profile and centre in a tile patch (`glare`: its glared(),
    when the caller has it). Raises ClassifyError if there is none."""
    return outline_of(design_mask(patch, config, glare))


def outline_of(mask) -> DesignOutline:
    """The DesignOutline of a design's mask (uint8, 1 on the design)."""
    features, profile, (cx, cy) = _outline(mask)
    # Moments count pixel centres from 0; the patch's middle is at size / 2 in pixel edges.
    return DesignOutline(mask, features, profile, (cx + 0.5, cy + 0.5))


def four_fold(mask, reach: float = 3.0, votes: int = 3):
    """A design's mask mended by its own symmetry: every design is the same turned a quarter about
    its middle, so a pixel is the design's when at least `votes` of the mask's four quarter turns
    about that middle have it. A highlight joined to one side of the design (or biting into it)
    lies in one turn only: it drops out (is filled in) while the design's own outline, in all four,
    stays. The middle is the one, within `reach` pixels of the mask's centroid (in half pixels),
    about which the mask best covers its own quarter turn: glare pulls the centroid off it."""
    import numpy as np

    n = mask.shape[0]
    ys, xs = np.nonzero(mask)
    cx, cy = float(xs.mean()), float(ys.mean())
    turned = np.rot90(mask, -1)  # turned[i, j] = mask[n - 1 - j, i]
    best = (-1, 0, 0)
    for a, b in _turn_centres(cx, cy, reach):
        shared = _shared(mask, turned, b, a - n + 1)
        if shared > best[0]:
            best = (shared, a, b)
    _, a, b = best
    return _filled((sum(_quarter_turns(mask, a, b)) >= votes).astype(np.uint8))


def _turn_centres(cx: float, cy: float, reach: float):
    """The (a, b) of every middle within `reach` pixels of (cx, cy), in half pixels, that a patch's
    quarter turn can be taken about pixel for pixel. A quarter turn about (cx, cy) takes pixel (x, y)
    to (a - y, x - b)... with a = cx + cy and b = cy - cx whole numbers: the quarter turn about the
    patch's middle, shifted by (b, a - n + 1)."""
    for hx in range(int(round(2 * (cx - reach))), int(round(2 * (cx + reach))) + 1):
        for hy in range(int(round(2 * (cy - reach))), int(round(2 * (cy + reach))) + 1):
            if (hx - hy) % 2 == 0:
                yield (hx + hy) // 2, (hy - hx) // 2


def _quarter_turns(x, a: int, b: int) -> list:
    """A patch-sized array `x` and its three quarter turns about the middle (a, b) (_turn_centres),
    as uint8 arrays, zero where a turn brings in nothing."""
    import numpy as np

    n = x.shape[0]
    turns = [x.astype(np.uint8)]
    for _ in range(3):
        turns.append(_shifted(np.rot90(turns[-1], -1), b, a - n + 1))
    return turns


def mend_hidden(patch, mask, config: DesignConfig | None = None, reach: float = 4.0):
    """A design's mask (uint8, 1 on the design) on a BGR tile `patch` with what a highlight hides read
    from the design's other quarters: None when no highlight lies on the mask's window.

    A highlight that clips the paint it lies on takes its colour and leaves the paint as pale as the
    face under it: the outline bends in where it lies (a diamond's middle and one side read as a
    bitten shape). Where a pixel lies under the highlight (its dimmest channel `glare_contrast` above
    both its median in the tile's middle and its median on the design: under_highlight), the
    mask there says nothing; every design is the same turned a quarter, so such a pixel is the
    design's when most of its quarter turns that lie outside the highlight are. Pixels outside the
    highlight keep what the mask says: only what the highlight hides is read from the rest. The
    middle turned about is the one, within `reach` pixels of the mask's centroid or of the patch's
    middle, about which what shows of the design best matches its own quarter turn where both show
    (a bite pulls the centroid off the design's middle)."""
    import numpy as np

    n = mask.shape[0]
    hidden = under_highlight(patch, mask, config)
    if not hidden.any():
        return None
    shown = (~hidden).astype(np.uint8)
    seen = mask.astype(np.uint8) & shown
    ys, xs = np.nonzero(mask)
    best = (-math.inf, 0, 0)
    seen_rot, shown_rot = np.rot90(seen, -1), np.rot90(shown, -1)
    # What shows of the design and of its turn should agree where both show: the pixels both have,
    # less those one has where the other shows face.
    for cx, cy in ((float(xs.mean()), float(ys.mean())), ((n - 1) / 2, (n - 1) / 2)):
        for a, b in _turn_centres(cx, cy, reach):
            seen_turned, shown_turned = _shifted(seen_rot, b, a - n + 1), _shifted(shown_rot, b, a - n + 1)
            agree = int(np.count_nonzero(seen & seen_turned)) - int(np.count_nonzero(seen & shown_turned & (1 - seen_turned))) \
                - int(np.count_nonzero(seen_turned & shown & (1 - seen)))
            if agree > best[0]:
                best = (agree, a, b)
    _, a, b = best
    turns, shows = _quarter_turns(mask, a, b)[1:], _quarter_turns(shown, a, b)[1:]
    votes = sum(t & s for t, s in zip(turns, shows))
    counted = sum(shows)
    decided = hidden & (counted > 0)
    mended = mask.astype(np.uint8).copy()
    mended[decided] = (2 * votes[decided] > counted[decided]).astype(np.uint8)
    return _filled(mended)


def _filled(mask):
    """The largest outline of a mask with everything inside it (a mask of zeros if it has none)."""
    import cv2
    import numpy as np

    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    filled = np.zeros_like(mask)
    if contours:
        cv2.drawContours(filled, [max(contours, key=cv2.contourArea)], -1, 1, thickness=cv2.FILLED)
    return filled


def _shifted(x, dy: int, dx: int):
    """x moved down `dy` and right `dx` pixels, zero where nothing moved in."""
    import numpy as np

    out = np.zeros_like(x)
    n, m = x.shape
    if abs(dy) < n and abs(dx) < m:
        out[max(dy, 0):n + min(dy, 0), max(dx, 0):m + min(dx, 0)] = \
            x[max(-dy, 0):n - max(dy, 0), max(-dx, 0):m - max(dx, 0)]
    return out


def _shared(x, y, dy: int, dx: int) -> int:
    """How many pixels `x` and `y` moved down `dy` and right `dx` (_shifted) both have."""
    import numpy as np

    n, m = x.shape
    return int(np.count_nonzero(x[max(dy, 0):n + min(dy, 0), max(dx, 0):m + min(dx, 0)]
                                & y[max(-dy, 0):n - max(dy, 0), max(-dx, 0):m - max(dx, 0)]))


def classify_designs(outlines: list[DesignOutline], side: int) -> list[DesignReading]:
    """The design of each outline (from patches `side` pixels square), as classify_design reads it; the
    profiles compared with the designs' all at once (profile_distances)."""
    if not outlines:
        return []
    reach = [None if o.blur is None else BLUR_REACH * o.blur for o in outlines]
    distances = profile_distances([o.profile for o in outlines], side, reach).tolist()
    curves = _curve_distances([o.features for o in outlines])
    summaries = _nearest_of(curves)
    near = (curves.min(axis=1) <= UNLIKE_ANY[0]).tolist()
    profiles = []
    for row in distances:
        # The profile's design, with a confidence from the runner-up.
        (d1, best), (d2, _) = sorted(zip(row, PROTOTYPES))[:2]
        profiles.append((best, _margin(d1, d2)))
    # The whole-design test, asked only where the profile might overrule the four numbers.
    asked = [k for k, (o, summary, profile, whole) in enumerate(zip(outlines, summaries, profiles, near))
             if o.blur is not None and whole and summary[0] != profile[0] and profile[1] > summary[1]]
    every_side = dict(zip(asked, quarters_agree([outlines[k].profile for k in asked], [profiles[k][0] for k in asked],
                                                side, [reach[k] for k in asked])))
    readings = []
    for k, (outline, summary, profile) in enumerate(zip(outlines, summaries, profiles)):
        design, confidence = combine_readings(summary, profile, every_side.get(k, False))
        readings.append(DesignReading(design, confidence, outline.mask, outline.features, outline.centre, outline.blur,
                                      agreed_confidence(summary, profile, outline.blur)))
    return readings


def quarters_agree(profiles, designs, side: int, reach) -> list[bool]:
    """Whether each of `profiles` is its design of `designs` on every side: each quarter turn of the
    outline, compared alone with the designs' quarter profiles (profile_distances of the quarter
    repeated four times, up to the same `reach`), nearest that design.

    The profile is folded onto a quarter turn before it is compared (quarter_profile), which smooths
    what bent one side of the outline away: a four-point star under a lamp's highlight, its points
    filled on one side, folds into an eight-point star's profile (mixed 333, 0.49 sure; its quarters
    nearest the eight-point star, the eight-point star, the diamond and the eight-point star). A design
    that is the profile's on all four sides is that design, not merely nearer it than the others."""
    import numpy as np

    if not profiles:
        return []
    quarters = [np.tile(q, 4) for p in profiles for q in np.asarray(p, dtype=np.float64).reshape(4, -1)]
    nearest = profile_distances(quarters, side, [r for r in reach for _ in range(4)]).argmin(axis=1)
    order = list(PROTOTYPES)
    return [all(order[i] == design for i in nearest[4 * k:4 * k + 4].tolist()) for k, design in enumerate(designs)]


def combine_readings(summary: tuple[str, float], profile: tuple[str, float], whole: bool = False) -> tuple[str, float]:
    """One (design, confidence) from the four numbers' reading and the profile's.

    Agreeing, the surer of the two; disagreeing, the four numbers' design at half their confidence
    (not none: read_tile keeps the surer of a tile's two patches, and a tie would hand it the second),
    unless the profile passes the whole-design test (`whole`, classify_designs: the patch without a
    highlight, its blur measured; the four numbers within UNLIKE_ANY[0] of a design's curve; the profile
    the surer, and its design the nearest of each of its four quarters alone): then the profile's
    design, as sure as its margin is above the four numbers'. Two of the four numbers are extremes of
    the outline (roundness: its shortest ray over its longest; solidity: its area over its hull's),
    which a rough edge's noise or a small tile's blur moves; the profile is 72 rays compared on their
    mean square (mixed 15: a blurred green circle read as an eight-point star by the four numbers,
    0.07, by the profile as a circle on all four sides, 0.69).
    """
    if summary[0] == profile[0]:
        return summary[0], max(summary[1], profile[1])
    if whole and profile[1] > summary[1]:
        return profile[0], profile[1] - summary[1]
    return summary[0], 0.5 * summary[1]


def agreed_confidence(summary: tuple[str, float], profile: tuple[str, float], blur: float | None) -> float | None:
    """The confidence the four numbers' reading and the profile's give together, 1 - (1 - a)(1 - b),
    where both read the same design on a patch whose blur is measured and no more than a tile is
    read at without being asked about for its blur (DesignConfig.max_tile_blur); None elsewhere.

    Each reading's margin is its own doubt; two that agree leave only the doubt both have. That holds
    only while they are two witnesses. The four numbers are compared with designs blurred up to
    BLUR_STEPS[-1] (0.06) and no further, so on a patch blurred well past it (a clover whose notches
    filled in, mixed 15 at 0.10-0.11: read as a diamond by both, 0.36 and 0.25) they place a shape
    their curves never reach, and both readings see the same blur-made diamond; such a tile is asked
    about for its blur whatever its design reads (pipeline.blur_doubt), and its readings are not
    taken together either. Between the curves' end and that bound the profile, compared along its
    own curve up to BLUR_REACH times the patch's blur, is still a witness of its own, and the four
    numbers lie a step or two past their curves' end: the right designs of groups out of focus read
    alike there (groups 195's eight-point star at 0.072, 0.40 and 0.45; steep 156's diamond at 0.062;
    large 244 and 347), the wrong ones as unsure together as apart (groups 158's diamond read as a
    clover at 0.065, 0.21 and 0.06). A patch with no blur measured is one with a highlight (its
    outline bent one way, which both readings see alike: tinted 33's circle read as a square, 0.35)
    or with too little contrast to measure (mixed 196's diamond read as a square, 0.38): there is
    nothing to say the two agree for different reasons.
    """
    if summary[0] != profile[0] or blur is None or blur > DesignConfig.max_tile_blur:
        return None
    return 1.0 - (1.0 - summary[1]) * (1.0 - profile[1])


def design_fit(features) -> float:
    """How like a design the four numbers `features` are: 1 within UNLIKE_ANY[0] of a design's curve
    (SCALES units), falling to 0 at UNLIKE_ANY[1]. The margin to the runner-up says which design a
    shape is nearer, not that it is one (the profile, folded onto a quarter turn, smooths a lobe
    lost to glare away)."""
    return design_fits([features])[0]


def design_fits(many) -> list[float]:
    """design_fit of each of `many` features, at once (each the same to the last bit as alone)."""
    if not len(many):
        return []
    near, far = UNLIKE_ANY
    return [max(0.0, min(1.0, (far - nearest) / (far - near))) for nearest in _curve_distances(many).min(axis=1).tolist()]


def nearest_design(features) -> tuple[str, float]:
    """The design whose sharp-to-blurred curve passes nearest `features`, and a confidence from the runner-up."""
    return nearest_designs([features])[0]


def nearest_designs(many) -> list[tuple[str, float]]:
    """nearest_design of each of `many` features, at once (each the same to the last bit as alone)."""
    return _nearest_of(_curve_distances(many))


def _nearest_of(distances) -> list[tuple[str, float]]:
    """(design, confidence) of each row of _curve_distances."""
    designs = _curve_segments()[0]
    out = []
    for row in distances.tolist():
        (d1, best), (d2, _) = sorted(zip(row, designs))[:2]
        out.append((best, _margin(d1, d2)))
    return out


def _curve_distances(many):
    """N x designs: the distance (scale units) of each of `many` features to each design's curve: to
    every segment of every curve at once, the nearest per design."""
    import numpy as np

    f = np.asarray(many, dtype=np.float64).reshape(-1, 1, 4) / np.array(SCALES)
    _, starts, a, ab, ab2 = _curve_segments()
    t = np.clip(((f - a) * ab).sum(axis=2) / ab2, 0.0, 1.0)
    nearest = a + t[:, :, None] * ab
    return np.minimum.reduceat(np.sqrt(((f - nearest) ** 2).sum(axis=2)), starts, axis=1)


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


_profile_segments = None


def _profile_curve_segments():
    """The segments of every design's quarter-profile curve from sharp to blurred, turned by each of
    PROFILE_SHIFTS, as 6 x shifts x (steps - 1) rows (made once): (starts and vectors stacked, the
    starts' squared lengths, the starts' dot products with the vectors, the vectors' squared lengths
    floored, start sizes, size steps, start blurs, blur steps)."""
    global _profile_segments
    if _profile_segments is None:
        import numpy as np

        a, ab, za, zab = [], [], [], []
        for design in PROTOTYPES:
            curve = np.array(PROTOTYPE_PROFILES[design])
            sizes = np.array(PROTOTYPE_SIZES[design])
            for s in PROFILE_SHIFTS:
                turned = np.roll(curve, s, axis=1)
                a.append(turned[:-1])
                ab.append(turned[1:] - turned[:-1])
                za.append(sizes[:-1])
                zab.append(np.diff(sizes))
        a, ab = np.vstack(a), np.vstack(ab)
        blurs = np.array(PROFILE_BLUR_STEPS)
        repeats = len(PROTOTYPES) * len(PROFILE_SHIFTS)
        _profile_segments = (np.vstack([a, ab]), (a * a).sum(axis=1), (a * ab).sum(axis=1),
                             np.maximum((ab * ab).sum(axis=1), 1e-12), np.concatenate(za), np.concatenate(zab),
                             np.tile(blurs[:-1], repeats), np.tile(np.diff(blurs), repeats))
    return _profile_segments


def profile_distances(profiles, side: int, reach=None):
    """How far a design's radial profile lies from each design's (in the order of PROTOTYPES), in
    units of PROFILE_SCALE (`side`: the patch's, in the profile's pixels): the nearest point of each
    design's sharp-to-blurred curve of quarter profiles, turned a little either way, with its size
    off by more than SIZE_TOLERANCE added. One profile gives a distance per design; N profiles (a
    list, or N x PROFILE_BINS) N x designs, at once: numpy's per-call overhead, not the arithmetic,
    was most of a tile's cost. A profile's distances are the same to the last bit alone or among
    others (its products with the segments are taken one profile at a time, the rest element-wise).
    `reach`: one per profile (a list of one for one profile), the blur (a fraction of the tile) its
    designs' curves are followed up to (BLUR_REACH); None, or a None in it, the whole curve."""
    import numpy as np

    stacked, aa, aab, ab2, za, zab, zb, zbb = _profile_curve_segments()
    many = np.asarray(profiles, dtype=np.float64)
    one = many.ndim == 1
    many = many.reshape(1, -1) if one else many
    xs = quarter_profile(many)
    size = np.array([[math.log(mean / side)] for mean in many.mean(axis=1).tolist()])
    # |a + t ab - x|^2 for every segment from two products with x, not a difference per segment.
    dots = np.array([stacked @ x for x in xs])
    xx = np.array([[x @ x] for x in xs])
    ax, abx = dots[:, :len(aa)], dots[:, len(aa):]
    t = np.clip((abx - aab) / ab2, 0.0, 1.0)
    if reach is not None:
        far = np.array([[math.inf if r is None else r] for r in reach])
        t = np.minimum(t, np.maximum(far - zb, 0.0) / zbb)
    shape2 = np.maximum(aa - 2 * ax + xx + 2 * t * (aab - abx) + t * t * ab2, 0.0) / len(xs[0])
    excess = np.maximum(0.0, np.abs(size - (za + t * zab)) - SIZE_TOLERANCE) / SIZE_SCALE
    squared = shape2 / PROFILE_SCALE ** 2 + excess * excess
    if reach is not None:
        squared = np.where(zb > far, math.inf, squared)  # a segment blurred from past the reach
    out = np.sqrt(squared.reshape(len(many), len(PROTOTYPES), -1).min(axis=2))
    return out[0] if one else out
