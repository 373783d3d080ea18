"""The finger search's own steps (vision.occluder): the reduced photo it looks at, its CIELAB."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.occluder import _lab, reduced


@pytest.mark.parametrize("factor, k", [(0.6, 1), (1.0, 1), (2.0, 2), (3.46, 4), (4.0, 4)])
def test_the_photo_is_reduced_by_a_whole_factor_to_the_mean_of_each_block(factor, k):
    rng = np.random.default_rng(1)
    image = rng.integers(0, 256, (103, 77, 3), dtype=np.uint8)
    small, got = reduced(image, factor)
    assert got == k
    h, w = 103 // k, 77 // k
    assert small.shape == (h, w, 3)
    blocks = image[:h * k, :w * k].reshape(h, k, w, k, 3).astype(np.float64).mean(axis=(1, 3))
    assert np.abs(small.astype(np.float64) - blocks).max() <= 0.5 + 1e-9


def test_lab_is_opencv_s_eight_bit_lab():
    rng = np.random.default_rng(2)
    image = rng.integers(0, 256, (64, 64, 3), dtype=np.uint8)
    image[:8] = 0  # the dark end, where the cube root gives way to a line
    image[8:16] = rng.integers(0, 12, (8, 64, 3), dtype=np.uint8)
    ours = np.stack(_lab(image), axis=-1)
    assert ours.dtype == np.float32 and ours.shape == image.shape
    theirs = cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32)
    assert np.abs(ours - theirs).max() <= 2.0
    assert np.abs(ours - theirs).mean() <= 0.6


def test_the_texture_search_is_skipped_only_where_no_limb_could_be_kept():
    # _smooth_limbs keeps parts of a subset of the candidate mask opened by the same disc, and a
    # limb must be at least min_area tiles large and touch the photo's edge: without such a part of
    # the opened candidate its costly texture measure cannot find one.
    from vision.config import OccluderConfig
    from vision.occluder import _may_hold_limb

    cfg, t = OccluderConfig(), 10.0
    mask = np.zeros((80, 120), np.uint8)
    mask[30:36, 50:56] = 1  # a speck inside the photo
    mask[40:60, 40:60] = 1  # large, but away from the edge
    assert not _may_hold_limb(mask, t, cfg)
    edge = mask.copy()
    edge[0:5, 5:9] = 1  # at the edge, but under a tile's area
    assert not _may_hold_limb(edge, t, cfg)
    edge[0:30, 100:104] = 1  # at the edge and 1.2 tiles' area
    assert _may_hold_limb(edge, t, cfg)


def test_a_long_limb_counts_inside_the_photo_a_short_one_only_from_its_edge():
    # A finger whose hand is out of view ends inside the frame (occluded 85): a limb at least
    # min_free_length tiles long counts without reaching the photo's edge; a shorter one does not.
    from dataclasses import replace

    from vision.config import OccluderConfig
    from vision.occluder import _limbs, _may_hold_limb

    cfg, t = OccluderConfig(), 10.0
    long_bar = np.zeros((120, 160), np.uint8)
    cv2.line(long_bar, (20, 100), (140, 30), 1, thickness=7)  # 13.9 tiles long, 0.7 across, inside
    assert _may_hold_limb(long_bar, t, cfg)
    assert _limbs(long_bar, t, cfg)[1] == 1
    assert _limbs(long_bar, t, replace(cfg, min_free_length=0.0))[1] == 0
    short_bar = np.zeros((120, 160), np.uint8)
    cv2.line(short_bar, (50, 55), (80, 45), 1, thickness=7)  # 3.2 tiles long, inside
    assert not _may_hold_limb(short_bar, t, cfg)
    assert _limbs(short_bar, t, cfg)[1] == 0
    short_bar[:] = 0
    cv2.line(short_bar, (0, 55), (30, 45), 1, thickness=7)  # the same reaching the photo's edge
    assert _limbs(short_bar, t, cfg)[1] == 1


def test_a_wedge_from_the_photo_s_edge_is_no_limb_a_bar_as_wide_on_average_is():
    # A stripe of wood cut off by the photo's edge (packed 305): thin at one end, thick at the other,
    # with a finger's mean width; its widest disc is far over its mean width, a finger's is not.
    from dataclasses import replace

    from vision.config import OccluderConfig
    from vision.occluder import _limbs

    cfg, t = OccluderConfig(), 10.0
    wedge = np.zeros((120, 160), np.uint8)
    cv2.circle(wedge, (0, 48), 8, 1, -1)  # 1.6 tiles across at the edge
    cv2.line(wedge, (0, 48), (34, 48), 1, thickness=4)  # thinning to 0.4 tiles, 3.6 tiles long in all
    assert _limbs(wedge, t, replace(cfg, max_taper=0.0))[1] == 1
    assert _limbs(wedge, t, cfg)[1] == 0
    bar = np.zeros((120, 160), np.uint8)
    cv2.line(bar, (0, 48), (34, 48), 1, thickness=8)  # as long, 0.8 wide all along
    assert _limbs(bar, t, cfg)[1] == 1


def test_a_finger_off_the_table_s_hue_is_found_a_patch_along_it_is_not():
    # A wood lit unevenly: its colour moves along its own hue from grey (lighter grain, more
    # saturated), which sets the spread of its colour about its median. A finger as far from that
    # median but redder lies across the hue, where the wood hardly varies; a patch as far off along
    # the hue is the wood's own light.
    from vision.config import OccluderConfig
    from vision.occluder import _hue_limbs

    cfg, t = OccluderConfig(), 10.0
    rng = np.random.default_rng(3)
    shape = (90, 120)
    along = rng.uniform(0.8, 1.4, shape)  # the wood's chroma, times its median's
    red = (128 + 4.0 * along + rng.normal(0, 0.3, shape)).astype(np.float32)
    yellow = (128 + 17.0 * along + rng.normal(0, 0.3, shape)).astype(np.float32)
    skin = np.ones(shape, bool)
    table = np.ones(shape, bool)
    table[40:80, 10:50] = False  # the tiles and the wood beside them
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    finger = np.zeros(shape, np.uint8)
    cv2.line(finger, (119, 10), (60, 30), 1, thickness=8)  # 6 tiles long from the photo's edge, 0.8 across
    on = finger > 0
    lit = red.copy(), yellow.copy()
    lit[0][on], lit[1][on] = 128 + 6.4, 128 + 27.2  # along the hue: chroma 1.6 times the median's
    assert _hue_limbs(*lit, skin, table, disc, t, cfg)[1] == 0
    red[on], yellow[on] = 128 + 12.0, 128 + 19.0  # as far from the median, across the hue
    blob, count = _hue_limbs(red, yellow, skin, table, disc, t, cfg)
    assert count == 1 and blob[on].mean() > 0.8 and not blob[~on].any()
    grey = red * 0 + 128.0, yellow * 0 + 128.0  # a table of no colour has no hue to be off
    grey[0][on], grey[1][on] = 128 + 12.0, 128 + 19.0
    assert _hue_limbs(*grey, skin, table, disc, t, cfg)[1] == 0


def test_the_hue_search_keeps_only_limbs_from_the_photo_s_edge():
    # A streak of a redder plank lies inside the photo (the development photo 1_10 tilted 45 degrees:
    # 6.0 tiles long, ending short of the edge on both sides); a finger found by its hue alone comes
    # in from the photo's edge (occluded 145, 290, 383). The other searches keep a long limb inside.
    from dataclasses import replace

    from vision.config import OccluderConfig
    from vision.occluder import _hue_limbs

    cfg, t = OccluderConfig(), 10.0
    shape = (120, 200)
    red = np.full(shape, 128 + 4.0, np.float32)
    yellow = np.full(shape, 128 + 17.0, np.float32)
    skin = np.ones(shape, bool)
    table = np.ones(shape, bool)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    streak = np.zeros(shape, np.uint8)
    cv2.line(streak, (20, 80), (90, 20), 1, thickness=8)  # 9.2 tiles long, 0.8 across, inside the photo
    red[streak > 0], yellow[streak > 0] = 128 + 12.0, 128 + 19.0
    assert _hue_limbs(red, yellow, skin, table, disc, t, cfg)[1] == 0
    assert _hue_limbs(red, yellow, skin, table, disc, t, replace(cfg, hue_from_edge=False))[1] == 1
    cv2.line(streak, (90, 20), (119, 0), 1, thickness=8)  # the same reaching the photo's edge
    red[streak > 0], yellow[streak > 0] = 128 + 12.0, 128 + 19.0
    assert _hue_limbs(red, yellow, skin, table, disc, t, cfg)[1] == 1


def test_a_limb_along_a_skin_hued_table_s_hue_is_its_own_light():
    # A shaded strip or a lighter streak of a wood of skin's hue stands apart from the table's median
    # by its lightness and saturation, its colour along the table's hue (turned 373, steep 375); a
    # finger's lies across it, towards red or towards yellow (occluded 158: 1.94, the table's 0.89).
    from vision.config import OccluderConfig
    from vision.occluder import _off_table_hue

    cfg = OccluderConfig()
    rng = np.random.default_rng(4)
    shape = (90, 120)
    along = rng.uniform(0.8, 1.2, shape)
    red = (128 + 9.0 * along + rng.normal(0, 0.3, shape)).astype(np.float32)
    yellow = (128 + 15.0 * along + rng.normal(0, 0.3, shape)).astype(np.float32)
    table = np.ones(shape, bool)
    limbs = np.zeros(shape, bool)
    limbs[5:12, 0:40] = True  # a strip along the hue
    red[5:12, 0:40], yellow[5:12, 0:40] = 128 + 14.0, 128 + 23.0
    limbs[50:57, 80:120] = True  # a finger across it, yellower than a pink table
    red[50:57, 80:120], yellow[50:57, 80:120] = 128 + 8.0, 128 + 19.0
    kept, count = _off_table_hue(limbs, 2, red, yellow, table, cfg)
    assert count == 1 and kept[50:57, 80:120].all() and not kept[5:12, 0:40].any()
    blue = red * 0 + 128 - 10.0, yellow * 0 + 128 - 20.0  # a table not of skin's hue: every limb
    blue[0][limbs], blue[1][limbs] = red[limbs], yellow[limbs]
    kept, count = _off_table_hue(limbs, 2, *blue, table, cfg)
    assert count == 2 and (kept == limbs).all()
