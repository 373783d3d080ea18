"""Decoding photos: bounded memory, reduced-size JPEG decoding, and every kind of bad input."""
from __future__ import annotations

import struct

import cv2
import numpy as np
import pytest

from vision.capture import Decoded, decode_image_bytes, image_info
from vision.config import DecodeConfig
from vision.errors import BadImageError, ImageTooLargeError, VisionError


def _scene(width: int = 320, height: int = 240):
    """A small colour picture: a gradient with a red square, not grey."""
    yy, xx = np.mgrid[0:height, 0:width]
    image = np.dstack([xx * 255 // width, yy * 255 // height, np.full_like(xx, 128)]).astype(np.uint8)
    image[40:80, 40:80] = (0, 0, 220)
    return image


def _encode(ext: str, image, *params) -> bytes:
    ok, buf = cv2.imencode(ext, image, list(params))
    assert ok
    return buf.tobytes()


def _with_jpeg_size(data: bytes, width: int, height: int) -> bytes:
    """The JPEG with its frame header claiming another size."""
    sof = data.find(b"\xff\xc0")
    assert sof > 0
    return data[: sof + 5] + struct.pack(">HH", height, width) + data[sof + 9 :]


@pytest.mark.parametrize(
    "ext, fmt",
    [(".jpg", "jpeg"), (".png", "png"), (".webp", "webp"), (".bmp", "bmp")],
)
def test_header_gives_format_and_size(ext, fmt):
    data = _encode(ext, _scene(321, 123))
    info = image_info(data)
    assert (info.format, info.width, info.height) == (fmt, 321, 123)


@pytest.mark.parametrize("ext", [".jpg", ".png", ".webp", ".bmp"])
def test_colour_photos_decode_to_bgr(ext):
    decoded = decode_image_bytes(_encode(ext, _scene()))
    assert isinstance(decoded, Decoded)
    assert decoded.image.shape == (240, 320, 3) and decoded.image.dtype == np.uint8
    assert decoded.scale == 1.0
    # Still BGR: the red square is red.
    b, g, r = decoded.image[60, 60]
    assert r > 180 and b < 60 and g < 60


def test_large_jpeg_is_decoded_at_reduced_size():
    data = _encode(".jpg", _scene(640, 480))
    decoded = decode_image_bytes(data, DecodeConfig(target_long_side=300))
    assert decoded.image.shape == (240, 320, 3)
    assert decoded.scale == 0.5
    decoded = decode_image_bytes(data, DecodeConfig(target_long_side=150))
    assert decoded.image.shape == (120, 160, 3)
    assert decoded.scale == 0.25


def test_bytes_after_the_end_of_a_jpeg_are_fine():
    # Phones append maker data or a whole video after the picture.
    data = _encode(".jpg", _scene()) + b"\x00" * 100 + b"ftypmp42 motion photo"
    assert decode_image_bytes(data).image.shape == (240, 320, 3)


def test_opaque_alpha_channel_is_fine():
    bgra = cv2.cvtColor(_scene(), cv2.COLOR_BGR2BGRA)
    decoded = decode_image_bytes(_encode(".png", bgra))
    assert decoded.image.shape == (240, 320, 3)


def _bad_inputs():
    jpeg = _encode(".jpg", _scene())
    transparent = cv2.cvtColor(_scene(), cv2.COLOR_BGR2BGRA)
    transparent[:10, :10, 3] = 0
    grey = cv2.cvtColor(_scene(), cv2.COLOR_BGR2GRAY)
    grey_as_colour = cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    return [
        ("truncated jpeg", jpeg[: len(jpeg) // 2], BadImageError, "truncated"),
        ("jpeg cut inside its header", jpeg[:40], BadImageError, "truncated"),
        ("png with transparency", _encode(".png", transparent), BadImageError, "transparent"),
        ("greyscale jpeg", _encode(".jpg", grey), BadImageError, "greyscale"),
        ("greyscale png", _encode(".png", grey), BadImageError, "greyscale"),
        ("grey picture in a colour file", _encode(".png", grey_as_colour), BadImageError, "greyscale"),
        ("1x1 png", _encode(".png", np.zeros((1, 1, 3), np.uint8)), BadImageError, "1x1"),
        ("1x1 jpeg", _encode(".jpg", np.full((1, 1, 3), (0, 0, 255), np.uint8)), BadImageError, "1x1"),
        ("100-megapixel jpeg", _with_jpeg_size(jpeg, 12000, 8400), ImageTooLargeError, "megapixels"),
        ("text", b"hello, this is not a photo\n" * 20, BadImageError, "not a JPEG"),
        ("random bytes", bytes(np.random.default_rng(0).integers(0, 256, 5000, dtype=np.uint8)), BadImageError, "not a JPEG"),
        ("empty", b"", BadImageError, "empty"),
        ("png header only", _encode(".png", _scene())[:20], BadImageError, "truncated"),
        ("damaged png", _encode(".png", _scene())[:200], BadImageError, "damaged"),
    ]


@pytest.mark.parametrize("name, data, error, words", _bad_inputs(), ids=[b[0] for b in _bad_inputs()])
def test_bad_input_is_a_clear_error(name, data, error, words):
    with pytest.raises(error) as info:
        decode_image_bytes(data)
    message = str(info.value)
    assert words in message
    assert "\n" not in message
    assert isinstance(info.value, VisionError) and isinstance(info.value, ValueError)


def test_status_hints():
    assert BadImageError("x").status == 400
    assert ImageTooLargeError("x").status == 413
    from vision.errors import LatticeError, NoTilesError

    assert NoTilesError("x").status == 422
    assert LatticeError("x").status == 422


def test_too_many_bytes_is_refused_before_decoding():
    data = _encode(".png", _scene())
    with pytest.raises(ImageTooLargeError, match="MB"):
        decode_image_bytes(data, DecodeConfig(max_bytes=len(data) - 1))


def test_big_png_is_refused_from_its_header():
    # A PNG is decoded at full size, so its limit is lower than a JPEG's.
    data = bytearray(_encode(".png", _scene()))
    data[16:24] = struct.pack(">II", 6000, 5000)  # 30 megapixels claimed
    with pytest.raises(ImageTooLargeError, match="30 megapixels"):
        decode_image_bytes(bytes(data))


# Where the red square of _scene (top-left in the upright picture) lands in the stored
# pixels of a phone's JPEG for each EXIF orientation, and the picture's stored size.
STORED = {1: ("top-left", (240, 320)), 3: ("bottom-right", (240, 320)),
          6: ("bottom-left", (320, 240)), 8: ("top-right", (320, 240))}


def _where_red(image) -> str:
    red = (image[..., 2] > 150) & (image[..., 0] < 80) & (image[..., 1] < 80)
    ys, xs = np.nonzero(red)
    h, w = image.shape[:2]
    return ("top" if ys.mean() < h / 2 else "bottom") + "-" + ("left" if xs.mean() < w / 2 else "right")


@pytest.mark.parametrize("orientation", [1, 3, 6, 8])
@pytest.mark.parametrize("target", [2000, 150, 70])  # full size, 1/2 and 1/4 (IMREAD_REDUCED_COLOR_*)
def test_exif_orientation_is_honoured_at_every_decode_size(orientation, target):
    """A phone stores the sensor's pixels and an EXIF Orientation tag; OpenCV's imdecode turns
    them upright with IMREAD_COLOR and IMREAD_REDUCED_COLOR_* alike (only IMREAD_IGNORE_ORIENTATION
    or IMREAD_UNCHANGED would not): checked here on real files, for each tag a phone writes."""
    from vision.synthetic import STORED_TURNS, with_exif_orientation

    upright = _scene()
    stored = np.ascontiguousarray(np.rot90(upright, STORED_TURNS[orientation]))
    corner, shape = STORED[orientation]
    assert _where_red(stored) == corner and stored.shape[:2] == shape  # the file really is turned
    data = with_exif_orientation(_encode(".jpg", stored, cv2.IMWRITE_JPEG_QUALITY, 95), orientation)
    decoded = decode_image_bytes(data, DecodeConfig(target_long_side=target))
    factor = {2000: 1, 150: 2, 70: 4}[target]
    assert decoded.image.shape[:2] == (240 // factor, 320 // factor)
    assert _where_red(decoded.image) == "top-left"
    # Without the tag's help the picture stays as stored: the tag is what turns it.
    raw = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
    assert _where_red(raw) == corner


def test_a_picture_is_grey_when_the_99th_percentile_of_its_channels_spread_is_at_most_2():
    # _is_grey counts instead of sorting: the same decision as np.percentile's, near the line too.
    from vision.capture import _is_grey

    rng = np.random.default_rng(5)
    for _ in range(300):
        image = np.repeat(rng.integers(0, 250, (40, 50, 1)), 3, axis=2)
        image = image + rng.integers(0, 2, image.shape)  # a spread of 0-2
        coloured = int(rng.integers(0, 60))  # about 1% of the pixels, either side of it
        rows, cols = rng.integers(0, 40, coloured), rng.integers(0, 50, coloured)
        image[rows, cols, 2] += int(rng.integers(1, 6))
        image = image.astype(np.uint8)
        wide = image.astype(np.int16)
        spread = np.abs(wide[..., 0] - wide[..., 1]) + np.abs(wide[..., 1] - wide[..., 2])
        assert _is_grey(np, image) == (float(np.percentile(spread, 99)) <= 2.0)


def test_a_photo_file_is_read_whole_and_at_most_one_byte_past_the_limit(tmp_path):
    import os
    import tracemalloc

    from vision.capture import read_photo_bytes

    data = bytes(range(256)) * 40
    path = tmp_path / "photo.jpg"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        assert read_photo_bytes(str(path)) == data
        # Its buffer is the file's size, not the limit's (40 MB).
        assert tracemalloc.get_traced_memory()[1] < 1_000_000
    finally:
        tracemalloc.stop()
    assert read_photo_bytes(str(path), DecodeConfig(max_bytes=100)) == data[:101]
    # A pipe has no size to go by: it is read on up to the limit.
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "wb") as w:
        w.write(data[:3000])
    assert read_photo_bytes(f"/dev/fd/{read_end}", DecodeConfig(max_bytes=2000)) == data[:2001]
    os.close(read_end)
