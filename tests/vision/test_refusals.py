"""Photos that cannot be read reliably are refused with a reason, never read wrong (issue 12).

Each refusal is a RetakePhotoError with its one-word `reason` ("blurred",
"oblique", "cut-off", "unsure", ...); the CLI says it on one line with exit 2, the
camera check answers 422 with the reason (tests/web/test_camera_check.py).
The same scenes made readable again (sharp, from higher up, whole, closer)
are read exactly: the refusals are not too eager.
"""
from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from companion.cli import main
from vision import RetakePhotoError, read_image_bytes
from vision.design import blur_of, draw_design
from vision.synthetic import PAINT_BGR, Scene, random_grid, render

CELLS = random_grid(np.random.default_rng(5), "classic", tiles=12)
SHARP = dict(size=(1200, 900), tile_px=80.0, background="wood", jpeg_quality=90, seed=4)

CASES = {
    # name: (the scene refused, the same scene made readable, reason)
    "blurred": (dict(blur=6.0), dict(blur=1.0), "blurred"),
    "shaken": (dict(shake=(30.0, 20.0)), dict(shake=(4.0, 20.0)), "blurred"),
    "oblique": (dict(camera_tilt=66.0, camera_fov=70.0, tile_px=60.0), dict(camera_tilt=35.0, camera_fov=70.0, tile_px=60.0),
                "oblique"),
    "cut off": (dict(centre=(0.02, 0.5)), dict(centre=(0.5, 0.5)), "cut-off"),
}


def _photo(**changes) -> bytes:
    return render(CELLS, "classic", Scene(**{**SHARP, **changes})).data


@pytest.mark.parametrize("name", CASES)
def test_a_photo_that_cannot_be_read_reliably_is_refused_with_its_reason(name):
    refused, readable, reason = CASES[name]
    with pytest.raises(RetakePhotoError) as caught:
        read_image_bytes(_photo(**refused), "classic")
    assert caught.value.reason == reason and caught.value.status == 422
    result = read_image_bytes(_photo(**readable), "classic")
    assert result.cells() == CELLS


@pytest.mark.parametrize("seed", [176, 255])
def test_a_photo_taken_at_50_to_55_degrees_is_not_refused_as_too_oblique(seed):
    # The evaluation set's "steep" photos 176 and 255 (1200x900, 52 and 55 degrees): the issue asks
    # for grids read down to 55 degrees. The plane's map puts their far cells at 0.288 and 0.297 of
    # the near ones (the square root of its area, which counts the far cells' steeper view as well as
    # their distance; their sides' ratio in truth 0.349 and 0.350), and `min_near_far` 0.3 refused
    # them; every tile reads right and sure.
    photo, _, score = _read_and_score("steep", seed)
    assert score.exact and score.correct == len(photo.cells) and score.confidently_wrong == 0


def test_blur_is_measured_as_a_fraction_of_the_tile():
    """A design's edges blurred by s pixels of a 64-pixel patch measure about s/64 (a little more for the
    small designs, whose paint fades as well as spreads); a sharp one about one patch pixel."""
    for design in "123456":
        sharp = blur_of(np.repeat(draw_design(design, 64)[:, :, None], 3, axis=2))
        assert sharp < 0.03
        measured = []
        for sigma in (2.0, 3.0, 4.0):
            blurred = cv2.GaussianBlur(draw_design(design, 64), (0, 0), sigma)
            measured.append(blur_of(np.repeat(blurred[:, :, None], 3, axis=2)))
            assert 0.75 * sigma / 64 <= measured[-1] <= 1.4 * sigma / 64 + 0.01, (design, sigma, measured)
        assert sharp < measured[0] < measured[1] < measured[2]
    assert blur_of(np.full((64, 64, 3), 20, np.uint8)) is None  # no design, nothing to measure


@pytest.mark.parametrize("colour", "ROYGBP")
def test_glare_on_a_coloured_design_does_not_measure_as_blur(colour):
    """A lamp mirrored in a glossy tile, a soft white spot on its design: in brightness the spot, not
    the paint, set the contrast and a sharp dark green measured 0.04-0.07 (the photo's limit 0.046),
    a groups photo's sharp greens and blues asked about. Measured on the design's chroma, the spot
    changes nothing."""
    for design in "1245":
        grey = cv2.GaussianBlur(draw_design(design, 64).astype(np.float32), (0, 0), 1.0) / 255
        face = np.array([18.0, 18.0, 20.0])
        patch = face + grey[..., None] * (np.array(PAINT_BGR[colour]) - face)
        yy, xx = np.mgrid[:64, :64]
        spot = 200 * np.exp(-((xx - 26) ** 2 + (yy - 24) ** 2) / (2 * 7.0**2))
        plain = blur_of(np.clip(patch, 0, 255).astype(np.uint8))
        glared = blur_of(np.clip(patch + spot[..., None], 0, 255).astype(np.uint8))
        assert glared < 0.03 and abs(glared - plain) < 0.006, (design, plain, glared)


def test_the_cli_says_retake_on_one_line_and_exits_2(tmp_path, capsys):
    path = tmp_path / "shaken.jpg"
    path.write_bytes(_photo(blur=6.0))
    status = main(["vision", "read", "--json", str(path)])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "shaken.jpg" in err and "blurred" in err


def test_tiles_seen_but_left_off_the_grid_are_not_dropped_without_a_word():
    # Five tiles laid loosely on a printed board (the evaluation set's "board" photo 106): the
    # lattice takes two of them and leaves three, each a clear design on a black face, out.
    # Reading the two alone would say nothing of three tiles: the photo is refused instead.
    # (The "mixed" photo 33 was the example until its third group, on nodes of the lattice's
    # map but a cell off in its own frame, was joined tile by tile: plane._join.)
    from vision.evalsets import make_photo

    photo = make_photo("board", 106, (1200, 900))
    with pytest.raises(RetakePhotoError) as caught:
        read_image_bytes(photo.data, photo.tileset)
    assert caught.value.reason == "unplaced" and caught.value.status == 422
    assert str(caught.value).startswith("3 of the tiles in the photo could not be placed on the grid")


def test_a_clear_design_on_a_cell_asked_about_for_it_alone_is_read_when_it_reads_sure():
    # rough 311: a red circle under a highlight that spilt onto its face, its cell's measures failed;
    # its design, clear in both searches, was left out and the photo refused ("unplaced").
    _, _, score = _read_and_score("rough", 311)
    assert score.exact


def test_unplaced_counts_the_tiles_seen_on_no_cell_read():
    from vision.config import LatticeConfig
    from vision.lattice import Lattice
    from vision.pipeline import Seen, unplaced

    lattice = Lattice(np.diag([50.0, 50.0, 1.0]), 50.0, 0.0, [(0, 0), (0, 1)])  # cell (r, c) at x = 50c, y = 50r
    centres = np.array([[0.0, 0.0], [52.0, 3.0], [100.0, 0.0], [175.0, 25.0], [150.0, 0.0]])
    seen = Seen(centres, np.array([100.0, 120.0, 110.0, 100.0, 20.0]), np.ones(5), np.array([0.05, 0.05, 0.05, 0.05, 0.05]))
    # (0, 0) and (0, 1) are read. Left out: (0, 2), a clear tile; the point between four
    # cells beyond them, a clear tile too; (0, 3), a hole a fifth of the designs' size (print).
    assert unplaced(lattice, seen, [(0, 0), (0, 1)], LatticeConfig()) == (3, 2)
    lopsided = Seen(centres, seen.areas, seen.face, np.full(5, 0.5))
    assert unplaced(lattice, lopsided, [(0, 0), (0, 1)], LatticeConfig()) == (3, 0)
    assert unplaced(lattice, seen, [(0, 0), (0, 1), (0, 2), (1, 1), (0, 3)], LatticeConfig())[0] == 1
    nothing = Seen(centres[:0], seen.areas[:0], seen.face[:0], seen.asymmetry[:0])
    assert unplaced(lattice, nothing, [], LatticeConfig()) == (0, 0)


def test_a_hole_a_tile_would_lie_over_two_tiles_placed_is_no_tile_left_out():
    # Tiles lie side by side, never one on another. A clear hole in the gap where tiles meet, ringed
    # by their faces and a board's lines (board 228 and 243: the board's light square between its
    # lines, half a cell off the nodes), is no tile left out; one a tile would lie over only one tile
    # placed may be a tile the map, bent at its far end, puts too near it (packed 257), and counts.
    from vision.config import LatticeConfig
    from vision.lattice import Lattice
    from vision.pipeline import Seen, unplaced

    # Cell (r, c) at x = 50c, y = 50r. Designs on (0, 0), (0, 1) and (1, 0), read.
    lattice = Lattice(np.diag([50.0, 50.0, 1.0]), 50.0, 0.0, [(0, 0), (0, 1), (1, 0)])
    placed = [[0.0, 0.0], [50.0, 0.0], [0.0, 50.0]]
    read = [(0, 0), (0, 1), (1, 0)]

    def seen_with(hole):
        centres = np.array(placed + [hole])
        return Seen(centres, np.full(4, 100.0), np.ones(4), np.full(4, 0.05))

    # In the corner between the three, 0.4 of a cell off (1, 1) each way: over all three by 0.4.
    assert unplaced(lattice, seen_with([30.0, 30.0]), read, LatticeConfig()) == (0, 0)
    # Beside (0, 1) only, 0.3 of a cell short of (0, 2): over that tile by 0.3, counted.
    assert unplaced(lattice, seen_with([85.0, 0.0]), read, LatticeConfig()) == (1, 1)
    # Under the overlap allowed (0.1 over each of two): counted.
    assert unplaced(lattice, seen_with([45.0, 45.0]), read, LatticeConfig()) == (1, 1)


def test_a_board_s_light_squares_in_the_gaps_between_tiles_are_no_tiles_left_out():
    # Board 228: four of the board's light squares between its lines, in the gaps where tiles meet,
    # were counted as tiles left out and the photo, its 14 tiles read, was refused ("unplaced").
    photo, result, score = _read_and_score("board", 228)
    assert score.exact and score.correct == len(photo.cells)


def test_designs_on_faces_far_lighter_than_the_tiles_are_no_tiles_left_out():
    # Only a black tile carries a design: a hole ringed by black far lighter than the designs read
    # (the letters of a board's "TL" square) is no tile left off the grid.
    from vision.config import LatticeConfig
    from vision.lattice import Lattice
    from vision.pipeline import Seen, unplaced

    # Cell (r, c) at x = 50c, y = 50r. (0, 0) and (0, 1) are read; (0, 2) and (0, 3) are not.
    lattice = Lattice(np.diag([50.0, 50.0, 1.0]), 50.0, 0.0, [(0, 0), (0, 1)])
    centres = np.array([[0.0, 0.0], [52.0, 3.0], [100.0, 0.0], [150.0, 0.0]])
    areas = np.array([800.0, 900.0, 850.0, 850.0])
    dark = Seen(centres, areas, np.ones(4), np.full(4, 0.05), np.array([0.15, 0.17, 0.16, 0.25]))
    assert unplaced(lattice, dark, [(0, 0), (0, 1)], LatticeConfig()) == (2, 2)
    lighter = Seen(centres, areas, np.ones(4), np.full(4, 0.05), np.array([0.15, 0.17, 0.16, 0.32]))
    assert unplaced(lattice, lighter, [(0, 0), (0, 1)], LatticeConfig()) == (1, 1)


def test_a_board_s_printed_squares_letters_are_no_tiles_left_out():
    # The evaluation set's "board" photo 98: the letters of a board's "TL" squares, on faces 2.0-2.3
    # times as light as the tiles', were counted as 10 tiles left off the grid, and a photo whose
    # every tile was read was refused ("unplaced").
    photo, result, score = _read_and_score("board", 98)
    assert score.exact and score.correct == len(photo.cells)


def test_a_photo_is_blurred_when_its_sharper_tiles_are():
    # A steep photo's far side out of focus: its near tiles sharp, most of the others past the
    # photo's limit. It is read (its blurred tiles judged one by one, blur_doubt).
    from vision.config import DesignConfig
    from vision.pipeline import check_blur

    cfg = DesignConfig()
    check_blur([0.03, 0.035, 0.04, 0.044, 0.05, 0.052, 0.055, 0.058, 0.065, 0.07], 60.0, cfg)
    check_blur([], 60.0, cfg)
    # Shaken: every tile past the limit, the sharpest too.
    with pytest.raises(RetakePhotoError) as caught:
        check_blur([0.05, 0.052, 0.055, 0.06, 0.07], 60.0, cfg)
    assert caught.value.reason == "blurred"
    # ... unless the blur is less than min_blur_px pixels: a small tile's own softness.
    check_blur([0.05, 0.052, 0.055, 0.06, 0.07], 30.0, cfg)


def _read_and_score(condition: str, seed: int, config=None):
    """(photo, its read, its score) of an evaluation set's photo at 1200x900."""
    from vision.evalsets import make_photo
    from vision.evaluate import score_result

    photo = make_photo(condition, seed, (1200, 900))
    result = read_image_bytes(photo.data, photo.tileset, config=config)
    return photo, result, score_result(photo.name, result, photo.cells, condition)


def _refusal(condition: str, seed: int, config=None) -> str:
    """The reason the reader gives for refusing an evaluation set's photo at 1200x900 (the test fails
    if it reads the photo)."""
    with pytest.raises(RetakePhotoError) as caught:
        _read_and_score(condition, seed, config)
    return caught.value.reason


def test_sharp_tiles_under_glare_are_not_asked_about_as_blurred():
    # The evaluation set's "groups" photo 80 (1200x900): greens under a lamp's highlight measure
    # 0.068-0.077 in brightness (the highlight sets the contrast), past the limits of the time, and
    # were asked about though read right; on their chroma under 0.05, and the photo reads exactly.
    from vision.config import DesignConfig
    from vision.lattice import cell_patch

    photo, result, score = _read_and_score("groups", 80)
    assert score.exact and score.correct == len(photo.cells)
    top, left = result.origin
    lattice = result.lattice
    in_brightness = replace(DesignConfig(), glare_contrast=1e9)  # never told by chroma
    patches = [cell_patch(result.image, lattice, (t.row + top, t.col + left), 64, border=(lattice.tile - 1) / 2,
                          offset=result.offsets[(t.row, t.col)]) for t in result.tiles]
    glared = [blur_of(p) for p in patches if blur_of(p, in_brightness) > 0.065]
    assert len(glared) >= 3 and max(glared) < 0.05


def test_a_stray_tile_beside_the_grid_whose_design_the_search_distrusted_is_read():
    # The evaluation set's "steep" photo 25: a stray tile two cells off the grid's corner, far
    # from the lens, its design lopsided by its sides and the slant. It used to be dropped
    # without a word, then its cell was "a tile may be missing here"; cut at its node as any
    # tile (pipeline.read_asked), its design reads sure and right.
    photo, _, score = _read_and_score("steep", 25)
    assert score.exact and score.correct == len(photo.cells) and score.confidently_wrong == 0


def test_a_far_tile_whose_design_runs_out_through_its_margin_is_read():
    # The evaluation set's "steep" photo 47: a lone tile far from the lens, blurred by the depth
    # of field, its red design bleeding out through its thin far margin: no hole, so never a
    # candidate, and it was dropped without a word. Its black face, a "C" of a tile's size as dark
    # as the other tiles' faces, made its cell "a tile may be missing here"; cut at its node as any
    # tile (pipeline.read_asked), its design reads sure and right.
    photo, result, score = _read_and_score("steep", 47)
    assert score.exact and score.correct == len(photo.cells) and score.confidently_wrong == 0


def test_two_printed_glyphs_in_one_board_square_are_not_two_tiles():
    # The evaluation set's "board" photo 47: the "x" and "2" of a board's dark "x2" square, each a
    # hole in black, were paired as neighbours by their own small frames and joined to the grid,
    # 0.58 of a cell apart on its map; the lattice sheared, a lone tile beside the grid was
    # dropped without a word and four tiles were not sure. Two tiles cannot lie closer than a
    # tile's side: the pair is judged as a lone design is (print), and every tile is read.
    photo, result, score = _read_and_score("board", 47)
    assert score.confidently_wrong == 0
    assert score.exact and score.correct == len(photo.cells)


def test_a_board_s_strip_of_row_numbers_at_the_photo_s_edge_is_not_a_cut_off_grid():
    # The evaluation set's "board" photo 45: four light digits in the board's dark strip of row
    # numbers at the photo's left edge, each a hole in dark, were joined to the grid as a group
    # of tiles; the map bent, the cell beyond them lay outside the photo and the photo was
    # refused as cut off. Their faces are 2.44 times as light against the table as the tiles':
    # print, not joined, and every tile is read.
    photo, result, score = _read_and_score("board", 45)
    assert score.exact and score.correct == len(photo.cells)


def test_print_at_the_photo_s_edge_by_a_tile_s_corner_is_no_cut_off_grid():
    # The evaluation set's "board" photo 65: the board's black letters at the photo's bottom edge,
    # by the corner of the grid's bottom-left tile, were as dark as a tile's face (1.29 times the
    # faces' level) and the photo was refused as cut off. A tile there would join the grid through
    # a cell beside both, and both those cells show in the photo, light: it is no cut-off grid, and
    # every tile is read. (It was asked about as a loose tile at the photo's edge is, until a cell
    # asked about had to be as dark as the faces of the tiles nearest it: 1.26 times their level,
    # lattice._lighter_than_near.)
    photo, result, score = _read_and_score("board", 65)
    assert score.exact and score.correct == len(photo.cells) and result.missing == []


@pytest.mark.parametrize("seed", [75, 136])
def test_a_tile_s_thick_side_at_the_photo_s_edge_is_no_cut_off_grid(seed):
    # The evaluation set's "board" photos 75 and 136: the grid's nearest tile by the photo's bottom
    # edge, its thick side seen at an angle below it; the cell there, 0.86-0.93 outside the photo,
    # showed a sliver half dark (0.46-0.49: the side, then the board) and the photos were refused as
    # cut off. A tile cut off there shows its black edge band all across the sliver (the cutoff
    # photos 168-191: 0.95-1.00 dark), and every tile is read.
    photo, result, score = _read_and_score("board", seed)
    assert score.exact and score.correct == len(photo.cells)


def test_print_in_a_sliver_at_the_photo_s_edge_is_no_loose_tile():
    # The evaluation set's "board" photo 55: a cell 0.93 outside the photo, beside no tile, its
    # sliver 0.56 dark with the board's print, was asked about as a loose tile running out of the
    # photo. A tile there shows its black edge band all across the sliver.
    photo, result, score = _read_and_score("board", 55)
    assert score.exact and result.missing == []


def test_a_sliver_of_a_tile_s_black_edge_at_the_photo_s_edge_is_a_cut_off_grid():
    # The evaluation set's "cutoff" photo 177: the only cell the grid runs out of the photo by is
    # 0.87 outside it, its sliver 0.99 dark: refused as cut off, as before.
    from vision.evalsets import make_photo

    photo = make_photo("cutoff", 177, (1200, 900))
    with pytest.raises(RetakePhotoError) as refused:
        read_image_bytes(photo.data, photo.tileset)
    assert "outside the photo" in str(refused.value)


@pytest.mark.parametrize("condition, seed", [("rough", 17), ("cloth", 81), ("tinted", 60)])
def test_a_grid_whose_last_tiles_end_at_the_photo_s_edge_is_read_whole(condition, seed):
    # The evaluation sets' photos rough 17, cloth 81 and tinted 60: the photo's edge at the last
    # tiles' outer sides, the cells beyond them 0.97-1.00 outside the photo and light where they show,
    # the table along the photo's edge there: no tile on them could show in the photo, and the photos
    # were refused as cut off (lattice._unseen_cell). Every tile is read.
    photo, result, score = _read_and_score(condition, seed)
    assert score.exact and score.correct == len(photo.cells)


@pytest.mark.parametrize("seed", [29, 178])
def test_a_sliver_of_a_tile_s_face_along_the_photo_s_edge_is_a_cut_off_grid(seed):
    # The evaluation set's "cutoff" photos 29 and 178: the cell beyond the last tiles read measures
    # wholly outside the photo in the rectified picture, yet 1-3 pixels of a tile's face show along
    # the photo's edge there (0.66-0.91 of that band dark in the photo's own pixels): refused as cut
    # off, as before (that tile is in the photo and would be dropped without a word).
    from vision.evalsets import make_photo

    photo = make_photo("cutoff", seed, (1200, 900))
    with pytest.raises(RetakePhotoError) as refused:
        read_image_bytes(photo.data, photo.tileset)
    assert "outside the photo" in str(refused.value)


@pytest.mark.parametrize("seed", [369, 383])
def test_a_tile_the_photo_s_edge_cuts_through_its_design_is_a_cut_off_grid(seed):
    # The evaluation set's "cutoff" photos 369 and 383: an orange tile at the photo's right edge,
    # its cell 0.90 outside, the sliver that shows 0.66 dark with its paint in it (369); a purple
    # circle cut open by the left edge, 0.30 dark as dark as the tiles' faces, joining a tile read
    # to a line of tiles down the edge (383). Both were read with tiles dropped without a word
    # (1 and 3 of them); a tile cut by the edge is in the photo: refused as cut off.
    assert _refusal("cutoff", seed) == "cut-off"


def test_the_two_bowls_of_a_printed_8_are_one_tile_left_out_at_most():
    # The evaluation set's "board" photo 109: the bowls of the board's printed "8"s and "B"s, each
    # a light hole ringed by ink, were six designs left off the grid, and the photo, its every tile
    # read, was refused ("6 of the tiles could not be placed"). Three pairs of them lie 0.2-0.3 of
    # a cell apart; two tiles' designs lie a tile's side apart, so each pair is one tile at most,
    # four are left out of 12 read, and the photo is read exactly.
    from vision.pipeline import _one_per_tile

    photo, result, score = _read_and_score("board", 109)
    assert score.exact and score.correct == len(photo.cells)
    seen = SimpleNamespace(centres=np.array([[0.0, 0.0], [0.3, 0.0], [2.0, 0.0], [2.2, 0.1], [5.0, 5.0]]),
                           areas=np.array([10.0, 20.0, 30.0, 5.0, 8.0]))
    identity = SimpleNamespace(to_lattice=lambda points: np.asarray(points, float))
    placed = np.array([False, False, True, False, False])
    kept = _one_per_tile(identity, seen, placed, ~placed, SimpleNamespace(min_design_spacing=0.5))
    assert kept.tolist() == [False, True, False, False, True]


def test_a_board_s_dark_printed_square_beside_the_tiles_is_not_a_missing_tile():
    # The evaluation set's "board" photo 16: a dark grey printed square beside the grid, ringed by
    # the board's lines, is lighter than the tiles' faces (1.9 times their level). It was
    # reported as "a tile may be missing here"; a tile whose design is not seen is as dark as
    # the others (tests above and the evaluation sets' locks keep those asked about).
    photo, result, score = _read_and_score("board", 16)
    assert result.missing == []
    assert score.exact and score.correct == len(photo.cells)


def test_a_wedge_of_table_in_a_corner_is_no_finger():
    # The evaluation set's "tinted" photo 52 (beyond the held-out seeds): orange wood under a warm
    # lamp, a lighter stripe of its grain cutting off the photo's corner beside a white tile. The
    # wedge has a finger's hue, comes in from the edge and has a finger's mean width (its area over
    # its length), and the photo was refused as "covered" with nothing over the grid. It is 2.4
    # tiles across at the corner; a finger is at most about 1.35.
    from vision.occluder import covered_cells

    photo, result, score = _read_and_score("tinted", 52)
    assert score.exact and score.correct == len(photo.cells)
    tiles = [(t.row + result.origin[0], t.col + result.origin[1]) for t in result.tiles]
    assert covered_cells(result.image, result.lattice, tiles, []) == []


def test_a_tile_half_under_a_finger_is_asked_about():
    # The evaluation set's "occluded" photo 3: a finger lies across a tile at the grid's edge,
    # its design hidden, half of its black face showing with the tile's outer edge. It used to
    # be dropped without a word (the grid read as if the cell were empty); now its cell is "a
    # tile may be missing here", and the other 8 tiles are read. (The finger itself is found too,
    # and the photo refused as "covered": this is the lattice's own rule, with no finger found.)
    from dataclasses import replace

    from vision.config import VisionConfig

    cfg = VisionConfig()
    # (Nor by the search for a limb without grain, occluder._still_limbs: it has its own length.)
    blind = replace(cfg, occluder=replace(cfg.occluder, min_length=1e9, still_grain=0.0))
    photo, _, score = _read_and_score("occluded", 3, blind)
    assert score.correct == len(photo.cells) - 1 and score.missing >= 1 and score.confidently_wrong == 0


def test_tiles_hidden_along_a_finger_are_asked_about_or_the_photo_refused():
    # The evaluation set's "occluded" photo 16: a finger on a purple cloth lies along a line of three
    # tiles from the grid's corner, its tip on the first. The lattice asked about the tip's cell only;
    # the two tiles under the finger's length were dropped without a word. The finger is found
    # (vision.occluder) and every cell beside the tiles it covers is "a tile may be missing here";
    # with that many (an empty cell under a finger cannot be told from a hidden tile) the photo is
    # refused: one photo again beats confirming each cell.
    from dataclasses import replace

    from vision.config import VisionConfig
    from vision.evaluate import score_result
    from vision.occluder import covered_cells

    cfg = VisionConfig()
    asking = replace(cfg, occluder=replace(cfg.occluder, refuse_cells=10**6))
    photo, result, score = _read_and_score("occluded", 16, asking)
    assert score.correct == 3 and score.confidently_wrong == 0 and score.missing >= 3
    with pytest.raises(RetakePhotoError) as caught:
        read_image_bytes(photo.data, photo.tileset)
    assert caught.value.reason == "covered" and "finger" in str(caught.value)
    # The same photo without the finger: nothing is found over the grid.
    bare = render(photo.cells, photo.tileset, replace(photo.scene, finger=()))
    plain = read_image_bytes(bare.data, photo.tileset)
    tiles = [(t.row + plain.origin[0], t.col + plain.origin[1]) for t in plain.tiles]
    assert covered_cells(plain.image, plain.lattice, tiles, []) == []
    assert plain.missing == [] and score_result(photo.name, plain, photo.cells).confidently_wrong == 0


def test_a_photo_whose_tiles_the_reader_is_unsure_of_is_refused():
    # The evaluation set's "mixed" photo 24 (held out): a printed board, taken at an angle, its
    # lattice sheared off the tiles; all 5 tiles were read "not sure" and two of them put on the
    # wrong cells. A better photo is asked for instead of a tap on every tile. (Its groups are now
    # joined tile by tile where the lattice's map puts each on a node, and it reads exactly: the
    # sheared lattice is had again without that, PlaneConfig.snap_join_offset below zero.)
    from vision.config import VisionConfig
    from vision.evalsets import make_photo

    photo = make_photo("mixed", 24, (1200, 900))
    cfg = VisionConfig()
    sheared = replace(cfg, plane=replace(cfg.plane, snap_join_offset=-1.0))
    with pytest.raises(RetakePhotoError) as caught:
        read_image_bytes(photo.data, photo.tileset, config=sheared)
    assert caught.value.reason == "unsure" and "5 of the 5 tiles" in str(caught.value)
    photo, result, score = _read_and_score("mixed", 24)
    assert score.exact and score.correct == len(photo.cells)


def test_a_tile_a_little_out_of_focus_is_judged_by_its_own_reading():
    # Up to max_tile_blur a tile's design confidence says whether it is read (its design is compared
    # along each design's curve from sharp to blurred); past it, it is asked about however sure.
    from vision.config import DesignConfig
    from vision.pipeline import blur_doubt

    cfg = DesignConfig()
    assert not blur_doubt(None, cfg)
    assert not blur_doubt(0.08, cfg)
    assert blur_doubt(cfg.max_tile_blur + 0.005, cfg)


@pytest.mark.parametrize("seed", [0, 173])
def test_groups_a_little_out_of_focus_are_read_sure(seed):
    # The evaluation set's "groups" photos 0 and 173: small tiles (28 and 41 pixels) of a group
    # out of focus measured 0.069-0.085 of a tile (2.2-2.8 pixels), past the old limits (0.046 and
    # 0.06, and 0.068 for a design read 0.8 sure), and were asked about though read right at
    # 0.46-0.9; no tile of them is asked about now, and every one is right.
    photo, result, score = _read_and_score("groups", seed)
    assert score.exact and score.correct == len(photo.cells)


def test_a_finger_wider_than_a_tile_with_its_shadow_is_found():
    # The evaluation set's "occluded" photo 74: a finger over a white table, its tip on a tile at the
    # grid's edge. Shrunk to the finger search's scale, the finger with its soft edge and its shadow
    # is 1.02 tiles wide on average; at most 1.0 was taken for a finger, the tile under it was
    # dropped without a word. A finger, a thumb or two fingers together, is up to about 1.3 tiles.
    from vision.evalsets import make_photo

    photo = make_photo("occluded", 74, (1200, 900))
    try:
        _, _, score = _read_and_score("occluded", 74)
    except RetakePhotoError as refused:
        assert refused.reason == "covered"
    else:
        assert score.confidently_wrong == 0
    # The same photo without the finger reads exactly.
    bare = render(photo.cells, photo.tileset, replace(photo.scene, finger=()))
    plain = read_image_bytes(bare.data, photo.tileset)
    assert plain.missing == [] and plain.unsure() == []


def test_a_ragged_patch_of_grain_is_no_finger():
    # The evaluation set's "wood" photo 114: a patch of the table's grain in the photo's corner
    # stands apart from the table's median colour when the table's spread is taken at its median
    # (a search more sensitive than the reader's own); it comes in from the edge and has a finger's
    # width, but its outline follows the grain: 1.65 times as long as its hull's (a finger's: 1.0-1.25).
    # (Its colour lies along the wood's hue: apart_off_hue leaves it out as well, kept here to see
    # the outline's rule alone.)
    from vision.config import VisionConfig
    from vision.occluder import find_occluder

    cfg = VisionConfig()
    keen = replace(cfg.occluder, spread_percentile=50.0, apart_spread=2.7, apart_off_hue=False)
    _, result, score = _read_and_score("wood", 114)
    assert score.exact
    tiles = [(t.row + result.origin[0], t.col + result.origin[1]) for t in result.tiles]
    assert find_occluder(result.image, result.lattice, tiles, keen)[0] is None
    assert find_occluder(result.image, result.lattice, tiles, replace(keen, max_ragged=1e9))[0] is not None


def _no_finger_found_without_it(photo) -> None:
    """The same scene as `photo` without its finger: nothing is found over the grid, and it reads without a flag."""
    from vision.occluder import covered_cells

    bare = render(photo.cells, photo.tileset, replace(photo.scene, finger=()))
    plain = read_image_bytes(bare.data, photo.tileset)
    tiles = [(t.row + plain.origin[0], t.col + plain.origin[1]) for t in plain.tiles]
    assert covered_cells(plain.image, plain.lattice, tiles, []) == []
    assert plain.missing == []


@pytest.mark.parametrize("seed, step", [
    # A finger over a blue cloth, an eighth of the table's sample: its colour (a*, b*) 44 from the
    # cloth's median, and the sample's spread (its 90th percentile) 43, the finger's own; nothing
    # stood apart by 1.5 times that, and two tiles under it were dropped without a word. With the
    # finger left out of the sample (a limb standing apart by 6), the cloth's spread is 2.2. (Its
    # lightness steps from the cloth's as well: without the step search too.)
    (154, dict(loose_apart=0.0, step_spread=0.0)),
    # A finger on wood of its own hue: its colour (a*, b*) 7 from the wood's median, the sample's
    # spread 6 with the finger a seventh of it (3 without): nothing stood apart by 1.5 times it, and
    # three tiles along the finger were dropped without a word. Standing apart by 0.7 times the
    # spread, the finger is joined to patches of the wood; the wood's grain runs one way, the
    # finger has none (its blocks under the table's 10th percentile of grain), and it is found.
    (200, dict(smooth_spread=0.0)),
    # A finger on wood of its own hue over a row of tiles, a glimpse of a tile's face beside them:
    # its part standing apart by part of the table's spread over the glimpse is 4.4 tiles square,
    # but its shaded side parts it from the photo's edge; two tiles under it were dropped without a
    # word. A part that large over a glimpse is no speck or tile rim (`min_glimpse_patch`). (Its
    # middle has no grain either: the search for such a limb, after this one, finds it too.)
    (31, dict(min_glimpse_patch=math.inf, still_grain=0.0)),
    # A finger of the table's own hue (a*, b* 5 from its median: under min_apart) on a table without
    # grain, lighter than it by 43 (L* * 2.55) where the table round it steps by 2.5-3 (its median):
    # nothing stood apart in colour, no grain told it from the table, no glimpse lay beside it, and
    # three tiles under it were dropped without a word (the held-out photos 292 and 296 of the
    # seventeenth session). Its lightness steps from the table's level round it by over 8 times the
    # table's own step (`step_spread`), and it is found.
    # (Both fingers are off the table's hue as well: the hue search, after this one, finds them too.)
    (292, dict(step_spread=0.0, hue_spread=0.0)),
    (296, dict(step_spread=0.0, hue_spread=0.0)),
    # A pale finger on pale wood of its own hue and lightness (the block 336-359, studied in the
    # twentieth session): its colour within the wood's spread, so neither the colour search nor the
    # texture search's candidates (0.7 times the spread) hold it, and no step of lightness; three
    # tiles along it (345) and one at its tip (353) were dropped without a word. Skin-hued pixels
    # with no grain, looked for with a narrower disc (only the finger's middle is free of grain, its
    # sides step from the wood), make a limb 6.8 and 9.5 tiles long from the photo's edge.
    # (Both fingers are off the wood's hue as well: the hue search, after this one, finds them too.)
    (345, dict(still_grain=0.0, hue_spread=0.0)),
    (353, dict(still_grain=0.0, hue_spread=0.0)),
    # A finger redder than the wood (a* 12, b* 19 on a wood of 4, 17; the block 360-383, studied in
    # the twenty-first session): a lamp lights the wood's far side lighter and more saturated, which
    # sets its colour's spread (7.6) about its median, and the finger stands 7.5-9 from it, within
    # 1.5 times that; the finger's sides and shading give its blocks the wood's grain, and its
    # lightness is the wood's. A tile at its tip was dropped without a word. The wood's lamp-lit
    # colour moves along its own hue; across it, the wood's spread is 1.1 and the finger's colour
    # 6.4-7.7 (`hue_spread`, `min_across`).
    (383, dict(hue_spread=0.0)),
])
def test_a_finger_is_found_where_it_stands_apart_only_in_part(seed, step):
    from vision.config import VisionConfig

    assert _refusal("occluded", seed) == "covered"
    cfg = VisionConfig()
    # (Without lattice._dark_corner too: its cells beside the finger count towards it.)
    cfg = replace(cfg, lattice=replace(cfg.lattice, min_corner_side=1.1))
    # (Nor a group placed by a small margin refusing the photo: occluded 31's tiles beside the finger,
    # their group placed in doubt, refused it then.)
    cfg = replace(cfg, plane=replace(cfg.plane, min_placement_margin=0.0))
    photo, _, score = _read_and_score("occluded", seed, replace(cfg, occluder=replace(cfg.occluder, **step)))
    assert score.confidently_wrong > 0  # without the step: tiles under the finger dropped without a word
    _no_finger_found_without_it(photo)


def test_the_edge_of_a_lamp_s_pool_is_no_finger():
    # The evaluation set's "tinted" photo 94: a lamp's pool of light in a corner of a wood, lighter
    # than the wood round the tiles. The table's level is its mean over two tiles, which has not
    # caught up with the pool at its edge: there its lightness steps from the level, a band half a
    # tile wide from the photo's edge, shaped like a finger. A finger lies on the table, stepping
    # from it on both sides; the band steps as far on the pool's side (the ring round it at 0.98
    # of the threshold, the fingers of occluded 195, 290, 292 and 296 at -0.66 to 0.39). Searched
    # at 4 times the median step (keener than the reader's own 8), the band alone is no finger.
    from vision.config import VisionConfig

    cfg = VisionConfig()
    keen = replace(cfg.occluder, step_spread=4.0)
    photo, _, score = _read_and_score("tinted", 94, replace(cfg, occluder=keen))
    assert score.exact and score.correct == len(photo.cells)
    assert _refusal("tinted", 94, replace(cfg, occluder=replace(keen, max_ring_step=math.inf))) == "covered"


def test_the_edge_of_a_lamp_s_warmer_half_is_no_finger():
    # The evaluation set's "tinted" photo 362: a warm lamp turns the hue of one side of a wood, and
    # a band along the edge of that side lies across the wood's median hue by over twice the wood's
    # spread, shaped like a finger. A finger lies on the table, off its hue on both sides; the band
    # is off it as far on the lamp's side (the ring round it at 0.95 of the threshold, the fingers
    # found 0.10-0.14; max_ring_step). It is off towards yellow as well, where a finger is redder
    # than wood (hue_redward): either rule alone leaves it, and the photo reads exactly.
    from vision.config import VisionConfig

    photo, _, score = _read_and_score("tinted", 362)
    assert score.exact and score.correct == len(photo.cells)
    cfg = VisionConfig()
    # (Nor the lightness step search, before it, with the same ring rule left out.)
    ringless = replace(cfg.occluder, max_ring_step=math.inf, step_spread=0.0)
    assert _read_and_score("tinted", 362, replace(cfg, occluder=ringless))[2].exact
    assert _read_and_score("tinted", 362, replace(cfg, occluder=replace(cfg.occluder, hue_redward=False)))[2].exact
    assert _refusal("tinted", 362, replace(cfg, occluder=replace(ringless, hue_redward=False))) == "covered"


def test_a_lamp_s_yellower_wedge_is_no_finger():
    # The evaluation set's "tinted" photo 12: a warm lamp lights the wood below the tiles, and a
    # wedge there, from the photo's edge to the tiles, lies across the wood's hue by over twice its
    # spread; the table round it is near the wood's hue (0.14 of the threshold), as round a finger.
    # It is off towards yellow, 8.4 at its median, where every finger found is 4.0-14.1 towards red:
    # skin is redder than wood. The photo reads exactly; taken either way, it was refused as covered.
    from vision.config import VisionConfig

    photo, _, score = _read_and_score("tinted", 12)
    assert score.exact and score.correct == len(photo.cells)
    cfg = VisionConfig()
    assert _refusal("tinted", 12, replace(cfg, occluder=replace(cfg.occluder, hue_redward=False))) == "covered"


def test_the_cells_asked_about_are_no_part_of_the_table_s_sample():
    # The evaluation set's "occluded" photo 113: a close-up on a white table, a finger over most of
    # the grid, two tiles read and three cells beside the finger asked about. Sampled a tile away
    # from the two tiles read only, the "table" held the purple designs of the tiles in the asked
    # cells: its spread (a*, b*, 90th percentile) came out 27 with the finger in it, 45 with the
    # finger left out, the finger about 27 from its median: nothing stood apart by 1.5 times that,
    # and the tile under the finger's tip was dropped without a word. The cells asked about may hold
    # tiles and are left out of the sample like the tiles read: the white table's spread is 1.5.
    from vision.evalsets import make_photo

    photo = make_photo("occluded", 113, (1200, 900))
    with pytest.raises(RetakePhotoError) as caught:
        read_image_bytes(photo.data, photo.tileset)
    assert caught.value.reason == "covered"
    _no_finger_found_without_it(photo)


def test_a_striped_cloth_s_bands_are_not_left_out_of_the_table_s_sample():
    # Cloth 152: salmon and green stripes, the salmon bands skin-hued, a tile wide and crossing the
    # photo. Left out of the table's sample as limbs (ten of them), they took the salmon out of the
    # table, and the rest of the salmon stood apart from it: the photo was refused as covered by a
    # finger. More limbs than a hand's fingers are the table's pattern and stay in the sample. (The
    # part of the salmon that stood apart then is no limb by its taper either, max_taper: the
    # refusal needs both rules off.)
    from vision.config import VisionConfig

    photo, _, score = _read_and_score("cloth", 152)
    assert score.exact and score.correct == len(photo.cells)
    cfg = VisionConfig()
    assert _refusal("cloth", 152, replace(cfg, occluder=replace(cfg.occluder, max_loose_limbs=10, max_taper=0.0))) == "covered"


@pytest.mark.parametrize("seed", [47, 101])
def test_a_finger_of_the_wood_s_hue_over_a_glimpsed_tile_is_found(seed):
    # The evaluation set's "occluded" photos 47 and 101: a finger on wood of its own hue, its blocks
    # no smoother than the wood's least grain, over tiles beside the grid; two tiles in each were
    # dropped without a word. What the finger leaves of a tile it covers is the tile's own outer
    # edge, dark along part of its sides facing no tile (lattice._glimpsed), where an empty cell
    # beside the tiles is darkened on the side facing them only. Skin's hue standing apart from the
    # wood by part of its spread, from the photo's edge over such a cell, is the finger: the photo
    # is refused as covered.
    from vision.config import VisionConfig

    assert _refusal("occluded", seed) == "covered"
    cfg = VisionConfig()
    unseen = replace(cfg, lattice=replace(cfg.lattice, min_glimpse_sides=1e9))
    # (Nor the search for a limb without grain, after this one: 47's finger has none along its middle;
    # nor the hue search, last: both fingers are off the wood's hue.)
    unseen = replace(unseen, occluder=replace(cfg.occluder, still_grain=0.0, hue_spread=0.0))
    photo, _, score = _read_and_score("occluded", seed, unseen)
    assert score.confidently_wrong > 0  # without the glimpses: tiles under the finger dropped without a word
    _no_finger_found_without_it(photo)


def test_a_glimpse_of_a_tile_is_its_outer_edge_not_its_neighbours_sides():
    # A cell beside a tile read whose sides facing no tile are dark along part of their length is a
    # glimpse of a tile; the same darkness on the side facing the tile is that tile's thick side or
    # shadow, and a cell with no tile beside it is not looked at.
    from vision.config import LatticeConfig
    from vision.lattice import _glimpsed

    cfg = LatticeConfig()
    rect = SimpleNamespace(top=0, left=0, rows=1, cols=2)

    def evidence(sides):
        return SimpleNamespace(rect=rect, face_level=1.0, outside=np.zeros((1, 2)), level=np.ones((1, 2)),
                               face=np.full((1, 2), 0.45), dark=np.full((1, 2), 0.3),
                               sides=np.array([[(0.0, 0.0, 0.0, 0.0), sides]]))

    # Sides: top, bottom, left (the tile read at (0, 0)), right.
    assert _glimpsed(evidence((0.45, 0.42, 0.0, 0.0)), cfg, {(0, 0)}, set()) == [(0, 1)]
    assert _glimpsed(evidence((0.0, 0.0, 0.9, 0.2)), cfg, {(0, 0)}, set()) == []
    assert _glimpsed(evidence((0.45, 0.42, 0.0, 0.0)), cfg, set(), set()) == []


def test_a_group_whose_place_on_the_grid_is_not_clear_refuses_the_photo():
    # The evaluation set's "groups" photo 328: a line of six green tiles, a gap, six red ones, and
    # far beyond them a line of four stars crossed by a line of three orange tiles. The far tiles
    # were placed a row off the red line's map (two lone stars by small margins, the orange line by
    # 0.12, its tiles "not sure"): four tiles were dropped without a word and two stars read sure on
    # empty cells. "Not sure" cannot say that a group's place is in doubt; the photo is refused.
    assert _refusal("groups", 328) == "unplaced"


def test_a_sliver_of_a_tiles_face_at_the_photos_edge_is_asked_about_on_the_cell_beyond_it():
    # The evaluation set's "cutoff" photos 404 and 191: of a loose tile beyond the cells the lattice
    # looked at, the photo's edge shows only a band of its black face (0.16 and 0.04 of a cell, too
    # little for a tile's cut face), its design outside the photo: dropped without a word. The band's
    # own centre lies on the cell inside the photo; its tile's, half a tile beyond its inner edge.
    for seed in (404, 191):
        photo, result, score = _read_and_score("cutoff", seed)
        assert score.confidently_wrong == 0 and score.missing >= 1 and score.correct == score.read, seed


def test_a_loose_tile_running_out_of_the_photo_apart_from_the_grid_is_asked_about():
    # The evaluation set's "cutoff" photo 334: one wild read, and 3 and 5 cells from it two tiles
    # whose designs the photo's top edge cuts open (0.48 and 0.89 of a cell of black face show),
    # beyond the cells the lattice looked at: both were dropped without a word.
    photo, result, score = _read_and_score("cutoff", 334)
    assert score.confidently_wrong == 0 and score.missing == 2 and score.correct == 1


def _tile_and_print_hole():
    """Candidates in a 200 x 100 dark mask: at (50, 50) a design 30 pixels across on a tile's black face
    60 across; at (150, 50) a light square 30 across ringed by a printed line a pixel wide, the board's
    light surface beyond it."""
    from vision.find import Candidates

    dark = np.zeros((100, 200), np.uint8)
    dark[20:80, 20:80] = 1
    dark[35:65, 35:65] = 0
    dark[34:66, 134:166] = 1
    dark[35:65, 135:165] = 0
    side = 30.0
    return Candidates(centres=np.array([[49.5, 49.5], [149.5, 49.5]]), areas=np.full(2, side * side),
                      boxes=np.array([[35, 35, 30, 30], [135, 35, 30, 30]]), dark=dark,
                      shapes=np.array([[side * side / 12, 0.0, side * side / 12]] * 2), face=np.ones(2),
                      asymmetry=np.zeros(2), trusted=np.ones(2, bool))


def test_outer_faces_tell_a_tiles_face_from_a_printed_line():
    from vision.config import LatticeConfig
    from vision.find import outer_faces

    shares = outer_faces(_tile_and_print_hole(), [0, 1], *LatticeConfig().outer_face_ring)
    assert shares.shape == (2, 8)
    assert shares[0].min() > 0.9  # the tile's face runs on to its edge
    assert shares[1].max() < 0.2  # beyond the printed line, the board's light surface


def test_outer_faces_measure_what_shows_of_a_ring_the_photos_edge_cuts():
    # A board's square at the photo's edge (board 205): the sectors that show are measured, those
    # wholly outside the photo are not (NaN, never light).
    from vision.config import LatticeConfig
    from vision.find import outer_faces

    found = _tile_and_print_hole()
    found.dark = found.dark[:, :167].copy()  # the photo ends just past the print hole's right line
    whole = outer_faces(_tile_and_print_hole(), [1], *LatticeConfig().outer_face_ring)[0]
    shares = outer_faces(found, [1], *LatticeConfig().outer_face_ring)[0]
    assert not np.isnan(shares).any() and not np.array_equal(shares, whole)  # the right sectors cut, still measured
    assert np.count_nonzero(shares < LatticeConfig().max_light_outer) >= LatticeConfig().min_light_sectors


def test_a_print_hole_left_out_alone_is_no_tile_left_out():
    # A board's light square between its lines is a hole as clear as a design, ringed by a thin line
    # (board 102, 142): left out alone, it is no tile; beside a tile's design left out, the photo is
    # judged with both (mixed 141).
    from vision.config import LatticeConfig
    from vision.lattice import Lattice
    from vision.pipeline import Seen, unplaced

    found = _tile_and_print_hole()
    lattice = Lattice(np.diag([50.0, 50.0, 1.0]), 50.0, 0.0, [(1, 1)])  # cell (r, c) at x = 50c, y = 50r
    # A tile read at (1, 2) (its design not among those seen); the print hole at (1, 3) is left out.
    centres = np.array([[100.0, 50.0], [150.0, 50.0]])
    seen = Seen(centres, np.full(2, 900.0), np.ones(2), np.zeros(2), None, found, np.array([0, 1]))
    assert unplaced(lattice, seen, [(1, 2)], LatticeConfig()) == (0, 0)
    # The tile's design (index 0 of `found`) left out beside it: both count.
    tile = Seen(np.array([[100.0, 50.0], [150.0, 50.0], [50.0, 100.0]]), np.full(3, 900.0), np.ones(3), np.zeros(3),
                None, found, np.array([0, 1, 0]))
    assert unplaced(lattice, tile, [(1, 2)], LatticeConfig())[0] == 2
    # Without the found designs to measure, every design left out counts, as before.
    bare = Seen(centres, np.full(2, 900.0), np.ones(2), np.zeros(2))
    assert unplaced(lattice, bare, [(1, 2)], LatticeConfig())[0] == 1
