"""The serial link against the simulated Pico over a real pty, and every fault in the issue.

Each fault test runs a short real countdown through ``run_countdown`` on a
background thread (the service's role) while the fault happens, then checks
what a person would have seen: the simulator's display and buzzer.
"""
from __future__ import annotations

import threading
import time

import pytest
import serial

from companion.devices import TimerSnapshot
from firmware import protocol as p
from firmware.clockface import shown_seconds
from hardware import serial_link
from hardware.runner import run_countdown


def test_raw_protocol_with_pyserial_over_the_pty(sim):
    port = serial.Serial(sim.port, 115200, timeout=0.05)
    reader = p.LineReader(p.EVENTS)
    got: list[p.Message] = []

    def until(pred, timeout=30.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            got.extend(m for m in reader.feed(port.read(256)) if isinstance(m, p.Message))
            if pred():
                return True
        return False

    port.write(p.encode(1, "hello", {"proto": 1}, p.COMMANDS))
    assert until(lambda: any(m.verb == "ack" for m in got))
    assert [m.verb for m in got] == ["hello", "ack"]
    port.write(b"\x00garbage\xff\n@5 sta")  # junk and a half line first
    port.write(p.encode(2, "start", {"ms": 1200}, p.COMMANDS))
    assert until(lambda: any(m.verb == "expired" for m in got))
    assert [m.args["code"] for m in got if m.verb == "error"] == ["cut-short"]
    [tick] = [m.args["ms"] for m in got if m.verb == "tick"]
    assert 900 < tick <= 1000  # sent as the display turned to 0:01
    port.close()
    shown = [e["display"] for e in sim.outputs if "display" in e]
    assert shown[-3:] == ["0:02", "0:01", "0:00"]
    assert any(e.get("buzzer") == "on" for e in sim.outputs)


def test_the_pico_is_found_by_vid_pid_not_by_name(monkeypatch):
    from serial.tools import list_ports
    from serial.tools.list_ports_common import ListPortInfo

    def port(device, vid, pid):
        info = ListPortInfo(device, skip_link_detection=True)
        info.vid, info.pid = vid, pid
        return info

    ports = [port("/dev/ttyACM0", 0x2341, 0x0043),  # an Arduino
             port("/dev/ttyACM1", 0x2E8A, 0x0005),  # the Pico
             port("/dev/ttyS0", None, None)]
    monkeypatch.setattr(list_ports, "comports", lambda: ports)
    assert serial_link.find_pico_port() == "/dev/ttyACM1"
    assert serial_link.find_pico_port((0x1234, 0x5678)) is None


def _countdown(pico, duration_ms, wait_for):
    """Run a countdown on a thread like the service does; returns (thread, box)."""
    box: dict = {}
    thread = threading.Thread(
        target=lambda: box.setdefault("deadline", run_countdown(
            [pico], duration_ms, on_start=lambda d: box.setdefault("start", d))))
    thread.start()
    assert wait_for(lambda: "start" in box)
    return thread, box


def _display_agrees(sim, box) -> bool:
    """The display shows the host's countdown (a second's lag at a turn allowed)."""
    left_ms = (box["start"] - time.monotonic()) * 1000
    text = sim.view()["display"]
    minutes, _, seconds = text.partition(":")
    if not (minutes.isdigit() and seconds.isdigit()):
        return False
    return abs(int(minutes) * 60 + int(seconds) - shown_seconds(left_ms)) <= 1


def test_countdown_on_the_pico_reaches_expiry(make_pico, sim, wait_for):
    events: list[dict] = []
    pico = make_pico(on_event=events.append)
    thread, box = _countdown(pico, 1500, wait_for)
    thread.join()
    assert wait_for(lambda: any(e.get("event") == "expired" for e in events), 2)
    # The device reports "expired" and draws 0:00 in the same moment; its display line may
    # reach the simulator's transcript a little after the host hears the event.
    displays = lambda: [e["display"] for e in sim.outputs if "display" in e]  # noqa: E731
    assert wait_for(lambda: displays()[-1:] == ["0:00"], 2), displays()
    assert displays()[-3:] == ["0:02", "0:01", "0:00"]
    assert sim.view()["buzzer"] == "on"  # the alarm is sounding
    status = pico.status()
    assert status["ok"] and status["state"] == "connected" and status["firmware"] == "1.0.0"


def test_unplug_and_replug_mid_countdown(make_pico, sim, wait_for):
    pico = make_pico()
    pico.timer_changed(TimerSnapshot("running", 4000, 4000))
    box = {"start": time.monotonic() + 4.0}
    assert wait_for(lambda: sim.view()["display"] == "0:04")
    sim.unplug()  # a USB-powered Pico goes dark
    assert sim.view()["display"] == ""
    assert wait_for(lambda: pico.status()["state"] == "searching")
    health = pico.status()
    assert health["ok"] is False and health["history"][-1]["event"] == "lost"
    time.sleep(0.5)
    sim.replug()  # a fresh boot on a new pty
    assert wait_for(lambda: pico.status()["state"] == "connected")
    assert wait_for(lambda: _display_agrees(sim, box), 2)
    assert pico.status()["history"][-1]["event"] == "reconnected"
    assert pico.status()["reconnects"] == 1
    # The re-synced device counts down to zero on its own and sounds the alarm.
    assert wait_for(lambda: sim.view()["display"] == "0:00", 5)
    assert wait_for(lambda: sim.view()["buzzer"] == "on", 1)
    after_boot = [e["display"] for e in sim.outputs if "display" in e]
    after_boot = after_boot[len(after_boot) - 1 - after_boot[::-1].index("--:--"):]
    assert after_boot[-2:] == ["0:01", "0:00"]


def test_unplugged_pico_with_its_own_power_keeps_counting_and_rings(make_pico, sim, wait_for):
    pico = make_pico()
    pico.timer_changed(TimerSnapshot("running", 1500, 1500))
    assert wait_for(lambda: sim.view()["display"] == "0:02")
    sim.unplug(keep_power=True)
    assert wait_for(lambda: pico.status()["state"] == "searching")
    on = wait_for(lambda: [e for e in sim.outputs if e.get("buzzer") == "on"], 3)
    assert on and sim.view()["display"] in ("0:00", "0:01")
    assert wait_for(lambda: sim.view()["display"] == "0:00", 2)


def test_firmware_reboot_mid_countdown_is_resynced(make_pico, sim, wait_for):
    pico = make_pico()
    thread, box = _countdown(pico, 3000, wait_for)
    assert wait_for(lambda: sim.view()["display"] == "0:03")
    sim.reboot()
    assert wait_for(lambda: any(h["event"] == "rebooted" for h in pico.status()["history"]), 2)
    assert wait_for(lambda: _display_agrees(sim, box), 1)
    thread.join()
    assert wait_for(lambda: sim.view()["display"] == "0:00")
    assert sim.view()["boots"] == 2


def test_garbage_and_half_lines_from_the_device_are_rejected(make_pico, sim, wait_for):
    pico = make_pico()
    thread, box = _countdown(pico, 1500, wait_for)
    sim.inject_to_host(b"\x00\xff\xfe garbage\r\n@12 tick running 5")  # cut short by the next frame
    sim.inject_to_host(b"@1 ack 1 idle 0 *0000\n")  # a bad checksum
    sim.inject_to_host(b"Traceback (most recent call last):\r\n")
    thread.join()
    status = pico.status()
    assert status["state"] == "connected"
    assert status["rejected_lines"] >= 2
    assert status["last_noise"] == "Traceback (most recent call last):"
    assert wait_for(lambda: sim.view()["display"] == "0:00")


def test_garbage_on_the_way_to_the_device_is_refused_and_harmless(make_pico, sim, wait_for):
    pico = make_pico()
    thread, box = _countdown(pico, 1500, wait_for)
    sim.inject_to_device(b"@99 start 5000 *FFFF\n\x03\x03@7 pau")
    thread.join()
    assert wait_for(lambda: pico.status()["device_errors"] >= 1)
    assert pico.status()["state"] == "connected"
    assert wait_for(lambda: sim.view()["display"] == "0:00")


def test_a_device_that_stops_answering(make_pico, sim, wait_for):
    events: list[dict] = []
    pico = make_pico(on_event=events.append)
    pico.timer_changed(TimerSnapshot("running", 5000, 5000))
    box = {"start": time.monotonic() + 5.0}
    assert wait_for(lambda: sim.view()["display"] == "0:05")
    sim.freeze()
    assert wait_for(lambda: pico.status()["state"] == "not-answering", 3)
    assert pico.status()["ok"] is False
    # The service's calls still return at once while the device is hung.
    pico.timer_changed(TimerSnapshot("paused", 5000, 3000))
    pico.timer_changed(TimerSnapshot("running", 5000, 3000))
    box["start"] = time.monotonic() + 3.0
    pico.chirp("done")
    sim.thaw()
    assert wait_for(lambda: pico.status()["state"] == "connected", 3)
    assert wait_for(lambda: _display_agrees(sim, box), 2)
    kinds = [e["event"] for e in events if e["source"] == "link"]
    assert "not-answering" in kinds and kinds[-1] in ("reconnected", "resync")


def test_drift_is_caught_by_the_heartbeat_and_corrected(make_pico, sim, wait_for):
    pico = make_pico()
    pico.timer_changed(TimerSnapshot("running", 30000, 30000))
    box = {"start": time.monotonic() + 30.0}
    assert wait_for(lambda: sim.view()["display"] == "0:30")
    # Something sets the device 10 s off behind the host's back.
    sim.inject_to_device(p.encode(4242, "resume", {"ms": 20000}, p.COMMANDS))
    assert wait_for(lambda: pico.status()["resyncs"] >= 1, 2)
    assert wait_for(lambda: _display_agrees(sim, box), 1)
    pico.timer_changed(TimerSnapshot("idle", 30000, 30000))


def test_a_firmware_speaking_another_protocol_is_not_driven(make_pico, sim, wait_for):
    pico = make_pico()
    sim.inject_to_host(p.encode(50, "hello", {"proto": 9, "firmware": "9.0", "boot": "x"}, p.EVENTS))
    assert wait_for(lambda: pico.status()["state"] == "incompatible")
    assert "companion firmware flash" in pico.status()["detail"]


def test_the_pico_button_reaches_the_service(make_pico, sim, wait_for):
    pressed: list[tuple[str, str]] = []
    make_pico(on_button=lambda name, action: pressed.append((name, action)))
    sim.press(0.1)
    assert wait_for(lambda: pressed == [("timer", "press")], 2)


@pytest.mark.parametrize("kind,pattern", [("done", "chirp"), ("error", "error")])
def test_chirps_play_on_the_pico(make_pico, sim, kind, pattern, wait_for):
    pico = make_pico()
    before = len([e for e in sim.outputs if e.get("buzzer") == "on"])
    pico.chirp(kind)
    assert wait_for(lambda: len([e for e in sim.outputs if e.get("buzzer") == "on"]) > before, 2)


def test_a_failing_port_search_is_retried_calmly_and_reported(wait_for):
    calls = []

    def broken_search():
        calls.append(1)
        raise OSError("udev is not answering")

    pico = serial_link.PicoTimer("auto", find_port=broken_search, retry_s=0.1)
    try:
        assert wait_for(lambda: "udev is not answering" in pico.status()["detail"], 2)
        time.sleep(0.5)
        assert len(calls) < 20  # about one try per retry_s, not a busy loop
        assert pico.status()["ok"] is True  # never connected: an absent timer, not a fault
    finally:
        pico.close()
    pico.timer_changed(TimerSnapshot("running", 1000, 1000))  # after close: harmless
    assert pico.status()["state"] == "closed"
