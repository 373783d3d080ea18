"""The test fixture's PostgreSQL cluster survives a port taken between choosing it and starting.

With pytest-xdist each worker starts its own cluster on a port it chose by binding port 0; another
worker (or anything else on the machine) can bind that port before PostgreSQL does.
"""
from __future__ import annotations

import os
import socket

import pytest

from .pgcluster import NoPostgres, PgCluster


def test_a_taken_port_is_chosen_again():
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        cluster = PgCluster()
    except NoPostgres as exc:
        taken.close()
        if os.environ.get("COMPANION_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"COMPANION_REQUIRE_POSTGRES=1 but {exc}")
        pytest.skip(str(exc))
    busy = taken.getsockname()[1]
    cluster.port = busy
    try:
        cluster.start()
        assert cluster.port != busy
        import psycopg

        with psycopg.connect(cluster.url("postgres")) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        taken.close()
        cluster.close()
