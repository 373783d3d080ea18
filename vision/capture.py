"""Getting a picture: the only module that touches a camera, and the one that decodes uploads.

Three sources, each giving an OpenCV BGR uint8 array:

- `PiCamera`: the Raspberry Pi camera through Picamera2. Its "RGB888" format
  is stored B, G, R in memory, which is already OpenCV's order.
- `Webcam`: a USB camera through cv2.VideoCapture.
- `decode_image_bytes` / `read_image_file`: an uploaded or saved photo.

Decoding bounds memory before it allocates: the header is read first for the
size, more than `DecodeConfig.max_pixels` is refused, and large JPEGs are
decoded straight to 1/2, 1/4 or 1/8 size by libjpeg (cv2.IMREAD_REDUCED_*),
which is also much faster than a full decode.

A phone stores a photo as its sensor read it, with an EXIF Orientation tag
saying how to turn it upright. cv2.imdecode applies the tag with
IMREAD_COLOR and with every IMREAD_REDUCED_COLOR_* (checked on real files by
tests/vision/test_capture.py; IMREAD_IGNORE_ORIENTATION and IMREAD_UNCHANGED
would not), so the picture the reader gets is upright. Formats other than JPEG, PNG,
WebP and BMP are refused rather than handed to a decoder whose memory use we
cannot bound from the header.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import Any

from vision.config import DecodeConfig
from vision.errors import BadImageError, ImageTooLargeError, VisionError


class CameraError(VisionError):
    """No camera could be opened or it gave no picture."""

    status = 503


@dataclass(frozen=True)
class ImageInfo:
    """What an image header says before any pixel is decoded."""

    format: str  # "jpeg", "png", "webp", "bmp"
    width: int
    height: int
    channels: int  # 1 greyscale, 3 colour, 4 colour with alpha (0 when the header does not say)


@dataclass
class Decoded:
    """A decoded photo: BGR pixels, and the factor from original to decoded pixels."""

    image: Any  # numpy uint8 array, H x W x 3, BGR
    scale: float  # decoded size / original size (1, 1/2, 1/4, 1/8 or a resize factor)
    info: ImageInfo


def image_info(data: bytes) -> ImageInfo:
    """Format and size from the header. Raises BadImageError for anything else or a broken header."""
    if data[:3] == b"\xff\xd8\xff":
        return _jpeg_info(data)
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return _png_info(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_info(data)
    if data[:2] == b"BM" and len(data) >= 26:
        width, height = struct.unpack("<ii", data[18:26])
        return ImageInfo("bmp", abs(width), abs(height), 3)
    if not data:
        raise BadImageError("the file is empty")
    raise BadImageError("not a JPEG, PNG, WebP or BMP image")


def _jpeg_info(data: bytes) -> ImageInfo:
    # Walk the marker segments up to the first start-of-frame, which holds the size.
    pos = 2
    n = len(data)
    while pos + 4 <= n:
        if data[pos] != 0xFF:
            raise BadImageError("broken JPEG header")
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if length < 2:
            raise BadImageError("broken JPEG header")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if pos + 10 > n:
                break
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return ImageInfo("jpeg", width, height, data[pos + 9])
        if marker == 0xDA:  # start of scan before any frame header
            break
        pos += 2 + length
    raise BadImageError("truncated JPEG: the file ends inside its header")


def _png_info(data: bytes) -> ImageInfo:
    if len(data) < 33 or data[12:16] != b"IHDR":
        raise BadImageError("truncated PNG: the file ends inside its header")
    width, height, _depth, colour_type = struct.unpack(">IIBB", data[16:26])
    channels = {0: 1, 2: 3, 3: 3, 4: 2, 6: 4}.get(colour_type, 0)
    if channels == 3 and b"tRNS" in data[33 : max(33, data.find(b"IDAT"))]:
        channels = 4  # a transparent colour makes it an image with alpha
    return ImageInfo("png", width, height, channels)


def _webp_info(data: bytes) -> ImageInfo:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30:
        width, height = struct.unpack("<HH", data[26:30])
        return ImageInfo("webp", width & 0x3FFF, height & 0x3FFF, 3)
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        alpha = 4 if bits >> 28 & 1 else 3
        return ImageInfo("webp", (bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1, alpha)
    if chunk == b"VP8X" and len(data) >= 30:
        alpha = 4 if data[20] & 0x10 else 3
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return ImageInfo("webp", width, height, alpha)
    raise BadImageError("truncated or unknown WebP image")


def _jpeg_complete(data: bytes) -> bool:
    """True if the compressed data reaches its end-of-image marker.

    Inside entropy-coded data 0xFF is always followed by 0x00 or a restart
    marker, so the first FF D9 after the first start-of-scan is the real end,
    whatever trails the file (some phones append a video or maker data).
    """
    sos = data.find(b"\xff\xda")
    return sos >= 0 and data.find(b"\xff\xd9", sos) >= 0


def decode_image_bytes(data: bytes, config: DecodeConfig | None = None) -> Decoded:
    """Decode a photo's bytes to BGR at reduced size where that loses nothing.

    Raises ImageTooLargeError (too many bytes or pixels), BadImageError (not an
    image, truncated, greyscale, with transparent pixels, or too small).
    """
    import cv2
    import numpy as np

    cfg = config or DecodeConfig()
    if len(data) > cfg.max_bytes:
        raise ImageTooLargeError(f"the file is {len(data) / 1e6:.0f} MB; the limit is {cfg.max_bytes / 1e6:.0f} MB")
    info = image_info(data)
    pixels = info.width * info.height
    if pixels > cfg.max_pixels or (info.format != "jpeg" and pixels > cfg.max_pixels_full):
        limit = cfg.max_pixels if info.format == "jpeg" else cfg.max_pixels_full
        raise ImageTooLargeError(
            f"the photo is {info.width}x{info.height} ({pixels / 1e6:.0f} megapixels); "
            f"the limit is {limit / 1e6:.0f} megapixels"
        )
    if min(info.width, info.height) < cfg.min_side:
        raise BadImageError(
            f"the photo is only {info.width}x{info.height} pixels; a grid needs at least {cfg.min_side}x{cfg.min_side}"
        )
    if info.channels in (1, 2):
        raise BadImageError("the photo is greyscale: tile colours cannot be read from it")
    if info.format == "jpeg" and not _jpeg_complete(data):
        raise BadImageError("truncated JPEG: the file ends before the picture does")

    buf = np.frombuffer(data, np.uint8)
    factor = 1
    flag = cv2.IMREAD_COLOR
    if info.format == "jpeg":
        long_side = max(info.width, info.height)
        for f, reduced in ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4), (2, cv2.IMREAD_REDUCED_COLOR_2)):
            if long_side / f >= cfg.target_long_side:
                factor, flag = f, reduced
                break
    if info.channels == 4:
        image = _decode_with_alpha(cv2, np, buf)
    else:
        image = cv2.imdecode(buf, flag)
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
        raise BadImageError(f"the {info.format.upper()} data is damaged and could not be decoded")
    if info.format != "jpeg" and max(image.shape[:2]) > 2 * cfg.target_long_side:
        f = cfg.target_long_side / max(image.shape[:2])
        image = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        factor = 1 / f
    if _is_grey(np, image):
        raise BadImageError("the photo is greyscale: tile colours cannot be read from it")
    return Decoded(image=image, scale=1.0 / factor, info=info)


def _decode_with_alpha(cv2, np, buf):
    """A PNG or WebP with an alpha channel: fine if fully opaque, refused if anything shows through."""
    image = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    if image is None:
        return None
    if image.dtype != np.uint8:
        image = (image >> 8).astype(np.uint8) if image.dtype == np.uint16 else None
        if image is None:
            return None
    if image.ndim == 2:
        return image  # rejected as greyscale by the caller's shape check
    if image.shape[2] == 4:
        if int(image[:, :, 3].min()) < 255:
            raise BadImageError("the image has transparent pixels; send the photo itself, not a cut-out")
        image = np.ascontiguousarray(image[:, :, :3])
    elif image.shape[2] == 2:
        raise BadImageError("the photo is greyscale: tile colours cannot be read from it")
    return image


def _is_grey(np, image) -> bool:
    # A colour file holding a grey picture: every pixel's channels nearly equal.
    step = max(1, int((image.shape[0] * image.shape[1] / 40000) ** 0.5))
    sample = image[::step, ::step].astype(np.int16)
    spread = np.abs(sample[..., 0] - sample[..., 1]) + np.abs(sample[..., 1] - sample[..., 2])
    # np.percentile(spread, 99) <= 2, counted rather than sorted: the whole numbers it interpolates
    # between are both at most 2 if the one at the higher rank is.
    rank = 0.99 * (spread.size - 1)
    top = min(math.ceil(rank), spread.size - 1)
    return int(np.count_nonzero(spread <= 2)) > top


def read_photo_bytes(path: str, config: DecodeConfig | None = None) -> bytes:
    """A photo file's bytes, at most one more than `max_bytes` (enough for decode_image_bytes to
    refuse it as too large without reading it all). Raises OSError for an unreadable file."""
    import os

    cfg = config or DecodeConfig()
    with open(path, "rb") as f:
        # A buffer the file's size, not the limit's (40 MB, a millisecond a photo to allocate).
        size = os.fstat(f.fileno()).st_size
        data = f.read(min(size, cfg.max_bytes) + 1)
        if len(data) > size:  # not a regular file (a pipe's size is 0), or one growing: on to the limit
            data += f.read(cfg.max_bytes + 1 - len(data))
        return data


def read_image_file(path: str, config: DecodeConfig | None = None) -> Decoded:
    """Decode a photo file. Raises OSError for an unreadable file and what decode_image_bytes raises."""
    cfg = config or DecodeConfig()
    return decode_image_bytes(read_photo_bytes(path, cfg), cfg)


class PiCamera:
    """The Raspberry Pi camera through Picamera2, one still at a time.

    Raises CameraError if Picamera2 is missing or the camera does not start.
    """

    def __init__(self, size: tuple[int, int] = (2028, 1520)):
        try:
            from picamera2 import Picamera2  # only on a Pi
        except ImportError:
            raise CameraError("no Pi camera: the picamera2 package is not installed") from None
        try:
            self._camera = Picamera2()
            # RGB888 is laid out B, G, R in memory: OpenCV's order, no conversion needed.
            config = self._camera.create_still_configuration(main={"size": size, "format": "RGB888"})
            self._camera.configure(config)
            self._camera.start()
        except Exception as exc:  # the library raises many types for a missing or busy camera
            raise CameraError(f"the Pi camera did not start: {exc}") from None

    def capture(self):
        """One BGR frame. Raises CameraError."""
        try:
            frame = self._camera.capture_array("main")
        except Exception as exc:
            raise CameraError(f"the Pi camera gave no picture: {exc}") from None
        return frame[:, :, :3].copy()

    def close(self) -> None:
        self._camera.stop()
        self._camera.close()


class Webcam:
    """A USB camera through cv2.VideoCapture. Raises CameraError if it cannot be opened."""

    def __init__(self, index: int = 0, size: tuple[int, int] = (1920, 1080), warmup_frames: int = 5):
        import cv2

        # OpenCV logs each backend it tries to stderr; the CameraError says it once.
        logging = cv2.utils.logging
        level = logging.getLogLevel()
        logging.setLogLevel(logging.LOG_LEVEL_SILENT)
        try:
            self._capture = cv2.VideoCapture(index)
        finally:
            logging.setLogLevel(level)
        if not self._capture.isOpened():
            raise CameraError(f"no camera: no webcam at index {index}")
        self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        # The first frames come before auto exposure and white balance settle.
        for _ in range(warmup_frames):
            self._capture.read()

    def capture(self):
        """One BGR frame. Raises CameraError."""
        ok, frame = self._capture.read()
        if not ok or frame is None:
            raise CameraError("the webcam gave no picture")
        return frame

    def close(self) -> None:
        self._capture.release()


def open_camera(kind: str = "auto"):
    """A camera: "pi", "webcam" or "auto" (the Pi camera if present, else the first webcam).

    Raises CameraError if none can be opened.
    """
    if kind in ("pi", "auto"):
        try:
            return PiCamera()
        except CameraError:
            if kind == "pi":
                raise
    if kind in ("webcam", "auto"):
        return Webcam()
    raise CameraError(f"unknown camera kind {kind!r} (pi, webcam or auto)")
