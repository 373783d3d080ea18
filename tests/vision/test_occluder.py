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
