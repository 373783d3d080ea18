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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Table companion for Pivit, Quivit, the Pivit board game and Scrabble Junior.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    import companion.commands as commands_pkg

    for info in sorted(pkgutil.iter_modules(commands_pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"companion.commands.{info.name}")
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        # A command group given without its subcommand: show that group's help.
        (getattr(args, "group_parser", None) or parser).print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except InputError as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error for the user.
        try:
            sys.stdout = None  # type: ignore[assignment]
        finally:
            return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
