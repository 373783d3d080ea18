"""Fixtures for the hardware tests.

``mock_factory`` follows gpiozero's own test suite: a fresh MockFactory per
test (with PWM-capable pins, for TonalBuzzer), reset afterwards. Our devices
take the factory as an argument, so gpiozero's global Device.pin_factory is
never touched. ``sim`` is the simulated Pico on a real pseudo-terminal;
``make_pico`` connects a PicoTimer to it with short, test-sized timeouts.
"""
from __future__ import annotations

import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.serial_link import PicoTimer
from hardware.simulator import TICKS_PERIOD, Simulator


def wait_for(predicate, timeout: float = 5.0, interval: float = 0.01):
    """Poll ``predicate`` until it returns something truthy; return that, or None."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= end:
            return value
        time.sleep(interval)


@pytest.fixture(name="wait_for")
def wait_for_fixture():
    return wait_for


@pytest.fixture
def mock_factory():
    factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.reset()


@pytest.fixture
def sim():
    # The firmware's ticks_ms wraps 1.5 s in, so every test crosses the wrap.
    simulator = Simulator(start_ticks=TICKS_PERIOD - 1500).start()
    yield simulator
    simulator.stop()


FAST = {"heartbeat_s": 0.1, "answer_timeout_s": 0.6, "retry_s": 0.1}


@pytest.fixture
def make_pico(sim):
    made: list[PicoTimer] = []

    def make(**kwargs) -> PicoTimer:
        options = {**FAST, "find_port": lambda: sim.port, **kwargs}
        pico = PicoTimer("(simulator)", **options)
        made.append(pico)
        assert wait_for(lambda: pico.status()["state"] == "connected"), pico.status()
        return pico

    yield make
    for pico in made:
        pico.close()
