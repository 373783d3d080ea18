"""The reader's stages use each other's public names only (issue 17: vision/hand.py took the grid
reader's private helpers): a helper another module needs is part of its module's interface."""
from __future__ import annotations

import ast
import pathlib

import vision

STAGES = pathlib.Path(vision.__file__).parent


def _private_uses(path: pathlib.Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = {p.stem for p in STAGES.glob("*.py")}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("vision"):
            found += [f"from {node.module} import {a.name}" for a in node.names if a.name.startswith("_")]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules \
                and node.attr.startswith("_") and not node.attr.startswith("__"):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def test_no_stage_takes_another_stages_private_helpers():
    uses = {p.name: _private_uses(p) for p in sorted(STAGES.glob("*.py"))}
    assert {name: found for name, found in uses.items() if found} == {}
