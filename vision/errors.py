"""The errors the vision pipeline raises when it gives up.

Every stage raises a subclass of VisionError (a ValueError) with a message a
player understands and an HTTP-ish `status` hint for the web page: 400 the
bytes are not a usable photo, 413 the photo is too large, 422 the photo is
fine but no grid could be read from it.
"""
from __future__ import annotations


class VisionError(ValueError):
    """The photo could not be read as a grid of tiles. `status` is an HTTP status hint."""

    status = 422


class BadImageError(VisionError):
    """The bytes are not a usable colour photo (not an image, truncated, greyscale, too small)."""

    status = 400


class ImageTooLargeError(VisionError):
    """The photo has more pixels (or bytes) than the configured limit."""

    status = 413


class NoTilesError(VisionError):
    """No tile was found in the photo."""

    status = 422


class LatticeError(VisionError):
    """Tiles were found but no square grid fits them."""

    status = 422


class ClassifyError(VisionError):
    """A tile's design or colour could not be read at all."""

    status = 422


class CalibrationError(VisionError):
    """A colour calibration could not be made or loaded."""

    status = 422


class RetakePhotoError(VisionError):
    """The photo shows tiles but cannot be read reliably: the player is asked for a better one.

    `reason` says why, in one word a client can branch on: "oblique" (taken
    too much from the side), "cut-off" (part of the grid is outside the
    photo), "blurred", "small" (the tiles are too small in the photo),
    "unplaced" (tiles were seen that could not be placed on the grid: a group
    left out, tiles under a hand, a group whose place on the grid is not clear), "unsure" (the reader is not sure of most of
    the tiles it read), "covered" (a finger or a hand lies over the grid). The message says what to do, in words a
    player understands.
    """

    status = 422

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason
