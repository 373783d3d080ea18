"""`companion vision`: read, check, eval, calibrate on synthetic photos; bad input is one line and exit 2."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.games.pivit_tiles.grid import grid_str, parse_grid
from vision.synthetic import Scene, render


@pytest.fixture
def grid_photo(photo, tmp_path):
    """(path, truth) of a valid 12-tile classic grid saved as a JPEG."""
    rendered = photo(51, "classic", tiles=12, jpeg_quality=85)
    path = tmp_path / "grid.jpg"
    path.write_bytes(rendered.data)
    return str(path), rendered.cells


def _run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_read_json(capsys, grid_photo):
    path, truth = grid_photo
    status, out, err = _run(capsys, "vision", "read", "--json", path)
    assert status == 0 and err == ""
    doc = json.loads(out)
    assert set(doc) == {"image", "tiles", "missing", "grid", "elapsed_ms"}
    assert doc["image"] == path
    assert {(t["row"], t["col"]): t["tile"] for t in doc["tiles"]} == truth
    assert all(set(t) == {"row", "col", "tile", "confidence", "sure"} and t["sure"] is True for t in doc["tiles"])
    assert doc["missing"] == []
    assert doc["grid"] == grid_str(truth)
    assert isinstance(doc["elapsed_ms"], (int, float)) and doc["elapsed_ms"] > 0


def test_read_several_with_annotations(capsys, grid_photo, tmp_path, photo):
    path, truth = grid_photo
    second = tmp_path / "second.png"
    second.write_bytes(photo(52, "classic", tiles=8, jpeg_quality=0).data)
    out_dir = tmp_path / "annotated"
    status, out, err = _run(capsys, "vision", "read", "--json", "--annotate", str(out_dir), path, str(second))
    assert status == 0
    lines = out.strip().splitlines()
    assert [json.loads(line)["image"] for line in lines] == [path, str(second)]
    for name in ("grid.read.png", "second.read.png"):
        png = (out_dir / name).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_read_for_people(capsys, grid_photo):
    path, truth = grid_photo
    status, out, err = _run(capsys, "vision", "read", "--tileset", "classic", path)
    assert status == 0
    first, *grid = out.rstrip("\n").splitlines()
    assert first.startswith(f"{path}: {len(truth)} tiles in ")
    assert parse_grid("\n".join(g for g in grid if not g.startswith("  not sure")), "classic") == truth


def test_check_valid_grid(capsys, grid_photo, tmp_path):
    path, truth = grid_photo
    status, out, err = _run(capsys, "vision", "check", "--tiles", "0", "--annotate", str(tmp_path), path)
    assert status == 0, out + err
    assert "valid" in out and "NOT" not in out
    assert (tmp_path / "grid.check.png").exists()


def test_check_faulty_grid_json(capsys, photo, tmp_path):
    rendered = photo(53, "connect", tiles=10, valid=False, jpeg_quality=85)
    path = tmp_path / "faulty.jpg"
    path.write_bytes(rendered.data)
    status, out, err = _run(capsys, "vision", "check", "--json", "--tiles", "0", "--tileset", "connect", "--annotate", str(tmp_path), str(path))
    assert status == 1
    doc = json.loads(out)
    assert doc["valid"] is False and doc["violations"]
    assert doc["image"] == str(path)
    assert {(t["row"], t["col"]): t["tile"] for t in doc["tiles"]} == rendered.cells
    annotated = cv2.imread(doc["annotated"])
    assert annotated is not None and annotated.shape[2] == 3


def test_check_counts_tiles_like_pivit_check(capsys, grid_photo, tmp_path):
    path, truth = grid_photo
    status, out, err = _run(capsys, "vision", "check", "--json", "--annotate", str(tmp_path), path)
    doc = json.loads(out)
    # The default hand is 24 tiles; the photo holds 12.
    assert status == 1 and [v["rule"] for v in doc["violations"]] == ["tile-count"]


def test_eval_folder(capsys, photo, tmp_path):
    total = 0
    for seed in (61, 62, 63):
        rendered = photo(seed, "connect", tiles=9, jpeg_quality=90)
        (tmp_path / f"p{seed}.jpg").write_bytes(rendered.data)
        truth = {"image": f"p{seed}.jpg", "tileset": "connect", "tiles": [{"row": r, "col": c, "tile": t} for (r, c), t in sorted(rendered.cells.items())]}
        (tmp_path / f"p{seed}.json").write_text(json.dumps(truth))
        total += len(rendered.cells)
    # A wrong truth file: the score must say so.
    bad = json.loads((tmp_path / "p63.json").read_text())
    bad["tiles"][0]["tile"] = "1W" if bad["tiles"][0]["tile"] != "1W" else "2W"
    (tmp_path / "p63.json").write_text(json.dumps(bad))
    status, out, err = _run(capsys, "vision", "eval", str(tmp_path))
    assert status == 0
    lines = out.strip().splitlines()
    assert len(lines) == 4
    assert "p61.jpg" in lines[0] and lines[0].endswith("exact")
    assert "CONFIDENTLY WRONG" in lines[2]
    summary = lines[-1]
    assert "photos read exactly 2/3" in summary and "ms per photo" in summary
    assert f"per-tile accuracy {100 * (total - 1) / total:.2f}% ({total - 1}/{total})" in summary


def test_eval_json(capsys, photo, tmp_path):
    rendered = photo(64, "classic", tiles=6)
    (tmp_path / "a.png").write_bytes(rendered.data)
    (tmp_path / "a.json").write_text(json.dumps({"tileset": "classic", "tiles": [{"row": r, "col": c, "tile": t} for (r, c), t in rendered.cells.items()]}))
    status, out, err = _run(capsys, "vision", "eval", "--json", str(tmp_path))
    first, last = (json.loads(line) for line in out.strip().splitlines())
    assert first["exact"] is True and first["name"] == "a.png"
    assert last == {"photos": 1, "tiles": len(rendered.cells), "tile_accuracy": 1.0, "exact_rate": 1.0, "confidently_wrong": 0,
                    "unsure": 0, "missing": 0, "refused": 0, "ms_per_photo": last["ms_per_photo"]}


def test_calibrate_then_read(capsys, tmp_path):
    cells = {(0, c): f"{d}{colour}" for c, (d, colour) in enumerate(zip("123456", "ROYGBP"))}
    rendered = render(cells, "classic", Scene(size=(640, 360), tile_px=60, rotation=5, jpeg_quality=90))
    photo_path = tmp_path / "known.jpg"
    photo_path.write_bytes(rendered.data)
    grid_path = tmp_path / "known.txt"
    grid_path.write_text(grid_str(cells) + "\n")
    out_path = tmp_path / "cal.json"
    status, out, err = _run(capsys, "vision", "calibrate", "-o", str(out_path), str(photo_path), str(grid_path))
    assert status == 0, err
    assert "calibrated 6 colours from 6 tiles" in out
    data = json.loads(out_path.read_text())
    assert set(data["paints"]) == set("ROYGBP")
    status, out, err = _run(capsys, "vision", "read", "--json", "--calibration", str(out_path), str(photo_path))
    assert status == 0
    assert json.loads(out)["grid"] == grid_str(cells)


def test_calibrate_needs_every_colour(capsys, tmp_path):
    cells = {(0, 0): "1R", (0, 1): "2R", (0, 2): "3R"}
    rendered = render(cells, "classic", Scene(size=(480, 320), tile_px=60))
    (tmp_path / "p.png").write_bytes(rendered.data)
    (tmp_path / "g.txt").write_text(grid_str(cells))
    status, out, err = _run(capsys, "vision", "calibrate", str(tmp_path / "p.png"), str(tmp_path / "g.txt"))
    assert status == 2
    assert "no O or Y or G or B or P tile" in err


def _bad_files(tmp_path):
    jpeg = render({(0, 0): "1R", (0, 1): "2R", (0, 2): "3R"}, "classic", Scene(size=(320, 240), jpeg_quality=80)).data
    files = {
        "truncated.jpg": jpeg[: len(jpeg) // 2],
        "notes.txt": b"this is not a photo",
        "tiny.png": cv2.imencode(".png", np.zeros((1, 1, 3), np.uint8))[1].tobytes(),
        "grey.jpg": cv2.imencode(".jpg", np.full((100, 100), 128, np.uint8))[1].tobytes(),
        "empty.jpg": b"",
    }
    blank = render({(0, 0): "1R"}, "classic", Scene(size=(320, 240), centre=(9.0, 9.0), background_tint=(0.9, 1.0, 1.05), noise=2.0))
    files["table.png"] = blank.data
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return [str(tmp_path / name) for name in files] + [str(tmp_path / "missing.jpg"), str(tmp_path)]


def test_bad_photos_are_one_line_each_and_exit_2(capsys, tmp_path, grid_photo):
    bad = _bad_files(tmp_path)
    good, truth = grid_photo
    status, out, err = _run(capsys, "vision", "read", "--json", *bad, good)
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == len(bad)
    for path, line in zip(bad, lines):
        assert line.startswith(f"companion: {path}: "), line
        assert "Traceback" not in line
    # The good photo is still read.
    assert json.loads(out)["image"] == good


@pytest.mark.parametrize("command", ["check", "calibrate"])
def test_bad_photo_for_check_and_calibrate(capsys, tmp_path, command):
    path = tmp_path / "x.jpg"
    path.write_bytes(b"\xff\xd8\xff\xe0 not really")
    grid = tmp_path / "g.txt"
    grid.write_text("1R 2R 3R\n")
    argv = ["vision", command, str(path)] + ([str(grid)] if command == "calibrate" else ["--annotate", str(tmp_path)])
    status, out, err = _run(capsys, *argv)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith(f"companion: {path}: ")


def test_eval_of_a_folder_without_truth(capsys, tmp_path):
    status, out, err = _run(capsys, "vision", "eval", str(tmp_path))
    assert status == 2 and "no photos with NAME.json truth files" in err


def test_bad_calibration_file(capsys, tmp_path, grid_photo):
    path, _ = grid_photo
    bad = tmp_path / "cal.json"
    bad.write_text("{}")
    status, out, err = _run(capsys, "vision", "read", "--calibration", str(bad), path)
    assert status == 2 and "not a colour calibration file" in err


def test_vision_commands_import_no_heavy_modules_at_start():
    import subprocess
    import sys

    code = (
        "import argparse, sys, vision, companion.commands.vision as v; "
        "v.register(argparse.ArgumentParser().add_subparsers()); "
        "print('cv2' in sys.modules, 'numpy' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]


def test_capture_without_a_camera_is_one_line(capsys, tmp_path):
    out_path = tmp_path / "shot.jpg"
    status, out, err = _run(capsys, "vision", "capture", "--camera", "webcam", "-o", str(out_path))
    if status == 0:  # a machine with a webcam: a real photo was taken
        assert out_path.read_bytes()[:3] == b"\xff\xd8\xff"
    else:
        assert status == 2
        assert err.count("\n") == 1 and err.startswith("companion: ") and "camera" in err


def test_read_several_at_once_in_worker_processes(tmp_path, photo):
    # A fresh process (OpenCV not loaded yet) reads photos in worker processes: the same
    # answers, printed in the order given, a bad photo one line on stderr and exit 2.
    import subprocess
    import sys

    paths = []
    for k, seed in enumerate((53, 54, 55)):
        path = tmp_path / f"p{k}.jpg"
        path.write_bytes(photo(seed, "classic", tiles=8, jpeg_quality=85).data)
        paths.append(str(path))
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not a photo")
    argv = [str(p) for p in (paths[0], bad, paths[1], paths[2])]

    def run(jobs):
        result = subprocess.run([sys.executable, "-m", "companion", "vision", "read", "--json", "--jobs", str(jobs), *argv],
                                capture_output=True, text=True, timeout=120)
        docs = [json.loads(line) for line in result.stdout.splitlines()]
        for doc in docs:
            doc.pop("elapsed_ms")
        return result.returncode, docs, result.stderr.strip().splitlines()

    status, docs, err = run(2)
    assert status == 2
    assert [d["image"] for d in docs] == paths
    assert len(err) == 1 and err[0].startswith(f"companion: {bad}: ")
    assert run(1) == (status, docs, err)


def test_forked_map_gives_results_in_order_and_reports_a_failure():
    # The worker processes of `vision read`: results in the order of the jobs whichever worker
    # is done first; more job indices than a pipe holds at once (64 KB), and results larger than
    # one read of the pipe, go through whole; a worker's exception is raised here with its traceback.
    import os
    import time

    from companion.commands.vision import forked_map

    def slow_first(k):
        if k == 0:
            time.sleep(0.2)
        return k, os.getpid()

    out = list(forked_map(slow_first, range(6), 2))
    assert [k for k, _ in out] == list(range(6))
    assert os.getpid() not in {pid for _, pid in out} and len({pid for _, pid in out}) == 2
    assert list(forked_map(lambda k: k * k, range(20000), 2)) == [k * k for k in range(20000)]
    big = list(forked_map(lambda k: bytes([k]) * 300_000, range(3), 2))
    assert [len(b) for b in big] == [300_000] * 3 and big[2][:1] == b"\x02"

    def fails_on_three(k):
        if k == 3:
            raise ValueError("no photo three")
        return k

    with pytest.raises(RuntimeError, match="no photo three"):
        list(forked_map(fails_on_three, range(5), 2))


def test_vision_read_hands_its_workers_the_largest_photo_first(tmp_path):
    # The last photo handed out holds up the process while the other workers wait: the largest
    # file first (the given order among equal sizes, a file that cannot be read last), and the
    # results still printed in the order given.
    import time

    from companion.commands.vision import forked_map, largest_first

    paths = []
    for name, size in (("a", 10), ("b", 300), ("c", 10), ("d", 2000)):
        paths.append(str(tmp_path / f"{name}.jpg"))
        with open(paths[-1], "wb") as f:
            f.write(b"x" * size)
    paths.append(str(tmp_path / "gone.jpg"))
    assert largest_first(paths) == [3, 1, 0, 2, 4]
    # One worker takes the jobs one after another, in the order handed out (the monotonic clock is
    # the machine's, the same in every process).
    started = list(forked_map(lambda k: (k, time.monotonic_ns()), range(4), 1, [2, 0, 3, 1]))
    assert [k for k, _ in started] == [0, 1, 2, 3]
    assert sorted(range(4), key=lambda k: started[k][1]) == [2, 0, 3, 1]


def test_a_read_process_keeps_the_memory_it_frees():
    # `vision read` has glibc keep freed memory for the next arrays: several megabytes made and
    # dropped again and again fault their pages in once, not every time (counted in a fresh process).
    import subprocess
    import sys

    code = ("import resource, sys\nimport numpy as np\nfrom companion.commands.vision import _keep_freed_memory\n"
            "if sys.argv[1] == 'keep':\n    _keep_freed_memory()\n"
            "def churn():\n    arrays = [np.ones(500_000) for _ in range(4)]\n    del arrays\n"
            "churn()\nbefore = resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
            "for _ in range(20):\n    churn()\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)\n")

    def faults(how):
        return int(subprocess.run([sys.executable, "-c", code, how], capture_output=True, text=True, check=True).stdout)

    if sys.platform != "linux" or faults("default") < 20 * 1000:
        pytest.skip("a C library that keeps freed memory anyway")
    assert faults("keep") < 1000


def test_read_jobs_must_be_a_count(capsys, grid_photo):
    path, _ = grid_photo
    status, out, err = _run(capsys, "vision", "read", "--jobs", "-1", path)
    assert status == 2 and out == ""
    assert err.strip().splitlines() == ["companion: --jobs -1: give a number of processes, 1 or more (0: one per CPU core)"]
