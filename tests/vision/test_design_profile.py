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
    quarters_agree,
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


def test_the_profile_overrules_only_a_design_it_passes_the_whole_design_test_for():
    assert combine_readings(("4", 0.1), ("2", 0.5), whole=True) == ("2", pytest.approx(0.4))
    assert combine_readings(("4", 0.1), ("2", 0.5), whole=False) == ("4", 0.05)
    # The four numbers the surer: their design, doubted, whatever the test said.
    assert combine_readings(("4", 0.6), ("2", 0.5), whole=True) == ("4", 0.3)


@pytest.mark.parametrize("design", DESIGNS)
def test_a_drawn_design_is_its_own_on_every_side(design):
    grey = draw_design(design, 64, 0.02)
    assert quarters_agree([_profile(grey)], [design], 64, [None]) == [True]


def test_a_design_bent_on_one_side_is_not_that_design_on_every_side():
    # A circle whose first quarter turn is a four-point star's (a highlight took one side): folded, it
    # reads nearest some design (a square), which three of its sides are not.
    from vision.design import PROTOTYPES

    circle, star = _profile(draw_design("1", 64, 0.02)), _profile(draw_design("5", 64, 0.02))
    bent = circle.copy()
    quarter = len(bent) // 4
    bent[:quarter] = star[:quarter] * circle[:quarter].mean() / star[:quarter].mean()
    folded = list(PROTOTYPES)[int(np.argmin(profile_distances([bent], 64)))]
    assert quarters_agree([bent], [folded], 64, [None]) == [False]
    assert quarters_agree([bent, circle], [folded, "1"], 64, [None, None]) == [False, True]


def test_two_readings_that_agree_leave_the_doubt_both_have_within_the_blur_a_tile_is_read_at():
    from vision.config import DesignConfig
    from vision.design import BLUR_STEPS, agreed_confidence

    assert agreed_confidence(("2", 0.4), ("2", 0.3), 0.04) == pytest.approx(1 - 0.6 * 0.7)
    assert agreed_confidence(("2", 0.4), ("2", 0.3), BLUR_STEPS[-1]) == pytest.approx(0.58)
    # A step or two past the four numbers' curves, short of the blur a tile is asked about at, the
    # profile is still a witness of its own (groups 195's eight-point star at 0.072, 0.40 and 0.45).
    assert BLUR_STEPS[-1] < 0.072 <= DesignConfig.max_tile_blur
    assert agreed_confidence(("6", 0.40), ("6", 0.45), 0.072) == pytest.approx(1 - 0.6 * 0.55)
    assert agreed_confidence(("6", 0.40), ("6", 0.45), DesignConfig.max_tile_blur) == pytest.approx(0.67)
    # Past it (a tile asked about for its blur), with no blur measured (a highlight, too little
    # contrast), or disagreeing, the two are not two witnesses.
    assert agreed_confidence(("3", 0.36), ("3", 0.25), 0.11) is None
    assert agreed_confidence(("3", 0.36), ("3", 0.25), DesignConfig.max_tile_blur + 0.001) is None
    assert agreed_confidence(("4", 0.35), ("4", 0.3), None) is None
    assert agreed_confidence(("1", 0.88), ("6", 0.8), 0.03) is None


def test_a_tile_is_as_sure_as_its_design_s_readings_together():
    from vision.colour import ColourReading
    from vision.design import DesignReading
    from vision.pipeline import tile_confidence

    mask = np.zeros((64, 64), np.uint8)
    mask[20:44, 20:44] = 1
    features = (0.97, 0.69, -0.073, 0.022)  # the square's own
    colour = ColourReading("B", 0.9, (0.0, 0.0))
    assert tile_confidence(DesignReading("4", 0.4, mask, features), colour) == pytest.approx(0.4)
    assert tile_confidence(DesignReading("4", 0.4, mask, features, agreed=0.6), colour) == pytest.approx(0.6)
    assert tile_confidence(DesignReading("4", 0.4, mask, features, agreed=0.95), colour) == pytest.approx(0.9)


@pytest.mark.parametrize("condition, seed", [("groups", 263), ("groups", 256), ("oblique", 202)])
def test_small_clovers_and_diamonds_both_readings_agree_on_are_sure(condition, seed):
    # Groups 263 and 256: clovers of small tiles (blur 0.03-0.04 of a tile) that both readings read
    # as clovers, 0.41-0.44 sure each, under SURE_AT either way; oblique 202 a diamond (0.43 and
    # 0.09). Both readings' doubt together, they are sure, and the photos exact.
    from .test_refusals import _read_and_score

    photo, result, score = _read_and_score(condition, seed)
    assert score.exact and score.correct == len(photo.cells)


def test_a_photo_whose_every_tile_each_reading_alone_doubts_is_still_refused():
    # Extreme 236 (beyond 55 degrees): 4 of its 6 tiles read, each not sure, 2 dropped. One tile's
    # two readings agree and make it sure; the photo, judged as a whole on each reading alone, is
    # still refused rather than read with two tiles dropped without a word.
    from vision.errors import RetakePhotoError

    from .test_refusals import _read_and_score

    with pytest.raises(RetakePhotoError, match="not sure of 4 of the 4"):
        _read_and_score("extreme", 236)


def test_the_designs_of_many_tiles_at_once_are_each_one_s_alone():
    # classify_designs compares every tile's profile and four numbers with the designs' in one call
    # each: each tile's distances, and so its reading, must be what it would be alone, to the last bit.
    from vision.design import classify_designs, design_fits, design_outline, nearest_design, nearest_designs

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
    # How like any design each shape is (pipeline.tile_confidence takes them all at once), with shapes
    # between like one and like none among them.
    features = [o.features for o in outlines] + [tuple(rng.uniform(0, 1, 4)) for _ in range(40)]
    fits = design_fits(features)
    assert fits == [design_fits([f])[0] for f in features]
    assert any(0.0 < fit < 1.0 for fit in fits)
    for patch, reading in zip(patches, classify_designs(outlines, 64)):
        alone = classify_design(patch)
        assert (reading.design, reading.confidence, reading.centre) == (alone.design, alone.confidence, alone.centre)
        assert np.array_equal(reading.mask, alone.mask)
