"""Placing the tiles on a printed board and in steep photos (issue 12).

Only black tiles with a painted design are tiles: a board's printed squares,
lines and numbers beside the tiles are not, and must not be read as tiles. A steep photo's line of tiles with one tile beside it
keeps the perspective its tiles' own frames show.
"""
from __future__ import annotations

import numpy as np
import pytest

from .test_refusals import _read_and_score


def _whitening(jacobian):
    """The whitening of a round design seen through a map whose local Jacobian is `jacobian`."""
    cov = jacobian @ jacobian.T
    values, vectors = np.linalg.eigh(cov)
    return vectors @ np.diag(1 / np.sqrt(values)) @ vectors.T, vectors @ np.diag(np.sqrt(values)) @ vectors.T


def test_a_line_of_tiles_with_one_beside_it_is_fitted_with_its_perspective():
    from vision.plane import fit_projective, jacobian, to_lattice

    # A steep view (the far cells half the near ones) of five tiles in a column and one beside it.
    truth = np.array([[60.0, 8.0, 400.0], [0.0, 25.0, 600.0], [0.0, -0.12, 1.0]])
    grid = np.array([(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (1, 2)], np.float64)
    homog = np.hstack([grid, np.ones((len(grid), 1))]) @ truth.T
    pts = homog[:, :2] / homog[:, 2:3]
    frames = [_whitening(jacobian(truth, c, r)) for c, r in grid]
    h = fit_projective(grid, pts, frames)
    # Every tile on its cell (an affine map, all the six centres fix, left them up to 0.36 of a
    # cell off), and the cells a column across the line, where no tile is, near where the true
    # map puts them (0.82 off).
    assert np.abs(to_lattice(h, pts) - grid).max() < 0.15
    probe = np.array([(-1, 0), (-1, 4), (1, 0), (1, 4)], np.float64)
    homog = np.hstack([probe, np.ones((len(probe), 1))]) @ truth.T
    assert np.abs(to_lattice(h, homog[:, :2] / homog[:, 2:3]) - probe).max() < 0.25


def test_a_steep_line_of_tiles_with_one_beside_it_is_read_exactly():
    # The evaluation set's "steep" photo 1 (54 degrees): five tiles in a line and one beside
    # it. The six centres fix no perspective across the line, the grid was fitted affine, and
    # the nearest tile, 0.33 of a cell off it, was left out: the photo was refused ("unplaced").
    photo, _, score = _read_and_score("steep", 1)
    assert score.exact and score.correct == len(photo.cells)


@pytest.mark.parametrize("condition, seed", [("groups", 20), ("oblique", 10), ("plain", 38), ("mixed", 36)])
def test_tiles_on_a_few_rows_keep_the_perspective_their_frames_show(condition, seed):
    # "groups" photo 20 (taken 10 degrees from straight down): three lines of tiles side by side
    # on three rows. Their centres left the perspective across the rows to noise, the group between
    # the others was joined a cell off and the map took it in as a 63-degree tilt: the photo was
    # refused ("oblique"). "oblique" photo 10: a tile left unread and asked about. Held-out "plain"
    # photo 38, whose centres' map agrees with its tiles' ellipses, keeps that map: the lines'
    # lent points skewed it and a tile was dropped without a word. Held-out "mixed" photo 36, whose
    # groups of 4 and 5 tiles fix too little to judge the lent points by, keeps its centres' maps.
    photo, _, score = _read_and_score(condition, seed)
    assert score.exact and score.correct == len(photo.cells)


def test_lines_lend_points_across_only_when_the_tiles_lie_on_few_rows():
    from vision.plane import _across_the_lines

    frames = [(np.eye(2), np.eye(2))] * 12
    two_rows = np.array([(c, r) for r in (0, 2) for c in range(4)], np.float64)
    more, _ = _across_the_lines(two_rows, two_rows * 50.0, frames[:8])
    assert more is not None and sorted(map(tuple, more.tolist())) == sorted((c, r + 1.0) for r in (0, 2) for c in range(4))
    block = np.array([(c, r) for r in range(4) for c in range(4)], np.float64)
    assert _across_the_lines(block, block * 50.0, frames + frames[:4])[0] is None


@pytest.mark.parametrize("seed", [3, 6])
def test_a_board_s_numbered_square_off_the_tiles_nodes_does_not_bend_the_grid(seed):
    # The evaluation set's "board" photos 3 and 6: a board's dark square with a number, found as a
    # lone design 0.4-0.5 of a cell off the tiles' nodes, was joined to the grid and bent its map
    # (its tiles' ellipses fitted 1.7-2.4 times worse): the near tiles, cut sheared, were not sure.
    photo, result, score = _read_and_score("board", seed)
    assert score.exact and score.correct == len(photo.cells)


def test_a_board_s_numbered_square_left_off_the_grid_does_not_refuse_the_photo():
    # "board" photo 17: the same, its lattice sheared so far that 3 tiles sat on no cell and the
    # photo was refused ("unplaced").
    photo, result, score = _read_and_score("board", 17)
    assert score.correct == len(photo.cells) and score.confidently_wrong == 0


@pytest.mark.parametrize("seed", [1, 5])
def test_a_board_s_print_a_little_off_the_nodes_and_lighter_than_the_faces_is_no_tile(seed):
    # The evaluation set's "board" photos 1 and 5: a board's printed square 0.24 of a cell off the
    # tiles' nodes, ringed 1.3-1.5 times as light as the tiles' faces, was asked about (1) or read
    # as a tile, not sure (5). The tiles' designs sat at most 0.20 off their nodes on seeds 0-23 of
    # every condition (a large photo's tile 0.198 off, 1.24 times as light).
    photo, result, score = _read_and_score("board", seed)
    assert score.exact and score.correct == len(photo.cells) and result.missing == []


@pytest.mark.parametrize("seed", [4, 11, 13])
def test_a_board_s_printed_square_beside_the_tiles_is_no_tile(seed):
    # The evaluation set's "board" photos 4, 11 and 13: a board's square between its lines beside
    # the tiles, 0.3 of a cell off the tiles' nodes and ringed by print lighter than the tiles'
    # faces (1.2-1.6 times their level), was read as a tile or asked about; in photo 13 two of
    # them, seen as tiles left off the grid, refused the photo ("unplaced").
    photo, result, score = _read_and_score("board", seed)
    assert score.exact and score.correct == len(photo.cells) and result.missing == []


def test_a_steep_view_s_tile_sides_beside_an_empty_cell_are_no_missing_tile():
    from vision.config import LatticeConfig
    from vision.lattice import _only_sides

    # A view whose depth falls toward the bottom rows: the camera stands below the grid, so a
    # tile's thick side shows below it, in the cell under it.
    h = np.array([[60.0, 0.0, 400.0], [0.0, 40.0, 300.0], [0.0, -0.1, 1.0]])
    cfg = LatticeConfig()
    # Dark along the top (the tile above's side) and the right (the tile there, a little away
    # from the camera too), light along the other two: those tiles' sides.
    tiles = {(0, 1), (1, 2)}
    h_left = np.array([[60.0, 0.0, 400.0], [0.0, 40.0, 300.0], [0.04, -0.1, 1.0]])
    assert _only_sides((1, 1), [1.0, 0.18, 0.26, 0.1], {(0, 1)}, h, cfg)
    assert _only_sides((1, 1), [1.0, 0.18, 0.26, 1.0], tiles, h_left, cfg)
    # The same band against a tile on the camera's side is no side seen at an angle; a cell
    # with a band of its own dark (a tile's face) is asked about as before.
    assert not _only_sides((1, 1), [0.18, 1.0, 0.26, 0.1], {(2, 1)}, h, cfg)
    assert not _only_sides((1, 1), [1.0, 0.18, 0.9, 0.1], {(0, 1)}, h, cfg)
    # The evaluation set's "steep" photo 9 (50-55 degrees): the cell below one tile and left of
    # another, their thick sides along two of its bands, was "may be missing".
    photo, result, score = _read_and_score("steep", 9)
    assert score.exact and score.correct == len(photo.cells) and result.missing == []


def test_a_tile_whose_design_was_not_found_but_whose_face_shows_is_read():
    # The evaluation set's "tinted" photo 17: glare on a corner of an orange square joins it to
    # the light, so no design is found there; its black face shows on three sides, beside two
    # tiles. It was "may be missing"; the design reader reads it (3O, sure).
    photo, result, score = _read_and_score("tinted", 17)
    assert score.exact and score.correct == len(photo.cells) and result.missing == []



def test_a_board_s_printed_square_dark_all_over_is_no_missing_tile():
    # The evaluation set's "board" photo 1: a dark grey printed square beside the tiles, dark in
    # its middle too but 1.7 times as light as the tiles' faces (a tile turned over is as dark
    # as they are; a design leaves the middle bright), was "may be missing". (The other cell
    # asked about, a board's square 0.24 off the tiles' nodes ringed on three sides by their
    # faces, 1.3 times as light as they are, is print too: see below.)
    photo, result, score = _read_and_score("board", 1)
    assert score.correct == len(photo.cells) and score.confidently_wrong == 0
    assert result.missing == []


def test_the_grid_grows_from_the_tiles_not_from_a_larger_group_of_print():
    # Groups of designs placed as neighbours, largest first, with their faces' levels: eight of a
    # board's printed squares (0.42), seven tiles (0.17), two tiles (0.16), a lone glyph on a
    # shadow (0.05, no reference alone). The grid grows from the seven tiles.
    from vision.config import PlaneConfig
    from vision.plane import _darkest_first

    groups = [{(0, c): c for c in range(8)}, {(0, c): 8 + c for c in range(7)}, {(0, 0): 15, (0, 1): 16}, {(0, 0): 17}]
    ordered, levels = _darkest_first(groups, [0.42, 0.17, 0.16, 0.05], PlaneConfig())
    assert ordered[0] is groups[1] and levels[0] == 0.17 and len(ordered) == 4
    # A largest group about as dark as the darkest stays first.
    ordered, _ = _darkest_first(groups, [0.2, 0.17, 0.16, 0.05], PlaneConfig())
    assert ordered[0] is groups[0]


def test_a_board_s_printed_squares_outnumbering_the_tiles_do_not_tilt_the_grid():
    # The evaluation set's "board" photo 44: eight of a board's printed squares with numbers,
    # faces 2.5 times as light as the tiles', were the largest group; the tiles' group was not
    # joined to them and the map read a 65-degree tilt: refused as too oblique. Every tile is
    # read now.
    photo, result, score = _read_and_score("board", 44)
    assert score.correct == len(photo.cells) and score.confidently_wrong == 0


@pytest.mark.parametrize("seed", [44, 90])
def test_a_board_s_print_ringed_only_by_the_faces_of_the_tiles_beside_it_is_no_tile(seed):
    # The "board" photos 44 and 90: a printed "A" below a tile, a light square with words in the
    # corner of two tiles, each found as a trusted design ringed by those tiles' faces (0.85-0.99
    # on the sides they stand) and by the board elsewhere (0.11-0.23): read as a tile, not sure.
    # A tile's own black face runs along every side (lattice._ringed_by_neighbours).
    photo, result, score = _read_and_score("board", seed)
    assert score.exact and score.correct == len(photo.cells) and result.missing == []


def test_a_group_with_a_step_taken_a_cell_too_long_is_joined_tile_by_tile():
    # The evaluation set's "groups" photo 119: two L-shaped groups far apart. The far group's
    # steps across a gap put one of its ten tiles a cell off in its own frame, so no shift of the
    # group fitted one plane with the near group's (0.53 of a cell off at best), and the photo was
    # refused: 10 tiles left off the grid. The near group's map put every one of them within 0.03
    # of a node; placed there, the whole grid fits one plane.
    photo, result, score = _read_and_score("groups", 119)
    assert score.exact and score.correct == len(photo.cells)


def test_a_far_group_the_near_group_s_map_misjudges_is_placed_on_its_own_cells():
    # The evaluation set's "groups" photo 375: a line of three squares and, two cells further on
    # the same row, a line of three clovers. The clovers' map, fitted to a line of three, put the
    # squares half a cell apart; of the shifts one cell each way of where it put them, the best
    # (one cell short, on the edge of those tried) beat the others by 0.42, and four tiles were read
    # sure on the wrong cells. The shifts beyond it are tried too: the right one fits four times
    # better.
    photo, result, score = _read_and_score("groups", 375)
    assert score.confidently_wrong == 0
    assert score.exact and score.correct == len(photo.cells)


def test_a_design_that_would_lie_over_a_tile_read_beside_it_is_no_missing_tile():
    from vision.config import LatticeConfig
    from vision.lattice import TileCell, _overlaps

    cfg = LatticeConfig()
    # A tile read at (0, 1), its design on its node; the cell (0, 0) beside it on the left.
    tiles = {(0, 1): TileCell((0, 1), (0.0, 0.0), True)}
    # A design 0.3 of a pitch off (0, 0)'s node toward that tile: a tile of 0.96 centred there
    # would lie 0.26 over it. Off the other way, or only a little toward it, or off across the
    # line between them, a tile fits.
    assert _overlaps((0, 0), (0.3, 0.0), tiles, 0.96, cfg)
    assert not _overlaps((0, 0), (-0.3, 0.0), tiles, 0.96, cfg)
    assert not _overlaps((0, 0), (0.08, 0.0), tiles, 0.96, cfg)
    assert not _overlaps((0, 0), (0.0, 0.3), tiles, 0.96, cfg)
    # The tile read sits off its node too: what counts is how far apart the two would lie.
    assert not _overlaps((0, 0), (0.3, 0.0), {(0, 1): TileCell((0, 1), (0.25, 0.0), True)}, 0.96, cfg)
    assert _overlaps((1, 0), (0.0, -0.3), tiles | {(0, 0): TileCell((0, 0), (0.0, 0.0), True)}, 0.96, cfg)


@pytest.mark.parametrize("seed", [36, 99])
def test_a_board_s_light_square_between_two_tiles_is_no_missing_tile(seed):
    # The evaluation set's "board" photos 36 and 99: a board's light square between its lines,
    # in the corner of two tiles and ringed on those sides by their black, measured 0.3 off its
    # node, as if a tile lay there over the tiles beside it; it was asked about ("a tile may be
    # missing here").
    photo, result, score = _read_and_score("board", seed)
    assert score.exact and score.correct == len(photo.cells) and result.missing == []


@pytest.mark.parametrize("seed", [0, 13])
def test_a_board_s_print_where_a_tile_s_square_would_fit_is_no_part_of_a_tile(seed):
    # The "board" photos 0 and 13: printed squares beside the tiles, as dark as a face at 1.1-1.25
    # times its level. Where a tile's square fits such a cell best (lattice._register_squares) a
    # side beside no tile measured 0.64-0.85 dark, as a hidden tile's outer edge does, but another
    # side of that square stayed mostly light (0.06-0.38: no tile's square; a highlight leaves half
    # of one side of a tile). Taking the outer side there asked about two empty cells of each.
    photo, result, score = _read_and_score("board", seed)
    assert score.exact and result.missing == []


def test_a_cell_is_judged_against_the_faces_of_the_tiles_nearest_it():
    from types import SimpleNamespace

    from vision.config import LatticeConfig
    from vision.lattice import _lighter_than_near

    cfg = LatticeConfig()
    # A row of ten cells under light that grows across the photo: three tiles on the left have
    # faces at 0.10, four on the right at 0.20 (twice as light, as a lamp's fall-off leaves them).
    level = np.array([[0.10, 0.10, 0.10, 0.0, 0.0, 0.0, 0.20, 0.20, 0.20, 0.20]])
    # Every middle bright (a design seen as light): each cell's level is its face's.
    ev = SimpleNamespace(rect=SimpleNamespace(top=0, left=0, rows=1, cols=10), level=level, middle=np.ones_like(level))
    tiles = {(0, c): None for c in (0, 1, 2, 6, 7, 8, 9)}
    # Beside the light tiles, a cell at 0.22 is as dark as they are: a tile may be there, though it
    # is more than twice the dark tiles' level. Beside the dark tiles, 0.14 is lighter than faces:
    # print.
    level[0, 5] = 0.22
    assert not _lighter_than_near((0, 5), ev, tiles, cfg)
    level[0, 3] = 0.14
    assert _lighter_than_near((0, 3), ev, tiles, cfg)
    level[0, 3] = 0.11
    assert not _lighter_than_near((0, 3), ev, tiles, cfg)


@pytest.mark.parametrize("condition, seed", [("board", 104), ("board", 172), ("board", 195), ("mixed", 88)])
def test_a_board_s_print_lighter_than_the_faces_beside_it_is_not_asked_about(condition, seed):
    # A board's printed dark squares and its letters ("TW" between tiles, 195) measured 1.6-1.74
    # times as light as the faces of the tiles nearest them, and were asked about ("a tile may be
    # missing here"). A tile's face is as black as the others' (and board 65: test_refusals).
    photo, result, score = _read_and_score(condition, seed)
    assert score.exact and score.correct == len(photo.cells) and result.missing == []


@pytest.mark.parametrize("seed", [217, 236, 239])
def test_print_read_as_a_tile_lighter_than_the_tiles_beside_it_is_left_out(seed):
    # The "board" photos 217, 236 and 239: a board's light square ringed by its lines with a printed
    # digit on it, beside the tiles, read as a tile (its light square the design) "not sure" at
    # 0.00-0.07; its dark measured 1.27-1.70 times as light as the faces of the tiles nearest it. A
    # tile's face is as black as its neighbours': such a cell is print unless its design reads sure
    # (lattice.TileCell.pale), as a pale cell asked about is (pipeline.read_asked).
    photo, result, score = _read_and_score("board", seed)
    assert score.exact and score.extra == 0 and result.unsure() == []


@pytest.mark.parametrize("seed", range(4))
def test_the_longest_line_is_the_row_or_column_holding_the_most_tiles(seed):
    # plane._longest_line counts the tiles on each row and column itself (np.unique's numbers, for
    # a fraction of its cost): the first most held, at least 3, its tiles' indices.
    from vision.plane import _longest_line

    rng = np.random.default_rng(seed)
    for _ in range(200):
        grid = rng.integers(-4, 5, (int(rng.integers(1, 25)), 2)).astype(np.float64)
        best = None
        for axis in (0, 1):
            values, counts = np.unique(grid[:, axis], return_counts=True)
            k = int(np.argmax(counts))
            if counts[k] >= 3 and (best is None or counts[k] > len(best)):
                best = np.nonzero(grid[:, axis] == values[k])[0]
        got = _longest_line(grid)
        assert (got is None and best is None) or np.array_equal(got, best)
