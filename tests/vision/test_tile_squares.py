"""A tile's square measured where it lies, a few pixels off the band looked at (lattice._register_squares)."""
import numpy as np
import pytest

from vision.config import LatticeConfig
from vision.lattice import Rectified, _block_sums, _patterns, _register_squares

from .test_refusals import _read_and_score

PX = 32


def _measures(loose):
    """(sides, face, middle, dark, level) of every cell of a 3 x 3 rectified mask, as lattice._evidence takes them."""
    pats = _patterns(PX, 0.92)
    area = pats.reshape(len(pats), -1).sum(axis=1)
    sums = _block_sums(loose, 3, 3, PX, pats)
    sides = sums[..., 0:4] / area[0:4]
    face = np.maximum(sums[..., 4] / area[4], sums[..., 5] / area[5])
    middle = np.ones((3, 3), np.float32)
    dark = sums[..., 7] / area[7]
    level = np.full((3, 3), 0.2, np.float32)
    return (sides, face, middle, dark, level), pats


def _tile(loose, row, col, shift=(0, 0), side=28):
    """A tile's black face with a round design hole, `side` pixels square, `shift` (x, y) off its node."""
    cy, cx = row * PX + PX // 2 + shift[1], col * PX + PX // 2 + shift[0]
    loose[cy - side // 2 : cy + side // 2, cx - side // 2 : cx + side // 2] = 1
    yy, xx = np.mgrid[: loose.shape[0], : loose.shape[1]]
    loose[(yy - cy) ** 2 + (xx - cx) ** 2 < 8 ** 2] = 0


def _register(loose, designs, fitted=None):
    """(sides before, sides after) of lattice._register_squares, a design on each cell of `designs`;
    the squares it fitted but did not move to are put in `fitted` (a dict)."""
    measures, pats = _measures(loose)
    rect = Rectified(None, np.ones_like(loose, bool), 0, 0, 3, 3, PX, np.eye(3))
    before = measures[0].copy()
    offsets = {cell: (0.0, 0.0) for cell in designs}
    squares = _register_squares(measures, (loose, np.zeros_like(loose), loose * 0.2), pats, offsets, set(), rect,
                                LatticeConfig())
    if fitted is not None:
        fitted.update(squares)
    return before, measures[0]


def test_a_tile_a_few_pixels_off_its_node_is_measured_where_its_square_lies():
    loose = np.zeros((3 * PX, 3 * PX), np.float32)
    _tile(loose, 1, 1, shift=(3, 0), side=26)
    before, after = _register(loose, [(1, 1)])
    cfg = LatticeConfig()
    # At its node the band on its left falls on the table; moved onto the square, every side is face.
    assert before[1, 1].min() < cfg.min_side_band <= after[1, 1].min()


def test_a_cell_no_square_of_a_tile_fits_is_measured_where_it_is():
    # Dark on three sides and a thin dark line on the fourth (an empty cell ringed by tiles, their
    # faces and thick sides seen at an angle): moving the square darkens its least side a little,
    # but no square of a tile's size is dark on every side, so the cell is not moved.
    loose = np.zeros((3 * PX, 3 * PX), np.float32)
    loose[PX : 2 * PX, PX : PX + 25] = 1
    yy, xx = np.mgrid[: 3 * PX, : 3 * PX]
    loose[(yy - PX - 16) ** 2 + (xx - PX - 16) ** 2 < 8 ** 2] = 0
    loose[PX : 2 * PX, PX + 30] = 1
    before, after = _register(loose, [(1, 1)])
    assert before[1, 1].min() < LatticeConfig().min_side_band
    assert np.array_equal(before, after)


def test_a_tile_off_its_node_with_one_side_glared_gives_its_sides_where_its_square_fits():
    # A tile laid 2 pixels right of and below its node, a highlight over its bottom edge (the band
    # there light): no square of a tile's size is dark on every side, so the cell stays measured at
    # its node, where its left band falls half on the table. Where its square fits best its left
    # side is the face, and those sides are returned (_partly_hidden looks at them for an outer
    # side dark along its length).
    loose = np.zeros((3 * PX, 3 * PX), np.float32)
    _tile(loose, 1, 1, shift=(2, 2), side=28)
    loose[2 * PX - 4 : 2 * PX + 4, PX + 8 : 2 * PX + 4] = 0  # the highlight over the bottom edge
    fitted = {}
    before, after = _register(loose, [], fitted)
    assert np.array_equal(before, after)
    cfg = LatticeConfig()
    assert before[1, 1][2] < cfg.min_hidden_outer_side <= fitted[(1, 1)][2]
    assert fitted[(1, 1)].min() < cfg.min_side_band


# Evaluation photos (1200x900) that read exactly, each for a reason of lattice._register_squares.
EXACT = [
    # An orange eight-point star whose highlight joined its design, pulling its centre up and left:
    # measured there, its band's left side fell on the table (0.0) and its cell was asked about.
    ("plain", 10),
    # An empty cell with tiles on three sides, their faces and thick sides dark about it: moved
    # onto the square that dark fitted best, dark on some sides only, it was read as a tile (not
    # sure) and a cell below the tiles was asked about.
    ("steep", 22),
    # An empty cell with tiles on three sides and a board's dark printed square in it, judged print
    # (far off its node, lighter than the faces): moved onto the square the tiles' faces about it
    # fitted, it was read as a tile (not sure).
    ("board", 5),
    # 60 degrees: a far tile whose design was not found, read from its face beside its neighbours.
    # The square that darkened its least side most had lighter corners and side middles, too light
    # to read it from its face, and it was asked about.
    ("extreme", 6),
]


@pytest.mark.parametrize("condition, seed", EXACT)
def test_tiles_are_measured_on_their_squares(condition, seed):
    photo, _, score = _read_and_score(condition, seed)
    assert score.exact and score.correct == len(photo.cells)
