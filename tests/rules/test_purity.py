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


#: The engine's stack (issue 23, docs/DESIGN.md §1): a module may import its own level and the
#: levels below, never one above. The facade (``bummerl/rules/__init__.py``) is the top.
LEVELS = {"base": 0, "table": 1, "deals": 2, "match": 3, "variants": 4}
FACADE = len(LEVELS)


def _level(module: str) -> int:
    """Level of ``bummerl.rules.<level>...``; the facade for ``bummerl.rules`` itself and any name
    of it (``from bummerl.rules import apply``)."""
    parts = module.split(".")
    assert parts[:2] == ["bummerl", "rules"], module
    return LEVELS.get(parts[2], FACADE) if len(parts) > 2 else FACADE


def _module_of(path: Path) -> str:
    rel = path.relative_to(RULES_DIR).with_suffix("").parts
    return ".".join(["bummerl", "rules", *(p for p in rel if p != "__init__")])


def engine_imports(path: Path, source: str | None = None) -> list[tuple[int, str]]:
    """``(line, absolute module)`` of every import of the engine by ``path`` (its text, or
    ``source``; relative imports resolved; ``from . import x`` names the submodule ``x``), at any
    depth of the file."""
    pkg = _module_of(path).split(".")
    if path.name != "__init__.py":
        pkg = pkg[:-1]
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text() if source is None else source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.startswith("bummerl.rules")]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                if node.module and node.module.startswith("bummerl.rules"):
                    out.append((node.lineno, node.module))
                continue
            base = pkg[: len(pkg) - node.level + 1]
            if node.module:
                out.append((node.lineno, ".".join([*base, node.module])))
            else:
                out += [(node.lineno, ".".join([*base, a.name])) for a in node.names]
    return out


def test_engine_imports_only_point_down_the_stack() -> None:
    """base <- table <- deals <- match <- variants <- the facade: an import that points up (also
    one only for type checking) fails here."""
    files = sorted(RULES_DIR.rglob("*.py"))
    seen_levels = set()
    for f in files:
        me = _module_of(f)
        own = _level(me)
        seen_levels.add(own)
        for line, mod in engine_imports(f):
            assert _level(mod) <= own, f"{me} (level {own}) imports {mod} (level {_level(mod)}) at line {line}"
    assert seen_levels == set(range(FACADE + 1)), "every level of the stack exists"


def test_base_imports_only_the_standard_library_and_itself() -> None:
    for f in sorted((RULES_DIR / "base").rglob("*.py")):
        for line, mod in engine_imports(f):
            assert _level(mod) == 0, f"{f.name} imports {mod} at line {line}"


def nested_imports(source: str) -> list[int]:
    """Lines of the imports of ``source`` that are not at the top of the module (nor in its
    ``if TYPE_CHECKING:`` block)."""
    tree = ast.parse(source)
    allowed: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            allowed.add(id(node))
        elif isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            allowed |= {id(n) for n in node.body if isinstance(n, ast.Import | ast.ImportFrom)}
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom) and id(n) not in allowed]


def test_no_function_level_imports_in_the_engine() -> None:
    """Every import of the engine is at the top of its module (or in its ``if TYPE_CHECKING:``
    block): none hides an import cycle inside a function (issue 23)."""
    for f in sorted(RULES_DIR.rglob("*.py")):
        assert not nested_imports(f.read_text()), f"{f.relative_to(RULES_DIR)}: imports inside a function or class"


def test_the_stack_checks_catch_an_import_pointing_up() -> None:
    """The checks above see what they should: a base module importing the match level (also
    only for type checking), a deal module importing the facade, and an import in a function."""
    cards = RULES_DIR / "base" / "cards.py"
    src = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..match.state import MatchState\n"
    assert engine_imports(cards, src) == [(3, "bummerl.rules.match.state")]
    assert _level("bummerl.rules.match.state") > _level(_module_of(cards))
    talon = RULES_DIR / "deals" / "talon.py"
    assert [_level(m) for _, m in engine_imports(talon, "from .. import apply\n")] == [FACADE]
    assert engine_imports(RULES_DIR / "match" / "__init__.py", "from . import plans\n") == [(1, "bummerl.rules.match.plans")]
    assert nested_imports("import os\n\ndef f():\n    from .cards import BIT\n") == [4]
    assert nested_imports(src) == []
