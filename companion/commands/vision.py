"""`companion vision`: read tile grids from photos, check them, score the reader, calibrate colours.

    companion vision read [--tileset NAME] [--json] [--annotate DIR] IMAGE...
    companion vision read-hand [--tileset NAME] [--json] [--annotate DIR] IMAGE...
    companion vision check [--json] [--young] [--tiles N] [--tileset NAME] [--annotate DIR] IMAGE
    companion vision eval [--json] DIR
    companion vision calibrate [--tileset NAME] [-o FILE] IMAGE GRID
    companion vision capture [--camera KIND] [-o FILE]

Exit status: 0 every photo was read (read, read-hand), the grid is valid
(check); 1 the grid is not valid (check); 2 some input could not be read (one
line on stderr naming it; read and read-hand go on with the other photos).
OpenCV and NumPy load inside the handlers, so `companion --help` stays quick.
"""
from __future__ import annotations

import json
import os
import sys

from companion.errors import InputError

TILESETS = ["classic", "connect"]


def register(subparsers) -> None:
    vision = subparsers.add_parser(
        "vision",
        help="camera check: read a grid of tiles from a photo",
        description="Read grids of tiles from photos, check them, score the reader on labelled photos.",
    )
    vision.set_defaults(group_parser=vision)
    sub = vision.add_subparsers(title="commands", metavar="COMMAND")

    read = sub.add_parser(
        "read",
        help="read the grid in each photo",
        description="Read the grid of tiles in each photo and print it in grid-file notation "
        "(or one JSON object per photo per line with --json). Exit 0 if every photo was read, "
        "2 if some could not be.",
    )
    read.add_argument("--tileset", default="classic", choices=TILESETS, help="tile set (default classic)")
    read.add_argument("--json", action="store_true", help="one JSON object per photo per line")
    read.add_argument("--annotate", metavar="DIR", help="write each photo with its tiles labelled to DIR/NAME.read.png")
    _calibration_option(read)
    read.add_argument("--jobs", type=int, default=0, metavar="N",
                      help="photos read at once, each in a process of its own (default: one per CPU core, at most 4)")
    read.add_argument("images", nargs="+", metavar="IMAGE", help="photo file (JPEG, PNG, WebP or BMP)")
    read.set_defaults(handler=run_read, ends_written=True)

    hand = sub.add_parser(
        "read-hand",
        help="read loose tiles spread on the table as a hand",
        description="Read the loose tiles in each photo (spread anywhere on the table, each turned its own "
        "way, touching or not; not a grid) and print them as a hand file: whitespace-separated tiles in "
        "reading order (rows of the photo, top to bottom, each left to right). With one photo the output is "
        "the hand file itself (pipe it to `companion pivit advise -`); with several, each hand is prefixed "
        "with its photo's path. Tiles the reader is not sure of are named on stderr. With --json, one JSON "
        "object per photo per line. Exit 0 if every photo was read, 2 if some could not be.",
    )
    hand.add_argument("--tileset", default="classic", choices=TILESETS, help="tile set (default classic)")
    hand.add_argument("--json", action="store_true", help="one JSON object per photo per line")
    hand.add_argument("--annotate", metavar="DIR", help="write each photo with its tiles outlined and labelled to DIR/NAME.hand.png")
    _calibration_option(hand)
    hand.add_argument("images", nargs="+", metavar="IMAGE", help="photo file (JPEG, PNG, WebP or BMP)")
    hand.set_defaults(handler=run_read_hand, ends_written=True)

    check = sub.add_parser(
        "check",
        help="read the grid in a photo, then check it against the rules",
        description="Read the grid in a photo and check it as `companion pivit check` does; the photo "
        "with every tile labelled and the faulty lines outlined is written to DIR/NAME.check.png. "
        "Exit 0 if the grid is valid, 1 if not, 2 if the photo could not be read.",
    )
    from companion.commands.pivit import add_check_options

    add_check_options(check)
    check.add_argument("--annotate", metavar="DIR", default=".", help="folder for the annotated picture (default: current folder)")
    _calibration_option(check)
    check.add_argument("image", metavar="IMAGE", help="photo file")
    check.set_defaults(handler=run_check, ends_written=True)

    evaluate = sub.add_parser(
        "eval",
        help="score the reader on photos with truth files",
        description="Read every NAME.jpg of DIR that has a NAME.json truth file beside it and print, for "
        "each condition the truth files name (see `vision evalset`) and for all photos: the per-tile "
        "accuracy, the photos read exactly, the tiles read wrong while the reader was sure of them "
        "(confidently wrong), the tiles it was not sure of, the cells where it says a tile may be missing, "
        "the photos it refused, and the time per photo.",
    )
    evaluate.add_argument("--json", action="store_true", help="one JSON object per photo, then one per condition, then the summary")
    _calibration_option(evaluate)
    evaluate.add_argument("folder", metavar="DIR")
    evaluate.set_defaults(handler=run_eval)

    evalset = sub.add_parser(
        "evalset",
        help="write synthetic evaluation photos for each condition",
        description="Write COUNT seeded synthetic photos of each condition (plain, oblique, steep, turned, "
        "board, cloth, wood, groups, tinted, packed, rough, mixed; and beyond a careful player's photo: large, "
        "occluded, cutoff, extreme) to DIR as NAME.jpg + NAME.json truth files, for "
        "`companion vision eval DIR`. The same seed always gives the same photos.",
    )
    evalset.add_argument("--conditions", default="all", metavar="LIST",
                         help="comma-separated conditions (default all)")
    evalset.add_argument("--count", type=int, default=20, metavar="N", help="photos per condition (default 20)")
    evalset.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    evalset.add_argument("--size", default="1200x900", metavar="WxH",
                         help="picture size (default 1200x900; 4032x3024 is a 12-megapixel phone photo)")
    evalset.add_argument("folder", metavar="DIR")
    evalset.set_defaults(handler=run_evalset)

    calibrate = sub.add_parser(
        "calibrate",
        help="measure the tile colours under this table's light",
        description="Photograph tiles whose grid you know (every colour of the tile set at least once), "
        "give the photo and the grid file; the colours measured are saved for --calibration.",
    )
    calibrate.add_argument("--tileset", default="classic", choices=TILESETS, help="tile set (default classic)")
    calibrate.add_argument("-o", "--output", default="calibration.json", metavar="FILE", help="where to save it (default calibration.json)")
    calibrate.add_argument("image", metavar="IMAGE", help="photo of the known tiles")
    calibrate.add_argument("grid", metavar="GRID", help="grid file of the same tiles")
    calibrate.set_defaults(handler=run_calibrate)

    capture = sub.add_parser(
        "capture",
        help="take a photo with the Pi camera or a webcam",
        description="Take one photo with the table's camera and save it as a JPEG.",
    )
    capture.add_argument("--camera", default="auto", choices=["auto", "pi", "webcam"], help="camera to use (default: Pi camera, else webcam)")
    capture.add_argument("-o", "--output", default="capture.jpg", metavar="FILE", help="JPEG file to write (default capture.jpg)")
    capture.set_defaults(handler=run_capture)


def _calibration_option(parser) -> None:
    parser.add_argument("--calibration", metavar="FILE", help="colour calibration made by `companion vision calibrate`")


def _load_calibration(path):
    if path is None:
        return None
    from vision.colour import Calibration
    from vision.errors import CalibrationError

    try:
        return Calibration.load(path)
    except CalibrationError as exc:
        raise InputError(str(exc)) from None


def _read(path: str, tileset: str, calibration, reader=None):
    """The ReadResult of one photo (or what `reader(path, tileset, calibration)` gives). Raises InputError naming the photo."""
    from vision.errors import VisionError
    from vision.pipeline import read_image_file

    try:
        return (reader or read_image_file)(path, tileset, calibration)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a photo") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except VisionError as exc:
        raise InputError(f"{path}: {exc}") from None


def _annotation_path(folder: str, image: str, suffix: str) -> str:
    stem = os.path.splitext(os.path.basename(image))[0] or "photo"
    return os.path.join(folder, f"{stem}.{suffix}.png")


def _write_png(path: str, data: bytes) -> None:
    try:
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror or exc}") from None


def _doubts(result) -> list[str]:
    """Lines naming the tiles the reader is not sure of and the cells where a tile may be missing."""
    lines = []
    unsure = [f"row {t.row} col {t.col} ({t.tile}, confidence {t.confidence:.2f})" for t in result.tiles if not t.sure]
    if unsure:
        lines.append("  not sure of: " + "; ".join(unsure))
    missing = [f"row {r} col {c}" for r, c in getattr(result, "missing", [])]
    if missing:
        lines.append("  a tile may be missing at: " + "; ".join(missing))
    return lines


def _read_report(job) -> tuple[str | None, str | None]:
    """(what to print on standard output, the error line) for one photo of `companion vision read`."""
    path, tileset, calibration, annotate, as_json = job
    try:
        result = _read(path, tileset, calibration)
        if annotate:
            _write_png(_annotation_path(annotate, path, "read"), result.annotated_png())
    except InputError as exc:
        return None, f"companion: {exc}"
    if as_json:
        return json.dumps(result.to_json(path)), None
    lines = [f"{path}: {len(result.tiles)} tiles in {result.elapsed_ms:.0f} ms", result.grid, *_doubts(result)]
    return "\n".join(lines), None


def _workers(asked: int, photos: int) -> int:
    if asked < 0:
        raise InputError(f"--jobs {asked}: give a number of processes, 1 or more (0: one per CPU core)")
    if asked == 0:
        try:
            cores = len(os.sched_getaffinity(0))
        except AttributeError:  # not Linux
            cores = os.cpu_count() or 1
        asked = min(cores, 4)
    return max(1, min(asked, photos))


def _one_blas_thread() -> None:
    """Before NumPy loads: its OpenBLAS on one thread, for this process and the workers it forks.

    OpenBLAS would start a thread per core at import and spread its larger
    products over them; the reader's matrices are small, and photos are read
    side by side by processes instead (--jobs). An OPENBLAS_NUM_THREADS given
    by the user stands.
    """
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _keep_freed_memory() -> None:
    """Have glibc's malloc keep the memory a read frees for the next arrays, for a process that reads
    photos and ends.

    A read makes and drops arrays of a few megabytes in every stage. By
    default glibc maps the larger ones afresh and hands freed memory at the
    top of its heap back to the system, so the next array's pages fault in
    anew, zero-filled by the kernel: over the 20 development photos, 80,000
    page faults and 0.2-0.3 s of system CPU in one process, against 12,000
    with the thresholds below (the same outputs; the process keeps its peak
    memory until it ends). Nothing on a C library without mallopt.
    """
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD: blocks under 32 MB (glibc's most) from the heap
    mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: give memory back only past 1 GB free at the top


def run_read(args) -> int:
    """Read each photo; several at once in worker processes (forked once the reader is loaded, before
    OpenCV has run), printed in the order given as each is ready."""
    _one_blas_thread()
    _keep_freed_memory()
    calibration = _load_calibration(args.calibration)
    jobs = [(path, args.tileset, calibration, args.annotate, args.json) for path in args.images]
    workers = _workers(args.jobs, len(jobs))
    status = 0
    if workers == 1 or "cv2" in sys.modules or not hasattr(os, "fork"):
        reports = map(_read_report, jobs)
    else:
        from vision.pipeline import load_reader

        # Loaded once here, the reader's modules are the workers' too (fork: copied on write),
        # not loaded again by each. OpenCV has not run yet, so no thread of its is left behind.
        load_reader()
        reports = forked_map(_read_report, jobs, workers, largest_first(args.images))
    for out, error in reports:
        if error is not None:
            print(error, file=sys.stderr, flush=True)
            status = 2
        else:
            print(out, flush=True)
    return status


def largest_first(paths: list[str]) -> list[int]:
    """The indices of `paths`, the largest file first (the given order among files of one size; a file
    that cannot be read counts as empty): the order in which `vision read` hands its photos to its
    workers. A photo's read costs more the more it holds (its decode by its compressed bytes, the rest
    by its tiles, which a larger file tends to show), and the last photo handed out holds up the
    whole process while the other workers wait: started last, a small one leaves the workers least
    unevenly loaded (over the 20 development photos, named by their number of tiles, 3 to 39, the
    last one cost 3 times the first)."""

    def size(path: str) -> int:
        try:
            return os.stat(path).st_size
        except OSError:
            return 0

    sizes = [size(path) for path in paths]
    return sorted(range(len(paths)), key=lambda k: -sizes[k])


def forked_map(function, jobs, workers: int, order=None):
    """`map(function, jobs)`, computed by `workers` processes forked from this one: the results in the
    order of `jobs`, each yielded as soon as it and all before it are ready; the jobs handed out in
    `order` (their indices; None: as given).

    Each worker takes the next job from a pipe of job indices (so a slow photo holds up one worker,
    not a share of the others' photos) and sends back the pickled result. A fork, two pipes per
    worker and select: about a fifth of the CPU and wall time that concurrent.futures'
    ProcessPoolExecutor took to start, feed and stop its workers on the same jobs (its imports
    alone about 30 ms), which every `vision read` paid. Raises RuntimeError when `function`
    raises in a worker (with the worker's traceback) or a worker ends before its jobs are done.
    """
    import pickle
    import select
    import struct

    index = struct.Struct("<i")  # a job, as the queue holds it
    header = struct.Struct("<iiB")  # a result's job, length and whether it is a failure
    jobs = list(jobs)
    task_r, task_w = os.pipe()
    results = {}  # read end of each worker's result pipe -> its process id
    for _ in range(workers):
        result_r, result_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: never returns, never runs the parent's exit handlers
            status = 0
            try:
                os.close(task_w)
                for fd in (result_r, *results):
                    os.close(fd)
                while len(got := os.read(task_r, index.size)) == index.size:
                    (k,) = index.unpack(got)
                    try:
                        payload, failed = pickle.dumps(function(jobs[k])), 0
                    except Exception:
                        import traceback  # only here: 1-2 ms to import

                        payload, failed = traceback.format_exc().encode(), 1
                    record = memoryview(header.pack(k, len(payload), failed) + payload)
                    while record:
                        record = record[os.write(result_w, record):]
            except BaseException:  # the parent gone (a broken pipe) or interrupted
                status = 1
            finally:
                os._exit(status)
        os.close(result_w)
        results[result_r] = pid
    os.close(task_r)
    # Job indices are written as the pipe takes them, in whole indices (4 KB at a time, which a pipe
    # takes whole or not at all), while results are read: neither side waits on the other.
    queue = b"".join(index.pack(k) for k in (range(len(jobs)) if order is None else order))
    os.set_blocking(task_w, False)
    received = {fd: bytearray() for fd in results}
    done, following = {}, 0
    try:
        while following < len(jobs):
            if not received:
                raise RuntimeError("the worker processes ended before every job was done")
            readable, writable, _ = select.select(list(received), [task_w] if queue else [], [])
            if writable:
                try:
                    queue = queue[os.write(task_w, queue[:4096]):]
                except BlockingIOError:
                    pass
                if not queue:
                    os.close(task_w)
                    task_w = None
            for fd in readable:
                chunk = os.read(fd, 1 << 16)
                if not chunk:  # the worker has ended
                    del received[fd]
                    os.close(fd)
                    continue
                buffer = received[fd]
                buffer += chunk
                while len(buffer) >= header.size:
                    k, size, failed = header.unpack_from(buffer)
                    if len(buffer) < header.size + size:
                        break
                    payload = bytes(buffer[header.size:header.size + size])
                    del buffer[:header.size + size]
                    if failed:
                        raise RuntimeError(f"a worker process failed:\n{payload.decode()}")
                    done[k] = pickle.loads(payload)
            while following in done:
                yield done.pop(following)
                following += 1
    finally:
        if task_w is not None:
            os.close(task_w)
        for fd in received:
            os.close(fd)
        for pid in results.values():
            os.waitpid(pid, 0)


def run_read_hand(args) -> int:
    _one_blas_thread()
    _keep_freed_memory()
    from vision.hand import read_hand_file

    calibration = _load_calibration(args.calibration)
    status = 0
    several = len(args.images) > 1
    for path in args.images:
        try:
            result = _read(path, args.tileset, calibration, reader=read_hand_file)
            if args.annotate:
                _write_png(_annotation_path(args.annotate, path, "hand"), result.annotated_png())
        except InputError as exc:
            print(f"companion: {exc}", file=sys.stderr)
            status = 2
            continue
        if args.json:
            print(json.dumps(result.to_json(path)), flush=True)
            continue
        # Like grep: one photo gives the hand file itself, several are told apart by path.
        print(f"{path}: {result.hand}" if several else result.hand, flush=True)
        unsure = [f"{t.tile} at x {t.x:.0f} y {t.y:.0f} (confidence {t.confidence:.2f})" for t in result.tiles if not t.sure]
        if unsure:
            print(f"companion: {path}: not sure of " + "; ".join(unsure), file=sys.stderr)
    return status


def run_check(args) -> int:
    _one_blas_thread()
    from companion.commands.pivit import check_report, check_result_json
    from companion.games.pivit_tiles.check import check_grid

    calibration = _load_calibration(args.calibration)
    result = _read(args.image, args.tileset, calibration)
    cells = result.cells()
    verdict = check_grid(cells, args.tileset, young=args.young, tiles=args.tiles)
    out_path = _annotation_path(args.annotate, args.image, "check")
    _write_png(out_path, result.annotated_png(verdict.violations))
    if args.json:
        doc = check_result_json(args.image, verdict)
        doc.pop("file", None)
        doc.pop("tiles", None)
        print(
            json.dumps(
                {
                    "image": args.image,
                    **result.to_json(args.image),
                    **doc,
                    "annotated": out_path,
                }
            )
        )
    else:
        print(check_report(args.image, cells, verdict))
        for line in _doubts(result):
            print(line)
        print(f"annotated picture: {out_path}")
    return 0 if verdict.valid else 1


def run_eval(args) -> int:
    _one_blas_thread()
    from vision.evaluate import evaluate_folder

    calibration = _load_calibration(args.calibration)

    def report(photo) -> None:
        if args.json:
            print(json.dumps({**photo.__dict__, "exact": photo.exact}), flush=True)
        else:
            if photo.exact:
                mark = "exact"
            elif photo.error:
                mark = f"REFUSED {photo.error}"
            else:
                flags = [f"{n} {what}" for n, what in ((photo.unsure, "not sure"), (photo.missing, "may be missing"),
                                                      (photo.confidently_wrong, "CONFIDENTLY WRONG")) if n]
                mark = ", ".join(flags) or "WRONG"
            print(f"{photo.name}: {photo.correct}/{photo.truth} tiles right, {photo.extra} extra, "
                  f"{photo.elapsed_ms:.0f} ms  {mark}", flush=True)

    try:
        summary = evaluate_folder(args.folder, calibration, on_photo=report)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    groups = summary.by_condition()
    if args.json:
        if len(groups) > 1 or "all" not in groups:
            for condition, group in groups.items():
                print(json.dumps({"condition": condition, **group.to_json()}))
        print(json.dumps(summary.to_json()))
    else:
        if len(groups) > 1 or "all" not in groups:
            from vision.evaluate import table

            print()
            print("\n".join(table(groups)))
            print()
        print(f"all: {summary.line()}" if len(groups) > 1 else summary.line())
    return 0


def run_evalset(args) -> int:
    from vision.evalsets import CONDITIONS, write_evalset

    conditions = CONDITIONS if args.conditions == "all" else tuple(c.strip() for c in args.conditions.split(","))
    unknown = [c for c in conditions if c not in CONDITIONS]
    if unknown:
        raise InputError(f"--conditions: no condition {unknown[0]!r}; the conditions are {', '.join(CONDITIONS)}")
    try:
        width, height = (int(x) for x in args.size.lower().split("x"))
    except ValueError:
        raise InputError(f"--size {args.size!r}: give the picture size as WIDTHxHEIGHT, like 1200x900") from None
    if not (200 <= width <= 8000 and 200 <= height <= 8000):
        raise InputError(f"--size {args.size!r}: each side must be 200 to 8000 pixels")
    if not 1 <= args.count <= 10000:
        raise InputError(f"--count {args.count}: give 1 to 10000 photos per condition")
    try:
        written = write_evalset(args.folder, conditions, args.count, args.seed, (width, height))
    except OSError as exc:
        raise InputError(f"{args.folder}: cannot write: {exc.strerror or exc}") from None
    print(f"{written} photos with truth files written to {args.folder}")
    return 0


def run_calibrate(args) -> int:
    from companion.commands.pivit import read_text
    from companion.games.pivit_tiles.grid import GridError, parse_grid
    from vision.calibrate import calibrate_from_read
    from vision.errors import CalibrationError

    try:
        known = parse_grid(read_text(args.grid), args.tileset, source=args.grid)
    except GridError as exc:
        raise InputError(str(exc)) from None
    result = _read(args.image, args.tileset, None)
    try:
        calibration, report = calibrate_from_read(result, known, args.tileset, source=os.path.basename(args.image))
        calibration.save(args.output)
    except CalibrationError as exc:
        raise InputError(f"{args.image}: {exc}") from None
    except OSError as exc:
        raise InputError(f"{args.output}: cannot write: {exc.strerror or exc}") from None
    print(report)
    print(f"calibration saved to {args.output}")
    return 0


def run_capture(args) -> int:
    import cv2

    from vision.capture import CameraError, open_camera

    try:
        camera = open_camera(args.camera)
        try:
            frame = camera.capture()
        finally:
            camera.close()
    except CameraError as exc:
        raise InputError(str(exc)) from None
    if not cv2.imwrite(args.output, frame, [cv2.IMWRITE_JPEG_QUALITY, 92]):
        raise InputError(f"{args.output}: cannot write a JPEG there")
    print(f"{args.output}: {frame.shape[1]}x{frame.shape[0]}")
    return 0
