"""The firmware's timer loop, one step at a time on a simulated board with a manual clock."""
from __future__ import annotations

from firmware import protocol as p
from firmware.patterns import PATTERNS, duration_ms


def verbs(messages):
    return [m.verb for m in messages]


def test_boot_shows_not_synced_and_says_hello(pico):
    assert pico.board.display == "--:--"
    [hello] = pico.link.replies()
    assert hello.verb == "hello"
    assert hello.args == {"proto": p.PROTOCOL_VERSION, "firmware": "1.0.0", "boot": "b00t"}


def test_hello_is_answered_with_hello_then_ack(pico):
    pico.link.replies()
    seq = pico.send("hello", proto=1)
    pico.run(1)
    hello, ack = pico.link.replies()
    assert hello.verb == "hello" and hello.args["boot"] == "b00t"
    assert ack.args == {"ref": seq, "status": "idle", "ms": 0}


def test_a_countdown_ticks_in_the_last_ten_seconds_and_sounds_the_alarm_at_zero(pico):
    pico.send("start", ms=12000)
    pico.run(1)
    assert pico.board.display == "0:12"
    for _ in range(15):  # the host keeps pinging, as the real one does
        pico.send("ping")
        pico.run(1000)
    on_times = [t for t, v in pico.heard("buzzer") if v == "on"]
    # A tick as the display turns to 0:10, 0:09 ... 0:01, then the alarm's beeps at 0:00.
    ticks = [t for t in on_times if t < 12000]
    assert ticks == [2000 + 1000 * k for k in range(10)]
    alarm = [t for t in on_times if t >= 12000]
    assert alarm[0] == 12000
    assert len(alarm) == len(PATTERNS["alarm"])
    shown = [v for _t, v in pico.heard("display")]
    assert shown[-13:] == ["0:12", "0:11", "0:10", "0:09", "0:08", "0:07", "0:06", "0:05",
                           "0:04", "0:03", "0:02", "0:01", "0:00"]
    events = pico.link.replies()
    assert [m.args["ms"] for m in events if m.verb == "tick"] == [1000 * k for k in range(11, 0, -1)]
    assert verbs(events).count("expired") == 1


def test_display_turns_when_a_full_second_has_passed(pico):
    pico.send("start", ms=60000)
    pico.run(999)  # the start was applied at t=0
    assert pico.board.display == "1:00"
    pico.run(1)
    assert pico.board.display == "0:59"


def test_paused_display_blinks_and_resume_counts_from_the_host_value(pico):
    pico.send("pause", ms=30400)
    pico.run(1)
    assert pico.board.display == "0:31"
    pico.run(700)
    assert pico.board.display == ""
    pico.run(300)
    assert pico.board.display == "0:31"
    pico.send("resume", ms=5000)
    pico.run(1)
    assert pico.app.countdown.status == "running"
    assert pico.board.display == "0:05"


def test_cancel_silences_the_alarm_and_shows_the_given_time(pico):
    pico.send("start", ms=100)
    pico.run(200)
    assert pico.board.buzzer == "on"
    pico.send("cancel", ms=60000)
    pico.run(1)
    assert pico.board.buzzer == "off"
    assert pico.board.display == "1:00"
    assert pico.app.countdown.status == "idle"


def test_expire_from_the_host_sounds_only_when_asked_and_only_once(pico):
    pico.send("expire", sound=0)
    pico.run(1)
    assert pico.board.display == "0:00" and pico.board.buzzer == "off"
    pico.send("start", ms=5000)
    pico.send("expire", sound=1)
    pico.run(1)
    assert pico.board.buzzer == "on"
    pico.run(duration_ms("alarm"))
    assert pico.board.buzzer == "off"
    pico.send("expire", sound=1)  # already expired: no second alarm
    pico.run(50)
    assert pico.board.buzzer == "off"


def test_a_resent_line_is_answered_but_applied_once(pico):
    seq = pico.send("start", ms=10000)
    pico.run(3000)
    pico.send("start", seq=seq, ms=10000)  # the host never saw our ack and sent it again
    pico.run(1)
    acks = [m for m in pico.link.replies() if m.verb == "ack"]
    assert [a.args["ref"] for a in acks] == [seq, seq]
    assert acks[-1].args["ms"] == 7000 - 1 or acks[-1].args["ms"] == 7000


def test_bad_arguments_are_refused_with_the_line_number(pico):
    pico.link.replies()
    bad_pattern = pico.send("beep", pattern="fanfare")
    bad_text = pico.send("show", text="WWW")
    bad_level = pico.send("bright", level=9)
    pico.run(1)
    errors = [(m.args["ref"], m.args["code"]) for m in pico.link.replies() if m.verb == "error"]
    assert errors == [(bad_pattern, "bad-pattern"), (bad_text, "bad-text"), (bad_level, "bad-level")]


def test_show_and_brightness_reach_the_display_chip(pico):
    pico.send("show", text="donE")
    pico.send("bright", level=2)
    pico.run(1)
    assert pico.board.display == "donE"
    assert pico.board.chip.brightness == 2
    pico.send("start", ms=3000)
    pico.run(1)
    assert pico.board.display == "0:03"


def test_garbage_gets_rate_limited_error_replies_and_the_link_still_works(pico):
    pico.link.replies()
    for _ in range(20):
        pico.link.inbox += b"@1 start 1000 *0000\n"  # wrong checksum
    pico.link.inbox += b"\x03\x03\x01 mpremote noise \xff\n"  # noise gets no reply
    seq = pico.send("ping")
    pico.run(1)
    replies = pico.link.replies()
    errors = [m for m in replies if m.verb == "error"]
    assert len(errors) == 5 and {(m.args["ref"], m.args["code"]) for m in errors} == {(-1, "checksum")}
    assert [m.args["ref"] for m in replies if m.verb == "ack"] == [seq]


def test_without_a_host_it_stops_chattering_but_still_counts_and_rings(pico):
    pico.send("start", ms=8000)
    pico.run(1)
    pico.link.replies()
    pico.run(8500)  # the host has gone silent
    ticks = [m for m in pico.link.replies() if m.verb == "tick"]
    # Ticks for as long as the host was heard less than 3 s ago, then silence.
    assert [m.args["ms"] for m in ticks] == [7000, 6000]
    assert pico.board.display == "0:00"
    assert [t for t, v in pico.heard("buzzer") if v == "on" and t >= 8000][0] == 8000


def test_button_press_hold_and_bounce(pico):
    pico.link.replies()
    pico.board.press()
    pico.run(100)
    pico.board.release()
    pico.run(50)
    pico.board.press()
    pico.run(1600)
    pico.board.release()
    pico.run(50)
    # Contact bounce: the level flips every 2 ms for 10 ms, then stays down briefly.
    for i in range(5):
        (pico.board.press if i % 2 == 0 else pico.board.release)()
        pico.run(2)
    pico.board.press()
    pico.run(80)
    pico.board.release()
    pico.run(50)
    actions = [m.args["action"] for m in pico.link.replies() if m.verb == "button"]
    assert actions == ["press", "hold", "press"]


def test_countdown_survives_the_ticks_wrap(make_pico):
    pico = make_pico(start_ticks=(1 << 30) - 700)
    pico.send("start", ms=2000)
    pico.run(1999)
    assert pico.app.countdown.status == "running"
    pico.run(1)
    assert pico.app.countdown.status == "expired"
    assert pico.board.buzzer == "on"


def test_a_resync_while_running_never_skips_a_tick(pico):
    pico.send("start", ms=6000)
    pico.run(900)  # 5100 ms left, showing 0:06
    pico.send("resume", ms=4950)  # the host says we are 150 ms slow: now 0:05
    pico.run(1)
    ticks = [t for t, v in pico.heard("buzzer") if v == "on"]
    assert ticks == [900]  # the tick for 0:05 sounds with the correction


def test_repl_ends_the_loop_after_answering(pico):
    pico.link.replies()
    seq = pico.send("repl")
    pico.run(1)
    assert pico.app.running is False
    assert [(m.verb, m.args["ref"]) for m in pico.link.replies()] == [("ack", seq)]
