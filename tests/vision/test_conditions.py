"""Each condition of the camera check in the wild, locked at what the reader achieves.

Seeded evaluation sets (vision.evalsets) of every condition issue 12 names,
read and scored as `companion vision eval` scores them (vision.evaluate):
per-tile accuracy, photos read exactly, and confidently wrong tiles (read
wrong while sure, or dropped without a "may be missing" flag).

The thresholds are in one table per set size and are set to what the reader
achieved when they were last raised: a change that makes any condition worse
fails here. Raise them as the reader improves; never lower one without
saying why in the commit. (Lowered once, on purpose: since the reader refuses
blurred, cut-off and too-oblique photos with a reason instead of guessing, a
refused photo scores 0 here; mixed, cutoff and extreme lost accuracy that way
and their confidently wrong tiles fell from 7, 20 and 3 to 0, 4 and 3. Lowered again for
"photos exact" when "not sure" moved from 0.25 to 0.45 (vision.config.SURE_AT): a photo
with a tile to confirm is not exact, and tinted, large, steep, groups and wood lost 1-3
exact photos that way while no wrong tile of these sets is sure any more but the dropped
ones and the occluded set's.) The quick sets are small pictures (tiles of 15-60
pixels); the long ones (`-m long`) are more photos, larger, and add the
conditions beyond a careful player's photo (a late game's large grid, a
finger over the grid, the grid cut off by the frame, 58-63 degrees).
"""
from __future__ import annotations

import functools

import pytest

from vision.evalsets import make_photo
from vision.evaluate import evaluate_photos

QUICK_SIZE, QUICK_COUNT = (800, 600), 6
LONG_SIZE, LONG_COUNT = (1200, 900), 24

# condition: (least per-tile accuracy, least photos read exactly, most confidently wrong tiles)
QUICK = {
    "plain": (0.9833, 5, 0),
    "oblique": (1.0, 6, 0),
    "steep": (0.9047, 4, 0),  # the photo with 2 tiles left out is refused ("unplaced")
    "turned": (1.0, 6, 0),
    "board": (0.9189, 2, 0),
    "cloth": (0.9718, 4, 0),
    "wood": (1.0, 5, 0),
    "groups": (0.9411, 1, 0),
    "tinted": (0.9594, 3, 0),
    "packed": (1.0, 6, 0),
    "rough": (1.0, 6, 0),
}
LONG = {
    "plain": (1.0, 24, 0),
    "oblique": (1.0, 24, 0),
    "steep": (1.0, 24, 0),  # 12: a green paled all over by glare read sure (colour._glare_lines)
    "turned": (1.0, 24, 0),  # 0: a highlight joined to a white star's side (pipeline.mend_by_symmetry)
    "board": (1.0, 23, 0),  # 17: a printed 8 asked about (its printed 7 no tile: lattice._ringed_by_neighbours)
    "cloth": (0.996, 23, 0),  # 14: a red paled all over by glare read sure (colour._glare_lines)
    "wood": (1.0, 24, 0),
    "groups": (1.0, 22, 0),  # 0: blues of 29 px out of focus read sure (pipeline.blur_doubt); 5: a green star unsure (0.24)
    "tinted": (1.0, 24, 0),  # 8, two purples under a full tungsten cast, read sure (colour.CAST_RESPONSE)
    "packed": (1.0, 24, 0),
    "rough": (0.9718, 23, 0),
    "mixed": (0.9194, 19, 0),  # 10: print at the edge beside a tile by its corner asked about, not refused (lattice._joined_at_edge)
    "large": (1.0, 23, 0),  # 8, 13: reds paled all over by glare read sure (colour._glare_lines)
    # 21 refused "covered" (a finger over 2+ cells); accuracy lowered from 0.1302 when a finger lying where
    # the table is sampled was found (vision.occluder): 2 more refused, cw 4 -> 3; lowered from 0.0798
    # when a finger of the wood's own hue was found by its texture (occluder._smooth_limbs): 23 refused, cw 3 -> 1
    "occluded": (0.0294, 0, 1),
    "cutoff": (0.1379, 3, 0),  # 13: a loose tile with a corner in the picture, asked about
    "extreme": (0.7347, 16, 0),  # 1, 11: read within 62 degrees, no longer refused by min_near_far 0.3 (0.275, 0.282); 15: a diamond both readings read alike, sure (design.agreed_confidence); 14, 20: far tiles out of focus read sure (pipeline.blur_doubt); 17: its tile dropped unflagged is read (lattice._register_squares), its diamond sure compared up to its patch's blur (design.BLUR_REACH); photo 14 read again (refused "unsure" while 10 of 12 tiles were unsure: 0.6021)
}


@functools.lru_cache(maxsize=None)
def _scored(condition: str, count: int, size: tuple[int, int]):
    return evaluate_photos(make_photo(condition, seed, size) for seed in range(count))


def _check(summary, least_accuracy: float, least_exact: int, most_wrong: int) -> None:
    report = summary.line() + "; not exact: " + ", ".join(p.name for p in summary.photos if not p.exact)
    assert summary.tile_accuracy >= least_accuracy, report
    assert sum(p.exact for p in summary.photos) >= least_exact, report
    assert summary.confidently_wrong <= most_wrong, report


@pytest.mark.parametrize("condition", list(QUICK))
def test_condition(condition):
    _check(_scored(condition, QUICK_COUNT, QUICK_SIZE), *QUICK[condition])


@pytest.mark.long
@pytest.mark.parametrize("condition", list(LONG))
def test_condition_long(condition):
    _check(_scored(condition, LONG_COUNT, LONG_SIZE), *LONG[condition])
