"""The `companion` command.

Each subcommand lives in its own module in `companion.commands`, found by
name at start-up; a module defines `register(subparsers)` and sets a
`handler(args) -> int` default on its parser. Command modules import only the
standard library at module level: heavy libraries (cv2, numpy, flask) are
imported inside the handlers that use them, so `companion --help` and the
grid check start fast on a Pi.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from companion import __version__
from companion.errors import InputError


def _command_names() -> list[str]:
    import companion.commands as commands_pkg

    return sorted(m.name for m in pkgutil.iter_modules(commands_pkg.__path__) if not m.name.startswith("_"))


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of `command` alone (then only its module is imported)."""
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Table companion for Pivit, Quivit, the Pivit board game and Scrabble Junior.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name in _command_names():
        if command is None or name == command:
            importlib.import_module(f"companion.commands.{name}").register(subparsers)
    return parser


def _named_command(argv: list[str]) -> str | None:
    """The command the arguments start with, if it is one: a run needs only that command's module
    (and the standard library modules it loads), `companion --help` and a mistyped name all of them."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in _command_names() else None


def main(argv: list[str] | None = None) -> int:
    return _run(argv)[0]


def _run(argv: list[str] | None) -> tuple[int, argparse.Namespace | None]:
    """(exit status, the parsed arguments) of one command."""
    parser = build_parser(_named_command(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        # A command group given without its subcommand: show that group's help.
        (getattr(args, "group_parser", None) or parser).print_help()
        return 2, args
    try:
        return int(handler(args) or 0), args
    except InputError as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return 2, args
    except KeyboardInterrupt:
        return 130, args
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error for the user.
        try:
            sys.stdout = None  # type: ignore[assignment]
        finally:
            return 0, args


def run() -> None:
    """The `companion` program: main() on the command line's arguments, then exit with its status.

    A command whose parser sets `ends_written=True` (it has printed and
    closed everything it makes) ends at once after flushing the standard
    streams, when no exit handler (atexit) is registered and no other thread
    runs: the interpreter's teardown would then do nothing a user sees, yet
    with NumPy and OpenCV loaded it costs 40-100 ms (30-50 ms of CPU), as
    long as a third of a photo's read.
    """
    status, args = _run(None)
    if getattr(args, "ends_written", False):
        _end_at_once(status)
    sys.exit(status)


def _end_at_once(status: int) -> None:
    """os._exit(status) after flushing stdout and stderr, if nothing else would run at exit; else return."""
    import atexit
    import os

    callbacks = getattr(atexit, "_ncallbacks", None)  # CPython's count of exit handlers
    threading = sys.modules.get("threading")
    if callbacks is None or callbacks() or (threading is not None and threading.active_count() > 1):
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return  # let Python's own exit report it
    os._exit(status)


if __name__ == "__main__":  # pragma: no cover
    run()
