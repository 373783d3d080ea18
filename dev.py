#!/usr/bin/env python3
"""Set up the project on first use and run it: `python3 dev.py serve` or `python3 dev.py test`.

The first call creates `.venv` beside this file and installs the project with its
test extra; later calls reinstall only when pyproject.toml changed. Nothing else
is needed on the machine but Python 3.11+ (and git to clone).
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".companion-installed"


def venv_bin(name: str) -> Path:
    return VENV / ("Scripts" if os.name == "nt" else "bin") / name


def ensure_env() -> Path:
    if sys.version_info < (3, 11):
        sys.exit(f"dev.py: Python 3.11 or newer is needed, this is {sys.version.split()[0]}")
    python = venv_bin("python")
    if not python.exists():
        print("dev.py: creating .venv", flush=True)
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
    # Reinstall when pyproject.toml or this way of installing changes.
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + b"compat-1").hexdigest()
    if not STAMP.exists() or STAMP.read_text() != digest:
        print("dev.py: installing the project and its test tools into .venv", flush=True)
        pip = [str(python), "-m", "pip", "--disable-pip-version-check", "-q"]
        # compat mode: the repo root goes on sys.path, so packages added to the tree
        # later import without reinstalling.
        subprocess.check_call(
            pip + ["install", "--config-settings", "editable_mode=compat", "-e", f"{ROOT}[test]"]
        )
        STAMP.write_text(digest)
    return python


def test_workers(rest: list[str]) -> list[str]:
    """pytest-xdist options: one test process per core (at most 4), unless the caller chose.

    The tests share no port, directory or database: each server, PostgreSQL
    cluster and browser is started on a free port and in a temporary directory
    of its own, so the suite runs on every core the machine gives it.
    `python3 dev.py test -n 0` runs it in one process.
    """
    if any(a.startswith(("-n", "--numprocesses", "--dist")) or a.endswith("no:xdist") for a in rest):
        return []
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return ["-n", str(min(cores, 4))] if cores > 1 else []


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"serve", "test", "setup"}:
        print("usage: python3 dev.py serve [companion serve options] | test [pytest options] | setup")
        return 2
    python = ensure_env()
    command, rest = argv[0], argv[1:]
    if command == "setup":
        return 0
    if command == "serve":
        args = [str(venv_bin("companion")), "serve", *rest]
    else:
        args = [str(python), "-m", "pytest", *test_workers(rest), *rest]
    os.chdir(ROOT)
    if os.name == "nt":
        return subprocess.call(args)
    os.execv(args[0], args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
