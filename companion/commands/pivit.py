"""`companion pivit`: the Pivit tile game's grid check and hand solver on the command line.

Exit status: 0 every file passed (check) or was solved (solve); 1 some grid
is not valid, or some hand is impossible or timed out; 2 some input could not
be read (one line on stderr naming file, line and column), the other files
are still checked.
"""
from __future__ import annotations

import argparse
import json
import sys

from companion.errors import InputError


def register(subparsers) -> None:
    pivit = subparsers.add_parser(
        "pivit",
        help="Pivit tile game: check a finished grid, solve a hand",
        description="Pivit, the real-time tile game: grid check and hand solver.",
    )
    pivit.set_defaults(group_parser=pivit)
    sub = pivit.add_subparsers(title="commands", metavar="COMMAND")

    check = sub.add_parser(
        "check",
        help="check finished grids against the rules",
        description="Check grid files (one row per line, tiles like 3G, ** for a wild, . for an empty cell). "
        "Exit 0 if every grid is valid, 1 if some is not, 2 if a file could not be read.",
    )
    add_check_options(check)
    check.add_argument("files", nargs="+", metavar="FILE", help="grid file, or - for standard input")
    check.set_defaults(handler=run_check)

    solve = sub.add_parser(
        "solve",
        help="arrange a hand into a valid grid, or prove it cannot be done",
        description="Arrange each hand (whitespace-separated tiles) into a grid that passes the check, or "
        "prove that none exists. Exit 0 if every hand was solved, 1 if some is impossible or timed out, "
        "2 if a file could not be read.",
    )
    solve.add_argument("--json", action="store_true", help="one JSON object per file per line")
    solve.add_argument("--young", action="store_true", help="younger-players variation: lines of two allowed")
    solve.add_argument("--timeout", type=_positive_float, default=2.0, metavar="S", help="seconds per hand (default 2)")
    solve.add_argument("--tileset", default="classic", choices=["classic", "connect"], help="tile set (default classic)")
    solve.add_argument("files", nargs="+", metavar="FILE", help="hand file, or - for standard input")
    solve.set_defaults(handler=run_solve)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0: {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
    return value


def add_check_options(parser: argparse.ArgumentParser) -> None:
    """The options every grid check shares (pivit check, vision check)."""
    parser.add_argument("--json", action="store_true", help="one JSON object per file per line")
    parser.add_argument("--young", action="store_true", help="younger-players variation: lines of two allowed")
    parser.add_argument("--tiles", type=_count, default=24, metavar="N", help="tiles the grid must hold (default 24; 0 skips this rule)")
    parser.add_argument("--tileset", default="classic", choices=["classic", "connect"], help="tile set (default classic)")


def read_text(path: str) -> str:
    """A file's text (or standard input for "-"). Raises InputError naming the file, line and column."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
            path = "<stdin>"
        else:
            with open(path, "rb") as f:
                data = f.read()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(f"{path}:{line}:{col}: not UTF-8 text (byte 0x{data[exc.start]:02x})") from None


def display_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def check_result_json(name: str, result) -> dict:
    return {
        "file": name,
        "valid": result.valid,
        "tiles": result.tiles,
        "violations": [v.to_json() for v in result.violations],
    }


def draw_grid(cells, faulty: set) -> str:
    """The grid for people: row and column numbers, faulty cells in [brackets]."""
    if not cells:
        return "  (no tiles)"
    top = min(r for r, _ in cells)
    left = min(c for _, c in cells)
    bottom = max(r for r, _ in cells)
    right = max(c for _, c in cells)
    lines = ["     " + "".join(f"{c:>4} " for c in range(left, right + 1)).rstrip()]
    for r in range(top, bottom + 1):
        row = []
        for c in range(left, right + 1):
            tile = cells.get((r, c))
            if tile is None:
                row.append("   . ")
            elif (r, c) in faulty:
                row.append(f" [{tile}]")
            else:
                row.append(f"  {tile} ")
        lines.append(f"{r:>4} " + "".join(row).rstrip())
    return "\n".join(lines)


def check_report(name: str, cells, result) -> str:
    """The human report of one grid check: verdict, drawn grid, one sentence per violation."""
    n = len(result.violations)
    verdict = "valid" if result.valid else f"NOT valid, {n} fault{'s' if n != 1 else ''}"
    out = [f"{name}: {verdict} ({result.tiles} tiles)", draw_grid(cells, result.faulty_cells())]
    for v in result.violations:
        out.append(f"  - {v.rule}: {v.message[0].upper()}{v.message[1:]}.")
    return "\n".join(out)


def run_check(args) -> int:
    from companion.games.pivit_tiles.check import check_grid
    from companion.games.pivit_tiles.grid import GridError, parse_grid

    status = 0
    for path in args.files:
        name = display_name(path)
        try:
            cells = parse_grid(read_text(path), args.tileset, source=name)
        except (InputError, GridError) as exc:
            print(f"companion: {exc}", file=sys.stderr)
            status = 2
            continue
        result = check_grid(cells, args.tileset, young=args.young, tiles=args.tiles)
        if args.json:
            print(json.dumps(check_result_json(name, result)))
        else:
            print(check_report(name, cells, result))
        if not result.valid and status == 0:
            status = 1
    return status


def run_solve(args) -> int:
    from companion.games.pivit_tiles.grid import grid_str
    from companion.games.pivit_tiles.solver import solve
    from companion.games.pivit_tiles.tiles import TileError, parse_hand

    status = 0
    for path in args.files:
        name = display_name(path)
        try:
            hand = parse_hand(read_text(path), args.tileset, source=name)
        except (InputError, TileError) as exc:
            print(f"companion: {exc}", file=sys.stderr)
            status = 2
            continue
        if not hand:
            print(f"companion: {name}: the hand has no tiles", file=sys.stderr)
            status = 2
            continue
        result = solve(hand, args.tileset, young=args.young, timeout=args.timeout)
        grid = grid_str(result.grid) if result.grid is not None else None
        if args.json:
            print(json.dumps({"file": name, "status": result.status, "grid": grid, "elapsed_ms": round(result.elapsed_ms, 3)}))
        else:
            ms = f"{result.elapsed_ms:.0f} ms"
            if result.status == "solved":
                print(f"{name}: solved in {ms} ({len(hand)} tiles)\n{grid}")
            elif result.status == "impossible":
                print(f"{name}: impossible: no arrangement of these {len(hand)} tiles passes the check (proved in {ms})")
            else:
                print(f"{name}: gave up after {ms} without an arrangement or a proof; try a longer --timeout")
        if result.status != "solved" and status == 0:
            status = 1
    return status
