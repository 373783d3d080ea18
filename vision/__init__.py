"""Camera check of tile grids: read every tile of a photographed grid.

The pipeline is a chain of pure stages (vision.find, vision.lattice,
vision.colour, vision.design, vision.assemble), each a function with its
config passed in that raises a VisionError subclass when it gives up;
vision.capture is the only module that touches a camera. Importing this
package is cheap: OpenCV and NumPy load on first use.

For the web page: `read_image_bytes(data, tileset="classic", calibration=None)`
returns a ReadResult with `.tiles`, `.grid`, `.elapsed_ms` and
`.annotated_png(violations=None)`; its errors carry `.status` 400, 413 or 422.
For loose tiles spread on the table (the "I'm stuck" hand):
`read_hand_bytes(data, tileset="classic", calibration=None)` returns a
HandResult with `.tiles`, `.hand`, `.elapsed_ms` and `.annotated_png()`, and
raises the same errors.
"""
from __future__ import annotations

from vision.colour import Calibration
from vision.errors import (
    BadImageError,
    CalibrationError,
    ClassifyError,
    ImageTooLargeError,
    LatticeError,
    NoTilesError,
    RetakePhotoError,
    VisionError,
)
from vision.hand import HandResult, HandTile, read_hand, read_hand_bytes, read_hand_file
from vision.pipeline import ReadResult, read_image, read_image_bytes, read_image_file

__all__ = [
    "BadImageError",
    "Calibration",
    "CalibrationError",
    "ClassifyError",
    "HandResult",
    "HandTile",
    "ImageTooLargeError",
    "LatticeError",
    "NoTilesError",
    "ReadResult",
    "RetakePhotoError",
    "VisionError",
    "read_hand",
    "read_hand_bytes",
    "read_hand_file",
    "read_image",
    "read_image_bytes",
    "read_image_file",
]
