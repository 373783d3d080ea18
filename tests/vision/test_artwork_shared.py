"""The camera's synthetic photos and its design measurements draw the tile exactly as the phones do:
one source, companion.games.pivit_tiles.artwork."""
from __future__ import annotations

import numpy as np
import pytest

from companion.games.pivit_tiles import artwork
from vision import design, synthetic


@pytest.mark.parametrize("design_digit", list("123456"))
def test_vision_draws_the_same_design_polygons(design_digit):
    drawn = design.design_polygons(design_digit)
    shared = artwork.design_polygons(design_digit)
    assert len(drawn) == len(shared)
    for poly, outline in zip(drawn, shared):
        assert np.array_equal(poly, np.array(outline))


@pytest.mark.parametrize("colours", ["ROYGBP", "ROYGBW"])
def test_vision_draws_the_same_wild(colours):
    drawn = synthetic.wild_sectors(colours)
    shared = artwork.wild_sectors(colours)
    assert [c for c, _ in drawn] == [c for c, _ in shared]
    for (_, poly), (_, outline) in zip(drawn, shared):
        assert np.array_equal(poly, np.array(outline))


def test_vision_paints_the_same_colours_on_the_same_face():
    assert synthetic.PAINT_BGR == {c: p.photo_bgr for c, p in artwork.PAINTS.items()}
    assert synthetic.BLACK_BGR == (22.0, 18.0, 16.0)
