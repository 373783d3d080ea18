"""Pivit, the real-time tile game: tile notation, grid check, hand solver and the round engine."""
