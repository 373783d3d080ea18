"""The [hardware] table: defaults, every key read, and one clear error per mistake."""
from __future__ import annotations

import pytest

from companion.errors import InputError
from hardware.config import HardwareConfig, load_config_file, parse_hardware_config


def test_defaults_match_the_wiring_doc():
    config = parse_hardware_config({})
    assert config == HardwareConfig()
    assert config.pins() == {"buzzer": 18, "led-running": 23, "led-last-seconds": 24, "timer": 17}
    assert config.serial_port == "auto" and config.usb_id == "2E8A:0005"


def test_every_documented_key_is_read(tmp_path):
    path = tmp_path / "companion.toml"
    path.write_text("""
[hardware]
serial_port = "/dev/ttyACM3"
usb_id = "2E8A:000A"
display_brightness = 3
heartbeat_seconds = 0.5
answer_timeout_seconds = 2
gpio = "on"
pin_factory = "lgpio"
buzzer_pin = "GPIO12"
buzzer_type = "passive"
buzzer_active_high = false
led_running_pin = 20
led_last_seconds_pin = "none"
timer_button_pin = 21
done_button_pins = [5, 6, 13, 19]
button_hold_seconds = 2.0
button_bounce_ms = 30
last_seconds = 5
""")
    config = parse_hardware_config(load_config_file(path))
    assert config.serial_port == "/dev/ttyACM3" and config.usb_id == "2E8A:000A"
    assert config.display_brightness == 3 and config.answer_timeout_seconds == 2.0
    assert config.gpio == "on" and config.pin_factory == "lgpio"
    assert config.buzzer_pin == "GPIO12" and config.buzzer_type == "passive"
    assert config.buzzer_active_high is False and config.led_last_seconds_pin is None
    assert config.done_button_pins == (5, 6, 13, 19)
    assert config.button_hold_seconds == 2.0 and config.button_bounce_ms == 30
    assert config.last_seconds == 5
    assert list(config.pins()) == ["buzzer", "led-running", "timer",
                                   "done-0", "done-1", "done-2", "done-3"]


@pytest.mark.parametrize("table,message", [
    ({"buzer_pin": 18}, "hardware.buzer_pin: unknown key"),
    ({"buzzer_pin": 60}, "hardware.buzzer_pin: GPIO 60 does not exist"),
    ({"buzzer_pin": True}, "hardware.buzzer_pin: expected a GPIO"),
    ({"buzzer_type": "loud"}, "hardware.buzzer_type: 'loud' is not one of active, passive"),
    ({"display_brightness": 8}, "hardware.display_brightness: 8 is outside 0-7"),
    ({"display_brightness": 2.5}, "expected a whole number"),
    ({"heartbeat_seconds": "1"}, "hardware.heartbeat_seconds: expected a number"),
    ({"gpio": "yes"}, "hardware.gpio"),
    ({"usb_id": "pico"}, "hardware.usb_id"),
    ({"serial_port": ""}, "hardware.serial_port"),
    ({"done_button_pins": 5}, "expected a list"),
    ({"done_button_pins": [5, 17]}, "done-1 and timer are both on GPIO 17"),
    ({"led_running_pin": "GPIO18"}, "led-running and buzzer are both on GPIO"),
])
def test_mistakes_name_the_key(table, message):
    with pytest.raises(InputError, match=message):
        parse_hardware_config({"hardware": table})


def test_config_file_errors_name_the_file(tmp_path):
    with pytest.raises(InputError, match="no such config file"):
        load_config_file(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[hardware\n")
    with pytest.raises(InputError, match="bad.toml: not valid TOML"):
        load_config_file(bad)


def test_the_documented_example_is_the_defaults():
    import re
    import tomllib
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "hardware" / "config.md").read_text()
    [block] = re.findall(r"```toml\n(.*?)```", doc, re.S)
    assert parse_hardware_config(tomllib.loads(block)) == HardwareConfig()
