"""The Pico USB timer, driven over pyserial from a background thread.

``PicoTimer`` is a ``companion.devices.TimerOutput``. The service's calls only
record what the display should show and wake the link thread; they never
touch the port, so a slow, unplugged or hung device can never block the
service. The thread:

- finds the Pico by USB VID:PID (2E8A:0005), never by a ``ttyACM`` name, and
  opens it; retries every ``retry_s`` while there is none;
- says hello, checks the protocol version, then sends the countdown state;
- pings every ``heartbeat_s``; each acknowledgement carries what the device
  shows, and any disagreement (a reboot, a lost line, drift) is re-synced;
- gives up on a device that has not answered for ``answer_timeout_s``,
  closes the port and starts over, so a replug or a recovered device is
  picked up again;
- keeps a short history of what happened for ``/api/health``.

Every timer command carries the host's remaining time and the device treats
them as idempotent state setters, so re-syncing is just sending the state.
POSIX only (select on the port and a wake-up pipe), like the Pi it runs on.
"""
from __future__ import annotations

import collections
import logging
import os
import random
import select
import threading
import time
from datetime import datetime, timezone
from typing import Callable

from companion.devices import ButtonCallback, TimerSnapshot
from firmware import protocol
from firmware.clockface import clock_text
from firmware.patterns import duration_ms

log = logging.getLogger(__name__)

VID_PID = (0x2E8A, 0x0005)  # Raspberry Pi Pico running MicroPython
BAUD = 115200  # ignored by USB CDC, but pyserial wants one
DRIFT_TOLERANCE_MS = 250  # re-sync when the device is further off than this
ACK_TIMEOUT_S = 0.5  # a state command unanswered this long is sent again
HELLO_RETRY_S = 1.0
CHIRPS = {"done": "chirp", "error": "error"}

EventCallback = Callable[[dict], None]


def parse_vid_pid(text: str) -> tuple[int, int]:
    """"2E8A:0005" -> (0x2E8A, 0x0005). Raises ValueError if malformed."""
    vid, sep, pid = text.partition(":")
    if not sep:
        raise ValueError(f"{text!r} is not VID:PID")
    return int(vid, 16), int(pid, 16)


def find_pico_port(vid_pid: tuple[int, int] = VID_PID) -> str | None:
    """The device path of the first USB serial port with this VID:PID, or None."""
    from serial.tools import list_ports

    for info in sorted(list_ports.comports(), key=lambda p: p.device):
        if (info.vid, info.pid) == vid_pid:
            return info.device
    return None


def _now_iso() -> str:
    return datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")


class PicoTimer:
    """The Pico timer as a TimerOutput; all I/O happens on its own thread.

    ``port`` is "auto" (find by ``vid_pid``) or a device path; ``find_port``,
    if given, replaces both (the simulator passes its current pty). Callbacks
    run on the link thread and must return quickly.
    """

    name = "pico"

    def __init__(
        self,
        port: str = "auto",
        *,
        vid_pid: tuple[int, int] = VID_PID,
        find_port: Callable[[], str | None] | None = None,
        on_button: ButtonCallback | None = None,
        on_event: EventCallback | None = None,
        brightness: int | None = None,
        heartbeat_s: float = 1.0,
        answer_timeout_s: float = 3.0,
        retry_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if find_port is None:
            if port == "auto":
                find_port = lambda: find_pico_port(vid_pid)  # noqa: E731
            else:
                find_port = lambda: port if os.path.exists(port) else None  # noqa: E731
        self._find_port = find_port
        self._port_setting = port
        self._vid_pid = vid_pid
        self._on_button = on_button
        self._on_event = on_event
        self._brightness = brightness
        self._heartbeat_s = heartbeat_s
        self._answer_timeout_s = answer_timeout_s
        self._retry_s = retry_s
        self._clock = clock

        self._lock = threading.Lock()
        # What the host wants shown: (status, remaining_ms, clock stamp).
        self._desired: tuple[str, int, float] | None = None
        self._alarm_until = 0.0  # an expiry newer than this still sounds on re-sync
        self._oneshots: collections.deque[tuple[str, dict]] = collections.deque(maxlen=8)
        self._epoch = 0  # bumped whenever the desired state changes
        self._resync = False

        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._closing = False
        self._ser = None
        self._reader = protocol.LineReader(protocol.EVENTS)
        self._seq = random.randrange(protocol.SEQ_MODULO)

        # Link state, read by status() from other threads (under _lock).
        self._state = "searching"
        self._detail = "looking for the Pico"
        self._port: str | None = None
        self._firmware: str | None = None
        self._proto: int | None = None
        self._boot: str | None = None
        self._ever_connected = False
        self._last_heard: float | None = None
        self._opened_at = 0.0
        self._hello_at = 0.0
        self._last_ping = 0.0
        self._pings: dict[int, int] = {}  # ping seq -> epoch when sent
        self._state_cmd: tuple[int, float] | None = None  # unacknowledged state command
        self._device: dict | None = None  # last status/ms the device reported
        self._lost_at: float | None = None
        self._counts = collections.Counter()
        self._last_noise: str | None = None
        self._history: collections.deque[dict] = collections.deque(maxlen=20)

        self._thread = threading.Thread(target=self._run, name="pico-link", daemon=True)
        self._thread.start()

    # -- TimerOutput: called by the service, never blocks -------------------

    def timer_changed(self, snapshot: TimerSnapshot) -> None:
        with self._lock:
            now = self._clock()
            ms = max(0, int(snapshot.remaining_ms))
            if self._desired is not None and self._desired[0] == snapshot.status:
                if snapshot.status == "expired":
                    return  # a periodic re-sync of an expiry we already know
                old_status, old_ms, stamp = self._desired
                if old_status == "running":
                    old_ms -= int((now - stamp) * 1000)
                if abs(old_ms - ms) <= 50:
                    return  # a periodic re-sync that agrees: nothing to send
            self._desired = (snapshot.status, ms, now)
            self._epoch += 1
            self._resync = True
        self._wake()

    def timer_expired(self) -> None:
        with self._lock:
            now = self._clock()
            self._desired = ("expired", 0, now)
            self._alarm_until = now + duration_ms("alarm") / 1000
            self._epoch += 1
            self._resync = True
        self._wake()

    def chirp(self, kind: str) -> None:
        self._queue("beep", {"pattern": CHIRPS.get(kind, "chirp")})

    def show_text(self, text: str) -> None:
        """Show a short text (up to 4 characters) until the next timer change."""
        self._queue("show", {"text": text or " "})

    def set_brightness(self, level: int) -> None:
        """Display brightness 0-7. Raises ValueError if out of range."""
        if not 0 <= level <= 7:
            raise ValueError("brightness is 0 to 7")
        with self._lock:
            self._brightness = level
        self._queue("bright", {"level": level})

    def status(self) -> dict:
        with self._lock:
            now = self._clock()
            if self._state == "connected":
                ok = True
            elif self._state == "searching" and not self._ever_connected:
                ok = True  # no Pico attached is a valid set-up, not a fault
            else:
                ok = False
            return {
                "ok": ok,
                "state": self._state,
                "detail": self._detail,
                "port": self._port,
                "firmware": self._firmware,
                "protocol": self._proto,
                "boot": self._boot,
                "last_heard_s": None if self._last_heard is None
                else round(now - self._last_heard, 3),
                "device": dict(self._device) if self._device else None,
                "reconnects": self._counts["reconnects"],
                "resyncs": self._counts["resyncs"],
                "rejected_lines": self._counts["rejected"],
                "device_errors": self._counts["device_errors"],
                "last_noise": self._last_noise,
                "history": list(self._history),
            }

    def close(self) -> None:
        self._closing = True
        self._wake()
        self._thread.join(timeout=5)
        self._close_port()
        fds, self._wake_r, self._wake_w = (self._wake_r, self._wake_w), -1, -1
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass
        with self._lock:
            self._state = "closed"
            self._detail = "closed"

    # -- helpers for the service's side ------------------------------------

    def _queue(self, verb: str, args: dict) -> None:
        with self._lock:
            if self._state != "connected":
                return  # a beep for a device that is not there is just dropped
            self._oneshots.append((verb, args))
        self._wake()

    def _wake(self) -> None:
        fd = self._wake_w
        if fd < 0:
            return  # closed: there is no thread left to wake
        try:
            os.write(fd, b"x")
        except (BlockingIOError, OSError):
            pass  # already woken (pipe full) or closing

    def _emit(self, event: dict) -> None:
        if self._on_event is not None:
            try:
                self._on_event(event)
            except Exception:  # a listener's bug must not kill the link
                log.exception("pico event listener failed")

    def _note(self, text: str, event: str) -> None:
        """Record something a person should know on /api/health and the page."""
        log.info("pico: %s", text)
        self._history.append({"at": _now_iso(), "event": event, "detail": text})
        self._emit({"source": "link", "event": event, "detail": text})

    def _set_state(self, state: str, detail: str) -> None:
        with self._lock:
            self._state = state
            self._detail = detail

    # -- the link thread ----------------------------------------------------

    def _run(self) -> None:
        while not self._closing:
            try:
                if self._ser is None:
                    if not self._connect():
                        self._sleep(self._retry_s)
                    continue
                self._service()
            except Exception as exc:  # SerialException, OSError: the link broke
                was_open = self._ser is not None
                self._lost(exc)
                if not was_open:  # failing before a port was even open: do not spin
                    self._sleep(self._retry_s)

    def _sleep(self, seconds: float) -> None:
        ready, _, _ = select.select([self._wake_r], [], [], seconds)
        if ready:
            self._drain_wake()

    def _drain_wake(self) -> None:
        try:
            while os.read(self._wake_r, 64):
                pass
        except (BlockingIOError, OSError):
            pass

    def _connect(self) -> bool:
        import serial

        port = self._find_port()
        if port is None:
            if self._state != "not-answering":
                self._set_state("searching", self._searching_detail())
            return False
        try:
            ser = serial.Serial(port, BAUD, timeout=0, write_timeout=0.5)
        except (serial.SerialException, OSError, ValueError) as exc:
            self._set_state("searching", f"cannot open {port}: {exc}")
            return False
        now = self._clock()
        self._ser = ser
        self._reader = protocol.LineReader(protocol.EVENTS)
        self._opened_at = now
        self._last_ping = now
        self._pings.clear()
        self._state_cmd = None
        with self._lock:
            self._port = port
            if self._state != "not-answering":  # keep saying so until it answers
                self._state = "connecting"
                self._detail = f"opened {port}, waiting for the timer to answer"
        self._send_hello(now)
        return True

    def _searching_detail(self) -> str:
        if self._port_setting == "auto":
            vid, pid = self._vid_pid
            what = f"no Pico timer on USB ({vid:04X}:{pid:04X})"
        else:
            what = f"no timer at {self._port_setting}"
        if self._lost_at is not None:
            return f"{what} since {self._clock() - self._lost_at:.0f} s; retrying"
        return what

    def _close_port(self) -> None:
        ser, self._ser = self._ser, None
        if ser is not None:
            try:
                ser.close()
            except Exception:
                pass

    def _lost(self, exc: BaseException) -> None:
        was_open = self._ser is not None
        was = self._state
        self._close_port()
        if not was_open:
            self._set_state("searching", f"cannot look for the timer: {exc}")
            return
        self._lost_at = self._clock()
        if was == "connected":
            self._note(f"timer unplugged or link broken ({exc}); the countdown goes on", "lost")
        self._set_state("searching", f"link lost: {exc}")

    def _not_answering(self) -> None:
        was = self._state
        self._close_port()
        if was != "not-answering":
            self._lost_at = self._clock()
            self._note(
                f"timer not answering for {self._answer_timeout_s:.0f} s; "
                "the countdown goes on, reconnecting", "not-answering")
        self._set_state("not-answering",
                        f"{self._port}: no answer; retrying every {self._retry_s:.0f} s")
        self._sleep(self._retry_s)

    def _service(self) -> None:
        """One pass while the port is open: send what is due, then read."""
        now = self._clock()
        state = self._state
        heard = self._last_heard if self._last_heard is not None else 0.0
        if state == "incompatible":
            pass  # not ours to drive or ping: just listen, until it is reflashed
        elif now - max(heard, self._opened_at) > self._answer_timeout_s:
            self._not_answering()
            return
        if state in ("connecting", "not-answering"):
            if now - self._hello_at >= HELLO_RETRY_S:
                self._send_hello(now)
        elif state == "connected":
            self._send_due(now)
        if state == "connected":
            due = self._last_ping + self._heartbeat_s
        elif state in ("connecting", "not-answering"):
            due = self._hello_at + HELLO_RETRY_S
        else:
            due = now + 0.25
        # Sleep until the next line is due (a wake-up pipe cuts it short), but
        # never spin and never sleep so long that a timeout goes unnoticed.
        timeout = min(max(due - now, 0.001), 0.25)
        fd = self._ser.fileno()
        ready, _, _ = select.select([fd, self._wake_r], [], [], timeout)
        if self._wake_r in ready:
            self._drain_wake()
        if fd in ready:
            # Ready with nothing to read means the device went away: pyserial
            # raises for it, and for EIO once the USB device (or pty) is gone.
            data = self._ser.read(max(1, self._ser.in_waiting))
            for item in self._reader.feed(data):
                if isinstance(item, protocol.Message):
                    self._handle(item)
                else:
                    self._rejected(item)

    def _send(self, verb: str, args: dict) -> int:
        seq = self._seq
        self._seq = protocol.next_seq(self._seq)
        self._ser.write(protocol.encode(seq, verb, args, protocol.COMMANDS))
        return seq

    def _send_hello(self, now: float) -> None:
        self._hello_at = now
        self._send("hello", {"proto": protocol.PROTOCOL_VERSION})

    def _send_due(self, now: float) -> None:
        with self._lock:
            oneshots = list(self._oneshots)
            self._oneshots.clear()
            resync = self._resync
            self._resync = False
        if self._state_cmd is not None and now - self._state_cmd[1] > ACK_TIMEOUT_S:
            resync = True  # the command or its answer was lost: send the state again
        if resync:
            self._send_state(now)
        for verb, args in oneshots:
            self._send(verb, args)
        if now - self._last_ping >= self._heartbeat_s:
            self._last_ping = now
            with self._lock:
                epoch = self._epoch
            self._pings[self._send("ping", {})] = epoch
            if len(self._pings) > 16:  # unanswered pings: keep the newest
                for seq in list(self._pings)[:-16]:
                    del self._pings[seq]

    def _expected(self, now: float) -> tuple[str, int, bool] | None:
        """What the device should show now: (status, ms, alarm still sounding)."""
        with self._lock:
            if self._desired is None:
                return None
            status, ms, stamp = self._desired
            alarm = now < self._alarm_until
        if status == "running":
            ms = max(0, ms - int((now - stamp) * 1000))
        return status, ms, alarm

    def _send_state(self, now: float) -> None:
        expected = self._expected(now)
        if expected is None:
            self._state_cmd = None
            return
        status, ms, alarm = expected
        if status == "running" and ms > 0:
            verb, args = "resume", {"ms": ms}
        elif status in ("running", "expired"):
            # Sound the alarm only for a fresh expiry, not minutes later.
            verb, args = "expire", {"sound": 1 if (alarm or status == "running") else 0}
        elif status == "paused":
            verb, args = "pause", {"ms": ms}
        else:
            verb, args = "cancel", {"ms": ms}
        self._state_cmd = (self._send(verb, args), now)

    # -- what the device says -------------------------------------------------

    def _handle(self, msg: protocol.Message) -> None:
        now = self._clock()
        self._last_heard = now
        verb, args = msg.verb, msg.args
        if verb == "hello":
            self._hello(args, now)
        elif verb == "ack":
            self._ack(args, now)
        elif verb == "tick":
            with self._lock:
                self._device = {"status": args["status"], "ms": args["ms"]}
            self._emit({"source": "device", "event": "tick", "status": args["status"],
                        "remaining_ms": args["ms"]})
        elif verb == "expired":
            with self._lock:
                self._device = {"status": "expired", "ms": 0}
            self._emit({"source": "device", "event": "expired"})
        elif verb == "button":
            self._emit({"source": "device", "event": "button", "button": args["name"],
                        "action": args["action"]})
            if self._on_button is not None:
                try:
                    self._on_button(args["name"], args["action"])
                except Exception:
                    log.exception("button callback failed")
        elif verb == "error":
            self._counts["device_errors"] += 1
            if self._state_cmd is not None and args["ref"] == self._state_cmd[0]:
                with self._lock:
                    self._resync = True
            log.info("pico reported error %s for line %s", args["code"], args["ref"])

    def _hello(self, args: dict, now: float) -> None:
        boot = args["boot"]
        previous_boot = self._boot
        with self._lock:
            self._firmware = args["firmware"]
            self._proto = args["proto"]
            self._boot = boot
        if args["proto"] != protocol.PROTOCOL_VERSION:
            self._set_state(
                "incompatible",
                f"firmware {args['firmware']} speaks protocol {args['proto']}, "
                f"this host speaks {protocol.PROTOCOL_VERSION}: run `companion firmware flash`")
            return
        if previous_boot is not None and boot != previous_boot:
            self._note(f"timer restarted (boot {previous_boot} -> {boot}); re-syncing "
                       "the countdown", "rebooted")
        if self._state != "connected":
            was_lost = self._lost_at is not None
            if was_lost:
                self._counts["reconnects"] += 1
                away = now - self._lost_at
                self._note(f"timer back on {self._port} after {away:.1f} s; countdown "
                           "re-synced", "reconnected")
            else:
                self._note(f"timer connected on {self._port} (firmware {args['firmware']}, "
                           f"protocol {args['proto']})", "connected")
            self._lost_at = None
            with self._lock:
                self._ever_connected = True
                self._state = "connected"
                self._detail = (f"{self._port}: firmware {args['firmware']}, "
                                f"protocol {args['proto']}")
        with self._lock:
            self._resync = True
            brightness = self._brightness
        if brightness is not None:
            self._send("bright", {"level": brightness})
        self._wake()

    def _ack(self, args: dict, now: float) -> None:
        ref = args["ref"]
        with self._lock:
            self._device = {"status": args["status"], "ms": args["ms"]}
            epoch = self._epoch
        if self._state_cmd is not None and ref == self._state_cmd[0]:
            self._state_cmd = None
        if ref in self._pings:
            sent_epoch = self._pings.pop(ref)
            # Only a ping sent after the latest change can tell the truth.
            if sent_epoch == epoch and self._state == "connected" and self._state_cmd is None:
                if not self._agrees(args["status"], args["ms"], now):
                    self._counts["resyncs"] += 1
                    self._note(f"timer showed {args['status']} {clock_text(args['ms'])}, "
                               "re-synced to the host's countdown", "resync")
                    with self._lock:
                        self._resync = True

    def _agrees(self, status: str, ms: int, now: float) -> bool:
        expected = self._expected(now)
        if expected is None:
            return True
        want, want_ms, _alarm = expected
        if want == "running" and want_ms <= DRIFT_TOLERANCE_MS:
            return status == "expired" or (status == "running" and ms <= DRIFT_TOLERANCE_MS)
        if want == "expired":
            return status == "expired"
        return status == want and abs(ms - want_ms) <= DRIFT_TOLERANCE_MS

    def _rejected(self, item: protocol.Rejected) -> None:
        if item.reason == "noise":
            # Text outside frames: the MicroPython banner or a traceback.
            with self._lock:
                self._last_noise = item.text
            log.info("pico said: %s", item.text)
            return
        self._counts["rejected"] += 1
        log.info("rejected a line from the pico (%s): %r", item.reason, item.text)
