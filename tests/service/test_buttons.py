"""The physical buttons as the service hears them (TableService.on_button and activate).

The timer button starts, pauses and resumes the active table's countdown and a
hold cancels it; a player's button says "done" for that player; anything
refused chirps "error" and nothing is ever raised to the device's thread. The
last tests press the buttons through the simulated devices (the Pico's
firmware over a real pty, gpiozero's mock pins), as `companion serve
--simulate-hardware` does.
"""
from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.tables import TableNotFound


def counting_table(service, players=("Ann", "Bob")):
    table, _pin = service.create("counting", list(players), pin="1234")
    return table


def pivit_table(service, players=("Ann", "Bob")):
    table, _pin = service.create("pivit-tiles", list(players), {"timer_seconds": 30}, pin="1234")
    return table


def status(table) -> str:
    return table.view()["timer"]["status"]


def put_timer(service, clock, table, want: str) -> None:
    """Bring the table's countdown to `want` through the service's own commands."""
    if want == "idle":
        return
    service.timer(table.id, "start", seconds=10)
    if want == "paused":
        service.timer(table.id, "pause")
    elif want == "expired":
        clock.advance(11)
        service.fire_due()
    assert status(table) == want


# -- the timer button ----------------------------------------------------------

@pytest.mark.parametrize("before,action,after,refused", [
    ("idle", "press", "running", False),
    ("running", "press", "paused", False),
    ("paused", "press", "running", False),
    ("expired", "press", "running", False),  # time ran out: the next press starts it again
    ("running", "hold", "idle", False),
    ("paused", "hold", "idle", False),
    ("expired", "hold", "idle", False),
    ("idle", "hold", "idle", True),  # nothing to cancel
])
def test_the_timer_button(service, clock, output, before, action, after, refused):
    table = counting_table(service)
    put_timer(service, clock, table, before)
    chirps = list(output.chirps)
    service.on_button("timer", action)
    assert status(table) == after
    assert (output.chirps[len(chirps):] == ["error"]) is refused


def test_a_press_starts_the_countdown_the_rules_ask_for(service, clock):
    table = counting_table(service)
    service.act(table.id, {"type": "race", "player": 1})
    service.on_button("timer", "hold")  # cancelled by hand: the rules do not restart it by themselves
    assert status(table) == "idle"
    service.on_button("timer", "press")
    timer = table.view()["timer"]
    assert timer["status"] == "running" and timer["key"] == "race-1" and timer["duration_ms"] == 5000
    clock.advance(5)
    service.fire_due()
    assert table.view()["state"]["scores"] == [0, 2]  # its expiry counted in the game


def test_a_hand_started_countdown_has_the_configured_length(make_service):
    service = make_service(default_timer_seconds=42)
    table = counting_table(service)
    service.on_button("timer", "press")
    assert table.view()["timer"]["duration_ms"] == 42000


def test_the_outputs_follow_the_button(service, output):
    counting_table(service)
    service.on_button("timer", "press")
    service.on_button("timer", "press")
    service.on_button("timer", "hold")
    assert [s.status for s in output.snapshots[-3:]] == ["running", "paused", "idle"]


def test_presses_from_many_threads_are_each_applied_once(service, output):
    """The button's decision (pause or resume?) and the change are one step: racing presses never collide."""
    table = counting_table(service)
    threads = [threading.Thread(target=lambda: [service.on_button("timer", "press") for _ in range(5)])
               for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert "error" not in output.chirps
    # 40 presses: a start, then 39 alternating pauses and resumes.
    assert status(table) == "paused"
    assert sum(1 for e in service.store.entries(table.id) if e.kind == "timer") == 40


# -- players' buttons ------------------------------------------------------------

def test_a_players_button_says_done_and_chirps(service, output):
    table = pivit_table(service, ("Ann", "Bob", "Cy"))
    service.act(table.id, {"type": "start-round"})
    service.on_button("done-1", "press")
    state = table.view()["state"]
    assert [p["done"] for p in state["players"]] == [False, True, False]
    assert output.chirps[-1] == "done"
    assert table.view()["last_change"]["event"] == {"type": "done", "player": 1}


def test_holding_a_players_button_still_says_done(service, output):
    table = pivit_table(service)
    service.act(table.id, {"type": "start-round"})
    service.on_button("done-0", "hold")
    assert table.view()["state"]["players"][0]["done"] is True
    assert output.chirps[-1] == "done"


@pytest.mark.parametrize("button,why", [
    ("done-0", "the round has not started"),
    ("done-5", "there is no sixth player"),
])
def test_a_players_button_the_rules_refuse_chirps_error(service, output, button, why):
    table = pivit_table(service)
    version = table.version
    service.on_button(button, "press")
    assert output.chirps[-1] == "error", why
    assert table.version == version


def test_other_buttons_and_holds(service, output):
    table = counting_table(service)
    service.on_button("count-0", "press")
    assert table.view()["state"]["scores"] == [1, 0]
    service.on_button("undo", "hold")  # holding undo does nothing, quietly
    assert table.view()["state"]["scores"] == [1, 0] and output.chirps[-1] == "count"
    service.on_button("undo", "press")
    assert table.view()["state"]["scores"] == [0, 0]
    service.on_button("redo", "press")
    assert table.view()["state"]["scores"] == [1, 0]
    service.on_button("timer", "double-click")  # not an action a button has
    assert output.chirps[-1] == "error"


def test_no_table_or_a_failing_log_chirps_error_and_never_raises(service, output):
    service.on_button("timer", "press")
    assert output.chirps == ["error"]
    table = counting_table(service)
    service.store.close()  # the event log cannot be written any more
    service.on_button("timer", "press")
    service.on_button("count-0", "press")
    assert output.chirps[-2:] == ["error", "error"]
    assert status(table) == "idle"


# -- which table the buttons act on --------------------------------------------------

def test_the_buttons_act_on_the_table_last_changed_or_activated(service, clock, output):
    first = counting_table(service)
    second = counting_table(service)
    service.on_button("timer", "press")
    assert (status(first), status(second)) == ("idle", "running")
    service.timer(second.id, "pause")
    snapshots = len(output.snapshots)
    assert service.activate(first.id) is first
    # The display shows the newly active table's countdown at once.
    assert [s.status for s in output.snapshots[snapshots:]] == ["idle"]
    service.activate(first.id)  # already active: nothing to tell the display
    assert len(output.snapshots) == snapshots + 1
    service.on_button("timer", "press")
    assert (status(first), status(second)) == ("running", "paused")
    with pytest.raises(TableNotFound):
        service.activate("nosuch")


# -- a model of the timer button --------------------------------------------------

MODEL = {  # (status, action) -> status after, or None when refused
    ("idle", "press"): "running", ("running", "press"): "paused", ("paused", "press"): "running",
    ("expired", "press"): "running", ("idle", "hold"): None, ("running", "hold"): "idle",
    ("paused", "hold"): "idle", ("expired", "hold"): "idle",
}


@settings(max_examples=40)
@given(st.lists(st.one_of(st.sampled_from(["press", "hold"]), st.floats(0.5, 12)), max_size=20))
def test_the_timer_button_follows_its_model(tmp_path_factory, steps):
    """Presses, holds and waiting in any order: the countdown does what the model says, and
    exactly the refused presses chirp "error"."""
    from companion.store import EventStore
    from companion.tables import TableService
    from companion.timer import ManualClock

    output = type("Chirps", (), {"name": "chirps", "chirps": [], "timer_changed": lambda self, s: None,
                                 "timer_expired": lambda self: None,
                                 "chirp": lambda self, kind: self.chirps.append(kind)})()
    output.chirps = []
    clock = ManualClock()
    service = TableService(EventStore(tmp_path_factory.mktemp("model") / "companion.db"), clock=clock,
                           outputs=[output], default_timer_seconds=10)
    try:
        table, _ = service.create("pivit-tiles", ["Ann", "Bob"], pin="1234")
        model, errors, left = "idle", 0, 0.0
        for step in steps:
            if isinstance(step, float):
                clock.advance(step)
                service.fire_due()
                if model == "running":
                    left -= step
                    if left <= 0:
                        model = "expired"
                continue
            after = MODEL[(model, step)]
            if after is None:
                errors += 1
            else:
                if model in ("idle", "expired") and after == "running":
                    left = 10.0
                model = after
            service.on_button("timer", step)
            assert status(table) == model
        assert output.chirps.count("error") == errors
    finally:
        service.close()


# -- through the simulated devices ---------------------------------------------------

def wait_for(predicate, timeout=30.0):
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= end:
            return value
        time.sleep(0.02)


@pytest.fixture
def simulated(service):
    """The service with the simulated Pico and mock GPIO attached, as `companion serve --simulate-hardware`."""
    pytest.importorskip("hardware.setup", reason="the hardware package is not installed")
    from companion.commands.serve import open_hardware
    from companion.config import Config

    config = Config(hardware={"heartbeat_seconds": 0.2, "button_hold_seconds": 0.3, "done_button_pins": [5, 6]})
    devices = open_hardware(config, True, service.on_button)
    service.outputs.extend(devices.outputs)
    assert wait_for(lambda: devices.status()["timer"]["state"] == "connected")
    yield devices
    devices.close()


def test_the_picos_button_reaches_the_table_through_firmware_and_serial(service, simulated):
    table = pivit_table(service)
    simulated.press("timer", "press")
    assert wait_for(lambda: status(table) == "running")
    # The firmware shows the countdown it was sent back.
    assert wait_for(lambda: simulated.panel()["view"]["display"] in ("0:59", "0:58", "1:00"))
    simulated.press("timer", "press")
    assert wait_for(lambda: status(table) == "paused")
    simulated.press("timer", "hold")
    assert wait_for(lambda: status(table) == "idle")


def test_a_gpio_done_button_says_done_for_its_player(service, simulated):
    table = pivit_table(service)
    service.act(table.id, {"type": "start-round"})
    simulated.press("done-1", "press")
    assert wait_for(lambda: table.view()["state"]["players"][1]["done"])
    assert not table.view()["state"]["players"][0]["done"]
