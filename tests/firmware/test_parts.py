"""The firmware's parts on their own: clock face, TM1637 encoding and bus, buzzer, countdown."""
from __future__ import annotations

import pytest

from firmware.buzzer import LOUD, BuzzerPlayer
from firmware.clockface import clock_text, ms_to_next_change, shown_seconds
from firmware.countdown import Countdown
from firmware.tm1637 import TM1637, encode_char, encode_text
from hardware.sim_machine import TM1637Chip, decode_segments


@pytest.mark.parametrize("ms,text", [
    (60000, "1:00"), (59999, "1:00"), (59000, "0:59"), (58001, "0:59"),
    (1, "0:01"), (0, "0:00"), (-5, "0:00"), (600000, "10:00"), (10 ** 9, "99:59"),
])
def test_clock_text_rounds_up_whole_seconds(ms, text):
    assert clock_text(ms) == text


@pytest.mark.parametrize("ms,wait", [(60000, 1000), (59001, 1), (500, 500), (1000, 1000), (0, 0)])
def test_ms_to_next_change(ms, wait):
    assert ms_to_next_change(ms) == wait
    if ms > 0:
        assert shown_seconds(ms - wait) == shown_seconds(ms) - 1


# The TM1637 datasheet's digit table (bit 0 = segment a ... bit 6 = segment g).
DATASHEET_DIGITS = [0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F]


def test_digits_match_the_datasheet():
    assert [encode_char(str(d)) for d in range(10)] == DATASHEET_DIGITS


@pytest.mark.parametrize("text,segments", [
    ("0:59", [0x00, 0x3F | 0x80, 0x6D, 0x6F]),
    ("12:05", [0x06, 0x5B | 0x80, 0x3F, 0x6D]),
    ("--:--", [0x40, 0x40 | 0x80, 0x40, 0x40]),
    ("donE", [0x5E, 0x5C, 0x54, 0x79]),
    ("", [0, 0, 0, 0]),
])
def test_encode_text(text, segments):
    assert list(encode_text(text)) == segments
    assert decode_segments(bytes(segments)) == text


@pytest.mark.parametrize("text", ["12345", "123:4", "WXYZ", "1:2:3"])
def test_encode_text_refuses_what_cannot_be_shown(text):
    with pytest.raises(ValueError):
        encode_text(text)


class WirePin:
    """A pin wired to the simulated chip's CLK or DIO line."""

    def __init__(self, bus: "Bus", name: str):
        self.bus, self.name = bus, name

    def value(self, level=None):
        if level is None:
            return self.bus.levels[self.name]
        self.bus.levels[self.name] = 1 if level else 0
        self.bus.writes.append((self.name, self.bus.levels[self.name]))
        self.bus.chip.pins(self.bus.levels["clk"], self.bus.levels["dio"])


class Bus:
    def __init__(self):
        self.levels = {"clk": 1, "dio": 1}
        self.writes: list[tuple[str, int]] = []
        self.chip = TM1637Chip(lambda chip: None)


def test_driver_speaks_the_chip_protocol():
    bus = Bus()
    display = TM1637(WirePin(bus, "clk"), WirePin(bus, "dio"), brightness=5)
    display.show("0:42")
    assert bus.chip.text() == "0:42"
    assert bus.chip.brightness == 5 and bus.chip.display_on
    assert bus.chip.frames == 3  # data command, address + digits, display control
    display.brightness(1)
    display.power(False)
    assert bus.chip.text() == "" and bus.chip.brightness == 1
    # The data line only ever changes while the clock is low, except for the
    # start (fall) and stop (rise) conditions, which pair up.
    starts = stops = 0
    clk = 1
    dio = 1
    for name, level in bus.writes:
        if name == "clk":
            clk = level
        else:
            if clk == 1 and level != dio:
                starts += level == 0
                stops += level == 1
            dio = level
    assert starts == stops == bus.chip.frames


class FakePWM:
    def __init__(self):
        self.hz = 0
        self.duty = None
        self.history: list[tuple[int, int]] = []

    def freq(self, hz):
        self.hz = hz

    def duty_u16(self, duty):
        self.duty = duty
        self.history.append((self.hz, duty))


def test_buzzer_plays_a_pattern_on_schedule_even_when_the_loop_is_late(ManualClock):
    clock = ManualClock()
    pwm = FakePWM()
    player = BuzzerPlayer(pwm, clock)
    player.play("chirp", 0)  # (1800 Hz, 50 on, 20 off), (2600 Hz, 70 on, 0 off)
    assert pwm.history[-1] == (1800, LOUD)
    assert player.update(10) == 40
    # The loop wakes 15 ms late: the second note still starts at 70 ms.
    clock.ms = 65
    assert player.update(65) == 5
    assert pwm.duty == 0
    assert player.update(70) == 70
    assert pwm.history[-1] == (2600, LOUD)
    assert player.update(140) is None
    assert pwm.duty == 0 and player.pattern is None


def test_a_tick_never_cuts_the_alarm_short(ManualClock):
    clock = ManualClock()
    player = BuzzerPlayer(FakePWM(), clock)
    player.play("alarm", 0)
    assert player.play("tick", 100) is False
    assert player.pattern == "alarm"
    assert player.play("alarm", 200) is True  # a new alarm restarts it


def test_countdown_expires_exactly_once_across_the_wrap(ManualClock):
    clock = ManualClock(start=(1 << 30) - 10)
    countdown = Countdown(clock)
    countdown.set("running", 30, clock.ticks_ms())
    clock.ms += 29
    assert countdown.update(clock.ticks_ms()) is False
    assert countdown.remaining(clock.ticks_ms()) == 1
    clock.ms += 1
    assert countdown.update(clock.ticks_ms()) is True
    assert countdown.update(clock.ticks_ms()) is False
    assert countdown.status == "expired" and countdown.remaining(clock.ticks_ms()) == 0
