"""Quivit: the 5 x 5 grid of four-colour cards, rotated to link colours (rules engine)."""
