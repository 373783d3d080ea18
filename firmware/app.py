"""The Pico timer's application: protocol loop, countdown, display, buzzer, button.

``TimerApp`` owns no hardware of its own: ``main.build`` hands it a link
(USB serial on the Pico, a pseudo-terminal in the simulator), a TM1637
driver, a buzzer player, a button and a clock with MicroPython's
``ticks_ms``/``ticks_diff``/``ticks_add``. ``step()`` does one pass of the
loop and returns how many milliseconds it may sleep, so the same code runs on
the board, in the simulator and, one step at a time, in tests.

The host is authoritative: every timer command carries the remaining time
the host wants shown, and commands are idempotent so the host can re-send
its state at any moment (after an unplug, a reboot, a lost line). Between
commands the device counts on its own clock, ticks in the last seconds and
sounds the alarm at zero even if the host has gone away.
"""

try:
    from firmware import protocol
    from firmware.clockface import clock_text, ms_to_next_change, shown_seconds
    from firmware.countdown import EXPIRED, IDLE, PAUSED, RUNNING, Countdown
    from firmware.patterns import PATTERNS
    from firmware.tm1637 import encode_text
except ImportError:  # MicroPython: flat files at the Pico's root
    import protocol
    from clockface import clock_text, ms_to_next_change, shown_seconds
    from countdown import EXPIRED, IDLE, PAUSED, RUNNING, Countdown
    from patterns import PATTERNS
    from tm1637 import encode_text

FIRMWARE_VERSION = "1.0.0"
LAST_SECONDS = 10  # tick once a second below this many seconds
BUTTON_POLL_MS = 5
MAX_WAIT_MS = 50
PAUSE_BLINK_ON_MS = 700  # a paused display blinks: 700 ms on, 300 ms off
HOST_TIMEOUT_MS = 3000  # no line from the host for this long: host is away
ERRORS_PER_SECOND = 5  # a flood of garbage gets this many error replies
NOT_SYNCED_TEXT = "--:--"  # shown from boot until a host sets the countdown


class TimerApp:
    def __init__(self, link, display, buzzer, clock, button=None, led=None,
                 boot_id="0", last_seconds=LAST_SECONDS):
        self.link = link
        self.display = display
        self.buzzer = buzzer
        self.clock = clock
        self.button = button
        self.led = led
        self.boot_id = boot_id
        self.last_seconds = last_seconds
        self.countdown = Countdown(clock)
        self.reader = protocol.LineReader(protocol.COMMANDS)
        self.running = True
        self._seq = 0
        self._last_host_seq = None
        self._host_seen = None  # ticks of the last valid line from the host
        self._text = None  # a text shown instead of the countdown
        self._synced = False
        self._shown = None  # the text last written to the display
        self._led_on = None
        self._last_second = None
        self._error_window = clock.ticks_ms()
        self._errors_in_window = 0

    # -- the loop ---------------------------------------------------------

    def boot(self):
        """Show the not-synced display and announce ourselves to any host."""
        now = self.clock.ticks_ms()
        self._render(now)
        self._send("hello", {
            "proto": protocol.PROTOCOL_VERSION,
            "firmware": FIRMWARE_VERSION,
            "boot": self.boot_id,
        })

    def run(self):
        """Loop until the host sends "repl"."""
        while self.running:
            wait = self.step()
            if wait > 0:
                self.link.wait(wait)

    def step(self):
        """One pass of the loop; returns milliseconds until the next pass is due."""
        now = self.clock.ticks_ms()
        data = self.link.read()
        if data:
            for item in self.reader.feed(data):
                if isinstance(item, protocol.Message):
                    self._host_seen = now
                    self._handle(item, now)
                elif item.reason != "noise":
                    self._error(-1, item.reason, now)
        if self.countdown.update(now):
            self._expire(True, now)
        wait = MAX_WAIT_MS
        remaining = self.countdown.remaining(now)
        if self.countdown.status == RUNNING:
            shown = shown_seconds(remaining)
            if shown != self._last_second:
                if self._last_second is not None and shown < self._last_second \
                        and 1 <= shown <= self.last_seconds:
                    self.buzzer.play("tick", now)
                self._last_second = shown
                if self._host_present(now):
                    self._send("tick", {"status": RUNNING, "ms": remaining})
            wait = min(wait, ms_to_next_change(remaining))
        wait = min(wait, self._render(now))
        buzzer_wait = self.buzzer.update(now)
        if buzzer_wait is not None:
            wait = min(wait, buzzer_wait)
        if self.button is not None:
            action = self.button.update(now)
            if action is not None:
                self._send("button", {"name": self.button.name, "action": action})
            wait = min(wait, BUTTON_POLL_MS)
        return max(0, wait)

    # -- what the display shows -----------------------------------------

    def _render(self, now):
        """Update the display and LED; returns ms until the picture changes by itself."""
        wait = MAX_WAIT_MS
        status = self.countdown.status
        if self._text is not None:
            text = self._text
        elif not self._synced:
            text = NOT_SYNCED_TEXT
        elif status == PAUSED:
            phase = self.clock.ticks_diff(now, self.countdown.since) % 1000
            if phase < PAUSE_BLINK_ON_MS:
                text = clock_text(self.countdown.remaining(now))
                wait = PAUSE_BLINK_ON_MS - phase
            else:
                text = ""
                wait = 1000 - phase
        else:
            text = clock_text(self.countdown.remaining(now))
        if text != self._shown:
            self.display.show(text)
            self._shown = text
        led_on = status == RUNNING
        if self.led is not None and led_on != self._led_on:
            self.led.value(1 if led_on else 0)
            self._led_on = led_on
        return wait

    # -- commands from the host -----------------------------------------

    def _handle(self, msg, now):
        verb = msg.verb
        args = msg.args
        if verb == "hello":
            # A host (re)connected: forget its old sequence numbers.
            self._last_host_seq = msg.seq
            self._send("hello", {
                "proto": protocol.PROTOCOL_VERSION,
                "firmware": FIRMWARE_VERSION,
                "boot": self.boot_id,
            })
            self._ack(msg.seq, now)
            return
        if msg.seq == self._last_host_seq:
            # The host re-sent a line it got no answer to: answer, apply once.
            self._ack(msg.seq, now)
            return
        self._last_host_seq = msg.seq
        if verb == "start" or verb == "resume":
            self._set(RUNNING, args["ms"], now)
        elif verb == "pause":
            self._set(PAUSED, args["ms"], now)
        elif verb == "cancel":
            self._set(IDLE, args["ms"], now)
        elif verb == "expire":
            if self.countdown.status != EXPIRED:
                self._expire(args["sound"] != 0, now)
        elif verb == "beep":
            pattern = args["pattern"]
            if pattern == "off":
                self.buzzer.stop()
            elif pattern in PATTERNS:
                self.buzzer.play(pattern, now)
            else:
                self._error(msg.seq, "bad-pattern", now)
                return
        elif verb == "show":
            try:
                encode_text(args["text"])
            except ValueError:
                self._error(msg.seq, "bad-text", now)
                return
            self._text = args["text"]
        elif verb == "bright":
            if not 0 <= args["level"] <= 7:
                self._error(msg.seq, "bad-level", now)
                return
            self.display.brightness(args["level"])
        elif verb == "repl":
            self.running = False
        self._ack(msg.seq, now)

    def _set(self, status, ms, now):
        if self.buzzer.pattern == "alarm":
            self.buzzer.stop()  # a new countdown (or a cancel) silences the alarm
        was_running = self.countdown.status == RUNNING
        self.countdown.set(status, ms, now)
        self._synced = True
        self._text = None
        if not (was_running and status == RUNNING):
            # A fresh start ticks from the next second; a re-sync while running
            # keeps the last second seen, so a correction never skips a tick.
            self._last_second = shown_seconds(ms)

    def _expire(self, sound, now):
        self.countdown.set(EXPIRED, 0, now)
        self._synced = True
        self._text = None
        self._last_second = 0
        if sound:
            self.buzzer.play("alarm", now)
        self._send("expired", {})

    # -- lines to the host ----------------------------------------------

    def _host_present(self, now):
        # Unsolicited chatter only while a host is listening: USB writes with
        # nobody reading can stall the loop, and the alarm must not stall.
        return self._host_seen is not None and \
            self.clock.ticks_diff(now, self._host_seen) < HOST_TIMEOUT_MS

    def _ack(self, ref, now):
        self._send("ack", {
            "ref": ref,
            "status": self.countdown.status,
            "ms": self.countdown.remaining(now),
        })

    def _error(self, ref, code, now):
        if self.clock.ticks_diff(now, self._error_window) >= 1000:
            self._error_window = now
            self._errors_in_window = 0
        if self._errors_in_window >= ERRORS_PER_SECOND:
            return
        self._errors_in_window += 1
        self._send("error", {"ref": ref, "code": code})

    def _send(self, verb, args):
        frame = protocol.encode(self._seq, verb, args, protocol.EVENTS)
        self._seq = protocol.next_seq(self._seq)
        self.link.write(frame)
