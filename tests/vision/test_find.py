"""Finding the tiles: the dark masks' levels."""
from __future__ import annotations

import numpy as np
import pytest

from vision.capture import decode_image_bytes
from vision.config import FindConfig
from vision.evalsets import make_photo
from vision.design import percentiles_of_counts
from vision.find import surface_masks, work_image


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 101, 1000, 4097])
def test_percentiles_of_counts_are_numpys(n):
    rng = np.random.default_rng(n)
    for values in (rng.integers(0, 256, n).astype(np.uint8), rng.integers(20, 24, n).astype(np.uint8)):
        counts = np.bincount(values, minlength=256)
        assert percentiles_of_counts(counts, (25,))[0] == float(np.percentile(values, 25))
        assert percentiles_of_counts(counts, (50,))[0] == float(np.median(values))
        assert percentiles_of_counts(counts, (75,))[0] == float(np.percentile(values, 75))


def test_the_faces_level_is_the_loose_masks_lower_quartile():
    image = decode_image_bytes(make_photo("board", 0, (1200, 900)).data).image
    config = FindConfig()
    work, _ = work_image(image, config)
    masks = surface_masks(work, config)
    assert masks.loose.any()
    assert masks.face == float(np.percentile(masks.value[masks.loose.astype(bool)], 25))
