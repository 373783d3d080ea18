"""Buzzer patterns, shared by the Pico firmware and the Pi's GPIO buzzer.

A pattern is a tuple of steps ``(frequency_hz, on_ms, off_ms)``. An active
buzzer (on/off only) ignores the frequency. Both hardware paths play the same
patterns so a table sounds the same whichever timer it has.
"""

PATTERNS = {
    # One short blip per second in the last seconds of a countdown.
    "tick": ((2000, 40, 0),),
    # Time is up: eight quick beeps, two seconds in all.
    "alarm": ((2700, 150, 100),) * 8,
    # A player pressed "done": two rising notes.
    "chirp": ((1800, 50, 20), (2600, 70, 0)),
    # Something went wrong (a rejected action): one low buzz.
    "error": ((400, 300, 0),),
}

# A pattern never interrupts one of higher priority: a tick or a chirp must
# not cut the expiry alarm short.
PRIORITY = {"tick": 0, "chirp": 1, "error": 1, "alarm": 2}


def duration_ms(name):
    """How long a pattern sounds, in milliseconds. Raises KeyError if unknown."""
    total = 0
    for _freq, on_ms, off_ms in PATTERNS[name]:
        total += on_ms + off_ms
    return total
