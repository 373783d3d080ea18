# A countdown scenario run twice by test_micropython.py: under real MicroPython
# (the WebAssembly port) and under CPython, both with the firmware's files
# flat on the path as on the Pico. Only what both Pythons share is used here.
# Prints one line per thing that happens; the two transcripts must match.
import main
import protocol
from tm1637 import SEGMENTS

PERIOD = 1 << 30
GLYPHS = {}
for ch in SEGMENTS:
    if SEGMENTS[ch] not in GLYPHS:
        GLYPHS[SEGMENTS[ch]] = ch


class Clock:
    def __init__(self, ms):
        self.ms = ms

    def ticks_ms(self):
        return self.ms % PERIOD

    def ticks_diff(self, a, b):
        return ((a - b + PERIOD // 2) % PERIOD) - PERIOD // 2

    def ticks_add(self, a, d):
        return (a + d) % PERIOD


clock = Clock(PERIOD - 1500)  # the countdown crosses the ticks wrap
t0 = clock.ms
log = []


def note(text):
    log.append("%5d %s" % (clock.ms - t0, text))


class Chip:
    """Just enough of a TM1637 to read the digits back."""

    def __init__(self):
        self.clk = self.dio = 1
        self.frame = None
        self.bits = self.n = 0
        self.ram = bytearray(4)
        self.shown = None

    def edge(self, clk, dio):
        old_clk, old_dio = self.clk, self.dio
        self.clk, self.dio = clk, dio
        if old_clk and clk and old_dio != dio:
            if not dio:
                self.frame, self.bits, self.n = [], 0, 0
            elif self.frame:
                frame, self.frame = self.frame, None
                if frame[0] & 0xC0 == 0xC0:
                    for i in range(len(frame) - 1):
                        self.ram[(frame[0] & 7) + i] = frame[1 + i]
                    text = "".join([GLYPHS.get(b & 0x7F, "?") for b in self.ram])
                    if self.ram[1] & 0x80:
                        text = text[:2] + ":" + text[2:]
                    text = text.strip()
                    if text != self.shown:
                        self.shown = text
                        note("display " + text)
        elif not old_clk and clk and self.frame is not None:
            if self.n < 8:
                self.bits |= (dio & 1) << self.n
                self.n += 1
            else:
                self.frame.append(self.bits)
                self.bits = self.n = 0


chip = Chip()
levels = {}


class Machine:
    class Pin:
        IN = 0
        OUT = 1
        PULL_UP = 1

        def __init__(self, id, mode=-1, pull=-1, value=None):
            self.id = id
            if value is not None:
                self.value(value)

        def value(self, v=None):
            if v is None:
                return levels.get(self.id, 1)
            levels[self.id] = v
            if self.id in (2, 3):
                chip.edge(levels.get(2, 1), levels.get(3, 1))

    class PWM:
        def __init__(self, pin):
            self.hz = 0
            self.on = False

        def freq(self, hz):
            self.hz = hz

        def duty_u16(self, duty):
            if (duty > 0) != self.on:
                self.on = duty > 0
                note("buzzer %s %d" % ("on" if self.on else "off", self.hz))


class Link:
    def __init__(self):
        self.inbox = bytearray()
        self.reader = protocol.LineReader(protocol.EVENTS)

    def read(self):
        data = bytes(self.inbox)
        self.inbox = bytearray()
        return data

    def write(self, data):
        for m in self.reader.feed(data):
            args = " ".join(["%s=%s" % (k, m.args[k]) for k in sorted(m.args)])
            note("sent %s %s" % (m.verb, args))

    def wait(self, ms):
        pass


link = Link()
app = main.build(Machine, link, clock, boot_id="same")
app.boot()
link.inbox.extend(protocol.encode(1, "hello", {"proto": 1}, protocol.COMMANDS))
link.inbox.extend(b"\x03\x03garbage\n@9 sta")
link.inbox.extend(protocol.encode(2, "start", {"ms": 2500}, protocol.COMMANDS))
seq = 3
end = clock.ms + 5000
next_ping = clock.ms + 1000
while clock.ms < end:
    if clock.ms >= next_ping:
        link.inbox.extend(protocol.encode(seq, "ping", {}, protocol.COMMANDS))
        seq += 1
        next_ping += 1000
    wait = app.step()
    clock.ms += max(1, min(wait, next_ping - clock.ms))
for line in log:
    print(line)
print("done")
