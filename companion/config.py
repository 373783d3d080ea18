"""The service's configuration: a TOML file, with defaults for everything.

Looked up in this order: the `--config FILE` option, then
``$XDG_CONFIG_HOME/companion/config.toml`` (``~/.config/companion/config.toml``)
if it exists, else built-in defaults. Command-line options override the file.
The data directory (the SQLite event log) defaults to
``$XDG_DATA_HOME/companion`` (``~/.local/share/companion``).

The `[hardware]` and `[camera]` tables belong to `hardware/` and `vision/`:
this module checks only that they are tables and hands them over unchanged.
Every other key is checked here, so a typo is reported instead of ignored.
docs/config.example.toml documents every key.
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from companion.errors import InputError

DEFAULT_PORT = 8080


def default_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/companion``, or ``~/.local/share/companion`` when it is unset or relative."""
    env = os.environ if env is None else env
    base = env.get("XDG_DATA_HOME", "")
    # The XDG spec says relative paths in these variables are invalid and must be ignored.
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "companion"


def default_config_file(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/companion/config.toml`` (``~/.config/companion/config.toml``)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME", "")
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "companion" / "config.toml"


@dataclass(frozen=True)
class ServerConfig:
    """How `companion serve` listens, and what one client on the network may hold."""

    host: str = "0.0.0.0"
    port: int = DEFAULT_PORT
    # Live phone streams served at once (a game café: 15 tables of 4 to 8 phones,
    # and their reloads). A stream holds no thread (see web.server).
    max_streams: int = 256
    # One address: streams and open connections at once. A phone's browser opens at
    # most 6 connections to a server; these leave room for several phones behind
    # one address (a shared Wi-Fi) while no single client can take every place.
    max_streams_per_client: int = 8
    max_connections_per_client: int = 32
    # Connections in all (each is a file descriptor; the soft limit is raised to fit).
    max_connections: int = 1024
    # A connection that sends no complete request for this long is closed.
    idle_seconds: float = 10.0
    threads: int = 0  # worker threads for pages and API calls; 0: 8
    heartbeat_seconds: float = 15.0
    # The address printed and put in the QR code; empty: http://<LAN IP>:<port>/.
    public_url: str = ""
    max_request_bytes: int = 64 * 1024

    @property
    def worker_threads(self) -> int:
        return self.threads or 8


@dataclass(frozen=True)
class TimerConfig:
    """The countdown when nothing in the rules asks for a length."""

    default_seconds: float = 60.0


@dataclass(frozen=True)
class ClubConfig:
    """The club server this table ships its games to (docs/club.md); no url: none."""

    url: str = ""
    code: str = ""  # the join code, needed once (the key is kept in the data directory)
    name: str = ""  # what the club calls this table; default: the machine's name


@dataclass(frozen=True)
class Config:
    """Everything `companion serve` needs to start."""

    data_dir: Path = field(default_factory=default_data_dir)
    server: ServerConfig = field(default_factory=ServerConfig)
    timer: TimerConfig = field(default_factory=TimerConfig)
    # game id -> default options for new tables of that game (the form starts with them).
    games: dict[str, dict[str, Any]] = field(default_factory=dict)
    hardware: dict[str, Any] = field(default_factory=dict)
    camera: dict[str, Any] = field(default_factory=dict)
    club: ClubConfig = field(default_factory=ClubConfig)
    source: Path | None = None  # the file these values came from, if any

    @property
    def database(self) -> Path:
        return self.data_dir / "companion.db"

    def with_overrides(self, **server: Any) -> "Config":
        """A copy with some [server] values replaced (the command-line options); None means keep."""
        given = {k: v for k, v in server.items() if v is not None and k != "data_dir"}
        data_dir = server.get("data_dir")
        return replace(
            self,
            server=replace(self.server, **given),
            data_dir=Path(data_dir).expanduser() if data_dir is not None else self.data_dir,
        )


_SERVER_TYPES: dict[str, tuple[type, ...]] = {
    "host": (str,),
    "port": (int,),
    "max_streams": (int,),
    "max_streams_per_client": (int,),
    "max_connections_per_client": (int,),
    "max_connections": (int,),
    "idle_seconds": (int, float),
    "threads": (int,),
    "heartbeat_seconds": (int, float),
    "public_url": (str,),
    "max_request_bytes": (int,),
}
_TIMER_TYPES: dict[str, tuple[type, ...]] = {"default_seconds": (int, float)}
_CLUB_TYPES: dict[str, tuple[type, ...]] = {"url": (str,), "code": (str,), "name": (str,)}
_TOP_KEYS = {"data_dir", "server", "timer", "games", "hardware", "camera", "club"}


# The largest config file read (the documented example with every key is a few kilobytes).
MAX_CONFIG_BYTES = 256 * 1024


def load_config(path: str | os.PathLike | None = None, env: Mapping[str, str] | None = None) -> Config:
    """The configuration from `path`, or from the default file if it exists, else defaults.

    Raises InputError naming the file (and line, for TOML syntax errors) when
    the file named by `path` is missing or unreadable, or a key or value is wrong.
    """
    env = os.environ if env is None else env
    if path is None:
        candidate = default_config_file(env)
        if not candidate.exists():
            return Config(data_dir=default_data_dir(env))
        path = candidate
    path = Path(path).expanduser()
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:  # a wrong file, not a configuration: refuse before reading it
            raise InputError(f"{path}: too large for a config file (at most {MAX_CONFIG_BYTES // 1024} KiB)")
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: no such config file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the config file ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML: {exc}") from None
    return parse_config(data, source=path, env=env)


def parse_config(data: Mapping[str, Any], source: Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    """A Config from already-parsed TOML data. Raises InputError naming the bad key."""
    where = str(source) if source else "config"

    def fail(message: str) -> InputError:
        return InputError(f"{where}: {message}")

    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise fail(f"unknown key {unknown[0]!r} (known: {', '.join(sorted(_TOP_KEYS))})")

    data_dir = default_data_dir(env)
    if "data_dir" in data:
        if not isinstance(data["data_dir"], str) or not data["data_dir"]:
            raise fail("data_dir must be a non-empty string")
        data_dir = Path(data["data_dir"]).expanduser()
        if not data_dir.is_absolute() and source is not None:
            data_dir = source.parent / data_dir

    def section(name: str) -> dict[str, Any]:
        value = data.get(name, {})
        if not isinstance(value, dict):
            raise fail(f"[{name}] must be a table")
        return value

    def typed(name: str, values: dict[str, Any], types: dict[str, tuple[type, ...]]) -> dict[str, Any]:
        out = {}
        for key, value in values.items():
            if key not in types:
                raise fail(f"unknown key {key!r} in [{name}] (known: {', '.join(types)})")
            # bool is an int in Python, but `port = true` is a mistake.
            if isinstance(value, bool) or not isinstance(value, types[key]):
                kind = " or ".join(t.__name__ for t in types[key])
                raise fail(f"[{name}] {key} must be a {kind}, not {value!r}")
            out[key] = value
        return out

    server = ServerConfig(**typed("server", section("server"), _SERVER_TYPES))
    if not 0 < server.port < 65536:
        raise fail(f"[server] port must be between 1 and 65535, not {server.port}")
    if min(server.max_streams, server.max_streams_per_client, server.max_connections_per_client) < 1 \
            or server.threads < 0:
        raise fail("[server] max_streams, max_streams_per_client and max_connections_per_client must be "
                   "at least 1, and threads 0 or more")
    if server.max_connections < server.max_connections_per_client:
        raise fail("[server] max_connections must be at least max_connections_per_client")
    if not 0 < server.idle_seconds <= 3600:
        raise fail("[server] idle_seconds must be between 0 and 3600")
    if server.heartbeat_seconds <= 0 or server.max_request_bytes < 1024:
        raise fail("[server] heartbeat_seconds must be positive and max_request_bytes at least 1024")
    if server.public_url and not server.public_url.startswith(("http://", "https://")):
        raise fail("[server] public_url must start with http:// or https://")

    timer = TimerConfig(**typed("timer", section("timer"), _TIMER_TYPES))
    if not 0 < timer.default_seconds <= 3600:
        raise fail("[timer] default_seconds must be between 0 and 3600")

    club = ClubConfig(**typed("club", section("club"), _CLUB_TYPES))
    if club.url and not club.url.startswith(("http://", "https://")):
        raise fail("[club] url must start with http:// or https://")

    games = section("games")
    for game_id, options in games.items():
        if not isinstance(options, dict):
            raise fail(f"[games.{game_id}] must be a table of default options")

    return Config(
        data_dir=data_dir,
        server=server,
        timer=timer,
        games={k: dict(v) for k, v in games.items()},
        hardware=dict(section("hardware")),
        camera=dict(section("camera")),
        club=club,
        source=source,
    )
