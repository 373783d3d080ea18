"""Club server fixtures: a throwaway PostgreSQL cluster (session), and every test on SQLite and PostgreSQL.

With COMPANION_REQUIRE_POSTGRES=1 (CI) a missing PostgreSQL fails the
PostgreSQL half of the tests instead of skipping it.
"""
from __future__ import annotations

import itertools
import os

import pytest

from companion.timer import ManualClock

from .pgcluster import NoPostgres, PgCluster

CLUB_PIN = "2468"
_names = itertools.count(1)


@pytest.fixture(scope="session")
def pg_cluster():
    try:
        cluster = PgCluster().start()
    except NoPostgres as exc:
        if os.environ.get("COMPANION_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"COMPANION_REQUIRE_POSTGRES=1 but {exc}")
        pytest.skip(str(exc))
    yield cluster
    cluster.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A fresh, empty club database of each kind."""
    if request.param == "sqlite":
        return str(tmp_path / "club.db")
    cluster = request.getfixturevalue("pg_cluster")
    return cluster.create_database(f"club{next(_names)}")


@pytest.fixture
def clock():
    return ManualClock(wall=1_790_000_000.0)  # September 2026


@pytest.fixture
def club(db_url, clock):
    from companion.club.service import ClubService
    from companion.club.store import open_database

    engine = open_database(db_url, pool_size=4)
    yield ClubService(engine, clock=clock.time, pin=CLUB_PIN)
    engine.dispose()


@pytest.fixture
def client(club):
    from web.club import create_club_app

    return create_club_app({"CLUB_SERVICE": club, "HEARTBEAT_SECONDS": 0.2}).test_client()
