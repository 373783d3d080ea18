"""TM1637 4-digit 7-segment display: pure encoding, then the two-wire driver.

The encoding half (``encode_char``, ``encode_text``) is pure and shared with
the simulator, which decodes what the driver bit-bangs. The driver takes its
CLK and DIO ``Pin`` objects in the constructor, so tests and the simulator
pass fakes, and it only ever calls ``pin.value(0|1)``.

Segment bits follow the TM1637 datasheet: bit 0 is segment a (top), going
clockwise to f, bit 6 is g (middle), and bit 7 of the second digit lights the
colon on the common clock modules.
"""

try:
    from time import sleep_us as _sleep_us
except ImportError:  # CPython: the simulated chip samples edges, not time
    def _sleep_us(us):
        pass

SEGMENTS = {
    "0": 0x3F, "1": 0x06, "2": 0x5B, "3": 0x4F, "4": 0x66,
    "5": 0x6D, "6": 0x7D, "7": 0x07, "8": 0x7F, "9": 0x6F,
    "A": 0x77, "b": 0x7C, "C": 0x39, "c": 0x58, "d": 0x5E, "E": 0x79,
    "F": 0x71, "G": 0x3D, "H": 0x76, "h": 0x74, "I": 0x30, "i": 0x10,
    "J": 0x1E, "L": 0x38, "n": 0x54, "o": 0x5C, "P": 0x73, "q": 0x67,
    "r": 0x50, "t": 0x78, "U": 0x3E, "u": 0x1C, "y": 0x6E,
    "-": 0x40, "_": 0x08, "=": 0x48, " ": 0x00,
}
# Letters that only exist in the other case on seven segments.
_ALIASES = {
    "a": "A", "B": "b", "D": "d", "e": "E", "f": "F", "g": "9", "j": "J",
    "l": "I", "N": "n", "O": "0", "p": "P", "Q": "q", "R": "r", "s": "5",
    "S": "5", "T": "t", "Y": "y", "Z": "2", "z": "2",
}
COLON = 0x80
DIGITS = 4

_DATA_AUTO = 0x40  # data command: write, auto-increment address
_ADDRESS = 0xC0  # address command | digit position
_CONTROL = 0x80  # display control | 0x08 on | brightness 0-7


def encode_char(ch):
    """Segments for one character. Raises ValueError if it cannot be shown."""
    if ch in SEGMENTS:
        return SEGMENTS[ch]
    if ch in _ALIASES:
        return SEGMENTS[_ALIASES[ch]]
    raise ValueError("cannot show %r on a 7-segment display" % (ch,))


def encode_text(text):
    """Four segment bytes for a display text such as "0:59", "12:05" or "donE".

    With a colon, the part before it is right-aligned on the first two digits
    and the part after it fills the last two, and the colon is lit; without,
    the text is left-aligned. Raises ValueError for text that does not fit or
    a character a 7-segment digit cannot show.
    """
    if ":" in text:
        left, _, right = text.partition(":")
        if len(left) > 2 or len(right) > 2 or ":" in right:
            raise ValueError("%r does not fit M:SS" % (text,))
        chars = " " * (2 - len(left)) + left + right + " " * (2 - len(right))
    else:
        if len(text) > DIGITS:
            raise ValueError("%r is longer than %d characters" % (text, DIGITS))
        chars = text + " " * (DIGITS - len(text))
    out = bytearray(DIGITS)
    for i in range(DIGITS):
        out[i] = encode_char(chars[i])
    if ":" in text:
        out[1] |= COLON
    return out


class TM1637:
    """Drives a TM1637 over its two-wire bus (not I2C: no address, LSB first)."""

    def __init__(self, clk, dio, brightness=7, sleep_us=None):
        self._clk = clk
        self._dio = dio
        self._sleep = sleep_us or _sleep_us
        self._brightness = brightness
        self._on = True
        # Idle bus: both lines high, so the first start condition is clean.
        self._clk.value(1)
        self._dio.value(1)

    def _delay(self):
        self._sleep(5)

    def _start(self):
        # Start condition: DIO falls while CLK is high.
        self._dio.value(0)
        self._delay()
        self._clk.value(0)
        self._delay()

    def _stop(self):
        # Stop condition: DIO rises while CLK is high.
        self._clk.value(0)
        self._dio.value(0)
        self._delay()
        self._clk.value(1)
        self._delay()
        self._dio.value(1)
        self._delay()

    def _write_byte(self, byte):
        for i in range(8):
            self._dio.value((byte >> i) & 1)
            self._delay()
            self._clk.value(1)
            self._delay()
            self._clk.value(0)
            self._delay()
        # Ninth clock: the chip acknowledges by pulling DIO low. We drive it
        # low too rather than read it, so a push-pull pin never fights the chip.
        self._dio.value(0)
        self._clk.value(1)
        self._delay()
        self._clk.value(0)
        self._delay()

    def _command(self, *data):
        self._start()
        for byte in data:
            self._write_byte(byte)
        self._stop()

    def _control(self):
        return _CONTROL | (0x08 if self._on else 0) | self._brightness

    def write(self, segments, position=0):
        """Show segment bytes starting at a digit position (0-3)."""
        if not 0 <= position < DIGITS or position + len(segments) > DIGITS:
            raise ValueError("segments do not fit the display")
        self._command(_DATA_AUTO)
        self._command(_ADDRESS | position, *segments)
        self._command(self._control())

    def show(self, text):
        """Show a text (see encode_text). Raises ValueError if it cannot."""
        self.write(encode_text(text))

    def brightness(self, level=None):
        """Get or set the brightness, 0 (dim) to 7. Raises ValueError if out of range."""
        if level is None:
            return self._brightness
        if not 0 <= level <= 7:
            raise ValueError("brightness is 0 to 7")
        self._brightness = level
        self._command(self._control())
        return level

    def power(self, on):
        """Switch the display on or off without losing what it shows."""
        self._on = bool(on)
        self._command(self._control())
