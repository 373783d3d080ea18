"""MicroPython firmware for the Pico USB timer, importable under CPython too.

On the Pico these files sit flat at the root of its filesystem (``main.py``
runs at boot); on the host they are the ``firmware`` package, so the protocol
module is shared and the simulator runs the very same code. Each module
imports its siblings with ``from firmware import x`` and falls back to the
flat ``import x`` that MicroPython sees on the board.
"""
