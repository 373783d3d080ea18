"""The whole read on synthetic photos: every condition the issue names, exact grids, clear errors."""
from __future__ import annotations

import numpy as np
import pytest

from companion.games.pivit_tiles.check import check_grid
from vision import NoTilesError, ReadResult, VisionError, read_image, read_image_bytes
from vision.evaluate import score
from vision.synthetic import Scene, render

CONDITIONS = {
    "touching tiles": dict(gap=0.0, jitter=0.0, turn=0.0),
    "loose tiles": dict(gap=0.06, jitter=0.04, turn=2.0),
    "turned 40 degrees": dict(rotation=40.0),
    "turned -40 degrees": dict(rotation=-40.0),
    "perspective": dict(tilt=(0.12, -0.12)),
    "lighting gradient": dict(light=(0.4, -0.35, 0.9)),
    "soft shadow": dict(shadow=0.45),
    "blur": dict(blur=1.0),
    "noise": dict(noise=5.0),
    "jpeg artefacts": dict(jpeg_quality=50),
    "warm light": dict(cast=(0.88, 1.0, 1.1)),
    "cool light": dict(cast=(1.1, 1.0, 0.9)),
    "dim": dict(light=(0.0, 0.0, 0.7)),
}


def _read(rendered):
    return read_image_bytes(rendered.data, rendered.tileset)


@pytest.mark.parametrize("background", ["wood", "cloth", "white"])
@pytest.mark.parametrize("tileset", ["classic", "connect"])
@pytest.mark.parametrize("valid", [True, False], ids=["valid", "invalid"])
def test_grids_are_read_exactly(photo, background, tileset, valid):
    seed = {"wood": 11, "cloth": 12, "white": 13}[background] * (2 if tileset == "classic" else 3) + valid
    rendered = photo(seed, tileset, tiles=12, valid=valid, background=background)
    result = _read(rendered)
    assert result.cells() == rendered.cells


@pytest.mark.parametrize("condition", list(CONDITIONS))
def test_each_condition_is_read_exactly(photo, condition):
    rendered = photo(5, "classic", tiles=12, **CONDITIONS[condition])
    assert _read(rendered).cells() == rendered.cells


@pytest.mark.parametrize("tileset", ["classic", "connect"])
def test_wilds_are_read(photo, tileset):
    rendered = photo(21, tileset, tiles=10, wilds=2, blur=0.3)
    assert _read(rendered).cells() == rendered.cells


def test_many_random_photos(photo):
    """Random scenes, everything at once, small renders: nearly every tile and photo right. A photo
    may be refused (four tiles meeting only at their corners is no grid the reader will guess at),
    never read wrong: the share right is over the photos read."""
    right = total = exact = refused = 0
    for seed in range(100, 136):
        rendered = photo(seed, "classic" if seed % 2 else "connect", tiles=6 + seed % 12, valid=seed % 3 != 0)
        try:
            result = _read(rendered)
            s = score(str(seed), result.cells(), rendered.cells, result.elapsed_ms)
            right += s.correct
            total += s.truth + s.extra
            exact += s.exact
        except VisionError:
            refused += 1
    assert right / total >= 0.99
    assert exact >= 34 and refused <= 1


def test_rows_grow_down_the_image():
    # An L: three tiles along the top row, two more down the left column.
    cells = {(0, 0): "1R", (0, 1): "1O", (0, 2): "1Y", (1, 0): "2R", (2, 0): "3R"}
    rendered = render(cells, "classic", Scene(size=(480, 360), tile_px=50, rotation=12))
    result = read_image(rendered.image, "classic")
    assert result.cells() == cells
    assert [(t.row, t.col) for t in result.tiles] == sorted(cells)


def test_a_grid_turned_45_degrees_is_read_one_way_or_the_other():
    cells = {(0, 0): "4B", (0, 1): "4G", (0, 2): "4Y", (1, 2): "5Y", (2, 2): "6Y"}
    rendered = render(cells, "classic", Scene(size=(480, 360), tile_px=45, rotation=45))
    read = read_image(rendered.image, "classic").cells()
    turned = {(c, 2 - r): t for (r, c), t in cells.items()}  # the same grid a quarter turn round
    mirrored_rows = {(2 - c, r): t for (r, c), t in cells.items()}
    assert read in (cells, turned, mirrored_rows)


def test_a_single_tile():
    rendered = render({(0, 0): "6P"}, "classic", Scene(size=(320, 240), tile_px=60, rotation=17))
    assert read_image(rendered.image, "classic").cells() == {(0, 0): "6P"}


@pytest.mark.parametrize("background", ["wood", "cloth", "white"])
def test_a_table_without_tiles_is_a_clear_error(background):
    # A render with its only tile far outside the frame.
    tint = {"wood": (1.0, 1.0, 1.0), "cloth": (0.5, 0.7, 0.4), "white": (1.0, 0.99, 0.97)}[background]
    scene = Scene(size=(320, 240), background=background, background_tint=tint, noise=2.0, centre=(5.0, 5.0))
    rendered = render({(0, 0): "1R"}, "classic", scene)
    with pytest.raises(NoTilesError) as info:
        read_image_bytes(rendered.data)
    assert info.value.status == 422
    assert "no tiles" in str(info.value)


def test_the_check_of_a_read_grid_is_the_check_of_the_grid(photo):
    for seed, valid in ((31, True), (32, False), (33, False)):
        rendered = photo(seed, "classic", tiles=10, valid=valid)
        read = _read(rendered)
        expected = check_grid(rendered.cells, "classic", tiles=0)
        got = check_grid(read.cells(), "classic", tiles=0)
        assert got.valid == valid == expected.valid
        assert [(v.rule, v.cells) for v in got.violations] == [(v.rule, v.cells) for v in expected.violations]


def test_read_result_for_the_web(photo):
    rendered = photo(41, "connect", tiles=9, valid=False)
    result = read_image_bytes(rendered.data, tileset="connect")
    assert isinstance(result, ReadResult)
    assert result.elapsed_ms > 0
    doc = result.to_json("x.jpg")
    assert set(doc) == {"image", "tiles", "missing", "grid", "elapsed_ms"}
    assert all(set(t) == {"row", "col", "tile", "confidence", "sure"} for t in doc["tiles"])
    assert all(0.0 <= t["confidence"] <= 1.0 for t in doc["tiles"])
    from companion.games.pivit_tiles.grid import parse_grid

    assert parse_grid(result.grid, "connect") == result.cells()

    verdict = check_grid(result.cells(), "connect", tiles=0)
    assert verdict.violations
    plain = result.annotated_png()
    with_objects = result.annotated_png(verdict.violations)
    with_dicts = result.annotated_png([v.to_json() for v in verdict.violations])
    for png in (plain, with_objects, with_dicts):
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert with_objects == with_dicts != plain

    import cv2

    picture = cv2.imdecode(np.frombuffer(plain, np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape[:2] == rendered.image.shape[:2]


def test_big_photos_are_annotated_small():
    rendered = render({(0, 0): "1R", (0, 1): "1O"}, "classic", Scene(size=(1600, 1200), tile_px=120))
    result = read_image(rendered.image, "classic")
    import cv2

    picture = cv2.imdecode(np.frombuffer(result.annotated_png(max_side=800), np.uint8), cv2.IMREAD_COLOR)
    assert max(picture.shape[:2]) == 800


@pytest.mark.parametrize("centre", [(0.3, 0.3), (0.72, 0.68), (0.3, 0.7)])
def test_the_grid_anywhere_in_the_frame(centre):
    cells = {(0, 0): "1B", (0, 1): "2B", (0, 2): "3B", (1, 2): "3G", (2, 2): "3Y"}
    rendered = render(cells, "classic", Scene(size=(640, 480), tile_px=40, rotation=-15, centre=centre, blur=0.4, jpeg_quality=80))
    assert read_image_bytes(rendered.data).cells() == cells


def test_a_big_photo_is_decoded_small_and_read(photo):
    # A large JPEG is decoded by libjpeg straight to 1/2, 1/4 or 1/8 of its size, about
    # 1000 pixels long: its tiles are large enough there.
    rendered = photo(71, "connect", tiles=14, size=(2600, 1950), jpeg_quality=85)
    result = read_image_bytes(rendered.data, "connect")
    assert result.image.shape[:2] == (975, 1300)
    assert result.cells() == rendered.cells
    # Asked to decode larger, it reads the same from more pixels.
    from vision.config import DecodeConfig, VisionConfig

    full = read_image_bytes(rendered.data, "connect", config=VisionConfig(decode=DecodeConfig(grid_long_side=2600)))
    assert full.image.shape[:2] == (1950, 2600)
    assert full.cells() == rendered.cells


def test_a_grid_far_away_in_a_big_photo_is_decoded_again_larger():
    # Tiles of 80 pixels in a 4000-pixel photo are 20 at 1/4: too small to read well, so
    # the photo is decoded again at 1/2, where they are 40.
    cells = {(0, 0): "1B", (0, 1): "2B", (0, 2): "3B", (1, 2): "3G", (2, 2): "3Y", (2, 1): "3R"}
    rendered = render(cells, "classic", Scene(size=(4000, 3000), tile_px=80, rotation=10, jpeg_quality=85))
    result = read_image_bytes(rendered.data)
    assert result.image.shape[:2] == (1500, 2000)
    assert result.cells() == cells


def test_a_read_imports_nothing_load_reader_has_not(tmp_path):
    # `companion vision read --jobs` forks its workers after load_reader: a module a read would load
    # on first use is loaded once there, not again in every worker. In a fresh process, as the CLI
    # starts.
    import subprocess
    import sys

    path = tmp_path / "grid.jpg"
    path.write_bytes(render({(0, 0): "1R", (0, 1): "2G", (1, 0): "3B"}, "classic", Scene()).data)
    code = ("import sys\nfrom vision.pipeline import load_reader, read_image_file\nload_reader()\n"
            "before = set(sys.modules)\nread_image_file(sys.argv[1])\nprint(sorted(set(sys.modules) - before))\n")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_read_never_loads_numpy_ma(tmp_path):
    # NumPy's np.median, np.percentile and np.unique load numpy.ma on first use (12-13 ms of CPU in
    # every reader process); the reader takes the same numbers from vision.design's array_median,
    # percentile and distinct. In a fresh process, as the CLI starts.
    import subprocess
    import sys

    path = tmp_path / "grid.jpg"
    cells = {(0, 0): "1R", (0, 1): "2G", (0, 2): "4Y", (1, 0): "3B", (1, 1): "5O", (2, 1): "6P"}
    path.write_bytes(render(cells, "classic", Scene()).data)
    code = ("import sys\nfrom vision.pipeline import load_reader, read_image_file\nload_reader()\n"
            "result = read_image_file(sys.argv[1])\nprint(len(result.tiles), 'numpy.ma' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(len(cells)), "False"]


def test_the_read_path_calls_no_numpy_function_that_loads_numpy_ma():
    # The fresh-process test above reads one photo; a rule that only a glared, tinted or printed
    # photo reaches would load numpy.ma unseen. So the read's modules are searched for the calls
    # (np.median and np.percentile of floats, np.unique without return_counts), outside comments.
    # Allowed: calibration (its own command) and np.unique with return_counts (no numpy.ma).
    import ast
    from pathlib import Path

    import vision

    banned = {"median", "percentile", "quantile", "unique"}
    found = []
    for name in ("assemble", "capture", "colour", "design", "find", "lattice", "occluder", "pipeline", "plane"):
        path = Path(vision.__file__).parent / f"{name}.py"
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef) or fn.name == "calibrate":
                continue
            for node in ast.walk(fn):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and isinstance(node.func.value, ast.Name) and node.func.value.id == "np"
                        and node.func.attr in banned
                        and not any(k.arg == "return_counts" for k in node.keywords)):
                    found.append(f"{name}.py:{node.lineno} np.{node.func.attr} in {fn.name}")
    assert sorted(set(found)) == []


def _under_lamp(patch, light, centre, radius=9.0, strength=0.8):
    """A BGR patch (drawn in white light) lit by a lamp of linear B, G, R colour `light`, with the lamp's
    highlight (in the lamp's colour, as a mirror shows it) centred at `centre`."""
    from vision.colour import to_linear, to_srgb

    yy, xx = np.mgrid[: patch.shape[0], : patch.shape[1]]
    spot = strength * np.exp(-((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (2.0 * radius**2))
    return to_srgb(to_linear(patch) * light + spot[..., None] * np.asarray(light, np.float32))


@pytest.mark.parametrize("design,paint,light", [
    ("5", (150, 60, 110), (0.6, 1.0, 1.4)),  # a purple four-point star, a warm lamp
    ("6", (30, 90, 230), (1.35, 1.0, 0.65)),  # an orange eight-point star, a blue-white lamp
    ("2", (30, 200, 230), (1.35, 1.0, 0.65)),  # a yellow clover, a blue-white lamp
])
def test_a_design_under_a_tinted_highlight_is_read_again_in_white_light(design, paint, light):
    # Under a tinted lamp a highlight has the lamp's colour: its chroma outlined a design of its own
    # (or took the colour out of the paint under it), and the design was unsure or misread.
    from vision.config import SURE_AT, DesignConfig
    from vision.design import classify_design, draw_design
    from vision.pipeline import reread_in_white

    grey = draw_design(design, 64, 0.02)
    weight = (grey.astype(np.float32) - grey.min()) / (int(grey.max()) - int(grey.min()))
    face = np.array([22, 18, 16], np.float32)
    patch = (face + weight[..., None] * (np.array(paint, np.float32) - face)).astype(np.uint8)
    tinted = _under_lamp(patch, light, (22, 44))
    designs = [classify_design(tinted)]
    assert designs[0].confidence < SURE_AT
    assert reread_in_white([tinted], designs, [light], DesignConfig()) == [0]
    assert designs[0].design == design and designs[0].confidence >= SURE_AT
    # In about white light nothing is read again.
    again = [classify_design(tinted)]
    assert reread_in_white([tinted], again, [(1.02, 1.0, 0.98)], DesignConfig()) == []


def test_a_design_read_again_as_another_where_the_highlight_lies_keeps_its_own_confidence():
    # A purple circle under a warm lamp, the lamp's highlight over its top: its chroma mask lost the
    # paint the highlight paled and read an eight-point star (0.00). In white light the circle is
    # whole again, another design than the first, but every pixel the two readings disagree on lies
    # under the highlight (design.glare_share): the second reading keeps its own confidence.
    from vision.config import SURE_AT, DesignConfig
    from vision.design import classify_design, draw_design
    from vision.pipeline import reread_in_white

    grey = draw_design("1", 64, 0.02)
    weight = (grey.astype(np.float32) - grey.min()) / (int(grey.max()) - int(grey.min()))
    face = np.array([22, 18, 16], np.float32)
    patch = (face + weight[..., None] * (np.array((150, 60, 110), np.float32) - face)).astype(np.uint8)
    light = (0.6, 1.0, 1.4)
    tinted = _under_lamp(patch, light, (32, 14), 8.0, 1.0)
    designs = [classify_design(tinted)]
    assert designs[0].design != "1" and designs[0].confidence < SURE_AT
    assert reread_in_white([tinted], designs, [light], DesignConfig()) == [0]
    assert designs[0].design == "1" and designs[0].confidence >= SURE_AT


def test_a_design_read_again_in_white_light_as_another_keeps_its_confidence_when_clearly_sure():
    # A blue circle under a warm lamp, the lamp's highlight on the face's corner, first read as an
    # eight-point star at 0.2 (a patch cut off its tile: the first outline differs all over, not where
    # the highlight lies). Read again in white light it is a circle, well sure: past
    # DesignConfig.min_white_reread it keeps its own confidence; short of it, the tile stays as
    # unsure as the first reading was.
    from dataclasses import replace

    from vision.config import SURE_AT, DesignConfig
    from vision.design import classify_design, draw_design, glare_share
    from vision.pipeline import reread_in_white

    def painted(design):
        grey = draw_design(design, 64, 0.02)
        weight = (grey.astype(np.float32) - grey.min()) / (int(grey.max()) - int(grey.min()))
        face = np.array([22, 18, 16], np.float32)
        return (face + weight[..., None] * (np.array((200, 110, 30), np.float32) - face)).astype(np.uint8)

    light = (0.6, 1.0, 1.4)
    tinted = _under_lamp(painted("1"), light, (9, 9), 6.0, 0.6)
    star = replace(classify_design(_under_lamp(painted("6"), light, (9, 9), 6.0, 0.0)), confidence=0.2)
    config = DesignConfig()
    designs = [star]
    assert reread_in_white([tinted], designs, [light], config) == [0]
    assert designs[0].design == "1" and designs[0].confidence >= config.min_white_reread
    assert glare_share(tinted, star.mask, designs[0].mask, config) < config.min_glared_change
    held = [star]
    assert reread_in_white([tinted], held, [light], replace(config, min_white_reread=1.01)) == [0]
    assert held[0].design == "1" and held[0].confidence == 0.2 < SURE_AT


def _blue_square(bite_centre=None):
    """A blue square on its black face, a round bite of face taken out of its top side at `bite_centre`."""
    return _painted_square((200, 110, 30), bite_centre)


def test_what_a_tinted_highlight_hides_of_a_design_is_read_from_its_other_quarters():
    # A warm lamp's highlight over a blue square's top side clips the paint under it: the paint there
    # is as pale as the face, in white light too, and the mask loses a bite that reads a four-point
    # star (0.1, in white light 0.29). Read from the square's other quarters where the highlight lies
    # (design.mend_hidden), the bite is the square's, and it reads sure. The same bite in the face's
    # own black, the highlight beside it or elsewhere on the face, is no highlight's: it stays, and
    # the star stays unsure.
    from vision.config import SURE_AT, DesignConfig
    from vision.design import classify_design, classify_designs, mend_hidden, outline_of
    from vision.pipeline import reread_in_white

    light = (0.7, 1.0, 1.3)
    hidden = _under_lamp(_blue_square(), light, (32, 14), 8.0, 3.0)
    designs = [classify_design(hidden)]
    assert designs[0].design != "4" and designs[0].confidence < SURE_AT
    assert reread_in_white([hidden], designs, [light], DesignConfig()) == [0]
    assert designs[0].design == "4" and designs[0].confidence >= SURE_AT
    for centre in ((12, 52), (32, 40)):
        bitten = _under_lamp(_blue_square((32, 14)), light, centre, 6.0, 1.5)
        first = classify_design(bitten)
        assert first.design != "4" and first.confidence < SURE_AT
        mended = mend_hidden(bitten, first.mask)
        assert mended is None or classify_designs([outline_of(mended)], 64)[0].design != "4"
        designs = [first]
        reread_in_white([bitten], designs, [light], DesignConfig())
        assert designs[0].design != "4" and designs[0].confidence < SURE_AT


def _green_square(bite_centre=None):
    """A green square on its black face, a round bite of face taken out of its top side at `bite_centre`."""
    return _painted_square((40, 150, 40), bite_centre)


def _painted_square(paint, bite_centre=None):
    """A square of `paint` (BGR) on its black face, a round bite of face taken out of it at `bite_centre`."""
    import cv2

    from vision.design import draw_design

    grey = draw_design("4", 64, 0.02)
    if bite_centre is not None:
        cv2.circle(grey, bite_centre, 7, int(grey.min()), -1)
    weight = (grey.astype(np.float32) - grey.min()) / (int(grey.max()) - int(grey.min()))
    face = np.array([22, 18, 16], np.float32)
    return (face + weight[..., None] * (np.array(paint, np.float32) - face)).astype(np.uint8)


def test_a_design_a_highlight_bit_into_is_mended_to_its_own_design_where_the_highlight_lies():
    # A highlight over the middle of a green square's top side pales the paint under it: the mask
    # loses a bite there and reads a four-point star, unsure. Mended by its quarter turns, the bite is
    # filled and the square reads sure: another design than the first, kept because what the mend
    # changed lies under the highlight (design.glare_share). The same bite in the face's own black,
    # a highlight elsewhere on the face, is the design's shape as the photo shows it: not mended
    # into another design.
    from vision.config import SURE_AT, DesignConfig
    from vision.design import classify_design, glared
    from vision.pipeline import mend_by_symmetry

    glared_bite = _under_lamp(_green_square(), (1.0, 1.0, 1.0), (32, 14), 7.0, 0.8)
    first = classify_design(glared_bite)
    assert first.design != "4" and first.confidence < SURE_AT
    mended = mend_by_symmetry([(glared_bite, first, (0.0, 0.0))], DesignConfig())[0][1]
    assert mended.design == "4" and mended.confidence >= SURE_AT
    black_bite = _under_lamp(_green_square((32, 14)), (1.0, 1.0, 1.0), (12, 52), 4.0, 0.8)
    first = classify_design(black_bite)
    assert first.design != "4" and first.confidence < SURE_AT and glared(black_bite)
    assert mend_by_symmetry([(black_bite, first, (0.0, 0.0))], DesignConfig())[0][1] is first


def _star_with_a_blob_beside_it(paint=(230, 230, 230)):
    """An eight-point star of `paint` (BGR) on its black face, a blob as bright joined to its right side:
    in white, a highlight."""
    import cv2

    from vision.design import draw_design

    grey = draw_design("6", 64)
    cv2.circle(grey, (50, 32), 11, 230, -1)
    weight = (grey.astype(np.float32) - 30) / 200
    face = np.array([30, 30, 30], np.float32)
    return (face + weight[..., None] * (np.array(paint, np.float32) - face)).clip(0, 255).astype(np.uint8)


def test_a_not_sure_design_is_mended_by_its_symmetry_to_the_same_design_only():
    # The highlight joined to one side bends the star's outline: it reads unsure. Its mask mended by
    # the star's own quarter turns (vision.design.four_fold) reads it sure; a mended reading of
    # another design than the first is not kept when what it changed is no highlight (here as bright
    # as the white paint itself: design.glare_share).
    from dataclasses import replace

    from vision.config import SURE_AT, DesignConfig
    from vision.design import classify_design
    from vision.pipeline import mend_by_symmetry

    patch = _star_with_a_blob_beside_it()
    first = classify_design(patch)
    assert first.design == "6" and first.confidence < SURE_AT
    [(_, mended, _), none] = mend_by_symmetry([(patch, first, (0.0, 0.0)), None], DesignConfig())
    assert none is None and mended.design == "6" and mended.confidence >= SURE_AT
    assert mended.mask is first.mask  # the paint's colour is sampled where the photo showed it
    other = replace(first, design="2")
    assert mend_by_symmetry([(patch, other, (0.0, 0.0))], DesignConfig())[0][1] is other


def test_a_not_sure_design_without_a_highlight_is_not_mended():
    # The same blob in the star's own blue paint: no highlight (the patch's dimmest channel stays low),
    # so the design's doubt is its own, which its quarter turns would only smooth away.
    from vision.config import SURE_AT, DesignConfig
    from vision.design import classify_design, glared
    from vision.pipeline import mend_by_symmetry

    patch = _star_with_a_blob_beside_it((200, 90, 20))
    first = classify_design(patch)
    assert first.confidence < SURE_AT and not glared(patch)
    assert mend_by_symmetry([(patch, first, (0.0, 0.0))], DesignConfig())[0][1] is first


def test_an_asked_cells_design_is_not_mended_by_its_symmetry():
    # Two cells of the same star with a highlight joined to it: the found tile's design is mended and
    # sure, the cell the search only asked about (its design not trusted: it may be a finger or print,
    # which quarter turns would make look like a design) is read as it is, and stays asked about.
    from vision.config import SURE_AT, VisionConfig
    from vision.lattice import Lattice, TileCell
    from vision.pipeline import read_asked

    image = np.hstack([_star_with_a_blob_beside_it()] * 2)
    lattice = Lattice(np.array([[64.0, 0, 32], [0, 64.0, 32], [0, 0, 1]]), 64.0, 0.0)
    missing = [(0, 1)]
    [(tile, (_, design, _))] = read_asked(image, lattice, [TileCell((0, 0), (0.0, 0.0), True)], [(0, 1)], missing,
                                          VisionConfig())
    assert tile.cell == (0, 0) and design.design == "6" and design.confidence >= SURE_AT
    assert missing == [(0, 1)]


def test_each_tiles_design_is_read_up_to_its_patchs_blur_unless_a_highlight_bends_it():
    # read_tiles compares a design with the designs only as far blurred as its patch is
    # (design.BLUR_REACH): its reading carries the patch's blur, which read_image's blur checks reuse;
    # a patch with a highlight is compared along the designs' whole curves (pipeline.unglared_blur).
    from vision.config import VisionConfig
    from vision.design import blur_of, glared
    from vision.lattice import Lattice
    from vision.pipeline import read_tiles

    from .test_design import _glared

    clean = _star_with_a_blob_beside_it((200, 90, 20))
    shiny = _glared(clean.copy(), (18, 44), 6.0, 200.0)
    lattice = Lattice(np.array([[64.0, 0, 32], [0, 64.0, 32], [0, 0, 1]]), 64.0, 0.0)
    config = VisionConfig()
    (patch, design, _), (shone, bent, _) = read_tiles(np.hstack([clean, shiny]), lattice,
                                                      [((0, 0), (0.0, 0.0)), ((0, 1), (0.0, 0.0))], config)
    assert not glared(patch, config.design) and design.blur is not None
    assert design.blur == blur_of(patch, config.design)
    assert glared(shone, config.design) and bent.blur is None


def test_the_glare_test_is_taken_once_for_each_patch_read(monkeypatch):
    # design_outline and the blur each ask whether a patch shows glare (design._glare_rise); read_tiles
    # asks once and hands them the answer, with and without a highlight, and reads as before.
    import vision.design as design_module
    from vision.config import VisionConfig
    from vision.design import blur_of, design_outline
    from vision.lattice import Lattice
    from vision.pipeline import read_tiles

    from .test_design import _glared

    clean = _star_with_a_blob_beside_it((200, 90, 20))
    shiny = _glared(clean.copy(), (18, 44), 6.0, 200.0)
    lattice = Lattice(np.array([[64.0, 0, 32], [0, 64.0, 32], [0, 0, 1]]), 64.0, 0.0)
    config = VisionConfig()
    rises, cuts = [], []
    rise, mask = design_module._glare_rise, design_module.design_mask
    monkeypatch.setattr(design_module, "_glare_rise", lambda *a: rises.append(1) or rise(*a))
    monkeypatch.setattr(design_module, "design_mask", lambda *a, **k: cuts.append(1) or mask(*a, **k))
    readings = read_tiles(np.hstack([clean, shiny]), lattice, [((0, 0), (0.0, 0.0)), ((0, 1), (0.0, 0.0))], config)
    assert len(cuts) >= 2 and len(rises) == len(cuts)
    monkeypatch.undo()
    for patch, reading, _ in readings:
        outline = design_outline(patch, config.design)
        assert np.array_equal(outline.mask, reading.mask) and outline.features == reading.features
    assert readings[0][1].blur == blur_of(readings[0][0], config.design)


def test_areas_on_the_table_are_each_point_s_own():
    # pipeline._on_table takes every point's Jacobian in one product: each area is the one the
    # map's own Jacobian at that point alone gives, to the last bit.
    from vision.lattice import Lattice
    from vision.pipeline import _on_table
    from vision.plane import jacobian

    homography = np.array([[41.0, 7.5, 300.0], [-3.0, 38.0, 220.0], [0.0009, 0.0021, 1.0]])
    lattice = Lattice(homography, 0.0, 0.0, [(0, 0)], 0.8)
    rng = np.random.default_rng(5)
    centres = rng.uniform(100, 900, (25, 2))
    areas = rng.uniform(50, 400, 25)
    alone = [area / max(abs(np.linalg.det(jacobian(homography, x, y))), 1e-9)
             for area, (x, y) in zip(areas, lattice.to_lattice(centres).tolist())]
    assert _on_table(lattice, centres, areas).tolist() == alone
    assert len(set(alone)) == 25


def test_a_cell_asked_about_under_a_highlight_is_read_with_what_the_highlight_hides_mended():
    # A cell the search asked about: its blue square under a highlight that clips its top side (or its
    # corner) reads a four-point star or a clover, unsure; read from its other quarters where the
    # highlight lies (pipeline.read_hidden) it is a square past `asked_sure`, its colour still sampled
    # in the first mask. A black bite, no highlight, stays: the star is left as unsure as it was.
    from vision.config import DesignConfig
    from vision.design import classify_design
    from vision.pipeline import read_hidden

    config = DesignConfig()
    for centre in ((32, 14), (20, 20)):
        patch = _under_lamp(_blue_square(), (1.0, 1.0, 1.0), centre, 8.0, 2.0)
        first = classify_design(patch)
        assert first.design != "4" and first.confidence < config.asked_sure
        [(_, read, _), none] = read_hidden([(patch, first, (0.0, 0.0)), None], config)
        assert none is None and read.design == "4" and read.confidence >= config.asked_sure
        assert read.mask is first.mask
    bitten = _under_lamp(_blue_square((32, 14)), (1.0, 1.0, 1.0), (12, 52), 6.0, 1.5)
    first = classify_design(bitten)
    assert read_hidden([(bitten, first, (0.0, 0.0))], config)[0][1] is first
