"""The serial protocol between the table service and the Pico timer.

One pure-Python module, imported by the firmware under MicroPython (where it
sits at the Pico's root as ``protocol.py``) and by the host under CPython (as
``firmware.protocol``). It uses only what both share: no typing, no
dataclasses, no f-string format specs, no ``bytes.hex``.

A frame is one line of printable ASCII::

    @<seq> <verb> <arg>... *<CRC>\\n

``seq`` is the sender's sequence number (0-65535, wrapping), ``verb`` names
the message, arguments follow the verb's schema, and ``CRC`` is the
CRC-16/CCITT-FALSE of every byte between ``@`` and `` *`` as four uppercase
hex digits. ``@`` always starts a new frame, so a half line cut short by an
unplug is dropped as soon as the next frame begins; anything outside a frame
(the MicroPython banner, a traceback, line noise) is reported as noise and
never mistaken for a message. docs/hardware/protocol.md is the reference.
"""

PROTOCOL_VERSION = 1
MAX_FRAME = 120  # bytes between "@" and "\n"; longer lines are garbage
SEQ_MODULO = 65536

# Argument kinds: "int" is a signed decimal, "uint" a non-negative one, "word"
# a percent-encoded string (never empty).
COMMANDS = {  # host -> device
    "hello": (("proto", "uint"),),
    "ping": (),
    "start": (("ms", "uint"),),
    "pause": (("ms", "uint"),),
    "resume": (("ms", "uint"),),
    "cancel": (("ms", "uint"),),
    "expire": (("sound", "uint"),),
    "beep": (("pattern", "word"),),
    "show": (("text", "word"),),
    "bright": (("level", "uint"),),
    "repl": (),
}
EVENTS = {  # device -> host
    "hello": (("proto", "uint"), ("firmware", "word"), ("boot", "word")),
    "ack": (("ref", "uint"), ("status", "word"), ("ms", "uint")),
    "tick": (("status", "word"), ("ms", "uint")),
    "expired": (),
    "button": (("name", "word"), ("action", "word")),
    "error": (("ref", "int"), ("code", "word")),
}
STATUSES = ("idle", "running", "paused", "expired")

# Bytes that may appear raw inside an argument; everything else is %XX.
_RESERVED = b"%@* "
_HEX = "0123456789ABCDEF"


def _make_crc_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
        table.append(crc)
    return table


# A table costs 256 small ints of RAM on the Pico but makes each byte one
# lookup instead of eight shifts, which matters at the firmware's loop rate.
_CRC_TABLE = _make_crc_table()


def crc16(data):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of a bytes-like object."""
    crc = 0xFFFF
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc


class ProtocolError(ValueError):
    """A frame or message that does not follow the protocol."""


class Message:
    """One decoded frame: sequence number, verb and named arguments."""

    def __init__(self, seq, verb, args=None):
        self.seq = seq
        self.verb = verb
        self.args = args if args is not None else {}

    def __eq__(self, other):
        return (
            isinstance(other, Message)
            and self.seq == other.seq
            and self.verb == other.verb
            and self.args == other.args
        )

    def __ne__(self, other):
        return not self.__eq__(other)

    def __repr__(self):
        return "Message(%r, %r, %r)" % (self.seq, self.verb, self.args)


class Rejected:
    """Bytes that arrived but were not a valid message, and why.

    ``reason`` is "noise" for text outside any frame (a banner, a traceback),
    otherwise a short code such as "checksum", "too-long" or "bad-args".
    """

    def __init__(self, reason, text):
        self.reason = reason
        self.text = text

    def __repr__(self):
        return "Rejected(%r, %r)" % (self.reason, self.text)


def encode_word(text):
    """Percent-encode a non-empty str so it is one printable token.

    Raises ValueError for an empty string (a token cannot be empty).
    """
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    if not data:
        raise ValueError("a word argument cannot be empty")
    out = []
    for byte in data:
        if 0x21 <= byte <= 0x7E and byte not in _RESERVED:
            out.append(chr(byte))
        else:
            out.append("%" + _HEX[byte >> 4] + _HEX[byte & 0x0F])
    return "".join(out)


def decode_word(token):
    """Undo encode_word. Raises ProtocolError for a malformed escape."""
    out = bytearray()
    i = 0
    n = len(token)
    while i < n:
        ch = token[i]
        if ch == "%":
            pair = token[i + 1:i + 3]
            if len(pair) != 2 or pair[0] not in _HEX or pair[1] not in _HEX:
                raise ProtocolError("bad escape")
            out.append(_HEX.index(pair[0]) * 16 + _HEX.index(pair[1]))
            i += 3
        else:
            out.append(ord(ch))
            i += 1
    try:
        return bytes(out).decode("utf-8")
    except Exception:  # MicroPython raises UnicodeError, CPython UnicodeDecodeError
        raise ProtocolError("bad text")


def _encode_arg(kind, value):
    if kind == "word":
        return encode_word(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("expected an int, got %r" % (value,))
    if kind == "uint" and value < 0:
        raise ValueError("expected a non-negative int, got %r" % (value,))
    return str(value)


def _decode_int(token, signed):
    digits = token[1:] if (signed and token[:1] == "-") else token
    if not digits or len(digits) > 10 or not digits.isdigit():
        raise ProtocolError("bad number")
    return int(token)


def encode(seq, verb, args, schema):
    """One frame as bytes, ready to write.

    ``schema`` is COMMANDS (host to device) or EVENTS (device to host); args
    is a dict with the verb's arguments. Raises ValueError for an unknown
    verb, a missing or mistyped argument, or a frame longer than MAX_FRAME.
    """
    if verb not in schema:
        raise ValueError("unknown verb %r" % (verb,))
    if not 0 <= seq < SEQ_MODULO:
        raise ValueError("sequence number out of range: %r" % (seq,))
    parts = [str(seq), verb]
    for name, kind in schema[verb]:
        if name not in args:
            raise ValueError("%s needs %s" % (verb, name))
        parts.append(_encode_arg(kind, args[name]))
    payload = " ".join(parts).encode("ascii")
    if len(payload) + 6 > MAX_FRAME:
        raise ValueError("frame too long")
    return b"@" + payload + (" *%04X\n" % crc16(payload)).encode("ascii")


def parse_frame(frame, schema):
    """Decode one frame (bytes between "@" and the newline, both excluded).

    Raises ProtocolError naming what is wrong: "format", "checksum",
    "unknown-verb", "bad-args".
    """
    frame = bytes(frame)
    if frame[-1:] == b"\r":  # a CRLF line ending (MicroPython's cooked stdout)
        frame = frame[:-1]
    for byte in frame:
        if byte < 0x20 or byte > 0x7E:
            raise ProtocolError("format")
    if len(frame) < 8 or frame[-6:-4] != b" *":
        raise ProtocolError("format")
    crc_text = frame[-4:].decode("ascii")
    for ch in crc_text:
        if ch not in _HEX:
            raise ProtocolError("format")
    payload = frame[:-6]
    if int(crc_text, 16) != crc16(payload):
        raise ProtocolError("checksum")
    tokens = payload.decode("ascii").split(" ")
    if len(tokens) < 2:
        raise ProtocolError("format")
    try:
        seq = _decode_int(tokens[0], False)
    except ProtocolError:
        raise ProtocolError("format")
    if seq >= SEQ_MODULO:
        raise ProtocolError("format")
    verb = tokens[1]
    if verb not in schema:
        raise ProtocolError("unknown-verb")
    spec = schema[verb]
    # A newer peer may append arguments: the ones we know come first.
    if len(tokens) - 2 < len(spec):
        raise ProtocolError("bad-args")
    args = {}
    for i in range(len(spec)):
        name, kind = spec[i]
        token = tokens[2 + i]
        if not token:
            raise ProtocolError("bad-args")
        try:
            if kind == "word":
                args[name] = decode_word(token)
            else:
                args[name] = _decode_int(token, kind == "int")
        except ProtocolError:
            raise ProtocolError("bad-args")
    return Message(seq, verb, args)


class LineReader:
    """Turns a stream of bytes into Messages and Rejected items.

    Feed it whatever the link delivers (single bytes, half lines, several
    lines at once, garbage); it never raises on input and keeps at most
    MAX_FRAME bytes, so a flood of noise cannot exhaust the Pico's RAM.
    """

    def __init__(self, schema):
        self.schema = schema
        self._frame = bytearray()
        self._in_frame = False
        self._overflow = False
        self._noise = bytearray()

    def feed(self, data):
        """Consume bytes; returns a list of Message and Rejected, in order."""
        out = []
        for byte in data:
            if byte == 0x40:  # "@": a new frame starts, whatever came before
                if self._in_frame and not self._overflow:
                    out.append(Rejected("cut-short", self._text(self._frame)))
                self._flush_noise(out)
                self._frame = bytearray()
                self._in_frame = True
                self._overflow = False
            elif byte == 0x0A:  # "\n"
                if self._in_frame:
                    if self._overflow:
                        out.append(Rejected("too-long", self._text(self._frame)))
                    else:
                        try:
                            out.append(parse_frame(self._frame, self.schema))
                        except ProtocolError as exc:
                            out.append(Rejected(exc.args[0], self._text(self._frame)))
                    self._frame = bytearray()
                    self._in_frame = False
                else:
                    self._flush_noise(out)
            elif self._in_frame:
                if len(self._frame) < MAX_FRAME:
                    self._frame.append(byte)
                else:
                    self._overflow = True
            elif len(self._noise) < 80 and byte != 0x0D:
                self._noise.append(byte)
        return out

    def _flush_noise(self, out):
        text = self._text(self._noise).strip()
        if text:
            out.append(Rejected("noise", text))
        self._noise = bytearray()

    @staticmethod
    def _text(data):
        # Printable ASCII for a log line; anything else becomes "?".
        return "".join(chr(b) if 0x20 <= b <= 0x7E else "?" for b in data)


def next_seq(seq):
    """The sequence number after ``seq``."""
    return (seq + 1) % SEQ_MODULO
