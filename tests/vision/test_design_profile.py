"""The design's radial profile: folded onto a quarter turn, compared with each design's drawn profiles."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.config import SURE_AT
from vision.design import (
    PROFILE_BLUR_STEPS,
    PROTOTYPE_PROFILES,
    PROTOTYPE_SIZES,
    classify_design,
    combine_readings,
    compute_prototype_profiles,
    design_mask,
    draw_design,
    profile_distances,
    quarter_profile,
)

from .test_design import DESIGNS, _colour_patch


def _profile(grey):
    from vision.design import _outline

    return _outline(design_mask(_colour_patch(grey)))[1]


def test_the_stored_profiles_are_the_drawn_shapes():
    computed = compute_prototype_profiles()
    for design in DESIGNS:
        profiles, sizes = computed[design]
        assert np.allclose(profiles, np.array(PROTOTYPE_PROFILES[design]), atol=0.002), design
        assert np.allclose(sizes, np.array(PROTOTYPE_SIZES[design]), atol=0.002), design
        assert len(PROTOTYPE_PROFILES[design]) == len(PROFILE_BLUR_STEPS)


@pytest.mark.parametrize("design", list(DESIGNS))
def test_the_quarter_profile_is_the_same_turned_a_quarter(design):
    grey = draw_design(design, 64, 0.02)
    a = quarter_profile(_profile(grey))
    b = quarter_profile(_profile(np.ascontiguousarray(np.rot90(grey))))
    assert np.sqrt(((a - b) ** 2).mean()) < 0.01


@pytest.mark.parametrize("design", list(DESIGNS))
def test_a_design_turned_a_quarter_and_a_little_more_and_blurred_is_read_and_sure(design):
    turned = np.ascontiguousarray(np.rot90(draw_design(design, 64, 0.04)))
    turned = cv2.warpAffine(turned, cv2.getRotationMatrix2D((31.5, 31.5), 6, 1.0), (64, 64), borderValue=30)
    reading = classify_design(_colour_patch(turned))
    assert reading.design == design
    assert reading.confidence >= SURE_AT
    assert int(np.argmin(profile_distances(_profile(turned), 64))) == DESIGNS.index(design)


@pytest.mark.parametrize("design", list(DESIGNS))
def test_a_design_seen_squashed_is_read_and_sure(design):
    # A tile the rectification left an eighth shorter one way (a board's tilt, a lens's residue):
    # a circle becomes an ellipse, whose 2-fold part the quarter profile does not see.
    squashed = cv2.resize(draw_design(design, 72, 0.02), (64, 56), interpolation=cv2.INTER_AREA)
    grey = np.full((64, 64), 30, np.uint8)
    grey[4:60] = squashed
    reading = classify_design(_colour_patch(grey))
    assert reading.design == design
    assert reading.confidence >= SURE_AT


def test_a_blend_of_two_designs_stays_unsure():
    blend = cv2.addWeighted(draw_design("2", 64, 0.02), 0.5, draw_design("3", 64, 0.02), 0.5, 0)
    assert classify_design(_colour_patch(blend)).confidence < SURE_AT


def test_a_design_of_the_wrong_size_fits_no_design_well():
    # A glare spot a third of a circle's size is round, but no design is that small.
    spot = np.full((64, 64), 30, np.uint8)
    cv2.circle(spot, (32, 32), 8, 230, -1)
    assert profile_distances(_profile(spot), 64).min() > 3.0


def test_a_design_is_compared_with_the_designs_blurred_no_further_than_its_patch():
    # A clover blurred by 11% of a tile has a sharp diamond's profile: a sharp diamond is far from
    # the clover's curve as far as its patch's blur reaches, and as near as before its own.
    from vision.design import BLUR_REACH, blur_of

    diamond = _colour_patch(draw_design("3", 64, 0.02))
    profile, reach = _profile(draw_design("3", 64, 0.02)), BLUR_REACH * blur_of(diamond)
    whole, reached = profile_distances(profile, 64), profile_distances([profile], 64, [reach])[0]
    clover, own = DESIGNS.index("2"), DESIGNS.index("3")
    assert whole[clover] < 1.0 and reached[clover] > 2.5
    assert reached[own] == whole[own]
    # A clover that blurred is compared along the whole curve, its patch measuring the blur.
    blurred = draw_design("2", 64, 0.1)
    reach = BLUR_REACH * blur_of(_colour_patch(blurred))
    assert int(np.argmin(profile_distances([_profile(blurred)], 64, [reach])[0])) == clover
    assert np.array_equal(profile_distances([profile], 64, [None]), profile_distances([profile], 64))


def test_two_readings_that_disagree_are_not_sure():
    assert combine_readings(("1", 0.88), ("6", 0.8)) == ("1", 0.44)
    assert combine_readings(("4", 0.3), ("4", 0.7)) == ("4", 0.7)


def test_the_designs_of_many_tiles_at_once_are_each_one_s_alone():
    # classify_designs compares every tile's profile and four numbers with the designs' in one call
    # each: each tile's distances, and so its reading, must be what it would be alone, to the last bit.
    from vision.design import classify_designs, design_outline, nearest_design, nearest_designs

    rng = np.random.default_rng(3)
    patches = []
    for design in DESIGNS:
        for blur in (0.0, 0.05):
            grey = cv2.warpAffine(draw_design(design, 64, blur), cv2.getRotationMatrix2D((31.5, 31.5), float(rng.uniform(-8, 8)), 1.0),
                                  (64, 64), borderValue=30)
            patches.append(_colour_patch(grey))
    outlines = [design_outline(p) for p in patches]
    together = profile_distances([o.profile for o in outlines], 64)
    assert together.shape == (len(patches), len(DESIGNS))
    for outline, row in zip(outlines, together):
        assert np.array_equal(profile_distances(outline.profile, 64), row)
    assert nearest_designs([o.features for o in outlines]) == [nearest_design(o.features) for o in outlines]
    for patch, reading in zip(patches, classify_designs(outlines, 64)):
        alone = classify_design(patch)
        assert (reading.design, reading.confidence, reading.centre) == (alone.design, alone.confidence, alone.centre)
        assert np.array_equal(reading.mask, alone.mask)
