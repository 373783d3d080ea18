"""CSV cells that a spreadsheet opens as text: the one rule every export of the project follows."""
from __future__ import annotations

from typing import Any


def cell(value: Any) -> str:
    """A CSV cell that a spreadsheet will not run as a formula (a leading =, +, -, @, tab or CR is quoted away)."""
    text = "" if value is None else str(value)
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        text = "'" + text
    return text
