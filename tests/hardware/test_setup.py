"""open_devices: the service's one entry point, under simulation and with real config."""
from __future__ import annotations

import time

import pytest

from companion.devices import TimerSnapshot
from companion.errors import InputError
from hardware.runner import run_countdown
from hardware.setup import open_devices


@pytest.fixture
def simulated(wait_for):
    pressed: list[tuple[str, str]] = []
    events: list[dict] = []
    devices = open_devices({"hardware": {"heartbeat_seconds": 0.1, "answer_timeout_seconds": 0.6,
                                         "button_hold_seconds": 0.3}},
                           True, lambda name, action: pressed.append((name, action)),
                           on_event=events.append)
    assert wait_for(lambda: devices.status()["timer_device"]["state"] == "connected")
    yield devices, pressed, events
    devices.close()


def test_simulated_devices_drive_the_virtual_display(simulated, wait_for):
    devices, _pressed, _events = simulated
    assert [o.name for o in devices.outputs] == ["pico", "gpio"]
    for output in devices.outputs:
        output.timer_changed(TimerSnapshot("running", 90000, 75000))
    assert wait_for(lambda: devices.simulated_view()["display"] == "1:15")
    view = devices.simulated_view()
    assert view["buzzer"] == "off" and view["link"] == "connected" and view["powered"]
    assert view["gpio"] == {"buzzer": "off", "led_running": "on", "led_last_seconds": "off"}
    for output in devices.outputs:
        output.timer_changed(TimerSnapshot("idle", 90000, 90000))
    assert wait_for(lambda: devices.simulated_view()["display"] == "1:30")


def test_health_reports_both_paths(simulated):
    devices, _pressed, _events = simulated
    health = devices.status()
    assert set(health) == {"timer_device", "gpio"}
    timer = health["timer_device"]
    assert timer["ok"] and timer["simulated"] and timer["firmware"] == "1.0.0"
    gpio = health["gpio"]
    assert gpio["ok"] and gpio["state"] == "mock" and gpio["pin_factory"] == "MockFactory"
    assert gpio["pins"] == {"buzzer": "18", "led-running": "23", "led-last-seconds": "24",
                            "timer": "17"}
    assert gpio["buttons"] == {"timer": "released"}


@pytest.mark.parametrize("device", ["pico", "gpio"])
def test_virtual_buttons_reach_the_service(simulated, wait_for, device):
    devices, pressed, _events = simulated
    devices.press("timer", "press", device=device)
    assert wait_for(lambda: pressed == [("timer", "press")], 2)
    devices.press("timer", "hold", device=device)
    assert wait_for(lambda: pressed == [("timer", "press"), ("timer", "hold")], 3)


def test_unplugged_pico_the_gpio_buzzer_still_sounds_on_time(simulated, wait_for):
    devices, _pressed, events = simulated
    devices.simulator.unplug()
    assert wait_for(lambda: not devices.status()["timer_device"]["ok"])
    buzzer_pin = devices.gpio_timer.buzzer.pin
    buzzer_pin.clear_states()
    run_countdown(devices.outputs, 1500)
    time.sleep(0.05)
    expected = [(0.0, False), (0.5, True), (0.04, False), (0.96, True)]  # tick at 0:01, alarm
    assert len(buzzer_pin.states) >= len(expected)
    buzzer_pin.assert_states_and_times(expected)
    health = devices.status()["timer_device"]
    assert health["state"] == "searching" and health["history"][-1]["event"] == "lost"
    assert any(e["source"] == "link" and e["event"] == "lost" for e in events)
    devices.simulator.replug()
    assert wait_for(lambda: devices.status()["timer_device"]["state"] == "connected")
    assert wait_for(lambda: devices.simulated_view()["display"] == "0:00")  # re-synced: expired


def test_close_is_idempotent_and_stops_the_simulator(simulated):
    devices, _pressed, _events = simulated
    devices.close()
    devices.close()
    assert devices.simulator.view()["powered"] is False


def test_nothing_configured_gives_no_outputs():
    devices = open_devices({"hardware": {"serial_port": "none", "gpio": "off"}}, False,
                           lambda *a: None)
    try:
        assert devices.outputs == []
        health = devices.status()
        assert health["timer_device"]["state"] == "disabled" and health["timer_device"]["ok"]
        assert health["gpio"]["state"] == "disabled"
        assert devices.simulated_view() is None
        with pytest.raises(InputError):
            devices.press()
    finally:
        devices.close()


def test_absent_pico_is_not_a_fault_and_gpio_falls_back_to_mock(monkeypatch, wait_for):
    from serial.tools import list_ports

    monkeypatch.setattr(list_ports, "comports", lambda: [])
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    devices = open_devices({}, False, lambda *a: None)
    try:
        health = devices.status()
        assert health["timer_device"]["state"] == "searching" and health["timer_device"]["ok"]
        assert "2E8A:0005" in health["timer_device"]["detail"]
        if health["gpio"]["state"] == "mock":
            assert health["gpio"]["detail"] == "mock pins: no GPIO on this machine"
    finally:
        devices.close()


@pytest.mark.parametrize("config,message", [
    ({"hardware": {"buzzer_pin": 99}}, "hardware.buzzer_pin"),
    ({"hardware": {"pin_factory": "nosuch"}}, "unknown pin factory"),
    ({"hardware": {"gpio": "on", "pin_factory": "mock", "serial_port": "none"}}, 'gpio = "on"'),
])
def test_bad_config_is_one_input_error(config, message):
    with pytest.raises(InputError, match=message):
        open_devices(config, False, lambda *a: None)
