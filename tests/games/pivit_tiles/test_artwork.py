"""The tile's picture: the designs' outlines, the wild's sectors and the paints, as the phones and the camera use them."""
from __future__ import annotations

import json
import math

import pytest

from companion.games.pivit_tiles import artwork
from companion.games.pivit_tiles.tiles import COLOUR_NAMES, DESIGNS, TILESETS


def area(polygon) -> float:
    """Shoelace area (positive whatever the winding)."""
    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(polygon, polygon[1:] + polygon[:1]))) / 2


@pytest.mark.parametrize("design", list(DESIGNS))
def test_every_design_lies_inside_its_tile_and_is_centred(design):
    points = [p for poly in artwork.design_polygons(design) for p in poly]
    assert all(abs(x) < 0.5 and abs(y) < 0.5 for x, y in points)
    # Symmetric designs: the outline's mean point is the tile's centre.
    assert abs(sum(x for x, _ in points) / len(points)) < 1e-9 and abs(sum(y for _, y in points) / len(points)) < 1e-9


def test_the_designs_have_the_printed_proportions():
    assert area(artwork.design_polygons("1")[0]) == pytest.approx(math.pi * 0.41 ** 2, rel=0.01)
    assert area(artwork.design_polygons("4")[0]) == pytest.approx(0.63 ** 2)
    assert area(artwork.design_polygons("3")[0]) == pytest.approx(2 * 0.445 ** 2)
    assert len(artwork.design_polygons("5")[0]) == 8 and len(artwork.design_polygons("6")[0]) == 16
    # The four-point star points at the corners: its first tip is on the diagonal.
    x, y = artwork.design_polygons("5")[0][0]
    assert x == pytest.approx(y) and math.hypot(x, y) == pytest.approx(0.53)
    with pytest.raises(ValueError, match="no design '7'"):
        artwork.design_polygons("7")


@pytest.mark.parametrize("name", list(TILESETS))
def test_a_wild_is_the_eight_point_star_in_the_six_colours_of_its_set(name):
    colours = TILESETS[name].colours
    sectors = artwork.wild_sectors(colours)
    assert [c for c, _ in sectors] == list(colours)
    # The sectors cover the star but for thin black gaps between them, each about a sixth of it.
    star = area(artwork.design_polygons("6")[0])
    areas = [area(poly) for _, poly in sectors]
    assert 0.95 * star < sum(areas) <= star
    assert all(a == pytest.approx(star / 6, rel=0.15) for a in areas)  # 60-degree cuts of an 8-point star


def luminance(hex_colour: str) -> float:
    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def test_every_paint_reads_on_the_black_face_of_a_phone_tile():
    art = artwork.phone_artwork()
    face = luminance(art["tile"]["face"])
    assert set(art["paints"]) == set(COLOUR_NAMES)
    for colour, paint in art["paints"].items():
        ratio = (luminance(paint) + 0.05) / (face + 0.05)
        assert ratio >= 3, (colour, paint, ratio)  # WCAG's contrast for graphics


def test_the_phone_artwork_is_the_same_geometry_as_json():
    art = json.loads(json.dumps(artwork.phone_artwork()))
    assert set(art["designs"]) == set(DESIGNS) and set(art["wild"]) == set(TILESETS)
    assert art["designs"]["1"] == [{"circle": [0.0, 0.0, artwork.CIRCLE_RADIUS]}]
    assert len(art["designs"]["2"]) == 5
    drawn = art["designs"]["6"][0]["polygon"]
    exact = artwork.design_polygons("6")[0]
    assert max(abs(a - b) for p, q in zip(drawn, exact) for a, b in zip(p, q)) < 1e-4
    assert [c for c, _ in art["wild"]["connect"]] == list("ROYGBW")
    assert art["colour_names"]["O"] == "orange" and art["design_names"]["3"] == "diamond"


def test_the_paints_photo_colours_are_bgr_for_opencv():
    assert artwork.PAINTS["B"].photo_bgr == (168.0, 95.0, 7.0)
    assert artwork.PAINTS["G"].name == "green"
