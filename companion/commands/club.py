"""`companion club serve`: the club server that every table of a club ships its games to (docs/club.md)."""
from __future__ import annotations

import argparse
import logging
import os
import sys

from companion.errors import InputError

DEFAULT_PORT = 8090


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "club", help="the club server: every table's games in one place (live overview, standings, ratings)",
        description="Run the club server that table services ship their games to (docs/club.md).")
    parser.set_defaults(group_parser=parser)
    sub = parser.add_subparsers(title="club commands", metavar="COMMAND")
    serve = sub.add_parser(
        "serve", help="serve the club's pages and the tables' API",
        description=("Serve the club on the local network: the live overview of every table, standings, "
                     "ratings, seatings, and the API the tables ship their games to. The database is SQLite "
                     "by default; a real club uses PostgreSQL (--database postgresql://...)."))
    serve.add_argument("--database", default=None, metavar="URL",
                       help="postgresql://user@host/db, or a SQLite file (default: club.db in --data-dir); "
                            "also $COMPANION_CLUB_DATABASE")
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    serve.add_argument("--data-dir", default=None,
                       help="where the SQLite database lives (default $XDG_DATA_HOME/companion-club)")
    serve.add_argument("--pin", default=None,
                       help="set the club PIN (organiser's actions); also $COMPANION_CLUB_PIN; "
                            "made up and printed on the first start otherwise")
    serve.add_argument("--threads", type=int, default=48,
                       help="worker threads (each live page holds one; default 48)")
    serve.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from companion.config import default_data_dir

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s", stream=sys.stderr)
    if not 0 <= args.port <= 65535:
        raise InputError(f"--port {args.port}: a port is 0 to 65535")
    if not 4 <= args.threads <= 512:
        raise InputError(f"--threads {args.threads}: use 4 to 512")
    database = args.database or os.environ.get("COMPANION_CLUB_DATABASE")
    if not database:
        data_dir = args.data_dir or str(default_data_dir().with_name("companion-club"))
        database = os.path.join(data_dir, "club.db")
    pin = args.pin if args.pin is not None else os.environ.get("COMPANION_CLUB_PIN") or None

    from companion.club.service import ClubService
    from companion.club.store import DatabaseError, database_url, open_database

    url = database_url(database)
    try:
        engine = open_database(url)
    except DatabaseError as exc:
        raise InputError(f"--database {_safe(url)}: {exc}") from None
    service = ClubService(engine, pin=pin)

    from waitress.server import create_server

    from web.club import create_club_app
    from web.qr import service_url

    app = create_club_app({"CLUB_SERVICE": service})
    try:
        server = create_server(app, host=args.host, port=args.port, threads=args.threads,
                               channel_timeout=60, connection_limit=args.threads * 4,
                               max_request_body_size=app.config["MAX_CONTENT_LENGTH"] + 1024)
    except OSError as exc:
        raise InputError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    port = server.effective_port
    address = service_url(args.host, port, "")
    print(f"companion club serve: database {_safe(url)}")
    print(f"Club pages: {address}/  (tables join with --club {address}/ --club-code {service.join_code()})")
    if service.new_pin:
        print(f"Club PIN (keep it; shown once): {service.new_pin}")
    print("Ctrl+C stops the club server.", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        engine.dispose()
    return 0


def _safe(url: str) -> str:
    """The database address without its password."""
    if "://" in url and "@" in url.split("://", 1)[1]:
        scheme, rest = url.split("://", 1)
        credentials, host = rest.rsplit("@", 1)
        return f"{scheme}://{credentials.split(':', 1)[0]}@{host}"
    return url
