"""The firmware under real MicroPython: the WebAssembly port, run by Node.

The same scenario (micropython_scenario.py) runs under MicroPython and under
CPython, each with the firmware's files flat on the path exactly as they sit
on the Pico, and the two transcripts must be identical. This proves the
firmware and the shared protocol module use nothing CPython-only.

The port comes from npm; fetch it once with

    npm install --prefix ~/.cache/companion/micropython-webassembly \\
        @micropython/micropython-webassembly-pyscript@1.27.0

or point COMPANION_MICROPYTHON_MJS at its micropython.mjs. Without it (or
without node) the test is skipped, unless COMPANION_REQUIRE_MICROPYTHON=1.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
SCENARIO = Path(__file__).with_name("micropython_scenario.py")
DEFAULT_MJS = (Path.home() / ".cache/companion/micropython-webassembly/node_modules"
               / "@micropython/micropython-webassembly-pyscript/micropython.mjs")

DRIVER = r"""
const [mjs, filesJson, scenarioPath] = process.argv.slice(2);
const fs = await import("node:fs");
const { loadMicroPython } = await import(mjs);
const out = [];
const mp = await loadMicroPython({ stdout: (line) => out.push(line), stderr: (line) => out.push(line) });
mp.FS.mkdir("/fw");
for (const [name, path] of Object.entries(JSON.parse(filesJson))) {
  mp.FS.writeFile("/fw/" + name, fs.readFileSync(path));
}
try {
  mp.runPython("import sys\nsys.path.append('/fw')\n" + fs.readFileSync(scenarioPath, "utf8"));
} catch (error) {
  process.stdout.write(out.join("\n") + "\n");
  process.stderr.write(String(error) + "\n");
  process.exit(1);
}
process.stdout.write(out.join("\n") + "\n");
"""


def _micropython() -> tuple[str, Path] | None:
    node = shutil.which("node")
    mjs = Path(os.environ.get("COMPANION_MICROPYTHON_MJS", DEFAULT_MJS))
    if node and mjs.is_file():
        return node, mjs
    if os.environ.get("COMPANION_REQUIRE_MICROPYTHON") == "1":
        pytest.fail(f"MicroPython WebAssembly not found (node={node}, mjs={mjs})")
    pytest.skip("MicroPython WebAssembly port not installed: see this file's docstring")


def _firmware_files() -> dict[str, str]:
    return {p.name: str(p) for p in FIRMWARE.glob("*.py") if p.name != "__init__.py"}


def test_firmware_runs_the_same_under_micropython_and_cpython(tmp_path):
    node, mjs = _micropython()
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)
    under_mpy = subprocess.run(
        [node, str(driver), mjs.as_uri(), json.dumps(_firmware_files()), str(SCENARIO)],
        capture_output=True, text=True, timeout=120)
    assert under_mpy.returncode == 0, under_mpy.stdout[-2000:] + under_mpy.stderr[-2000:]

    flat = tmp_path / "pico"  # the Pico's filesystem: firmware files at the root
    flat.mkdir()
    for name, path in _firmware_files().items():
        shutil.copy(path, flat / name)
    under_cpython = subprocess.run(
        [sys.executable, str(SCENARIO)], cwd=flat, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(flat)})
    assert under_cpython.returncode == 0, under_cpython.stderr[-2000:]

    mpy_lines = under_mpy.stdout.strip().splitlines()
    assert mpy_lines == under_cpython.stdout.strip().splitlines()
    assert mpy_lines[-1] == "done"
    transcript = "\n".join(mpy_lines)
    assert "sent hello boot=same firmware=1.0.0 proto=1" in transcript
    assert "sent error code=cut-short ref=-1" in transcript
    assert " 2500 buzzer on 2700" in transcript  # the alarm, on the dot, across the wrap
    assert "sent expired" in transcript
    shown = [line.split()[-1] for line in mpy_lines if " display " in line]
    assert shown == ["--:--", "0:03", "0:02", "0:01", "0:00"]
