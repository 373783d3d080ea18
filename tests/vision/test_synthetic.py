"""The renderer: seeded, drawing the grids it says, valid grids valid and invalid ones not."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.pivit_tiles.check import check_grid
from vision.synthetic import Scene, random_grid, render, synthetic_photo


def test_same_seed_same_picture():
    a = synthetic_photo(7, "classic", tiles=8)
    b = synthetic_photo(7, "classic", tiles=8)
    assert a.data == b.data
    assert a.cells == b.cells
    c = synthetic_photo(8, "classic", tiles=8)
    assert c.data != a.data


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), tileset=st.sampled_from(["classic", "connect"]), tiles=st.integers(3, 20))
def test_valid_grids_pass_the_check(seed, tileset, tiles):
    grid = random_grid(np.random.default_rng(seed), tileset, tiles, valid=True)
    assert check_grid(grid, tileset, tiles=0).valid
    assert min(r for r, _ in grid) == 0 and min(c for _, c in grid) == 0


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), tileset=st.sampled_from(["classic", "connect"]))
def test_invalid_grids_fail_the_check(seed, tileset):
    grid = random_grid(np.random.default_rng(seed), tileset, 10, valid=False)
    assert not check_grid(grid, tileset, tiles=0).valid


@pytest.mark.parametrize("background", ["wood", "cloth", "white"])
def test_tiles_are_drawn_where_it_says(background):
    cells = {(0, 0): "1R", (0, 1): "2O", (0, 2): "3Y", (1, 1): "**"}
    scene = Scene(size=(320, 240), background=background, tile_px=40, rotation=20)
    rendered = render(cells, "classic", scene)
    assert rendered.cells == cells
    assert rendered.image.shape == (240, 320, 3)
    for cell, corners in rendered.corners.items():
        x, y = corners.mean(axis=0)
        assert 0 < x < 320 and 0 < y < 240
        # A tile's middle is its design (bright), its corners its black face.
        assert rendered.image[int(y), int(x)].max() > 80
        inset = corners + (corners.mean(axis=0) - corners) * 0.1
        for cx, cy in inset:
            assert rendered.image[int(cy), int(cx)].max() < 90, cell


def test_the_picture_is_encoded_as_asked():
    png = render({(0, 0): "1R"}, "classic", Scene(size=(200, 150), jpeg_quality=0))
    jpeg = render({(0, 0): "1R"}, "classic", Scene(size=(200, 150), jpeg_quality=70))
    assert png.data[:8] == b"\x89PNG\r\n\x1a\n"
    assert jpeg.data[:3] == b"\xff\xd8\xff"


def test_wilds_are_placed():
    rendered = synthetic_photo(3, "connect", tiles=8, wilds=2)
    assert list(rendered.cells.values()).count("**") == 2
