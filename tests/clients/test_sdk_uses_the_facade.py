"""The SDK reaches the engine through its facade only (issue 23): ``bummerl.rules`` and its public
``bummerl.rules.search`` (what the search bots need beyond it), never a module of the stack
(``rules/base``, ``table``, ``deals``, ``match``, ``variants``), so that the engine can move its
modules without breaking a bot."""

from __future__ import annotations

import ast
from pathlib import Path

SDK = Path(__file__).resolve().parents[2] / "clients" / "python" / "bummerl_client"
ALLOWED = {"bummerl.rules", "bummerl.rules.search"}


def engine_imports(source: str) -> list[tuple[int, str]]:
    """``(line, module)`` of every import of a ``bummerl.rules`` module in ``source``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.startswith("bummerl.rules")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("bummerl.rules"):
            out.append((node.lineno, node.module or ""))
    return out


def test_the_sdk_imports_the_engine_through_its_facade_only() -> None:
    files = sorted(SDK.rglob("*.py"))
    assert len(files) > 10
    bad = [(f.relative_to(SDK), line, mod) for f in files for line, mod in engine_imports(f.read_text())
           if mod not in ALLOWED]
    assert not bad, bad


def test_the_check_sees_a_deep_import() -> None:
    assert engine_imports("from bummerl.rules.deals.talon import LEAD\nimport bummerl.rules.base.cards\n") == [
        (1, "bummerl.rules.deals.talon"), (2, "bummerl.rules.base.cards")]
    assert engine_imports("from bummerl.rules import search\n") == [(1, "bummerl.rules")]
