"""docs/DESIGN.md §2/§7: ``bummerl.rules`` is pure: it imports only the standard library and itself
(no asyncio, grpc, redis, time or global random state), and never the service."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import bummerl.rules

RULES_DIR = Path(bummerl.rules.__file__).parent
FORBIDDEN_STDLIB = {"asyncio", "time", "socket", "threading", "subprocess", "os"}


def imported_modules(path: Path) -> set[str]:
    mods: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            mods |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            mods.add(node.module)
    return mods


def test_rules_imports_only_stdlib_and_itself() -> None:
    files = sorted(RULES_DIR.rglob("*.py"))
    assert len(files) >= 10
    for f in files:
        for mod in imported_modules(f):
            top = mod.split(".")[0]
            assert top in sys.stdlib_module_names or mod.startswith("bummerl.rules"), f"{f.name} imports {mod}"
            assert top not in FORBIDDEN_STDLIB, f"{f.name} imports {mod}: the engine does no I/O and reads no clock"
            assert not mod.startswith("bummerl.") or mod.startswith("bummerl.rules"), f"{f.name} imports the service: {mod}"


def test_rules_uses_no_global_random_state() -> None:
    for f in RULES_DIR.rglob("*.py"):
        text = f.read_text()
        for call in ("random.random(", "random.choice(", "random.shuffle(", "random.randrange(", "random.seed("):
            assert call not in text, f"{f.name} uses the global RNG ({call}); use random.Random(seed)"
