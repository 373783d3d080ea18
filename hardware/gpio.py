"""Buzzer, LEDs and buttons on the Pi's own GPIO, with gpiozero.

Devices never pick their pins' driver themselves: ``choose_pin_factory``
takes it from an argument, then the ``GPIOZERO_PIN_FACTORY`` environment
variable, then gpiozero's default (lgpio on a Pi 5), and falls back to
gpiozero's ``MockFactory`` under simulation or on a machine without GPIO.
The factory is passed to every device explicitly, so nothing here touches
gpiozero's global ``Device.pin_factory``.

``GpioTimer`` is a ``companion.devices.TimerOutput``: it ticks the buzzer in
the last seconds, sounds the alarm, chirps, and lights a "running" and a
"last seconds" LED. ``GpioButtons`` reports debounced presses and holds.
Everything timed runs on a ``Scheduler`` thread: no call ever sleeps.
"""
from __future__ import annotations

import logging
import os
import threading
import warnings
from typing import Callable

from companion.devices import ButtonCallback, TimerSnapshot
from companion.errors import InputError
from firmware.patterns import PATTERNS, PRIORITY
from hardware.scheduler import Scheduler

log = logging.getLogger(__name__)

CHIRPS = {"done": "chirp", "error": "error"}


def mock_factory():
    """A gpiozero MockFactory whose pins also do PWM (for TonalBuzzer)."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    return MockFactory(pin_class=MockPWMPin)


def choose_pin_factory(name: str | None = None, *, simulate: bool = False,
                       env: dict | None = None) -> tuple[object, str]:
    """The pin factory to use and a sentence saying why.

    Order: simulate -> MockFactory; ``name``; ``$GPIOZERO_PIN_FACTORY``;
    gpiozero's default; MockFactory when no GPIO is found. Raises InputError
    when a factory asked for by name cannot be loaded.
    """
    env = os.environ if env is None else env
    if simulate:
        return mock_factory(), "mock pins (simulated hardware)"
    source = "hardware.pin_factory"
    if not name:
        name = env.get("GPIOZERO_PIN_FACTORY") or ""
        source = "GPIOZERO_PIN_FACTORY"
    if name:
        if name.lower() == "mock":
            return mock_factory(), f"mock pins ({source} = mock)"
        from importlib.metadata import entry_points

        for ep in entry_points(group="gpiozero_pin_factories"):
            if ep.name == name.lower():
                try:
                    return ep.load()(), f"{name} ({source})"
                except Exception as exc:
                    raise InputError(f"{source}: cannot use pin factory {name!r}: {exc}") from None
        known = ", ".join(sorted(ep.name for ep in entry_points(group="gpiozero_pin_factories")))
        raise InputError(f"{source}: unknown pin factory {name!r} (known: {known})")
    from gpiozero import Device
    from gpiozero.exc import BadPinFactory

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fallback chain warns at every step
        try:
            factory = Device._default_pin_factory()
        except BadPinFactory:
            return mock_factory(), "mock pins: no GPIO on this machine"
    return factory, f"{type(factory).__name__} (gpiozero's default)"


def is_mock(factory: object) -> bool:
    from gpiozero.pins.mock import MockFactory

    return isinstance(factory, MockFactory)


class GpioTimer:
    """Buzzer and LEDs on GPIO as a TimerOutput.

    ``buzzer`` is a gpiozero ``Buzzer`` (active: on/off) or ``TonalBuzzer``
    (passive: plays each pattern's frequency); either LED may be None.
    """

    name = "gpio"

    def __init__(self, buzzer=None, led_running=None, led_last_seconds=None, *,
                 last_seconds: int = 10, scheduler: Scheduler | None = None,
                 owns_scheduler: bool | None = None, detail: str = "") -> None:
        self.buzzer = buzzer
        self.led_running = led_running
        self.led_last_seconds = led_last_seconds
        self.last_seconds = last_seconds
        # close() stops the scheduler only if it is ours alone.
        self._own_scheduler = scheduler is None if owns_scheduler is None else owns_scheduler
        self._sched = scheduler or Scheduler("gpio-timer")
        self._lock = threading.RLock()
        self._pattern: str | None = None
        self._pattern_until = 0.0
        self._status = "idle"
        self._detail = detail
        self._alarms = 0

    # -- TimerOutput ----------------------------------------------------------

    def timer_changed(self, snapshot: TimerSnapshot) -> None:
        with self._lock:
            now = self._sched.now()
            self._sched.cancel("tick")
            status = snapshot.status
            self._status = status
            if status == "running":
                deadline = now + max(0, snapshot.remaining_ms) / 1000
                for k in range(1, self.last_seconds + 1):
                    when = deadline - k
                    if when > now + 0.001:
                        self._sched.call_at(when, lambda: self._play("tick"), tag="tick")
                if self._pattern == "alarm":
                    self._stop_pattern()
                self._led(self.led_running, "on")
                last_from = deadline - self.last_seconds
                if last_from <= now:
                    self._led(self.led_last_seconds, "on")
                else:
                    self._led(self.led_last_seconds, "off")
                    self._sched.call_at(last_from, lambda: self._led(self.led_last_seconds, "on"),
                                        tag="tick")
            elif status == "paused":
                self._led(self.led_running, "blink")
                self._led(self.led_last_seconds, "off")
            elif status == "idle":
                self._stop_pattern()
                self._led(self.led_running, "off")
                self._led(self.led_last_seconds, "off")
            else:  # expired: a re-sync after the alarm was already sounded
                self._led(self.led_running, "off")

    def timer_expired(self) -> None:
        with self._lock:
            self._sched.cancel("tick")
            self._status = "expired"
            self._alarms += 1
            self._play("alarm")
            self._led(self.led_running, "off")
            if self.led_last_seconds is not None:
                # Flash with the alarm's beeps, then go dark.
                steps = PATTERNS["alarm"]
                self.led_last_seconds.blink(on_time=steps[0][1] / 1000,
                                            off_time=steps[0][2] / 1000, n=len(steps))

    def chirp(self, kind: str) -> None:
        self._play(CHIRPS.get(kind, "chirp"))

    def status(self) -> dict:
        with self._lock:
            return {"ok": True, "detail": self._detail, "status": self._status,
                    "pattern": self._pattern if self._sched.now() < self._pattern_until else None,
                    "alarms": self._alarms}

    def close(self) -> None:
        with self._lock:
            self._sched.cancel("tick")
            self._sched.cancel("pattern")
            self._buzz_off()
        if self._own_scheduler:
            self._sched.close()
        for device in (self.buzzer, self.led_running, self.led_last_seconds):
            if device is not None:
                device.close()

    # -- sound ----------------------------------------------------------------

    def _play(self, name: str) -> None:
        """Start a pattern now; its later steps run on the scheduler thread."""
        if self.buzzer is None:
            return
        with self._lock:
            now = self._sched.now()
            playing = self._pattern if now < self._pattern_until else None
            if playing is not None and PRIORITY[name] < PRIORITY[playing]:
                return  # never cut the alarm short for a tick
            self._sched.cancel("pattern")
            steps = PATTERNS[name]
            # Every step is scheduled from the same start, so a late callback
            # does not push the rest of the pattern back.
            t = now
            for i, (freq, on_ms, off_ms) in enumerate(steps):
                if i == 0:
                    self._buzz_on(freq)  # first note now, in the caller's thread
                else:
                    self._sched.call_at(t, lambda f=freq: self._buzz_on(f), tag="pattern")
                t += on_ms / 1000
                self._sched.call_at(t, self._buzz_off, tag="pattern")
                t += off_ms / 1000
            self._pattern = name
            self._pattern_until = t

    def _stop_pattern(self) -> None:
        self._sched.cancel("pattern")
        self._pattern = None
        self._pattern_until = 0.0
        self._buzz_off()

    def _buzz_on(self, freq: int) -> None:
        if hasattr(self.buzzer, "play"):  # TonalBuzzer
            from gpiozero.tones import Tone

            low = self.buzzer.min_tone.frequency
            high = self.buzzer.max_tone.frequency
            self.buzzer.play(Tone.from_frequency(min(max(freq, low), high)))
        else:
            self.buzzer.on()

    def _buzz_off(self) -> None:
        if self.buzzer is None:
            return
        if hasattr(self.buzzer, "play"):
            self.buzzer.stop()
        else:
            self.buzzer.off()

    @staticmethod
    def _led(led, how: str) -> None:
        if led is None:
            return
        if how == "on":
            led.on()
        elif how == "off":
            led.off()
        else:
            led.blink(on_time=0.5, off_time=0.5)


class DebouncedButton:
    """A gpiozero Button with debouncing and hold done here, the same on every factory.

    gpiozero's own ``bounce_time`` is left to each pin driver (and MockPin
    ignores it), so edges are filtered here instead: after an accepted change
    further edges are ignored for ``bounce_s``, and the level is read again
    when that window closes, so a very short tap is never lost. "press" is
    reported on release if the button was not held; "hold" after ``hold_s``.
    """

    def __init__(self, name: str, pin, *, pin_factory, on_action: ButtonCallback,
                 scheduler: Scheduler, bounce_s: float = 0.02, hold_s: float = 1.5) -> None:
        from gpiozero import Button

        self.name = name
        self.device = Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
        self._on_action = on_action
        self._sched = scheduler
        self._bounce_s = bounce_s
        self._hold_s = hold_s
        self._lock = threading.Lock()
        self._stable = bool(self.device.is_pressed)
        self._quiet_until = 0.0
        self._held = False
        self.device.when_pressed = self._edge
        self.device.when_released = self._edge

    @property
    def pressed(self) -> bool:
        return self._stable

    def _edge(self) -> None:
        with self._lock:
            if self._sched.now() < self._quiet_until:
                return  # a bounce: the settle check will read the final level
            action = self._accept(self.device.is_pressed)
        self._fire(action)

    def _settle(self) -> None:
        with self._lock:
            action = self._accept(self.device.is_pressed)
        self._fire(action)

    def _accept(self, pressed: bool) -> str | None:
        if pressed == self._stable:
            return None
        now = self._sched.now()
        self._stable = pressed
        self._quiet_until = now + self._bounce_s
        self._sched.call_at(self._quiet_until, self._settle, tag=f"settle-{self.name}")
        if pressed:
            self._held = False
            self._sched.call_at(now + self._hold_s, self._hold, tag=f"hold-{self.name}")
            return None
        self._sched.cancel(f"hold-{self.name}")
        return None if self._held else "press"

    def _hold(self) -> None:
        with self._lock:
            if not self._stable or self._held:
                return
            self._held = True
        self._fire("hold")

    def _fire(self, action: str | None) -> None:
        if action is None:
            return
        try:
            self._on_action(self.name, action)
        except Exception:  # the service's bug must not kill the pin thread
            log.exception("button callback failed")

    def close(self) -> None:
        self._sched.cancel(f"settle-{self.name}")
        self._sched.cancel(f"hold-{self.name}")
        self.device.close()


def build_gpio(config, factory, on_button: ButtonCallback,
               scheduler: Scheduler | None = None, detail: str = "") -> tuple[GpioTimer, list[DebouncedButton]]:
    """The GpioTimer and buttons for a HardwareConfig on ``factory``.

    Raises InputError naming the part if a pin cannot be used.
    """
    from gpiozero import LED, Buzzer, TonalBuzzer
    from gpiozero.tones import Tone

    sched = scheduler or Scheduler("gpio")
    made: list = []

    def make(part: str, fn: Callable[[], object]):
        try:
            device = fn()
        except Exception as exc:
            for device in made:
                device.close()
            raise InputError(f"hardware: cannot use {part} pin: {exc}") from None
        made.append(device)
        return device

    buzzer = None
    if config.buzzer_pin is not None:
        if config.buzzer_type == "passive":
            # E6 +/- two octaves (330-5270 Hz) covers every pattern's notes.
            buzzer = make("buzzer", lambda: TonalBuzzer(
                config.buzzer_pin, mid_tone=Tone("E6"), octaves=2, pin_factory=factory))
        else:
            buzzer = make("buzzer", lambda: Buzzer(
                config.buzzer_pin, active_high=config.buzzer_active_high, pin_factory=factory))
    led_running = None
    if config.led_running_pin is not None:
        led_running = make("led_running", lambda: LED(config.led_running_pin, pin_factory=factory))
    led_last = None
    if config.led_last_seconds_pin is not None:
        led_last = make("led_last_seconds",
                        lambda: LED(config.led_last_seconds_pin, pin_factory=factory))
    buttons: list[DebouncedButton] = []
    named = []
    if config.timer_button_pin is not None:
        named.append(("timer", config.timer_button_pin))
    named += [(f"done-{i}", pin) for i, pin in enumerate(config.done_button_pins)]
    for name, pin in named:
        button = make(name, lambda name=name, pin=pin: DebouncedButton(
            name, pin, pin_factory=factory, on_action=on_button, scheduler=sched,
            bounce_s=config.button_bounce_ms / 1000, hold_s=config.button_hold_seconds))
        buttons.append(button)
    # A scheduler made here is closed with the timer (after the buttons: Devices.close).
    timer = GpioTimer(buzzer, led_running, led_last, last_seconds=config.last_seconds,
                      scheduler=sched, owns_scheduler=scheduler is None, detail=detail)
    return timer, buttons
