"""Plays buzzer patterns on a PWM pin without blocking the firmware's loop.

The player is a small state machine stepped by the main loop with the time
in ticks; ``update`` returns how long it may wait before the next change, so
the loop can sleep exactly that long. Takes any object with the MicroPython
``PWM`` methods ``freq(hz)`` and ``duty_u16(duty)``.
"""

try:
    from firmware.patterns import PATTERNS, PRIORITY
except ImportError:  # MicroPython: flat files at the Pico's root
    from patterns import PATTERNS, PRIORITY

# Half duty gives a piezo its loudest square wave.
LOUD = 32768


class BuzzerPlayer:
    def __init__(self, pwm, clock):
        self._pwm = pwm
        self._clock = clock
        self._steps = ()
        self._name = None
        self._index = 0
        self._sounding = False
        self._next = 0
        pwm.duty_u16(0)

    @property
    def pattern(self):
        """The name of the pattern playing now, or None."""
        return self._name

    @property
    def sounding(self):
        return self._sounding

    def play(self, name, now):
        """Start a pattern at ``now``. Raises KeyError for an unknown name.

        A pattern of lower priority than the one playing is ignored, so a
        tick never cuts the alarm short.
        """
        steps = PATTERNS[name]
        if self._name is not None and PRIORITY[name] < PRIORITY[self._name]:
            return False
        self._name = name
        self._steps = steps
        self._index = 0
        self._begin_step(now)
        return True

    def stop(self):
        self._name = None
        self._steps = ()
        self._off()

    def _on(self, freq):
        self._pwm.freq(freq)
        self._pwm.duty_u16(LOUD)
        self._sounding = True

    def _off(self):
        if self._sounding:
            self._pwm.duty_u16(0)
            self._sounding = False

    def _begin_step(self, now):
        freq, on_ms, _off_ms = self._steps[self._index]
        self._on(freq)
        self._next = self._clock.ticks_add(now, on_ms)

    def update(self, now):
        """Advance the pattern; returns ms until the next change, or None if idle."""
        while self._name is not None:
            wait = self._clock.ticks_diff(self._next, now)
            if wait > 0:
                return wait
            if self._sounding:
                _freq, _on_ms, off_ms = self._steps[self._index]
                self._off()
                # Step from the scheduled time, not from now, so a late loop
                # does not stretch the whole pattern.
                self._next = self._clock.ticks_add(self._next, off_ms)
            else:
                self._index += 1
                if self._index >= len(self._steps):
                    self.stop()
                    return None
                freq, on_ms, _off_ms = self._steps[self._index]
                self._on(freq)
                self._next = self._clock.ticks_add(self._next, on_ms)
        return None
