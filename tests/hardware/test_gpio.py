"""Buzzer, LEDs and buttons on gpiozero's MockFactory, in the manner of gpiozero's own tests."""
from __future__ import annotations

import time

import pytest
from gpiozero import LED, Buzzer, TonalBuzzer
from gpiozero.pins.mock import MockFactory
from gpiozero.tones import Tone

from companion.devices import TimerSnapshot
from companion.errors import InputError
from hardware.config import parse_hardware_config
from hardware.gpio import DebouncedButton, GpioTimer, build_gpio, choose_pin_factory, is_mock
from hardware.runner import run_countdown
from hardware.scheduler import Scheduler


def assert_pattern(pin, expected):
    """assert_states_and_times, which zips, plus a check that no state is missing."""
    assert len(pin.states) >= len(expected), pin.states
    pin.assert_states_and_times(expected)


@pytest.fixture
def scheduler():
    sched = Scheduler("test")
    yield sched
    sched.close()


@pytest.fixture
def active(mock_factory, scheduler):
    """A GpioTimer with an active buzzer on GPIO18 and both LEDs."""
    timer = GpioTimer(Buzzer(18, pin_factory=mock_factory), LED(23, pin_factory=mock_factory),
                      LED(24, pin_factory=mock_factory), last_seconds=2, scheduler=scheduler)
    yield timer, mock_factory.pin(18)
    timer.close()


# -- choosing the pin factory ---------------------------------------------------------

def test_simulation_always_gets_mock_pins():
    factory, note = choose_pin_factory("lgpio", simulate=True)
    assert is_mock(factory) and "simulated" in note


def test_factory_by_name_then_environment(monkeypatch):
    factory, note = choose_pin_factory("mock", env={})
    assert is_mock(factory) and "hardware.pin_factory" in note
    factory, note = choose_pin_factory(None, env={"GPIOZERO_PIN_FACTORY": "mock"})
    assert is_mock(factory) and "GPIOZERO_PIN_FACTORY" in note


def test_an_unknown_factory_is_an_input_error():
    with pytest.raises(InputError, match="unknown pin factory 'gpiod'"):
        choose_pin_factory("gpiod", env={})


def test_default_falls_back_to_mock_pins_without_gpio():
    factory, note = choose_pin_factory(None, env={})
    if is_mock(factory):  # this machine has no GPIO (on a Pi, lgpio loads instead)
        assert note == "mock pins: no GPIO on this machine"
    factory.close()


# -- buzzer patterns ------------------------------------------------------------------

def test_chirp_on_an_active_buzzer(active):
    timer, pin = active
    pin.clear_states()
    timer.chirp("done")
    time.sleep(0.25)
    assert_pattern(pin, [
        (0.0, False), (0.0, True), (0.05, False), (0.02, True), (0.07, False)])


def test_chirp_on_a_passive_buzzer_plays_the_notes(mock_factory, scheduler):
    buzzer = TonalBuzzer(18, mid_tone=Tone("E6"), octaves=2, pin_factory=mock_factory)
    timer = GpioTimer(buzzer, scheduler=scheduler)
    pin = mock_factory.pin(18)
    pin.clear_states()
    timer.chirp("done")
    assert round(buzzer.tone.frequency) == 1800
    time.sleep(0.25)
    assert_pattern(pin, [
        (0.0, 0), (0.0, 0.5), (0.05, 0), (0.02, 0.5), (0.07, 0)])
    assert buzzer.tone is None
    timer.close()


def test_ticks_in_the_last_seconds_then_the_alarm(active):
    timer, pin = active
    pin.clear_states()
    run_countdown([timer], 2500)  # last_seconds=2: ticks at 0:02 and 0:01
    time.sleep(0.2)
    assert_pattern(pin, [
        (0.0, False),
        (0.5, True), (0.04, False),  # tick as 0:02 shows
        (0.96, True), (0.04, False),  # tick as 0:01 shows
        (0.96, True), (0.15, False),  # the alarm at 0:00
    ])
    assert timer.status()["pattern"] == "alarm"


def test_a_chirp_never_cuts_the_alarm_short(active):
    timer, pin = active
    pin.clear_states()
    timer.timer_expired()
    time.sleep(0.05)
    timer.chirp("done")
    time.sleep(0.5)
    assert_pattern(pin, [
        (0.0, False), (0.0, True), (0.15, False), (0.1, True), (0.15, False), (0.1, True)])


def test_pause_and_cancel_stop_the_ticks(active):
    timer, pin = active
    pin.clear_states()
    timer.timer_changed(TimerSnapshot("running", 2000, 1800))  # first tick due in 0.8 s
    time.sleep(0.1)
    timer.timer_changed(TimerSnapshot("paused", 2000, 1700))
    time.sleep(1.0)
    pin.assert_states([False])
    assert len(pin.states) == 1
    timer.timer_changed(TimerSnapshot("running", 2000, 1700))
    timer.timer_changed(TimerSnapshot("idle", 2000, 2000))
    time.sleep(0.8)
    assert len(pin.states) == 1


def test_leds_follow_the_countdown(active, mock_factory):
    timer, _pin = active
    running, last = timer.led_running, timer.led_last_seconds
    timer.timer_changed(TimerSnapshot("running", 60000, 60000))
    assert running.is_active and not last.is_active
    timer.timer_changed(TimerSnapshot("running", 60000, 1500))  # within the last 2 s
    assert last.is_active
    timer.timer_changed(TimerSnapshot("paused", 60000, 1500))
    time.sleep(0.05)
    assert not last.is_active
    mock_factory.pin(23).clear_states()
    time.sleep(1.1)
    assert len(mock_factory.pin(23).states) >= 2  # blinking while paused
    timer.timer_changed(TimerSnapshot("idle", 60000, 60000))
    assert not running.is_active and not last.is_active


# -- buttons --------------------------------------------------------------------------

@pytest.fixture
def button(mock_factory, scheduler):
    actions: list[tuple[str, str]] = []
    b = DebouncedButton("timer", 17, pin_factory=mock_factory, scheduler=scheduler,
                        on_action=lambda name, action: actions.append((name, action)),
                        bounce_s=0.02, hold_s=0.3)
    yield b, mock_factory.pin(17), actions
    b.close()


def test_press_is_reported_on_release(button):
    b, pin, actions = button
    pin.drive_low()
    time.sleep(0.05)
    assert actions == [] and b.pressed
    pin.drive_high()
    time.sleep(0.05)
    assert actions == [("timer", "press")]


def test_hold_is_reported_once_and_no_press_follows(button):
    b, pin, actions = button
    pin.drive_low()
    time.sleep(0.45)
    pin.drive_high()
    time.sleep(0.05)
    assert actions == [("timer", "hold")]


def test_contact_bounce_gives_one_press(mock_factory, scheduler):
    # A bounce window of a quarter second, not the fixture's 20 ms: the chatter's 2 ms sleeps are
    # real time, and on a loaded machine one of them may last longer than 20 ms (the chatter then
    # is, to the button, two presses).
    actions: list[tuple[str, str]] = []
    b = DebouncedButton("timer", 17, pin_factory=mock_factory, scheduler=scheduler,
                        on_action=lambda name, action: actions.append((name, action)), bounce_s=0.25, hold_s=3.0)
    pin = mock_factory.pin(17)
    try:
        for _ in range(4):  # the contacts chatter for a few milliseconds
            pin.drive_low()
            time.sleep(0.002)
            pin.drive_high()
            time.sleep(0.002)
        pin.drive_low()
        time.sleep(0.5)
        pin.drive_high()
        time.sleep(0.002)
        pin.drive_low()  # and chatter on release too
        time.sleep(0.002)
        pin.drive_high()
        time.sleep(0.5)
        assert actions == [("timer", "press")]
    finally:
        b.close()


def test_a_tap_shorter_than_the_bounce_window_is_not_lost(button):
    b, pin, actions = button
    pin.drive_low()
    time.sleep(0.005)
    pin.drive_high()
    time.sleep(0.08)
    assert actions == [("timer", "press")]


# -- building from the config ---------------------------------------------------------

def test_build_gpio_from_config(mock_factory):
    config = parse_hardware_config({"hardware": {
        "buzzer_type": "passive", "done_button_pins": [5, 6], "button_hold_seconds": 0.5}})
    pressed = []
    timer, buttons = build_gpio(config, mock_factory, lambda *a: pressed.append(a))
    assert isinstance(timer.buzzer, TonalBuzzer)
    assert [b.name for b in buttons] == ["timer", "done-0", "done-1"]
    mock_factory.pin(6).drive_low()
    mock_factory.pin(6).drive_high()
    time.sleep(0.06)
    assert pressed == [("done-1", "press")]
    for b in buttons:
        b.close()
    timer.close()


def test_a_pin_in_use_is_an_input_error(mock_factory):
    config = parse_hardware_config({})
    keep = LED(18, pin_factory=mock_factory)  # someone else holds the buzzer's pin
    with pytest.raises(InputError, match="buzzer pin"):
        build_gpio(config, mock_factory, lambda *a: None)
    keep.close()
    # Nothing was left reserved by the failed attempt.
    timer, buttons = build_gpio(config, mock_factory, lambda *a: None)
    for b in buttons:
        b.close()
    timer.close()


def test_mock_factory_instances_do_not_share_pins():
    a, b = MockFactory(), MockFactory()
    assert a.pin(18) is not b.pin(18)
