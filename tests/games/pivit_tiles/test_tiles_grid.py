"""Tile notation and grid files: parse and print come in pairs."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from companion.games.pivit_tiles.grid import GridError, grid_str, normalise, parse_grid
from companion.games.pivit_tiles.tiles import (
    TILESETS,
    TileError,
    get_tileset,
    hand_str,
    parse_hand,
    parse_tile,
    tile_name,
)


def test_box_contents():
    for ts in TILESETS.values():
        box = ts.full_set()
        assert len(box) == 114
        assert box.count("**") == 6
        assert len(set(box)) == 37
        assert all(box.count(t) == 3 for t in ts.tiles())


@pytest.mark.parametrize(
    "token, tileset, expected",
    [("3G", "classic", "3G"), ("3g", "classic", "3G"), ("**", "classic", "**"), ("6W", "connect", "6W"), ("1P", "classic", "1P")],
)
def test_parse_tile(token, tileset, expected):
    assert parse_tile(token, tileset) == expected


@pytest.mark.parametrize(
    "token, tileset, fragment",
    [
        ("7G", "classic", "not a tile"),
        ("3X", "classic", "not a tile"),
        ("3", "classic", "not a tile"),
        ("*", "classic", "not a tile"),
        ("6W", "classic", "white is not in the classic tile set"),
        ("1P", "connect", "purple is not in the connect tile set"),
    ],
)
def test_parse_tile_errors(token, tileset, fragment):
    with pytest.raises(TileError, match=fragment):
        parse_tile(token, tileset)


def test_unknown_tileset():
    with pytest.raises(TileError, match="unknown tile set"):
        get_tileset("neon")


def test_tile_names():
    assert tile_name("3G") == "green diamond"
    assert tile_name("6B") == "blue eight-point star"
    assert tile_name("**") == "wild"


def test_hand_round_trip_and_error_position():
    hand = parse_hand("1R 2R\n  3G **\n")
    assert hand == ["1R", "2R", "3G", "**"]
    assert parse_hand(hand_str(hand)) == hand
    with pytest.raises(TileError, match=r"^h.txt:2:6: '9G'"):
        parse_hand("1R 2R\n  3G 9G\n", source="h.txt")


def test_grid_file_format():
    text = "1R 2R 3R\n\n . 1B\n4G 5G"
    cells = parse_grid(text)
    assert cells == {(0, 0): "1R", (0, 1): "2R", (0, 2): "3R", (2, 1): "1B", (3, 0): "4G", (3, 1): "5G"}
    assert grid_str(cells) == "1R 2R 3R\n\n . 1B\n4G 5G"


def test_grid_error_names_line_and_column():
    with pytest.raises(GridError, match=r"^g:2:4: '3Q'"):
        parse_grid("1R 2R\n.  3Q", source="g")


tiles = st.sampled_from(TILESETS["classic"].tiles() + ["**"])
grids = st.dictionaries(st.tuples(st.integers(-5, 5), st.integers(-5, 5)), tiles, max_size=30)


@given(grids)
def test_grid_text_round_trip(cells):
    assert parse_grid(grid_str(cells)) == normalise(cells)
