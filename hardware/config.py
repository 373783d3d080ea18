"""The ``[hardware]`` table of the companion config file, read and checked.

Every key has a default, so an empty table (or none) gives the set-up in
docs/hardware/wiring.md. docs/hardware/config.md documents each key. Bad
values raise ``companion.errors.InputError`` naming the key, so the CLI and
``companion serve`` report them as one line.
"""
from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from companion.errors import InputError

Pin = int | str | None


@dataclass(frozen=True)
class HardwareConfig:
    # The Pico USB timer.
    serial_port: str = "auto"  # "auto" (find by usb_id), "none", or a device path
    usb_id: str = "2E8A:0005"
    display_brightness: int = 7
    heartbeat_seconds: float = 1.0
    answer_timeout_seconds: float = 3.0
    # The Pi's own GPIO.
    gpio: str = "auto"  # "auto", "on" (fail without real GPIO) or "off"
    pin_factory: str = ""  # "" = GPIOZERO_PIN_FACTORY, then gpiozero's default
    buzzer_pin: Pin = 18
    buzzer_type: str = "active"  # "active" (on/off) or "passive" (tones by PWM)
    buzzer_active_high: bool = True
    led_running_pin: Pin = 23
    led_last_seconds_pin: Pin = 24
    timer_button_pin: Pin = 17
    done_button_pins: tuple[Pin, ...] = field(default_factory=tuple)
    button_hold_seconds: float = 1.5
    button_bounce_ms: int = 20
    last_seconds: int = 10

    def pins(self) -> dict[str, Pin]:
        """Every GPIO in use, by part name ("buzzer", "done-0", ...)."""
        parts = {
            "buzzer": self.buzzer_pin,
            "led-running": self.led_running_pin,
            "led-last-seconds": self.led_last_seconds_pin,
            "timer": self.timer_button_pin,
        }
        for i, pin in enumerate(self.done_button_pins):
            parts[f"done-{i}"] = pin
        return {name: pin for name, pin in parts.items() if pin is not None}


_KEYS = {f.name: f for f in dataclasses.fields(HardwareConfig)}


def _pin(key: str, value: object) -> Pin:
    if isinstance(value, bool):
        raise InputError(f"hardware.{key}: expected a GPIO number or name, got {value!r}")
    if isinstance(value, int):
        if not 0 <= value <= 53:
            raise InputError(f"hardware.{key}: GPIO {value} does not exist (0-53)")
        return value
    if isinstance(value, str):
        if value.strip().lower() in ("", "none", "off"):
            return None
        return value.strip()
    raise InputError(f"hardware.{key}: expected a GPIO number or name, got {value!r}")


def _number(key: str, value: object, low: float, high: float, kind: type) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"hardware.{key}: expected a number, got {value!r}")
    if kind is int and not isinstance(value, int):
        raise InputError(f"hardware.{key}: expected a whole number, got {value!r}")
    if not low <= value <= high:
        raise InputError(f"hardware.{key}: {value!r} is outside {low:g}-{high:g}")
    return kind(value)


def _choice(key: str, value: object, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise InputError(f"hardware.{key}: {value!r} is not one of {', '.join(choices)}")
    return value  # type: ignore[return-value]


def parse_hardware_config(config: dict | None) -> HardwareConfig:
    """Read the ``hardware`` table of a parsed config file (the whole file's dict).

    Raises InputError naming the key for an unknown key or a bad value, and
    for two parts on the same GPIO.
    """
    table = (config or {}).get("hardware", {})
    if not isinstance(table, dict):
        raise InputError("hardware: expected a table ([hardware])")
    values: dict[str, object] = {}
    for key, value in table.items():
        if key not in _KEYS:
            raise InputError(f"hardware.{key}: unknown key (known: {', '.join(sorted(_KEYS))})")
        if key == "serial_port":
            if not isinstance(value, str) or not value.strip():
                raise InputError("hardware.serial_port: expected \"auto\", \"none\" or a path")
            values[key] = value.strip()
        elif key == "usb_id":
            from hardware.serial_link import parse_vid_pid

            try:
                parse_vid_pid(str(value))
            except ValueError:
                raise InputError(f"hardware.usb_id: {value!r} is not VID:PID like \"2E8A:0005\"")
            values[key] = str(value)
        elif key == "display_brightness":
            values[key] = _number(key, value, 0, 7, int)
        elif key in ("heartbeat_seconds", "answer_timeout_seconds"):
            values[key] = _number(key, value, 0.05, 60, float)
        elif key == "gpio":
            values[key] = _choice(key, value, ("auto", "on", "off"))
        elif key == "pin_factory":
            if not isinstance(value, str):
                raise InputError(f"hardware.pin_factory: expected a name, got {value!r}")
            values[key] = value.strip()
        elif key == "buzzer_type":
            values[key] = _choice(key, value, ("active", "passive"))
        elif key == "buzzer_active_high":
            if not isinstance(value, bool):
                raise InputError(f"hardware.buzzer_active_high: expected true or false, got {value!r}")
            values[key] = value
        elif key == "done_button_pins":
            if not isinstance(value, list):
                raise InputError("hardware.done_button_pins: expected a list like [5, 6, 13, 19]")
            pins = tuple(_pin(f"{key}[{i}]", v) for i, v in enumerate(value))
            values[key] = tuple(p for p in pins if p is not None)
        elif key.endswith("_pin"):
            values[key] = _pin(key, value)
        elif key == "button_hold_seconds":
            values[key] = _number(key, value, 0.2, 30, float)
        elif key == "button_bounce_ms":
            values[key] = _number(key, value, 0, 500, int)
        elif key == "last_seconds":
            values[key] = _number(key, value, 0, 60, int)
    result = HardwareConfig(**values)  # type: ignore[arg-type]
    seen: dict[str, str] = {}
    for part, pin in result.pins().items():
        label = str(pin).upper().removeprefix("GPIO")
        if label in seen:
            raise InputError(f"hardware: {part} and {seen[label]} are both on GPIO {pin}")
        seen[label] = part
    return result


def load_config_file(path: str | Path) -> dict:
    """Parse a TOML config file. Raises InputError naming the file if unreadable."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise InputError(f"{path}: no such config file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML: {exc}") from None
