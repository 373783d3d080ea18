"""The serial protocol: golden frames from docs/hardware/protocol.md, rejections, properties."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware import protocol as p
from firmware.protocol import COMMANDS, EVENTS, LineReader, Message, Rejected


def test_crc_is_ccitt_false():
    # The catalogue's check value for CRC-16/CCITT-FALSE.
    assert p.crc16(b"123456789") == 0x29B1
    assert p.crc16(b"") == 0xFFFF


# Frames exactly as docs/hardware/protocol.md shows them.
GOLDEN = [
    (COMMANDS, Message(7, "start", {"ms": 60000}), b"@7 start 60000 *4146\n"),
    (EVENTS, Message(0, "hello", {"proto": 1, "firmware": "1.0.0", "boot": "ab12cd"}),
     b"@0 hello 1 1.0.0 ab12cd *3ED6\n"),
    (COMMANDS, Message(12, "show", {"text": "d one"}), b"@12 show d%20one *C1AE\n"),
    (EVENTS, Message(3, "error", {"ref": -1, "code": "checksum"}), b"@3 error -1 checksum *20D4\n"),
]


@pytest.mark.parametrize("schema,message,frame", GOLDEN)
def test_golden_frames(schema, message, frame):
    assert p.encode(message.seq, message.verb, message.args, schema) == frame
    assert LineReader(schema).feed(frame) == [message]


@pytest.mark.parametrize("frame,reason", [
    (b"@7 start 60000 *4147\n", "checksum"),
    (b"@7 start 60001 *4146\n", "checksum"),
    (b"@7 start 60000 *4146\r\n", None),  # CRLF is fine
    (b"@7 start 60000 *41\n", "format"),
    (b"@7 start 60000\n", "format"),
    (b"@7 start 60000 *41g6\n", "format"),
    (b"@7 start 60000 *41a6\n", "format"),  # hex digits are upper case
    (b"@7 start\xff60000 *4146\n", "format"),
    (b"@70000 ping *" + b"%04X" % p.crc16(b"70000 ping") + b"\n", "format"),  # seq > 65535
    (b"@1 launch *" + b"%04X" % p.crc16(b"1 launch") + b"\n", "unknown-verb"),
    (b"@1 start *" + b"%04X" % p.crc16(b"1 start") + b"\n", "bad-args"),
    (b"@1 start -5 *" + b"%04X" % p.crc16(b"1 start -5") + b"\n", "bad-args"),
    (b"@1 start 1e3 *" + b"%04X" % p.crc16(b"1 start 1e3") + b"\n", "bad-args"),
    (b"@1 show %zz *" + b"%04X" % p.crc16(b"1 show %zz") + b"\n", "bad-args"),
    (b"@1 show %FF *" + b"%04X" % p.crc16(b"1 show %FF") + b"\n", "bad-args"),  # not UTF-8
])
def test_rejections_name_the_reason(frame, reason):
    items = LineReader(COMMANDS).feed(frame)
    assert len(items) == 1
    if reason is None:
        assert isinstance(items[0], Message)
    else:
        assert isinstance(items[0], Rejected) and items[0].reason == reason


def test_newer_peer_may_append_arguments():
    payload = b"5 start 1500 extra"
    frame = b"@" + payload + b" *%04X\n" % p.crc16(payload)
    assert LineReader(COMMANDS).feed(frame) == [Message(5, "start", {"ms": 1500})]


def test_half_line_then_new_frame_recovers():
    reader = LineReader(COMMANDS)
    good = p.encode(9, "ping", {}, COMMANDS)
    items = reader.feed(b"@8 sta" + good)
    assert [i.reason for i in items if isinstance(i, Rejected)] == ["cut-short"]
    assert [i for i in items if isinstance(i, Message)] == [Message(9, "ping", {})]


def test_fed_one_byte_at_a_time():
    reader = LineReader(EVENTS)
    frame = p.encode(1, "tick", {"status": "running", "ms": 59000}, EVENTS)
    out = []
    for i in range(len(frame)):
        out += reader.feed(frame[i:i + 1])
    assert out == [Message(1, "tick", {"status": "running", "ms": 59000})]


def test_noise_outside_frames_is_reported_not_parsed():
    reader = LineReader(EVENTS)
    items = reader.feed(b"MicroPython v1.22.0 on 2024-01-01; Raspberry Pi Pico\r\n>>> \n")
    assert [(i.reason, i.text) for i in items] == [
        ("noise", "MicroPython v1.22.0 on 2024-01-01; Raspberry Pi Pico"), ("noise", ">>>")]


def test_overlong_line_is_dropped_and_reader_recovers():
    reader = LineReader(COMMANDS)
    items = reader.feed(b"@" + b"1" * 500 + b"\n" + p.encode(2, "ping", {}, COMMANDS))
    assert [type(i).__name__ for i in items] == ["Rejected", "Message"]
    assert items[0].reason == "too-long"
    assert len(reader._frame) == 0


@pytest.mark.parametrize("verb,args,schema", [
    ("start", {}, COMMANDS),
    ("start", {"ms": -1}, COMMANDS),
    ("start", {"ms": "60"}, COMMANDS),
    ("start", {"ms": True}, COMMANDS),
    ("show", {"text": ""}, COMMANDS),
    ("show", {"text": "x" * 200}, COMMANDS),
    ("launch", {}, COMMANDS),
    ("tick", {"status": "running", "ms": 1}, COMMANDS),  # an event is not a command
])
def test_encode_refuses_bad_messages(verb, args, schema):
    with pytest.raises(ValueError):
        p.encode(1, verb, args, schema)


# -- properties -----------------------------------------------------------------

words = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
uints = st.integers(min_value=0, max_value=10**9)
KIND = {"uint": uints, "int": st.integers(min_value=-10**9, max_value=10**9), "word": words}


@st.composite
def messages(draw, schema):
    verb = draw(st.sampled_from(sorted(schema)))
    args = {name: draw(KIND[kind]) for name, kind in schema[verb]}
    return Message(draw(st.integers(0, p.SEQ_MODULO - 1)), verb, args)


def _encodable(message, schema):
    try:
        return p.encode(message.seq, message.verb, message.args, schema)
    except ValueError:  # too long for one frame: the encoder refuses, as it should
        return None


@given(st.binary(max_size=600))
def test_random_bytes_never_crash_the_reader(data):
    for schema in (COMMANDS, EVENTS):
        reader = LineReader(schema)
        items = reader.feed(data) + reader.feed(b"\n")
        assert all(isinstance(i, (Message, Rejected)) for i in items)
        assert len(reader._frame) <= p.MAX_FRAME


@given(st.data())
def test_every_encoded_message_parses_back(data):
    schema = data.draw(st.sampled_from([COMMANDS, EVENTS]))
    message = data.draw(messages(schema))
    frame = _encodable(message, schema)
    if frame is not None:
        assert LineReader(schema).feed(frame) == [message]


@given(st.data())
def test_garbage_between_frames_loses_no_message(data):
    sent = data.draw(st.lists(messages(EVENTS), min_size=1, max_size=5))
    stream = b""
    expected = []
    for message in sent:
        frame = _encodable(message, EVENTS)
        if frame is None:
            continue
        # Garbage without "@" (the one byte that starts a frame) before each.
        stream += data.draw(st.binary(max_size=40)).replace(b"@", b"") + frame
        expected.append(message)
    got = [i for i in LineReader(EVENTS).feed(stream) if isinstance(i, Message)]
    assert got == expected


@given(st.data())
def test_one_corrupted_byte_never_yields_a_different_message(data):
    message = data.draw(messages(COMMANDS))
    frame = _encodable(message, COMMANDS)
    if frame is None:
        return
    pos = data.draw(st.integers(0, len(frame) - 1))
    new = data.draw(st.integers(0, 255).filter(lambda b: b != frame[pos] and b != 0x40))
    corrupted = frame[:pos] + bytes([new]) + frame[pos + 1:]
    reader = LineReader(COMMANDS)
    got = [i for i in reader.feed(corrupted) + reader.feed(b"\n") if isinstance(i, Message)]
    assert got in ([], [message])


@given(words)
def test_word_encoding_round_trips_and_is_one_printable_token(text):
    token = p.encode_word(text)
    assert all(0x21 <= ord(c) <= 0x7E for c in token) and "@" not in token and "*" not in token
    assert p.decode_word(token) == text


def test_the_example_session_in_protocol_md_parses():
    from pathlib import Path

    doc = Path(__file__).resolve().parents[2] / "docs" / "hardware" / "protocol.md"
    lines = [line for line in doc.read_text().splitlines() if line[:3] in ("> @", "< @")]
    assert len(lines) > 10
    for line in lines:
        schema = COMMANDS if line[0] == ">" else EVENTS
        [message] = LineReader(schema).feed(line[2:].encode() + b"\n")
        assert isinstance(message, Message), line
