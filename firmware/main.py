"""Boot entry point on the Pico: wires the pins and runs the timer loop.

MicroPython runs this file at boot. ``build`` is also what the simulator
calls, with a simulated ``machine`` module and a pseudo-terminal link, so the
wiring below is exercised by the host's tests too. Holding the button while
plugging the Pico in skips the loop (safe mode) and leaves the REPL free.
"""

try:
    from firmware.app import TimerApp
    from firmware.button import DebouncedButton
    from firmware.buzzer import BuzzerPlayer
    from firmware.tm1637 import TM1637
except ImportError:  # MicroPython: flat files at the Pico's root
    from app import TimerApp
    from button import DebouncedButton
    from buzzer import BuzzerPlayer
    from tm1637 import TM1637

# GPIO numbers on the Pico (docs/hardware/wiring.md). "LED" is the on-board
# LED on both the Pico and the Pico W.
PINS = {"clk": 2, "dio": 3, "buzzer": 15, "button": 14, "led": "LED"}


class StdioLink:
    """The USB serial link: MicroPython's stdin/stdout, read without blocking."""

    def __init__(self):
        import select
        import sys

        self._in = getattr(sys.stdin, "buffer", sys.stdin)
        self._out = getattr(sys.stdout, "buffer", sys.stdout)
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)

    def read(self):
        data = bytearray()
        # One byte at a time: stdin.read(n) would block until n bytes came.
        while len(data) < 128 and self._poll.poll(0):
            byte = self._in.read(1)
            if not byte:
                break
            data.extend(byte if isinstance(byte, (bytes, bytearray)) else byte.encode())
        return bytes(data)

    def write(self, data):
        try:
            self._out.write(data)
        except TypeError:  # a text-only stdout
            self._out.write(data.decode())

    def wait(self, ms):
        self._poll.poll(ms)


def build(machine, link, clock, boot_id="0", pins=PINS):
    """A TimerApp on the given ``machine`` module (real or simulated)."""
    Pin = machine.Pin
    display = TM1637(Pin(pins["clk"], Pin.OUT, value=1), Pin(pins["dio"], Pin.OUT, value=1))
    buzzer = BuzzerPlayer(machine.PWM(Pin(pins["buzzer"])), clock)
    button = DebouncedButton(Pin(pins["button"], Pin.IN, Pin.PULL_UP), "timer", clock)
    led = None
    if pins.get("led") is not None:
        led = Pin(pins["led"], Pin.OUT, value=0)
    return TimerApp(link, display, buzzer, clock, button=button, led=led, boot_id=boot_id)


def _boot_id():
    # A fresh id per boot lets the host tell a reboot from a reconnect.
    try:
        import os

        raw = os.urandom(3)
    except Exception:
        import time

        raw = bytes([time.ticks_ms() & 0xFF, (time.ticks_ms() >> 8) & 0xFF, 0])
    return "%02x%02x%02x" % (raw[0], raw[1], raw[2])


def main():
    import machine
    import micropython
    import sys
    import time

    button = machine.Pin(PINS["button"], machine.Pin.IN, machine.Pin.PULL_UP)
    if button.value() == 0:
        print("companion timer: safe mode (button held at boot), REPL left free")
        return
    # Ctrl-C (0x03) is just a byte on our link: it must not interrupt the loop.
    micropython.kbd_intr(-1)
    try:
        app = build(machine, StdioLink(), time, boot_id=_boot_id())
        app.boot()
        app.run()
    except Exception as exc:  # a bug must not leave the timer dead: reset
        micropython.kbd_intr(3)
        sys.print_exception(exc)
        # Two seconds in which Ctrl-C still reaches the REPL, then start over.
        time.sleep_ms(2000)
        machine.reset()
    finally:
        micropython.kbd_intr(3)


if __name__ == "__main__":
    main()
