"""Each condition of the camera check in the wild, locked at what the reader achieves.

Seeded evaluation sets (vision.evalsets) of every condition issue 12 names,
read and scored as `companion vision eval` scores them (vision.evaluate):
per-tile accuracy, photos read exactly, and confidently wrong tiles (read
wrong while sure, or dropped without a "may be missing" flag).

The thresholds are in one table per set size and are set to what the reader
achieved when they were last raised: a change that makes any condition worse
fails here. Raise them as the reader improves; never lower one without
saying why in the commit. The quick sets are small pictures (tiles of 15-60
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
    "plain": (0.9833, 4, 0),
    "oblique": (1.0, 6, 0),
    "steep": (0.9682, 5, 1),
    "turned": (1.0, 5, 0),
    "board": (0.9861, 3, 0),
    "cloth": (0.9577, 2, 0),
    "wood": (1.0, 6, 0),
    "groups": (0.9215, 2, 2),
    "tinted": (0.9324, 2, 5),
    "packed": (1.0, 6, 0),
    "rough": (1.0, 3, 0),
}
LONG = {
    "plain": (1.0, 20, 0),
    "oblique": (0.9592, 20, 8),
    "steep": (0.9601, 17, 8),
    "turned": (0.9613, 15, 5),
    "board": (0.9666, 12, 1),
    "cloth": (0.9803, 13, 4),
    "wood": (0.9917, 18, 0),
    "groups": (0.8186, 9, 41),
    "tinted": (0.9694, 13, 2),
    "packed": (0.991, 22, 1),
    "rough": (0.9879, 15, 0),
    "mixed": (0.8868, 16, 38),
    "large": (0.9858, 13, 0),
    "occluded": (0.7226, 0, 52),
    "cutoff": (0.63, 0, 89),
    "extreme": (0.8357, 8, 33),
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
