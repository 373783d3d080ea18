"""Reading loose tiles spread on the table as a hand: the renderer, the reader, the API, the CLI.

Every photo is a seeded synthetic render (vision.synthetic): tiles scattered
anywhere, each turned its own way, some pushed against others, on wood, cloth
and white tables, with the grids' light, blur, noise and JPEG. A tile counts
as read right when the reading nearest its true middle names it.
"""
from __future__ import annotations

import functools
import json
import math
from collections import Counter

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.games.pivit_tiles.tiles import COPIES, WILD, parse_hand
from vision import HandResult, VisionError, read_hand, read_hand_bytes
from vision.config import DecodeConfig, VisionConfig
from vision.errors import BadImageError, NoTilesError
from vision.hand import reading_order
from vision.synthetic import (
    Scene,
    random_hand,
    render,
    render_hand,
    scatter_tiles,
    squares_overlap,
    synthetic_hand,
    synthetic_photo,
    tile_square,
)


@functools.lru_cache(maxsize=None)
def _hand(seed: int, tileset: str, tiles: int, wilds: int, touching: float = 0.4, size=(800, 600), overrides=()):
    return synthetic_hand(seed, tileset, tiles, wilds, size=size, touching=touching, **dict(overrides))


def _matched(rendered, result: HandResult) -> tuple[list[str], list[str]]:
    """(truth, read) tile by tile, each reading put with the true tile whose middle is nearest it."""
    side = rendered.scene.tile_px
    read = [None] * len(rendered.tiles)
    for tile in result.tiles:
        d = np.linalg.norm(rendered.centres - (tile.x, tile.y), axis=1)
        k = int(np.argmin(d))
        assert d[k] < 0.3 * side, f"{tile.tile} read at ({tile.x:.0f}, {tile.y:.0f}) where no tile is"
        assert read[k] is None, f"tile {k} ({rendered.tiles[k]}) read twice"
        read[k] = tile.tile
    return list(rendered.tiles), read


# ---------------------------------------------------------------- the renderer


def test_same_seed_same_hand():
    a = synthetic_hand(11, "classic", tiles=10, wilds=1)
    b = synthetic_hand(11, "classic", tiles=10, wilds=1)
    assert a.data == b.data and a.tiles == b.tiles
    assert synthetic_hand(12, "classic", tiles=10, wilds=1).data != a.data


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), tileset=st.sampled_from(["classic", "connect"]), tiles=st.integers(1, 30), wilds=st.integers(0, 6))
def test_random_hands_come_from_one_box(seed, tileset, tiles, wilds):
    wilds = min(wilds, tiles)
    hand = random_hand(np.random.default_rng(seed), tileset, tiles, wilds)
    counts = Counter(hand)
    assert len(hand) == tiles and counts[WILD] == wilds
    assert all(n <= COPIES for t, n in counts.items() if t != WILD)
    parse_hand(" ".join(hand), tileset)  # every tile is of the set


def test_a_box_holds_no_bigger_hand():
    with pytest.raises(ValueError):
        random_hand(np.random.default_rng(0), "classic", tiles=10, wilds=7)
    with pytest.raises(ValueError):
        random_hand(np.random.default_rng(0), "classic", tiles=115, wilds=0)


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 24), touching=st.floats(0.0, 1.0))
def test_scattered_tiles_never_overlap(seed, count, touching):
    spots = scatter_tiles(np.random.default_rng(seed), count, touching)
    assert len(spots) == count
    squares = [tile_square(c, t) for c, t in spots]
    for i in range(count):
        for j in range(i + 1, count):
            # Touching is allowed; overlapping by more than rounding is not.
            assert not squares_overlap(squares[i], squares[j], gap=-1e-6), (i, j)


def test_scattered_tiles_touch_when_asked():
    spots = scatter_tiles(np.random.default_rng(3), 16, touching=0.9)
    squares = [tile_square(c, t) for c, t in spots]
    touching = sum(any(squares_overlap(a, b, 0.02) for b in squares if b is not a) for a in squares)
    assert touching >= 12
    apart = scatter_tiles(np.random.default_rng(3), 16, touching=0.0)
    squares = [tile_square(c, t) for c, t in apart]
    assert not any(squares_overlap(a, b, 0.05) for a in squares for b in squares if a is not b)


def test_a_leaning_tile_lies_a_little_over_one_other_only():
    spots = scatter_tiles(np.random.default_rng(5), 20, touching=0.9, leaning=0.6)
    leaning = [k for k, spot in enumerate(spots) if len(spot) == 3]
    assert len(leaning) >= 3
    squares = [tile_square(spot[0], spot[1]) for spot in spots]
    for k in leaning:
        under = [j for j, other in enumerate(squares) if j != k and squares_overlap(squares[k], other, gap=-1e-6)]
        assert len(under) == 1 and len(spots[under[0]]) == 2  # on one flat tile
        assert not squares_overlap(squares[k], squares[under[0]], gap=-0.09)  # by less than a tenth
        squash = spots[k][2]
        assert 0.93 < abs(np.linalg.det(squash)) < 0.99  # shortened by a few percent
    flat = [k for k in range(len(spots)) if k not in leaning]
    for i in flat:
        for j in flat:
            assert i == j or not squares_overlap(squares[i], squares[j], gap=-1e-6)


def test_squares_overlap_is_the_geometry():
    a = tile_square((0.0, 0.0), 0.0)
    assert squares_overlap(a, tile_square((0.9, 0.0), 0.0))
    assert not squares_overlap(a, tile_square((1.01, 0.0), 0.0))
    # A tile turned 45 degrees reaches sqrt(2)/2 from its middle.
    assert squares_overlap(a, tile_square((1.2, 0.0), math.pi / 4))
    assert not squares_overlap(a, tile_square((1.22, 0.0), math.pi / 4))
    assert squares_overlap(a, tile_square((1.22, 0.0), math.pi / 4), gap=0.02)


def test_hands_are_drawn_where_it_says():
    spots = [((-1.0, 0.0), 0.3), ((1.0, 0.0), 1.0)]
    rendered = render_hand(["3G", WILD], spots, "classic", Scene(size=(320, 240), tile_px=60, background="white"))
    assert rendered.tiles == ["3G", WILD] and rendered.touching == 0
    for (x, y), corners in zip(rendered.centres, rendered.corners):
        assert np.allclose(corners.mean(axis=0), (x, y))
        assert rendered.image[int(y), int(x)].max() > 80  # the design
        inset = corners + ((x, y) - corners) * 0.1
        assert all(rendered.image[int(cy), int(cx)].max() < 90 for cx, cy in inset)  # the black face


# ---------------------------------------------------------------- the reader

HANDS = [
    # seed, tile set, tiles, wilds
    (1, "classic", 8, 0),
    (2, "connect", 9, 1),
    (3, "classic", 12, 2),
    (4, "connect", 14, 0),
    (5, "classic", 16, 1),
    (6, "connect", 18, 2),
    (7, "classic", 20, 3),
    (8, "connect", 22, 1),
    (9, "classic", 24, 2),
    (10, "connect", 24, 6),
]


@pytest.mark.parametrize("seed, tileset, tiles, wilds", HANDS)
def test_every_tile_of_a_scattered_hand_is_read(seed, tileset, tiles, wilds):
    rendered = _hand(seed, tileset, tiles, wilds)
    result = read_hand_bytes(rendered.data, tileset)
    truth, read = _matched(rendered, result)
    assert read == truth
    assert Counter(parse_hand(result.hand, tileset)) == Counter(truth)


@pytest.mark.parametrize("seed, tileset", [(21, "classic"), (22, "connect"), (23, "classic"), (24, "connect")])
def test_hands_pushed_together_are_read(seed, tileset):
    rendered = _hand(seed, tileset, 20, 1, touching=0.9)
    assert rendered.touching >= 12
    truth, read = _matched(rendered, read_hand_bytes(rendered.data, tileset))
    assert read == truth


@pytest.mark.parametrize("seed, tileset", [(25, "classic"), (26, "connect"), (27, "classic")])
def test_tiles_leaning_on_others_are_read(seed, tileset):
    rendered = _hand(seed, tileset, 16, 1, touching=0.8, overrides=(("leaning", 0.6),))
    truth, read = _matched(rendered, read_hand_bytes(rendered.data, tileset))
    assert read == truth


@pytest.mark.parametrize("background", ["wood", "cloth", "white"])
def test_each_table(background):
    rendered = _hand(31, "connect", 12, 1, overrides=(("background", background),))
    truth, read = _matched(rendered, read_hand_bytes(rendered.data, "connect"))
    assert read == truth


@pytest.mark.parametrize(
    "condition",
    [
        (("blur", 1.4),),
        (("noise", 6.0), ("jpeg_quality", 55)),
        (("shadow", 0.45), ("light", (0.35, -0.35, 0.85))),
        (("cast", (1.15, 1.0, 0.85)),),
        (("tilt", (0.12, -0.12)),),
    ],
    ids=["blur", "noise-jpeg", "shadow", "colour-cast", "perspective"],
)
def test_each_condition(condition):
    rendered = _hand(41, "classic", 14, 1, overrides=condition)
    truth, read = _matched(rendered, read_hand_bytes(rendered.data, "classic"))
    assert read == truth


def test_a_finished_grid_is_also_a_hand():
    # Tiles in a grid are loose tiles pressed together on every side.
    rendered = synthetic_photo(5, "classic", tiles=12, size=(800, 600), wilds=1, max_rotation=40)
    result = read_hand_bytes(rendered.data, "classic")
    assert Counter(result.tile_list()) == Counter(rendered.cells.values())


def test_a_single_tile():
    rendered = render_hand(["5O"], [((0.0, 0.0), 0.4)], "classic", Scene(size=(400, 300), tile_px=70, background="wood"))
    result = read_hand(rendered.image, "classic")
    assert result.hand == "5O"


def test_a_square_and_a_diamond_differ_by_the_tile_not_the_photo():
    # The same design turned 45 degrees on its tile is the other design: only
    # the tile's own edges tell them apart.
    spots = [((-1.2, 0.0), 0.0), ((1.2, 0.0), math.pi / 4), ((-1.2, 1.5), math.pi / 4), ((1.2, 1.5), 0.1)]
    rendered = render_hand(["4B", "4B", "3B", "3B"], spots, "classic", Scene(size=(480, 360), tile_px=60, rotation=20, background="white"))
    truth, read = _matched(rendered, read_hand(rendered.image, "classic"))
    assert read == truth


def test_tiles_are_listed_in_reading_order():
    spots = [((x, y), 0.2 * k) for k, (y, x) in enumerate([(0, 1.5), (0.2, -1.5), (-0.15, 0), (2, -1), (2.2, 1)])]
    rendered = render_hand(["1R", "2O", "3Y", "4G", "5B"], spots, "classic", Scene(size=(480, 360), tile_px=55))
    result = read_hand(rendered.image, "classic")
    # Top row left to right: 2O (x -1.5), 3Y (x 0), 1R (x 1.5); then 4G, 5B.
    assert result.hand == "2O 3Y 1R 4G 5B"
    assert [t.tile for t in result.tiles] == result.tile_list() == result.hand.split()


@settings(max_examples=50)
@given(rows=st.integers(1, 5), cols=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_reading_order_of_rows(rows, cols, seed):
    rng = np.random.default_rng(seed)
    side = 50.0
    centres = [(c * 1.5 * side + rng.uniform(-8, 8), r * 2 * side + rng.uniform(-12, 12)) for r in range(rows) for c in range(cols)]
    shuffled = [int(k) for k in rng.permutation(len(centres))]
    order = reading_order([centres[k] for k in shuffled], side)
    assert [shuffled[k] for k in order] == list(range(rows * cols))


# ---------------------------------------------------------------- for the web page


def test_hand_result_for_the_web():
    rendered = _hand(3, "classic", 12, 2)
    result = read_hand_bytes(rendered.data, "classic")
    assert result.elapsed_ms > 0
    doc = result.to_json("p.jpg")
    assert set(doc) == {"image", "tiles", "hand", "elapsed_ms"}
    assert all(set(t) == {"tile", "confidence", "x", "y"} and 0 <= t["confidence"] <= 1 for t in doc["tiles"])
    assert doc["hand"] == " ".join(t["tile"] for t in doc["tiles"])
    png = result.annotated_png()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    picture = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape == rendered.image.shape


def test_positions_are_in_the_photo_s_own_pixels():
    # A large JPEG is decoded at reduced size (here to half, by asking for 600 pixels
    # where a phone photo is asked for 2000); x and y still count the photo's pixels.
    rendered = _hand(4, "connect", 10, 1, size=(1600, 1200), overrides=(("jpeg_quality", 85),))
    config = VisionConfig(decode=DecodeConfig(target_long_side=600))
    result = read_hand_bytes(rendered.data, "connect", config=config)
    assert result.image.shape[:2] == (600, 800)
    truth, read = _matched(rendered, result)
    assert read == truth
    assert max(t.x for t in result.tiles) > 800
    assert result.annotated(max_side=400).shape[:2] == (300, 400)  # annotated small for the phones


def _bad_inputs() -> dict[str, bytes]:
    hand = render_hand(["1R", "2O"], [((-1.0, 0.0), 0.2), ((1.0, 0.0), 0.5)], "classic", Scene(size=(320, 240), tile_px=50, jpeg_quality=80)).data
    bare = render_hand(["1R"], [((9.0, 9.0), 0.0)], "classic", Scene(size=(320, 240), tile_px=40, background="cloth", background_tint=(0.9, 1.0, 1.05), noise=2.0)).data
    return {
        "truncated.jpg": hand[: len(hand) // 2],
        "notes.txt": b"this is not a photo",
        "tiny.png": cv2.imencode(".png", np.zeros((1, 1, 3), np.uint8))[1].tobytes(),
        "grey.jpg": cv2.imencode(".jpg", np.full((100, 100), 128, np.uint8))[1].tobytes(),
        "empty.jpg": b"",
        "table.png": bare,
    }


@pytest.mark.parametrize("name", ["truncated.jpg", "notes.txt", "tiny.png", "grey.jpg", "empty.jpg", "table.png"])
def test_bad_input_is_a_vision_error_with_a_status(name):
    data = _bad_inputs()[name]
    with pytest.raises(VisionError) as caught:
        read_hand_bytes(data, "classic")
    expected = NoTilesError if name == "table.png" else BadImageError
    assert isinstance(caught.value, expected)
    assert caught.value.status == (422 if name == "table.png" else 400)
    assert "\n" not in str(caught.value)


def test_a_bare_table_array_has_no_tiles():
    table = render(  # the only tile is far outside the picture
        {(0, 0): "1R"}, "classic", Scene(size=(320, 240), centre=(9.0, 9.0), background="wood")
    )
    with pytest.raises(NoTilesError):
        read_hand(table.image, "classic")


# ---------------------------------------------------------------- the command


def _run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def hand_photo(tmp_path):
    """(path, truth) of a 12-tile classic hand saved as a JPEG."""
    rendered = _hand(3, "classic", 12, 2)
    path = tmp_path / "hand.jpg"
    path.write_bytes(rendered.data)
    return str(path), rendered


def test_read_hand_prints_the_hand_file(capsys, hand_photo):
    path, rendered = hand_photo
    status, out, err = _run(capsys, "vision", "read-hand", path)
    assert status == 0
    assert out.count("\n") == 1
    assert Counter(parse_hand(out, "classic")) == Counter(rendered.tiles)
    # Nothing else on stdout: the output is a hand file, as `pivit advise -` reads it.
    assert out == read_hand_bytes(rendered.data, "classic").hand + "\n"


def test_read_hand_json_and_annotations(capsys, hand_photo, tmp_path):
    path, rendered = hand_photo
    out_dir = tmp_path / "annotated"
    status, out, err = _run(capsys, "vision", "read-hand", "--json", "--annotate", str(out_dir), path)
    assert status == 0 and err == ""
    doc = json.loads(out)
    assert set(doc) == {"image", "tiles", "hand", "elapsed_ms"} and doc["image"] == path
    assert Counter(t["tile"] for t in doc["tiles"]) == Counter(rendered.tiles)
    assert doc["hand"] == " ".join(t["tile"] for t in doc["tiles"])
    for t in doc["tiles"]:
        assert np.linalg.norm(rendered.centres - (t["x"], t["y"]), axis=1).min() < 0.3 * rendered.scene.tile_px
    assert (out_dir / "hand.hand.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_several_photos_are_told_apart_by_path(capsys, hand_photo, tmp_path):
    path, rendered = hand_photo
    second = tmp_path / "second.png"
    other = _hand(2, "classic", 9, 1)
    second.write_bytes(other.data)
    status, out, err = _run(capsys, "vision", "read-hand", path, str(second))
    assert status == 0
    first_line, second_line = out.splitlines()
    assert first_line.startswith(f"{path}: ") and second_line.startswith(f"{second}: ")
    assert Counter(parse_hand(second_line.split(": ", 1)[1], "classic")) == Counter(other.tiles)


def test_the_tile_set_is_passed_on(capsys, tmp_path):
    rendered = _hand(2, "connect", 9, 1)
    path = tmp_path / "connect.png"
    path.write_bytes(rendered.data)
    status, out, err = _run(capsys, "vision", "read-hand", "--tileset", "connect", str(path))
    assert status == 0 and Counter(parse_hand(out, "connect")) == Counter(rendered.tiles)


def test_bad_photos_are_one_line_each_and_exit_2(capsys, tmp_path, hand_photo):
    bad = []
    for name, data in _bad_inputs().items():
        (tmp_path / name).write_bytes(data)
        bad.append(str(tmp_path / name))
    bad += [str(tmp_path / "missing.jpg"), str(tmp_path)]
    good, rendered = hand_photo
    status, out, err = _run(capsys, "vision", "read-hand", "--json", *bad, good)
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == len(bad)
    for path, line in zip(bad, lines):
        assert line.startswith(f"companion: {path}: "), line
    assert json.loads(out)["image"] == good  # the good photo is still read


def test_bad_calibration_file(capsys, tmp_path, hand_photo):
    path, _ = hand_photo
    bad = tmp_path / "cal.json"
    bad.write_text("[]")
    status, out, err = _run(capsys, "vision", "read-hand", "--calibration", str(bad), path)
    assert status == 2 and err.count("\n") == 1 and "not a colour calibration file" in err
