"""One direction inside a game package: notation and rules at the bottom, state and engine above,
advice, hints and views on top, and the `GAME` object the table service uses over them all.

Each package's modules are listed bottom to top; a module may import only modules listed before
it, at any depth (imports inside functions and under TYPE_CHECKING count too: a circle hidden in
a function is still a circle). And importing an engine in a fresh interpreter loads none of the
modules above it.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

LAYERS = {
    "quivit": ["cards", "grid", "options", "state", "engine", "hints", "view", "game"],
    "scrabble_junior": ["layout", "rules", "engine", "advice", "view", "game"],
}


def package_imports(package: str, module: str) -> set[str]:
    """The modules of `package` that `module` imports anywhere in its source."""
    prefix = f"companion.games.{package}"
    tree = ast.parse((ROOT / "companion" / "games" / package / f"{module}.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == prefix:
                found.update(alias.name for alias in node.names)
            elif node.module.startswith(prefix + "."):
                found.add(node.module[len(prefix) + 1:].split(".")[0])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(prefix + "."):
                    found.add(alias.name[len(prefix) + 1:].split(".")[0])
    return found


@pytest.mark.parametrize("package, module", [(p, m) for p, layers in LAYERS.items() for m in layers])
def test_a_module_imports_only_modules_below_it(package, module):
    layers = LAYERS[package]
    below = set(layers[: layers.index(module)])
    assert package_imports(package, module) <= below, f"{module} reaches up to {package_imports(package, module) - below}"


@pytest.mark.parametrize("package", LAYERS)
def test_every_module_of_the_package_has_a_layer(package):
    modules = {p.stem for p in (ROOT / "companion" / "games" / package).glob("*.py")} - {"__init__"}
    assert modules == set(LAYERS[package])


@pytest.mark.parametrize("package", LAYERS)
def test_importing_the_engine_loads_nothing_above_it(package):
    layers = LAYERS[package]
    above = [f"companion.games.{package}.{m}" for m in layers[layers.index("engine") + 1:]]
    loaded = subprocess.run(
        [sys.executable, "-c", f"import sys, companion.games.{package}.engine; print(' '.join(sys.modules))"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()
    assert not [m for m in above if m in loaded]
