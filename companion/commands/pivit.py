"""`companion pivit`: the Pivit tile game's grid check and hand solver on the command line.

Exit status: 0 every file passed (check) or was solved (solve); 1 some grid
is not valid, or some hand is impossible or timed out; 2 some input could not
be read (one line on stderr naming file, line and column), the other files
are still checked.
"""
from __future__ import annotations

import argparse
import json
import os
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

    advise = sub.add_parser(
        "advise",
        help="say whether a hand can be arranged, or which tile to trade",
        description="Say whether a hand (whitespace-separated tiles) can be arranged into a correct grid, and "
        "show an arrangement; if it cannot, rank every tile of the hand as the tile to trade now, with the "
        "exact probability that the hand is playable after this one trade (p_one) and the probability that "
        "it is playable within the trades left when the second trade is chosen after seeing the first draw "
        "(p_two; an estimate with its standard error when exact enumeration is too big). The draw is "
        "uniform over the unseen tiles: the tile set minus the hand, or the tiles listed with --unseen. "
        "Exit 0 if the hand is playable, 1 if it is not (the advice is printed), 2 if a file could not be read.",
    )
    advise.add_argument("--json", action="store_true", help="one JSON object")
    advise.add_argument("--young", action="store_true", help="younger-players variation: lines of two allowed")
    advise.add_argument("--tileset", default="classic", choices=["classic", "connect"], help="tile set (default classic)")
    advise.add_argument("--trades", type=_trades, default=2, metavar="N", help="trade tokens left: 0, 1 or 2 (default 2)")
    advise.add_argument(
        "--unseen",
        metavar="FILE",
        help="the tiles you have not seen, whitespace-separated (the tile set minus your hand minus tiles "
        "known to be elsewhere, e.g. in other players' finished grids); draws come only from these and "
        "the tile you trade in. Default: every tile of the set not in your hand",
    )
    advise.add_argument("hand", metavar="HANDFILE", help="hand file, or - for standard input")
    advise.set_defaults(handler=run_advise)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0: {text!r}")
    return value


def _trades(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 0 <= value <= 2:
        raise argparse.ArgumentTypeError(f"must be 0, 1 or 2 (the rulebook's two trade tokens): {text!r}")
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


# The largest grid or hand file read: a whole box of tiles as a grid is a few kilobytes.
MAX_TEXT_FILE_BYTES = 1024 * 1024


def _too_large(path: str) -> InputError:
    return InputError(f"{path}: too large for a grid or hand file (at most {MAX_TEXT_FILE_BYTES // 1024} KiB)")


def read_text(path: str) -> str:
    """A file's text (or standard input for "-"). Raises InputError naming the file, line and column.

    A file larger than MAX_TEXT_FILE_BYTES is refused before it is read (a pipe
    once that much has arrived), so a wrong file never fills the memory.
    """
    try:
        if path == "-":
            path = "<stdin>"
            data = sys.stdin.buffer.read(MAX_TEXT_FILE_BYTES + 1)
        else:
            with open(path, "rb") as f:
                if os.fstat(f.fileno()).st_size > MAX_TEXT_FILE_BYTES:
                    raise _too_large(path)
                data = f.read(MAX_TEXT_FILE_BYTES + 1)
        if len(data) > MAX_TEXT_FILE_BYTES:
            raise _too_large(path)
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
                if result.reason:
                    print(f"  {result.reason}")
            else:
                print(f"{name}: gave up after {ms} without an arrangement or a proof; try a longer --timeout")
        if result.status != "solved" and status == 0:
            status = 1
    return status


def run_advise(args) -> int:
    from companion.games.pivit_tiles.advisor import AdviceError, advise, unseen_pile
    from companion.games.pivit_tiles.grid import grid_str
    from companion.games.pivit_tiles.tiles import TileError, parse_hand

    def read_tiles(path: str) -> list[str]:
        try:
            return parse_hand(read_text(path), args.tileset, source=display_name(path))
        except TileError as exc:
            raise InputError(str(exc)) from None

    name = display_name(args.hand)
    hand = read_tiles(args.hand)
    if not hand:
        raise InputError(f"{name}: the hand has no tiles")
    try:
        unseen_pile(hand, args.tileset)  # the hand alone: no more copies than a box has
    except AdviceError as exc:
        raise InputError(f"{name}: {exc}") from None
    unseen = None
    if args.unseen is not None:
        unseen = read_tiles(args.unseen)
        try:
            unseen_pile(hand, args.tileset, unseen)
        except AdviceError as exc:
            raise InputError(f"{display_name(args.unseen)}: {exc}") from None
    result = advise(hand, args.tileset, young=args.young, trades=args.trades, unseen=unseen)
    grid = grid_str(result.grid) if result.grid is not None else None
    if args.json:
        out = {"file": name, "playable": result.playable}
        if grid is not None:
            out["grid"] = grid
        out["advice"] = [a.to_json() for a in result.advice]
        out["unknown"] = result.unknown
        out["elapsed_ms"] = round(result.elapsed_ms, 3)
        print(json.dumps(out))
    else:
        print(advice_report(name, len(hand), result, grid))
    return 0 if result.playable else 1


def advice_report(name: str, tiles: int, result, grid: str | None) -> str:
    """The human report of `advise`: the arrangement, or the trades best first."""
    from companion.games.pivit_tiles.tiles import tile_name

    secs = f"{result.elapsed_ms / 1000:.1f} s"
    if result.playable:
        return f"{name}: playable ({tiles} tiles); an arrangement:\n{grid}"
    if result.root_unknown:
        head = f"{name}: undecided: the solver ran out of time on this hand ({tiles} tiles); advice as if it is not playable"
    else:
        head = f"{name}: not playable: no arrangement of these {tiles} tiles passes the check"
    out = [head]
    if result.trades == 0:
        out.append("  no trades left")
        return "\n".join(out)
    estimated = any(a.p_two_stderr for a in result.advice)
    two_columns = result.trades > 1
    out.append(f"  {'trade':<28}  after this trade" + (f"   within {result.trades} trades" if two_columns else ""))
    for a in result.advice:
        row = f"  {a.trade:<3} {tile_name(a.trade):<24}  {a.p_one:16.1%}"
        if two_columns:
            row += f"   {a.p_two:7.1%}"
            if a.p_two_stderr:
                row += f" +/- {a.p_two_stderr:.1%}"
        out.append(row)
    notes = []
    if estimated:
        notes.append("the chance within two trades is an estimate where +/- (one standard error) follows it, else exact")
    if result.unknown:
        notes.append(f"{result.unknown} hand{'s' if result.unknown != 1 else ''} timed out in the solver and counted as not playable")
    out.append(f"  ({'; '.join(notes + [secs])})")
    return "\n".join(out)
