"""A throwaway PostgreSQL cluster for the club tests and benches: initdb and pg_ctl in a temporary directory.

Debian's `postgresql` package provides the programs (on PATH, or under
/usr/lib/postgresql/<version>/bin). The server listens on a free loopback
port only, with trust authentication for its one user, and is stopped and
deleted afterwards. PostgreSQL refuses to run as root: as root the cluster
is run as the `postgres` user the package creates.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


class NoPostgres(Exception):
    """PostgreSQL's server programs are not installed (or cannot run here)."""


def _bin(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    for candidate in sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True):
        return candidate
    raise NoPostgres(f"{name} not found: install Debian's postgresql package")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PgCluster:
    """`start()` makes and starts a cluster; `url(db)` is a postgresql:// URL; `stop()`, `restart()`, `close()`."""

    def __init__(self) -> None:
        self.initdb, self.pg_ctl = _bin("initdb"), _bin("pg_ctl")
        self.dir = Path(tempfile.mkdtemp(prefix="companion-pg-"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self.user = "postgres"
        self._as: list[str] = []
        if os.geteuid() == 0:
            try:
                account = pwd.getpwnam("postgres")
            except KeyError:
                raise NoPostgres("running as root and there is no postgres user to run PostgreSQL as") from None
            os.chown(self.dir, account.pw_uid, account.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run([*self._as, *args], capture_output=True, text=True, check=check, timeout=120)

    def start(self) -> "PgCluster":
        if not self.data.exists():
            try:
                self._run(self.initdb, "-D", str(self.data), "-U", self.user, "-A", "trust", "-E", "UTF8",
                          "--no-sync", "--locale=C")
            except subprocess.CalledProcessError as exc:
                raise NoPostgres(f"initdb failed: {exc.stderr.strip()[:300]}") from None
        for attempt in range(3):
            try:
                self._pg_ctl_start()
                return self
            except NoPostgres as exc:
                # The port was free when chosen, but another process (a second test worker, say)
                # may bind it before PostgreSQL does: choose again.
                if "already in use" not in str(exc) or attempt == 2:
                    raise
                self.port = _free_port()
        return self

    def _pg_ctl_start(self) -> None:
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.dir} -c fsync=on "
                   f"-c max_connections=200 -c shared_buffers=64MB")
        result = self._run(self.pg_ctl, "-D", str(self.data), "-l", str(self.dir / "log"), "-o", options,
                           "-w", "-t", "60", "start", check=False)
        if result.returncode != 0:
            log = (self.dir / "log").read_text(errors="replace")[-500:] if (self.dir / "log").exists() else ""
            raise NoPostgres(f"pg_ctl start failed: {result.stderr.strip()[:300]} {log}")

    def stop(self, mode: str = "fast") -> None:
        self._run(self.pg_ctl, "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart(self) -> None:
        self.stop()
        self._pg_ctl_start()

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def url(self, database: str) -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def close(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


def wait_for(condition, timeout: float = 10.0, every: float = 0.05):
    """Poll `condition()` until it returns something true; return it, or raise AssertionError at the timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s: {getattr(condition, '__name__', condition)}")
        time.sleep(every)
