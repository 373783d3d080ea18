"""Fixtures for the vision tests: synthetic photos only (a user's clone has no real ones)."""
from __future__ import annotations

import functools

import pytest


@functools.lru_cache(maxsize=None)
def _photo(seed: int, tileset: str, tiles: int, valid: bool, wilds: int, size: tuple[int, int], max_rotation: float, overrides: tuple):
    from vision.synthetic import synthetic_photo

    return synthetic_photo(seed, tileset, tiles, valid, size=size, wilds=wilds, max_rotation=max_rotation, **dict(overrides))


@pytest.fixture
def photo():
    """photo(seed, tileset="classic", tiles=10, valid=True, wilds=0, size=(800, 600), **scene) -> Rendered (cached)."""

    def make(seed: int, tileset: str = "classic", tiles: int = 10, valid: bool = True, wilds: int = 0, size=(800, 600), max_rotation: float = 40.0, **overrides):
        return _photo(seed, tileset, tiles, valid, wilds, tuple(size), max_rotation, tuple(sorted(overrides.items())))

    return make
