"""Open every timer device the config asks for: the service's one entry point.

    devices = open_devices(config, simulate, on_button)
    for output in devices.outputs: output.timer_changed(snapshot)
    devices.status()          # {"timer_device": {...}, "gpio": {...}} for /api/health
    devices.simulated_view()  # under simulate: what the virtual display shows
    devices.close()

Nothing here blocks: the Pico link and the GPIO patterns run on their own
threads. Under ``simulate`` the Pico is the simulator (the firmware's own
code on a pseudo-terminal, driven over pyserial like the real one) and the
GPIO parts sit on gpiozero's MockFactory, so the whole chain is exercised.
"""
from __future__ import annotations

import logging
import threading
from typing import Callable

from companion.devices import ButtonCallback, TimerOutput
from companion.errors import InputError
from hardware.config import HardwareConfig, parse_hardware_config

log = logging.getLogger(__name__)

EventCallback = Callable[[dict], None]


class Devices:
    """The open timer devices. ``outputs`` are the TimerOutputs to drive."""

    def __init__(self, config: HardwareConfig, *, pico=None, gpio_timer=None, buttons=(),
                 factory=None, gpio_note: str = "", simulator=None) -> None:
        self.config = config
        self.pico = pico
        self.gpio_timer = gpio_timer
        self.buttons = list(buttons)
        self.factory = factory
        self.gpio_note = gpio_note
        self.simulator = simulator
        self.outputs: list[TimerOutput] = [o for o in (pico, gpio_timer) if o is not None]
        self._closed = False

    @property
    def simulated(self) -> bool:
        return self.simulator is not None

    def status(self) -> dict:
        """For /api/health: {"timer_device": {...}, "gpio": {...}}, each with "ok" and "detail"."""
        if self.pico is not None:
            timer_device = self.pico.status()
            timer_device["simulated"] = self.simulated
        else:
            timer_device = {"ok": True, "state": "disabled",
                            "detail": 'no serial timer (hardware.serial_port = "none")'}
        if self.gpio_timer is not None:
            from hardware.gpio import is_mock

            gpio = self.gpio_timer.status()
            gpio.update({
                "state": "mock" if is_mock(self.factory) else "active",
                "detail": self.gpio_note,
                "pin_factory": type(self.factory).__name__,
                "pins": {name: str(pin) for name, pin in self.config.pins().items()},
                "buttons": {b.name: "pressed" if b.pressed else "released" for b in self.buttons},
            })
        else:
            gpio = {"ok": True, "state": "disabled", "detail": self.gpio_note or "GPIO not used"}
        return {"timer_device": timer_device, "gpio": gpio}

    def simulated_view(self) -> dict | None:
        """Under simulate, what the virtual timer shows now, else None.

        {"t": s, "display": "0:59", "buzzer": "on"|"off", "brightness": 0-7,
        "powered": bool, "link": "connected"|..., "gpio": {"buzzer": ...,
        "led_running": ..., "led_last_seconds": ...}}
        """
        if self.simulator is None:
            return None
        view = self.simulator.view()
        view["link"] = self.pico.status()["state"] if self.pico is not None else "disabled"
        if self.gpio_timer is not None:
            def state(device) -> str | None:
                if device is None:
                    return None
                return "on" if device.is_active else "off"

            view["gpio"] = {
                "buzzer": state(self.gpio_timer.buzzer),
                "led_running": state(self.gpio_timer.led_running),
                "led_last_seconds": state(self.gpio_timer.led_last_seconds),
            }
        return view

    def press(self, button: str = "timer", action: str = "press", device: str = "pico") -> None:
        """Under simulate, press a virtual button ("press" or "hold"); returns at once.

        ``device`` "pico" presses the simulated Pico's button (through the
        firmware and the serial protocol); "gpio" drives the mock GPIO pin of
        ``button``. Raises InputError when not simulating or for an unknown
        button or action.
        """
        if self.simulator is None:
            raise InputError("virtual buttons exist only with --simulate-hardware")
        if action not in ("press", "hold"):
            raise InputError(f"button action {action!r} is not press or hold")
        if device == "pico":
            from firmware.button import HOLD_MS

            if button != "timer":
                raise InputError(f"the Pico has only the timer button, not {button!r}")
            self.simulator.press(HOLD_MS / 1000 + 0.2 if action == "hold" else 0.12)
            return
        hold_s = self.config.button_hold_seconds + 0.2 if action == "hold" else 0.12
        for b in self.buttons:
            if b.name == button:
                pin = b.device.pin
                pin.drive_low()
                timer = threading.Timer(hold_s, pin.drive_high)
                timer.daemon = True
                timer.start()
                return
        raise InputError(f"no button named {button!r}")

    def close(self) -> None:
        """Release every device (idempotent). The Pico keeps what it shows."""
        if self._closed:
            return
        self._closed = True
        for button in self.buttons:
            try:
                button.close()
            except Exception:
                log.exception("closing button %s", button.name)
        for output in self.outputs:
            try:
                output.close()
            except Exception:
                log.exception("closing %s", output.name)
        if self.factory is not None:
            try:
                self.factory.close()
            except Exception:
                log.exception("closing the pin factory")
        if self.simulator is not None:
            self.simulator.stop()


def open_devices(config: dict | None, simulate: bool, on_button: ButtonCallback, *,
                 on_event: EventCallback | None = None,
                 pin_factory: str | None = None) -> Devices:
    """Open the timer devices described by the config file's [hardware] table.

    ``config`` is the whole parsed config file (only its "hardware" table is
    read; see docs/hardware/config.md). ``simulate`` runs the simulated Pico
    and mock GPIO pins. ``on_button(name, action)`` is called from a device
    thread with "timer"/"done-N" and "press"/"hold"; it must return quickly.
    ``on_event`` (optional) gets link and device events as dicts, e.g.
    {"source": "link", "event": "lost", "detail": "..."}. ``pin_factory``
    overrides hardware.pin_factory. Raises InputError for a bad config, a
    pin factory that cannot be loaded, or a pin that cannot be used.
    """
    from hardware.gpio import build_gpio, choose_pin_factory, is_mock
    from hardware.serial_link import PicoTimer, parse_vid_pid

    hw = parse_hardware_config(config)
    simulator = pico = factory = gpio_timer = None
    buttons: list = []
    gpio_note = ""
    try:
        if simulate:
            from hardware.simulator import Simulator

            simulator = Simulator().start()
            sim = simulator
            pico = PicoTimer("(simulator)", find_port=lambda: sim.port, on_button=on_button,
                             on_event=on_event, brightness=hw.display_brightness,
                             heartbeat_s=hw.heartbeat_seconds,
                             answer_timeout_s=hw.answer_timeout_seconds)
        elif hw.serial_port.lower() != "none":
            pico = PicoTimer(hw.serial_port, vid_pid=parse_vid_pid(hw.usb_id),
                             on_button=on_button, on_event=on_event,
                             brightness=hw.display_brightness,
                             heartbeat_s=hw.heartbeat_seconds,
                             answer_timeout_s=hw.answer_timeout_seconds)
        if hw.gpio == "off":
            gpio_note = 'GPIO not used (hardware.gpio = "off")'
        else:
            factory, gpio_note = choose_pin_factory(pin_factory or hw.pin_factory,
                                                    simulate=simulate)
            if hw.gpio == "on" and is_mock(factory) and not simulate:
                raise InputError(f'hardware.gpio = "on" but {gpio_note}')
            gpio_timer, buttons = build_gpio(hw, factory, on_button, detail=gpio_note)
    except BaseException:
        for thing in (gpio_timer, pico):
            if thing is not None:
                thing.close()
        for button in buttons:
            button.close()
        if factory is not None:
            factory.close()
        if simulator is not None:
            simulator.stop()
        raise
    return Devices(hw, pico=pico, gpio_timer=gpio_timer, buttons=buttons, factory=factory,
                   gpio_note=gpio_note, simulator=simulator)
