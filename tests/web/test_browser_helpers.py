"""The browser tests share their helpers from browser.py: making a table of any game on the home page,
and calling the JSON API. A copy in a test module drifts from the page it drives; this keeps them one."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

from . import browser

HERE = Path(__file__).resolve().parent
SHARED = {"create_table", "create_on_the_home_page", "call_api", "_request"}


def test_no_test_module_has_its_own_table_maker_or_api_caller():
    copies = []
    for path in sorted(HERE.glob("test_*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.name in SHARED:
                copies.append(f"{path.name}:{node.lineno} {node.name}")
    assert not copies, copies


def test_create_table_takes_the_game():
    parameters = inspect.signature(browser.create_table).parameters
    assert parameters["game"].default == "pivit-tiles" and "host" in parameters
    assert callable(browser.call_api)
