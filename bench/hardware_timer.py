"""How close to the deadline the timer hardware reacts, with the simulator.

Runs N countdowns (default 50 of 2 s) through the real chain: run_countdown
(the host's authoritative deadline) -> PicoTimer over pyserial -> a pty ->
the firmware's own code on a simulated board; and in parallel a GpioTimer on
gpiozero's mock pins. Prints, in milliseconds after the host's deadline:

- host expiry: when the host called timer_expired on the outputs;
- device "expired" event: when the host received the Pico's expired line;
- device buzzer on: when the firmware switched the PWM buzzer on;
- GPIO buzzer on: when the mock GPIO buzzer pin went high;

and how the Pico's display compared with the host's countdown: the largest
difference in whole seconds shown, and how late each display change came
after the host's own countdown changed second. No pass/fail: figures only.

    .venv/bin/python bench/hardware_timer.py [--runs 50] [--seconds 2] [--json]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.devices import TimerSnapshot  # noqa: E402
from firmware.clockface import shown_seconds  # noqa: E402
from hardware.gpio import GpioTimer, mock_factory  # noqa: E402
from hardware.runner import run_countdown  # noqa: E402
from hardware.serial_link import PicoTimer  # noqa: E402
from hardware.simulator import Simulator  # noqa: E402


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def summary(values: list[float]) -> dict:
    return {"n": len(values), "p50": round(percentile(values, 50), 2),
            "p99": round(percentile(values, 99), 2), "max": round(max(values), 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.runs < 1 or not 0.5 <= args.seconds <= 60:
        parser.error("--runs >= 1 and --seconds between 0.5 and 60")

    lock = threading.Lock()
    shown: list[tuple[float, str]] = []  # (monotonic, display text)
    buzzer_on: list[float] = []
    expired_events: list[float] = []

    def on_output(event: dict) -> None:
        now = time.monotonic()
        with lock:
            if "display" in event:
                shown.append((now, event["display"]))
            elif event["buzzer"] == "on":
                buzzer_on.append(now)

    def on_event(event: dict) -> None:
        if event["source"] == "device" and event["event"] == "expired":
            with lock:
                expired_events.append(time.monotonic())

    factory = mock_factory()
    from gpiozero import Buzzer

    gpio = GpioTimer(Buzzer(18, pin_factory=factory), last_seconds=10)
    gpio_pin = factory.pin(18)
    figures: dict[str, list[float]] = {"host expiry": [], "device expired event": [],
                                       "device buzzer on": [], "GPIO buzzer on": []}
    display_diff = 0
    display_lag: list[float] = []
    duration_ms = int(args.seconds * 1000)
    with Simulator(on_output) as sim:
        pico = PicoTimer("(simulator)", find_port=lambda: sim.port, on_event=on_event)
        end = time.monotonic() + 5
        while pico.status()["state"] != "connected" and time.monotonic() < end:
            time.sleep(0.01)
        if pico.status()["state"] != "connected":
            print("bench: the simulated Pico did not connect", file=sys.stderr)
            return 1
        try:
            for run in range(args.runs):
                with lock:
                    shown.clear()
                    buzzer_on.clear()
                    expired_events.clear()
                gpio_pin.clear_states()
                cleared_at = gpio_pin._last_change  # the mock pin's own time base
                box: dict = {}
                run_countdown([pico, gpio], duration_ms, on_start=lambda d: box.update(deadline=d))
                host_done = time.monotonic()
                time.sleep(0.25)  # let the device's lines and buzzer changes arrive
                deadline = box["deadline"]
                with lock:
                    figures["host expiry"].append((host_done - deadline) * 1000)
                    if expired_events:
                        figures["device expired event"].append((expired_events[0] - deadline) * 1000)
                    late_on = [t for t in buzzer_on if t >= deadline - 0.5]
                    if late_on:
                        figures["device buzzer on"].append((late_on[0] - deadline) * 1000)
                    changes = []  # (monotonic, seconds shown) while the countdown ran
                    for t, text in shown:
                        minutes, _, seconds = text.partition(":")
                        if minutes.isdigit() and seconds.isdigit() and t >= deadline - args.seconds:
                            changes.append((t, int(minutes) * 60 + int(seconds)))
                    for t, value in changes:
                        if value < shown_seconds(duration_ms):
                            # The host's countdown turned to `value` at deadline - value s.
                            display_lag.append((t - (deadline - value)) * 1000)
                    # Both sides are step functions: the largest gap between them
                    # shows just after one of them changes.
                    host_changes = [deadline - v for v in range(shown_seconds(duration_ms))]
                    for c in [t for t, _ in changes] + host_changes:
                        current = [v for t, v in changes if t <= c]
                        if current and c <= deadline:
                            host_value = shown_seconds(int((deadline - c) * 1000) - 1)
                            display_diff = max(display_diff, abs(current[-1] - host_value))
                # The GPIO buzzer's last switch-on is the alarm's first beep.
                t = cleared_at
                gpio_on = None
                for state in gpio_pin.states[1:]:
                    t += state.timestamp
                    if state.state and t >= deadline - 0.5 and gpio_on is None:
                        gpio_on = t
                if gpio_on is not None:
                    figures["GPIO buzzer on"].append((gpio_on - deadline) * 1000)
                for output in (pico, gpio):  # silence the alarm before the next run
                    output.timer_changed(TimerSnapshot("idle", duration_ms, duration_ms))
                time.sleep(0.1)
        finally:
            pico.close()
            gpio.close()
            factory.close()

    result = {
        "runs": args.runs,
        "seconds": args.seconds,
        "latency_ms_after_deadline": {k: summary(v) for k, v in figures.items() if v},
        "display_max_difference_s": display_diff,
        "display_change_lag_ms": summary(display_lag) if display_lag else None,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.runs} countdowns of {args.seconds:g} s, simulated Pico over a pty + mock GPIO")
    print(f"{'ms after the deadline':<24}{'n':>5}{'p50':>9}{'p99':>9}{'max':>9}")
    for name, s in result["latency_ms_after_deadline"].items():
        print(f"{name:<24}{s['n']:>5}{s['p50']:>9.2f}{s['p99']:>9.2f}{s['max']:>9.2f}")
    print(f"display vs host countdown: largest difference {display_diff} s "
          "(for as long as the lag below, as each second turns)")
    if display_lag:
        s = result["display_change_lag_ms"]
        print(f"display change after the host's: p50 {s['p50']:.2f} ms, p99 {s['p99']:.2f} ms, "
              f"max {s['max']:.2f} ms over {s['n']} changes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
