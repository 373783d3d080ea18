"""What a countdown display shows for a remaining time: pure, shared.

The display shows whole seconds rounded up, the way a kitchen timer does: a
fresh one-minute countdown reads 1:00 and turns to 0:59 when one full second
has passed; it reads 0:00 only when time is up. The host uses the same
function to check the display never differs from its own countdown.
"""

MAX_SECONDS = 99 * 60 + 59  # four digits: 99:59


def shown_seconds(remaining_ms):
    """Whole seconds on the display for ``remaining_ms`` (rounded up)."""
    if remaining_ms <= 0:
        return 0
    return min((remaining_ms + 999) // 1000, MAX_SECONDS)


def clock_text(remaining_ms):
    """The display text for a remaining time: "1:00", "0:59", "12:05"."""
    minutes, seconds = divmod(shown_seconds(remaining_ms), 60)
    return "%d:%02d" % (minutes, seconds)


def ms_to_next_change(remaining_ms):
    """Milliseconds until the display's number changes (0 once time is up)."""
    if remaining_ms <= 0:
        return 0
    return remaining_ms - ((remaining_ms - 1) // 1000) * 1000
