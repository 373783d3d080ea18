"""The evaluation sets' renderer: EXIF orientations as a phone writes them, perspective as promised, seeded."""
from __future__ import annotations

import io

import cv2
import numpy as np
import pytest
from PIL import Image, ImageOps

from vision.evalsets import CONDITIONS, make_photo, near_far_ratio
from vision.synthetic import Scene, encode_photo, render

CELLS = {(0, 0): "1R", (0, 1): "2O", (0, 2): "3Y", (1, 1): "4G", (2, 1): "5B"}


@pytest.mark.parametrize("orientation", [1, 3, 6, 8])
def test_exif_orientation_is_written_and_honoured(orientation):
    scene = Scene(size=(320, 240), tile_px=40, rotation=10, jpeg_quality=92, orientation=orientation)
    rendered = render(CELLS, "classic", scene)
    # An independent EXIF reader finds the tag and, honouring it, shows the upright picture.
    with Image.open(io.BytesIO(rendered.data)) as image:
        assert image.getexif().get(0x0112) == orientation
        stored = image.size
        upright = np.asarray(ImageOps.exif_transpose(image).convert("RGB"))[:, :, ::-1]
    assert stored == ((240, 320) if orientation in (6, 8) else (320, 240))  # the sensor's pixels, as stored
    assert upright.shape == (240, 320, 3)
    assert np.abs(upright.astype(int) - rendered.image.astype(int)).mean() < 2.0
    # OpenCV honours it too; told to ignore it, it gets the stored pixels.
    raw = cv2.imdecode(np.frombuffer(rendered.data, np.uint8), cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
    assert raw.shape[:2] == (stored[1], stored[0])


def test_orientation_needs_a_jpeg():
    picture = np.zeros((20, 30, 3), np.uint8)
    with pytest.raises(ValueError, match="JPEG"):
        encode_photo(picture, 0, 6)
    with pytest.raises(ValueError, match="quarter turn"):
        encode_photo(picture, 90, 5)
    plain = encode_photo(picture, 90)[1]  # no orientation asked: no EXIF block at all
    with Image.open(io.BytesIO(plain)) as image:
        assert 0x0112 not in image.getexif()


def test_turned_set_has_all_four_orientations():
    seen = {make_photo("turned", seed, (400, 300)).scene.orientation for seed in range(16)}
    assert seen == {1, 3, 6, 8}


def test_steep_photos_shrink_the_far_side_to_about_half():
    # How much smaller the far tiles look depends on how deep the grid runs away from the
    # lens (a single row across the view has all its tiles alike): about half, typically.
    ratios = [near_far_ratio(p.scene, p.cells) for p in (make_photo("steep", seed, (400, 300)) for seed in range(12))]
    assert min(ratios) >= 0.35 and max(ratios) < 0.9, ratios
    assert 0.4 <= float(np.median(ratios)) <= 0.6, ratios
    flat = make_photo("plain", 0, (400, 300))
    assert near_far_ratio(flat.scene, flat.cells) > 0.8


@pytest.mark.parametrize("condition", CONDITIONS)
def test_same_seed_same_photo(condition):
    a = make_photo(condition, 3, (320, 240))
    b = make_photo(condition, 3, (320, 240))
    assert a.data == b.data and a.cells == b.cells
    assert make_photo(condition, 4, (320, 240)).data != a.data


def test_whole_grid_in_the_frame():
    for condition in ("steep", "groups", "packed", "mixed"):
        for seed in range(4):
            photo = make_photo(condition, seed, (400, 300))
            width, height = photo.scene.size
            if photo.scene.orientation in (6, 8):
                width, height = height, width
            corners = np.vstack(list(photo.rendered.corners.values()))
            assert corners.min() >= 0 and (corners[:, 0] <= photo.rendered.image.shape[1]).all(), (condition, seed)
            assert (corners[:, 1] <= photo.rendered.image.shape[0]).all(), (condition, seed)


def test_standing_tiles_show_their_near_side():
    # One tile seen 50 degrees from straight down, the camera leaning to the picture's bottom:
    # with thickness its top is lifted towards the lens and the strip below it is its black side.
    cells = {(0, 0): "1R"}
    base = dict(size=(400, 300), background="white", camera_tilt=50.0, camera_azimuth=90.0, camera_fov=70.0,
                tile_px=80.0, jitter=0.0, turn=0.0)
    flat = render(cells, "classic", Scene(**base))
    thick = render(cells, "classic", Scene(**base, thickness=0.3))
    top, foot = thick.corners[(0, 0)][:, 1].max(), flat.corners[(0, 0)][:, 1].max()
    assert top < foot - 5
    x = int(thick.corners[(0, 0)][:, 0].mean())
    assert thick.image[int((top + foot) / 2), x].max() < 80  # the tile's side
    assert flat.image[int(foot) + 3, x].min() > 150 and thick.image[int(foot) + 3, x].min() > 130  # the table


def test_colour_temperature_and_relighting():
    from vision.synthetic import kelvin_bgr, lamp_light, relight

    assert np.allclose(kelvin_bgr(6500), 1.0, atol=0.03)
    b, g, r = kelvin_bgr(2700)
    assert r == 1.0 and r > g > b  # tungsten: warm
    b, g, r = kelvin_bgr(9000)
    assert b == 1.0 and b > r  # a cool LED: blue
    picture = np.random.default_rng(0).integers(30, 220, (60, 80, 3)).astype(np.uint8)
    same = relight(picture, np.ones((60, 80, 3), np.float32), white_balance=0.0)
    assert np.abs(same.astype(int) - picture).max() <= 1
    lamp = lamp_light((80, 60), 8000, 3000, side=0.0, strength=0.9)
    assert lamp[30, 79].sum() > 2 * lamp[30, 0].sum()  # the lamp's side is much brighter
    assert lamp[30, 79, 0] > lamp[30, 79, 2] and lamp[30, 0, 2] > lamp[30, 0, 0]  # blue near it, warm far away


def test_beyond_conditions_are_what_they_say():
    for seed in range(3):
        cut = make_photo("cutoff", seed, (320, 240))
        corners = np.vstack(list(cut.rendered.corners.values()))
        h, w = cut.rendered.image.shape[:2]
        outside = (corners[:, 0] < 0) | (corners[:, 0] > w) | (corners[:, 1] < 0) | (corners[:, 1] > h)
        assert 0.05 < outside.mean() < 0.7, seed  # part of the grid, not all of it, beyond the frame
        large = make_photo("large", seed, (320, 240))
        assert 25 <= len(large.cells) <= 45
        occluded = make_photo("occluded", seed, (320, 240))
        x, y, _, width = occluded.scene.finger
        assert 0.6 <= width <= 0.9 and occluded.scene.finger
        assert 58 <= make_photo("extreme", seed, (320, 240)).scene.camera_tilt <= 63


def test_the_truth_is_the_grid_the_photo_shows():
    # A tile wholly beyond the frame is in no photo: cutoff 3 (1200x900) moves a loose tile out of the
    # picture, touching no tile in it; cutoff 13 leaves a corner of one in the frame, which is kept.
    for seed, out in ((3, 1), (13, 0)):
        cut = make_photo("cutoff", seed, (1200, 900))
        h, w = cut.rendered.image.shape[:2]
        assert len(cut.rendered.cells) - len(cut.cells) == out
        for cell in cut.cells:
            quad = cut.rendered.corners[cell]
            assert ((quad[:, 0] > 0) & (quad[:, 0] < w) & (quad[:, 1] > 0) & (quad[:, 1] < h)).any(), cell


def test_a_finger_hides_what_is_under_it():
    cells = {(0, 0): "1B", (0, 1): "1B", (0, 2): "1B"}
    base = dict(size=(320, 240), background="white", tile_px=60.0, jitter=0.0, turn=0.0)
    bare = render(cells, "classic", Scene(**base))
    covered = render(cells, "classic", Scene(**base, finger=(0.0, 0.0, 90.0, 0.8)))  # down onto the middle tile
    x, y = (int(v) for v in covered.corners[(0, 1)].mean(axis=0))
    b, g, r = covered.image[y + 5, x].astype(int)
    assert r > g > b and r > 120  # skin, where the blue circle was
    assert bare.image[y + 5, x][0] > bare.image[y + 5, x][2]  # the blue design
    left = covered.corners[(0, 0)].mean(axis=0).astype(int)
    assert np.abs(covered.image[left[1], left[0]].astype(int) - bare.image[left[1], left[0]]).max() < 40  # the others show
