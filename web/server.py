"""The HTTP server of `companion serve`: one event loop for every connection, Flask in a few threads.

A game café has 200 phones on one Pi, each holding a live stream open. With a
thread per stream (waitress, the earlier server) every change woke 200 threads
that each wrote their copy; bench/service.py measured p99 189 ms from POST to
the 200th phone on the build machine, and the wait grew with the number of
open connections. Here one asyncio loop holds every connection (h11 speaks
HTTP/1.1: parsing, framing, keep-alive, 100-continue), a stream costs a few
kilobytes and no thread, and a change is pushed to every phone of the table
from that loop. Pages and API calls run the Flask app unchanged in a small
thread pool, their bodies read whole before a thread is given to them.

What one client (one source address, from the socket: never a header) may hold:

- `connections_per_client` open connections; more are closed at once, with
  no answer. `connections` in all.
- `requests_per_client` requests being served at once; the rest wait their
  turn, so one client never takes every worker thread.
- A connection must send a complete request head within `idle_seconds` of
  opening (or of its previous answer) and a body never stalls that long;
  otherwise it is closed (408 mid-body).
- A body larger than `max_body` gets 413; bodies being received are also
  bounded per client and in all (503 while the others finish).
- Live streams are capped per client and in all by web.stream (429, 503).

A phone that closes its page is noticed at once (end of file on its stream);
one that vanishes from the Wi-Fi is noticed when the next message or
heartbeat goes unacknowledged for `stall_seconds` (TCP_USER_TIMEOUT), and a
stream whose phone stops reading is dropped after as long. Its place is free
again right away.
"""
from __future__ import annotations

import asyncio
import io
import json
import logging
import resource
import socket
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Callable
from http import HTTPStatus
from urllib.parse import unquote_to_bytes

import h11

from web.stream import ENVIRON_KEY, LiveStream

log = logging.getLogger("companion.server")

# How often heartbeats and stalled streams are looked at.
TICK_SECONDS = 0.5
# Seconds a stopping server lets the requests being served finish.
STOP_GRACE_SECONDS = 5.0


@dataclass(frozen=True)
class Limits:
    """What the server allows, in all and per client address (see the module docstring)."""

    connections_per_client: int = 32
    connections: int = 1024
    requests_per_client: int = 4
    idle_seconds: float = 10.0
    max_body: int = 26 * 1024 * 1024
    max_head: int = 16 * 1024
    stall_seconds: float = 20.0
    stream_buffer: int = 256 * 1024


class Server:
    """Listens at once (so ``port`` is known and a taken port raises OSError here); `run` serves.

    ``app`` is any WSGI callable and may be set after construction. `stop`
    may be called from a signal handler or another thread.
    """

    def __init__(self, app: Callable | None, host: str, port: int, *, threads: int = 8,
                 limits: Limits = Limits()):
        self.app = app
        self.host = host
        self.threads = threads
        self.limits = _fit_file_limit(limits)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._sock = socket.create_server((host, port), family=family, backlog=512)
        self.port = self._sock.getsockname()[1]
        self.loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._stop_requested = False
        self.connections: set[_Connection] = set()
        self.tasks: set[asyncio.Task] = set()
        self._per_client: dict[str, int] = {}
        self._turns: dict[str, list] = {}  # client -> [semaphore, users]
        self._body_bytes: dict[str, int] = {}
        self._refusals: dict[str, float] = {}  # client -> when its refusal was last logged
        self.hub = _Hub()

    # -- running ---------------------------------------------------------------

    def run(self) -> None:
        """Serve until `stop` is called; then let requests being served finish and close everything."""
        asyncio.run(self._main())

    @property
    def stopping(self) -> bool:
        return self._stop_requested

    def stop(self) -> None:
        self._stop_requested = True
        loop, stopping = self.loop, self._stopping
        if loop is not None and stopping is not None:
            try:
                loop.call_soon_threadsafe(stopping.set)
            except RuntimeError:  # the loop has finished already
                pass

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        if self._stop_requested:
            self._stopping.set()
        self.executor = ThreadPoolExecutor(self.threads, thread_name_prefix="companion-http")
        server = await self.loop.create_server(lambda: _Connection(self), sock=self._sock)
        ticker = self.loop.create_task(self._tick())
        try:
            await self._stopping.wait()
        finally:
            server.close()
            ticker.cancel()
            for connection in list(self.connections):
                connection.finish()
            deadline = self.loop.time() + STOP_GRACE_SECONDS
            while self.connections and self.loop.time() < deadline:
                await asyncio.sleep(0.05)
            for connection in list(self.connections):
                connection.transport.abort()
            self.executor.shutdown(wait=False, cancel_futures=True)

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(TICK_SECONDS)
            now = self.loop.time()
            for connection in self.hub.streaming():
                connection.tick(now)

    # -- what one client may hold -----------------------------------------------

    def admit(self, connection: "_Connection") -> bool:
        client = connection.client
        held = self._per_client.get(client, 0)
        if held >= self.limits.connections_per_client or len(self.connections) >= self.limits.connections:
            self._refused(client, f"{held} connections open" if held else "the server is full")
            return False
        self._per_client[client] = held + 1
        self.connections.add(connection)
        return True

    def release(self, connection: "_Connection") -> None:
        self.connections.discard(connection)
        left = self._per_client.get(connection.client, 0) - 1
        if left > 0:
            self._per_client[connection.client] = left
        else:
            self._per_client.pop(connection.client, None)

    def _refused(self, client: str, why: str) -> None:
        now = time.monotonic()
        if now - self._refusals.get(client, -60.0) >= 60.0:  # once a minute per client: a flood must not flood the log
            self._refusals[client] = now
            if len(self._refusals) > 10_000:
                self._refusals.clear()
            log.warning("refusing connections from %s (%s)", client, why)

    def take_body(self, client: str, size: int) -> bool:
        """Room to hold `size` more bytes of request body for `client`: one largest body per client, three in all."""
        mine = self._body_bytes.get(client, 0) + size
        total = sum(self._body_bytes.values()) + size
        if mine > self.limits.max_body or total > 3 * self.limits.max_body:
            return False
        self._body_bytes[client] = mine
        return True

    def give_body(self, client: str, size: int) -> None:
        left = self._body_bytes.get(client, 0) - size
        if left > 0:
            self._body_bytes[client] = left
        else:
            self._body_bytes.pop(client, None)

    async def turn(self, client: str):
        """Wait for one of this client's `requests_per_client` turns; `end_turn` gives it back."""
        entry = self._turns.get(client)
        if entry is None:
            entry = self._turns[client] = [asyncio.Semaphore(self.limits.requests_per_client), 0]
        entry[1] += 1
        await entry[0].acquire()

    def end_turn(self, client: str) -> None:
        entry = self._turns[client]
        entry[0].release()
        entry[1] -= 1
        if entry[1] == 0:
            del self._turns[client]


def _fit_file_limit(limits: Limits) -> Limits:
    """Raise the soft limit on open files to hold `connections` (a Pi's default is 1024), or fit under it."""
    wanted = limits.connections + 64  # the database, the devices, the worker threads' files
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
            soft = new
    except (ValueError, OSError):
        return limits
    if soft != resource.RLIM_INFINITY and soft < wanted:
        fitted = max(limits.connections_per_client, soft - 64)
        log.warning("open files are limited to %d here: at most %d connections", soft, fitted)
        return replace(limits, connections=fitted)
    return limits


class _Hub:
    """The live streams by table: one watch per table, each change pushed from the loop to its phones."""

    def __init__(self) -> None:
        self._tables: dict[Any, set[_Connection]] = {}
        self._unwatch: dict[Any, Callable[[], None]] = {}

    def attach(self, connection: "_Connection", loop: asyncio.AbstractEventLoop) -> None:
        table = connection.live.table
        phones = self._tables.setdefault(table, set())
        if not phones:
            def changed(table=table):  # on the thread that changed the table
                try:
                    loop.call_soon_threadsafe(self._push, table)
                except RuntimeError:  # the loop has closed: the service is stopping
                    pass
            self._unwatch[table] = table.watch(changed)
        phones.add(connection)

    def detach(self, connection: "_Connection") -> None:
        table = connection.live.table
        phones = self._tables.get(table)
        if phones is None:
            return
        phones.discard(connection)
        if not phones:
            del self._tables[table]
            self._unwatch.pop(table)()

    def _push(self, table) -> None:
        for connection in list(self._tables.get(table, ())):
            connection.push()

    def streaming(self) -> list["_Connection"]:
        return [c for phones in self._tables.values() for c in phones]


class _Connection(asyncio.Protocol):
    """One client connection: requests one after another, or a live stream."""

    def __init__(self, server: Server):
        self.server = server
        self.loop = server.loop
        self.admitted = False
        self.state = "idle"  # idle -> receiving -> busy -> idle ...; or streaming; closed
        self.live: LiveStream | None = None
        self._wsgi_body: Any = None
        self._timer: asyncio.TimerHandle | None = None
        self._body = bytearray()
        self._body_held = 0
        self._request: h11.Request | None = None
        self._finish_after = False
        self._paused_since: float | None = None
        self.last_write = 0.0

    # -- asyncio's side --------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.transport = transport
        peer = transport.get_extra_info("peername") or ("?", 0)
        self.client, self.client_port = str(peer[0]), int(peer[1])
        if not self.server.admit(self):
            transport.abort()
            return
        self.admitted = True
        sock = transport.get_extra_info("socket")
        if sock is not None:
            try:
                # asyncio sets no TCP_NODELAY on sockets from socket.create_server (their proto is 0):
                # a stream's small messages would wait for delayed ACKs, 40 ms each.
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if hasattr(socket, "TCP_USER_TIMEOUT"):  # unacknowledged data for this long: the phone is gone
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT,
                                    int(self.server.limits.stall_seconds * 1000))
            except OSError:
                pass
        transport.set_write_buffer_limits(high=self.server.limits.stream_buffer)
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=self.server.limits.max_head)
        self._wait_for_request()

    def data_received(self, data: bytes) -> None:
        if self.state in ("streaming", "closed"):
            return  # a stream's phone has nothing more to say
        self.h11.receive_data(data)
        if self.state == "busy":
            self.transport.pause_reading()  # one request at a time: the rest waits in the kernel
            return
        self._advance()

    def eof_received(self) -> bool:
        if self.state == "busy":
            self._finish_after = True  # answer what was asked, then close
            return True
        if self.state != "streaming" and self.state != "closed":
            self.h11.receive_data(b"")
            self._advance()
        return False  # the phone is gone (or done): close

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.admitted:
            return
        self.state = "closed"
        self._cancel_timer()
        self.server.release(self)
        self._release_body()
        if self.live is not None:
            self.server.hub.detach(self)
            self._end_wsgi_body()

    def pause_writing(self) -> None:
        self._paused_since = self.loop.time()

    def resume_writing(self) -> None:
        self._paused_since = None
        if self.state == "streaming":
            self.push()

    # -- requests --------------------------------------------------------------

    def _advance(self) -> None:
        while self.state in ("idle", "receiving"):
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                status = exc.error_status_hint if 400 <= exc.error_status_hint < 500 else 400
                self._refuse(status, "that is not an HTTP request this server understands")
                return
            if event is h11.NEED_DATA:
                if self.h11.they_are_waiting_for_100_continue and self._request is not None:
                    self._send(h11.InformationalResponse(status_code=100, headers=[]))
                return
            if event is h11.PAUSED:
                return
            if isinstance(event, h11.Request):
                self._request = event
                self._body = bytearray()
                self.state = "receiving"
                length = _content_length(event)
                if length > self.server.limits.max_body:
                    self._refuse(413, f"the request is larger than {self.server.limits.max_body} bytes")
                    return
                if length and not self._hold_body(length):
                    return
                self._arm(self.server.limits.idle_seconds, self._stalled_body)
            elif isinstance(event, h11.Data):
                self._body += event.data
                if len(self._body) > self._body_held and not self._hold_body(len(self._body) - self._body_held):
                    return
                self._arm(self.server.limits.idle_seconds, self._stalled_body)
            elif isinstance(event, h11.EndOfMessage):
                self._cancel_timer()
                self.state = "busy"
                self.transport.pause_reading()
                task = self.loop.create_task(self._respond(self._request, bytes(self._body)))
                self.server.tasks.add(task)  # the loop keeps only weak references to tasks
                task.add_done_callback(self.server.tasks.discard)
                self._body = bytearray()
                return
            elif isinstance(event, h11.ConnectionClosed):
                self.transport.close()
                return

    def _hold_body(self, size: int) -> bool:
        if len(self._body) > self.server.limits.max_body or self._body_held + size > self.server.limits.max_body:
            self._refuse(413, f"the request is larger than {self.server.limits.max_body} bytes")
            return False
        if not self.server.take_body(self.client, size):
            self._refuse(503, "the service is receiving too many large requests at once; try again shortly")
            return False
        self._body_held += size
        return True

    def _release_body(self) -> None:
        if self._body_held:
            self.server.give_body(self.client, self._body_held)
            self._body_held = 0

    async def _respond(self, request: h11.Request, body: bytes) -> None:
        server = self.server
        await server.turn(self.client)
        try:
            if self.state == "closed":
                return
            try:
                status, headers, chunks, live, wsgi_body = await self.loop.run_in_executor(
                    server.executor, _call_app, server.app, self._environ(request, body))
            except Exception:
                if server.stopping:  # the worker threads are gone
                    status, headers, chunks, live, wsgi_body = _plain(503, "the service is stopping")
                else:
                    log.exception("the app failed on %s %s", request.method, request.target)
                    status, headers, chunks, live, wsgi_body = _plain(500, "the service failed on this request")
        finally:
            server.end_turn(self.client)
        self._release_body()
        if self.state == "closed":
            if live is not None:
                self._wsgi_body = wsgi_body
                self._end_wsgi_body()
            return
        try:
            if live is not None:
                self._send(h11.Response(status_code=status, headers=headers, reason=_reason(status)))
                self._stream(live, wsgi_body)
                return
            self._answer(status, headers, chunks)
        except h11.LocalProtocolError as exc:
            log.error("cannot answer %s %s: %s", request.method, request.target, exc)
            self.transport.abort()
            return
        self._next_request()

    def _next_request(self) -> None:
        if (self._finish_after or self.h11.our_state is not h11.DONE or self.h11.their_state is not h11.DONE):
            self.state = "closed"
            self.transport.close()
            return
        self.h11.start_next_cycle()
        self._request = None
        self.state = "idle"
        self._wait_for_request()
        self.transport.resume_reading()
        self._advance()  # a request sent right behind the last one is already here

    def _wait_for_request(self) -> None:
        self._arm(self.server.limits.idle_seconds, self._idle)

    def _idle(self) -> None:
        """No complete request in time: close without a word (a browser simply opens another)."""
        self.state = "closed"
        self.transport.close()

    def _stalled_body(self) -> None:
        self._refuse(408, "the request body stopped arriving")

    def _refuse(self, status: int, message: str) -> None:
        """Answer an error of the server's own (not the app's) and close."""
        self._cancel_timer()
        self._release_body()
        status, headers, body, _, _ = _plain(status, message)
        try:
            if self.h11.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                self._answer(status, headers + [("Connection", "close")], body)
        except h11.LocalProtocolError:
            pass
        self.state = "closed"
        self.transport.close()

    def _environ(self, request: h11.Request, body: bytes) -> dict[str, Any]:
        target = request.target
        if target.startswith((b"http://", b"https://")):  # absolute form: keep the path
            target = b"/" + target.split(b"/", 3)[3] if target.count(b"/") >= 3 else b"/"
        path, _, query = target.partition(b"?")
        environ: dict[str, Any] = {
            "REQUEST_METHOD": request.method.decode("ascii"),
            "SCRIPT_NAME": "",
            "PATH_INFO": unquote_to_bytes(path).decode("latin-1"),
            "QUERY_STRING": query.decode("latin-1"),
            "SERVER_NAME": self.server.host,
            "SERVER_PORT": str(self.server.port),
            "SERVER_PROTOCOL": "HTTP/" + request.http_version.decode("ascii"),
            "REMOTE_ADDR": self.client,
            "REMOTE_PORT": str(self.client_port),
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(body),
            "wsgi.input_terminated": True,
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
        if body or request.method in (b"POST", b"PUT", b"PATCH"):
            environ["CONTENT_LENGTH"] = str(len(body))
        for raw_name, raw_value in request.headers:
            name, value = raw_name.decode("latin-1"), raw_value.decode("latin-1")
            if "_" in name or name in ("content-length", "transfer-encoding"):
                continue  # "X_Forwarded_For" would pass for "X-Forwarded-For" in the environ
            if name == "content-type":
                environ["CONTENT_TYPE"] = value
                continue
            key = "HTTP_" + name.upper().replace("-", "_")
            environ[key] = f"{environ[key]},{value}" if key in environ else value
        return environ

    # -- a live stream ---------------------------------------------------------

    def _stream(self, live: LiveStream, wsgi_body: Any) -> None:
        self.state = "streaming"
        self.live, self._wsgi_body = live, wsgi_body
        self.server.hub.attach(self, self.loop)
        self.transport.resume_reading()  # to see the phone go: end of file
        self._write(live.opening())
        self.push()

    def push(self) -> None:
        """Send the table if this phone has not seen its version (and is reading what it is sent)."""
        if self.state != "streaming" or self._paused_since is not None:
            return
        if self.live.ended:
            self.finish()
            return
        message = self.live.update()
        if message is not None:
            self._write(message)

    def tick(self, now: float) -> None:
        """A heartbeat after a quiet `interval`; a phone that stopped reading for `stall_seconds` is dropped."""
        if self.state != "streaming":
            return
        if self._paused_since is not None:
            if now - self._paused_since >= self.server.limits.stall_seconds:
                self.transport.abort()
            return
        if self.live.ended:
            self.finish()
        elif now - self.last_write >= self.live.interval():
            self._write(self.live.heartbeat())

    def _write(self, message: str) -> None:
        self._send(h11.Data(data=message.encode()))
        self.last_write = self.loop.time()

    def _end_wsgi_body(self) -> None:
        body, self._wsgi_body = self._wsgi_body, None
        if body is not None:
            try:
                body.close()  # gives the stream's place back
            except Exception:
                log.exception("closing a stream failed")
        if self.live is not None:
            self.live.close()

    # -- ending ----------------------------------------------------------------

    def finish(self) -> None:
        """End politely: a stream gets its last chunk, a request being served its answer, then close."""
        if self.state == "busy":
            self._finish_after = True
            return
        if self.state == "streaming":
            try:
                self._send(h11.EndOfMessage())
            except h11.LocalProtocolError:
                pass
        if self.state != "closed":
            self.state = "closed"
            self.transport.close()

    def _answer(self, status: int, headers: list, body: bytes) -> None:
        """A whole answer in one write: head and body leave in the same segment."""
        self.transport.write(b"".join((
            self.h11.send(h11.Response(status_code=status, headers=headers, reason=_reason(status))),
            self.h11.send(h11.Data(data=body)) if body else b"",
            self.h11.send(h11.EndOfMessage()))))

    def _send(self, event: Any) -> None:
        data = self.h11.send(event)
        if data:
            self.transport.write(data)

    def _arm(self, seconds: float, callback: Callable[[], None]) -> None:
        self._cancel_timer()
        self._timer = self.loop.call_later(seconds, callback)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def _reason(status: int) -> bytes:
    try:
        return HTTPStatus(status).phrase.encode()
    except ValueError:
        return b""


def _content_length(request: h11.Request) -> int:
    for name, value in request.headers:
        if name == b"content-length":
            return int(value)  # h11 has checked it is a number
    return 0


def _plain(status: int, message: str):
    """A JSON error answer as _call_app returns it."""
    body = json.dumps({"error": message}).encode()
    return status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))], body, None, None


def _call_app(app: Callable, environ: dict[str, Any]):
    """Run the WSGI app in a worker thread: (status, headers, body, live stream or None, the WSGI body).

    A live stream's body is not iterated here: the event loop drives the
    LiveStream the app left in the environ, and closes the body when it ends.
    """
    started: list = []
    written: list[bytes] = []

    def start_response(status: str, headers: list, exc_info: Any = None):
        if started and exc_info is None:
            raise AssertionError("start_response called twice without exc_info")
        started[:] = [status, headers]  # nothing is sent before the app returns: an error may replace it
        return written.append

    wsgi_body = app(environ, start_response)
    status, headers = started
    code = int(status.split(" ", 1)[0])
    live = environ.get(ENVIRON_KEY)
    if live is not None and code == 200 and environ["REQUEST_METHOD"] == "GET":
        return code, headers, b"", live, wsgi_body
    try:
        for chunk in wsgi_body:
            if chunk:
                written.append(chunk)
    finally:
        close = getattr(wsgi_body, "close", None)
        if close is not None:
            close()
        if live is not None:
            live.close()
    return code, headers, b"".join(written), None, None
