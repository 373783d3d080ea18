"""What a Pivit tile looks like: the one source of its picture, for the phones and the camera.

A tile is a black square with one design in one paint: 1 circle, 2 clover,
3 diamond, 4 square, 5 four-point star (its points towards the tile's
corners), 6 eight-point star (a point along each grid axis and each
diagonal). A wild is the eight-point star painted in the six colours of its
set, one 60-degree sector each (the project's convention; the camera calls
any design painted in three or more colours a wild).

Everything is in tile units: the tile's side is 1 and its centre is (0, 0),
x to the right and y down (as on a screen and in a photo). The phone pages
draw every tile as inline SVG from `phone_artwork()`; vision.synthetic paints
its photos from `design_polygons`, `wild_sectors` and the paints' photo
colours; vision.design measures the designs from the same polygons. So what a
phone shows is what the camera expects.

Pure Python (no NumPy): the service imports it to serve the pages.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from companion.games.pivit_tiles.tiles import COLOUR_NAMES, DESIGN_NAMES, DESIGNS, TILESETS, WILD

Point = tuple[float, float]
Polygon = list[Point]

# The printed designs, measured on the tiles.
CIRCLE_RADIUS = 0.41
SQUARE_HALF = 0.315
DIAMOND_HALF = 0.445
CLOVER = (0.26, 0.16, 0.17)  # lobe centre distance, lobe radius, centre disc radius
STAR4 = (0.53, 0.17)  # tip radius, inner radius; the tips point at the tile's corners
STAR8 = (0.42, 0.19)  # a tip along each grid axis and each diagonal
CIRCLE_SIDES = 48  # a circle as a polygon (for painting photos and measuring outlines)

# The tile itself: a black face with a slightly lighter bevelled rim. A phone rounds its corners.
FACE_RGB = (16, 18, 22)
RIM_RGB = (35, 40, 48)
CORNER_RADIUS = 0.1


@dataclass(frozen=True)
class Paint:
    """One paint: its name, how a daylight photo shows it on the black face, and how a screen shows it.

    The photo colour is what the camera sees (measured on the printed tiles;
    purple, missing from the measured set, is a violet). The screen colour is
    the same hue, bright enough to read on a black tile on a phone.
    """

    letter: str
    photo_rgb: tuple[int, int, int]
    screen_rgb: tuple[int, int, int]

    @property
    def name(self) -> str:
        return COLOUR_NAMES[self.letter]

    @property
    def photo_bgr(self) -> tuple[float, float, float]:
        r, g, b = self.photo_rgb
        return (float(b), float(g), float(r))

    @property
    def screen_hex(self) -> str:
        return "#%02x%02x%02x" % self.screen_rgb


PAINTS: dict[str, Paint] = {
    "R": Paint("R", (159, 27, 46), (232, 50, 47)),
    "O": Paint("O", (170, 62, 31), (255, 140, 26)),
    "Y": Paint("Y", (153, 158, 18), (245, 212, 15)),
    "G": Paint("G", (8, 96, 40), (47, 180, 74)),
    "B": Paint("B", (7, 95, 168), (47, 125, 225)),
    "P": Paint("P", (121, 68, 160), (155, 79, 214)),
    "W": Paint("W", (184, 215, 224), (242, 242, 238)),
}


# -- the designs ----------------------------------------------------------------


def _circle(cx: float, cy: float, r: float, n: int = CIRCLE_SIDES) -> Polygon:
    step = 2 * math.pi / n
    return [(cx + r * math.cos(k * step), cy + r * math.sin(k * step)) for k in range(n)]


def _star(points: int, outer: float, inner: float, phase: float) -> Polygon:
    corners = []
    for k in range(2 * points):
        a = phase + k * math.pi / points
        r = outer if k % 2 == 0 else inner
        corners.append((r * math.cos(a), r * math.sin(a)))
    return corners


def design_shapes(design: str) -> list[tuple[str, Any]]:
    """A design as shapes whose union it is: ("circle", (cx, cy, r)) or ("polygon", points).

    Raises ValueError for a design that is not 1-6.
    """
    if design == "1":
        return [("circle", (0.0, 0.0, CIRCLE_RADIUS))]
    if design == "2":
        d, lobe, middle = CLOVER
        return [("circle", (d, 0.0, lobe)), ("circle", (-d, 0.0, lobe)), ("circle", (0.0, d, lobe)),
                ("circle", (0.0, -d, lobe)), ("circle", (0.0, 0.0, middle))]
    if design == "3":
        h = DIAMOND_HALF
        return [("polygon", [(0.0, -h), (h, 0.0), (0.0, h), (-h, 0.0)])]
    if design == "4":
        h = SQUARE_HALF
        return [("polygon", [(-h, -h), (h, -h), (h, h), (-h, h)])]
    if design == "5":
        return [("polygon", _star(4, STAR4[0], STAR4[1], math.pi / 4))]
    if design == "6":
        return [("polygon", _star(8, STAR8[0], STAR8[1], 0.0))]
    raise ValueError(f"no design {design!r}")


def design_polygons(design: str) -> list[Polygon]:
    """A design as polygons (circles as 48-gons) whose union is the shape. Raises ValueError."""
    return [_circle(*shape) if kind == "circle" else list(shape) for kind, shape in design_shapes(design)]


def wild_sectors(colours: str) -> list[tuple[str, Polygon]]:
    """A wild's eight-point star cut into one equal sector per colour: (colour, polygon from the centre).

    The first sector starts along the x axis and they go round with the angle.
    """
    outer, inner = STAR8
    corners = _star(8, outer, inner, 0.0)
    # The star's outline, densely, so a sector can follow it.
    dense: list[Point] = []
    for k in range(16):
        (px, py), (qx, qy) = corners[k], corners[(k + 1) % 16]
        for j in range(12):
            t = j * (1 / 12)
            dense.append((px + (qx - px) * t, py + (qy - py) * t))
    angle = [math.atan2(y, x) % (2 * math.pi) for x, y in dense]
    sectors = []
    n = len(colours)
    for k, colour in enumerate(colours):
        lo, hi = 2 * math.pi * k / n, 2 * math.pi * (k + 1) / n
        inside = sorted((i for i in range(len(dense)) if lo <= angle[i] < hi), key=lambda i: angle[i])
        sectors.append((colour, [(0.0, 0.0)] + [dense[i] for i in inside]))
    return sectors


# -- for the phones ---------------------------------------------------------------


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#%02x%02x%02x" % rgb


def _round(points: Polygon) -> list[list[float]]:
    return [[round(x, 4), round(y, 4)] for x, y in points]


def phone_artwork() -> dict[str, Any]:
    """Everything a phone needs to draw any tile as SVG, as JSON-able data (the pages' tile renderer reads it).

    Circles stay circles (SVG draws them exactly); polygons are rounded to 1/10000 of a tile.
    """
    designs = {}
    for d in DESIGNS:
        designs[d] = [{"circle": [round(v, 4) for v in shape]} if kind == "circle" else {"polygon": _round(shape)}
                      for kind, shape in design_shapes(d)]
    return {
        "tile": {"face": _hex(FACE_RGB), "rim": _hex(RIM_RGB), "radius": CORNER_RADIUS},
        "designs": designs,
        "wild": {name: [[c, _round(poly)] for c, poly in wild_sectors(ts.colours)] for name, ts in TILESETS.items()},
        "paints": {c: p.screen_hex for c, p in PAINTS.items()},
        "design_names": dict(DESIGN_NAMES),
        "colour_names": dict(COLOUR_NAMES),
        "tilesets": {name: ts.colours for name, ts in TILESETS.items()},
        "wild_tile": WILD,
    }
