"""A debounced push button with press and hold, polled by the main loop.

A change of level counts only once it has been stable for ``debounce_ms``.
"press" is reported on release (so a hold does not also start the timer);
"hold" once the button has been down for ``hold_ms``. Takes a ``Pin``
configured as an input with pull-up (the button shorts it to ground).
"""

DEBOUNCE_MS = 20
HOLD_MS = 1500  # hold this long to cancel (the Pi's GPIO buttons read theirs from config)


class DebouncedButton:
    def __init__(self, pin, name, clock, debounce_ms=DEBOUNCE_MS, hold_ms=HOLD_MS,
                 active_low=True):
        self.pin = pin
        self.name = name
        self._clock = clock
        self._debounce = debounce_ms
        self._hold = hold_ms
        self._active_low = active_low
        self._raw = False
        self._raw_since = None
        self._stable = False
        self._down_at = None
        self._held = False

    def _read(self):
        level = self.pin.value()
        return (level == 0) if self._active_low else (level == 1)

    @property
    def pressed(self):
        """The debounced state: True while the button is down."""
        return self._stable

    def update(self, now):
        """Poll the pin; returns "press", "hold" or None."""
        raw = self._read()
        if self._raw_since is None or raw != self._raw:
            self._raw = raw
            self._raw_since = now
        if raw != self._stable and self._clock.ticks_diff(now, self._raw_since) >= self._debounce:
            self._stable = raw
            if raw:
                self._down_at = now
                self._held = False
            else:
                if not self._held:
                    return "press"
                return None
        if (
            self._stable
            and not self._held
            and self._clock.ticks_diff(now, self._down_at) >= self._hold
        ):
            self._held = True
            return "hold"
        return None
