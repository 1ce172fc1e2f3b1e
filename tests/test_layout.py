"""The house's layout (docs/DESIGN.md §1, issue 36), read from the code's imports, at any depth of a
file (function-level and ``TYPE_CHECKING`` imports count):

* the server package (``service/``) never imports the client SDK, the CLI or the benchmarks: the
  server does not depend on its clients;
* the bots (``bummerl.bots``) import the engine's facade and nothing of the service (no network,
  no store, no gRPC): ``bots -> rules``;
* the SDK imports neither the CLI nor the benchmarks;
* no import circle among the modules of the house.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "bummerl": ROOT / "service" / "bummerl",
    "bummerl_client": ROOT / "clients" / "python" / "bummerl_client",
    "bummerl_cli": ROOT / "cli" / "bummerl_cli",
    "bummerl_bench": ROOT / "bench" / "bummerl_bench",
}


def modules() -> dict[str, Path]:
    """Every module of the house by dotted name (the generated ``bummerl.v1`` left out)."""
    out: dict[str, Path] = {}
    for top, root in PACKAGES.items():
        for f in sorted(root.rglob("*.py")):
            rel = f.relative_to(root).with_suffix("").parts
            if rel[:1] == ("v1",):
                continue
            out[".".join([top, *(p for p in rel if p != "__init__")])] = f
    return out


MODULES = modules()


def imports(name: str, source: str | None = None) -> Iterator[tuple[int, str]]:
    """``(line, module)`` for every import in module ``name`` (its file, or ``source``), relative
    ones resolved; ``from pkg import sub`` names the submodule ``pkg.sub`` when there is one."""
    path = MODULES.get(name)
    text = source if source is not None else path.read_text() if path else ""
    is_pkg = path is not None and path.name == "__init__.py"
    pkg = name if is_pkg else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = pkg.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module or ""
            subs = [f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in MODULES]
            yield from ((node.lineno, s) for s in subs)
            if len(subs) < len(node.names):
                yield node.lineno, mod


def owner(module: str) -> str | None:
    """The house module that ``module`` (or a name in it) is, or None outside the house."""
    while module and module not in MODULES:
        module = module.rpartition(".")[0]
    return module or None


def test_the_server_never_imports_its_clients() -> None:
    files = sorted((ROOT / "service").rglob("*.py"))
    assert len(files) > 80
    bad = []
    for f in files:
        for node in ast.walk(ast.parse(f.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            bad += [(str(f.relative_to(ROOT)), node.lineno, n) for n in names
                    if n.split(".")[0] in ("bummerl_client", "bummerl_cli", "bummerl_bench")]
    assert not bad, bad


#: What a bot may import: the standard library, the engine's facade (``bummerl.rules``, ``.search``,
#: ``.worlds``), its own package, and for the harness the served JSON of a message.
BOT_MAY_IMPORT = ("bummerl.rules", "bummerl.rules.search", "bummerl.rules.worlds", "bummerl.bots", "bummerl.wire",
                  "bummerl.v1", "google.protobuf")


def test_the_bots_import_the_engine_and_nothing_of_the_service() -> None:
    bots = [m for m in MODULES if m == "bummerl.bots" or m.startswith("bummerl.bots.")]
    assert len(bots) >= 10
    bad = []
    for m in bots:
        for line, mod in imports(m):
            top = mod.split(".")[0]
            if top in sys.stdlib_module_names:
                continue
            if not any(mod == ok or mod.startswith(ok + ".") for ok in BOT_MAY_IMPORT) or (
                    mod.startswith("bummerl.rules.") and mod.split(".")[2] not in ("search", "worlds")):
                bad.append((m, line, mod))
    assert not bad, bad


def test_the_sdk_imports_neither_the_cli_nor_the_benchmarks() -> None:
    sdk = [m for m in MODULES if m.split(".")[0] == "bummerl_client"]
    bad = [(m, line, mod) for m in sdk for line, mod in imports(m)
           if mod.split(".")[0] in ("bummerl_cli", "bummerl_bench")]
    assert len(sdk) >= 8 and not bad, bad


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for m in MODULES:
        for _line, mod in imports(m):
            target = owner(mod)
            if target and target != m:
                graph[m].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circle_in_the_house() -> None:
    assert circles(import_graph()) == []


def test_the_circle_check_sees_a_circle_through_a_type_only_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    src = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .service import LadderService\n"
    assert (3, "bummerl.ladder.service") in list(imports("bummerl.ladder.driver", src))


#: The only imports inside functions of the server, each an optional extra or a platform module:
#: uvloop (faster event loop, used when installed), OpenSpiel (the ``openspiel`` extra) and the
#: adapter module that needs it, fcntl (POSIX only).
LATE_IMPORTS_ALLOWED = {("bummerl.app", "uvloop"), ("bummerl.envs.adapters", "pyspiel"),
                        ("bummerl.envs.adapters", "bummerl.envs.openspiel"), ("bummerl.store.embedded", "fcntl")}


def late_imports(name: str) -> set[tuple[str, str]]:
    """``(module, imported)`` for each import inside a function of module ``name``."""
    tree = ast.parse(MODULES[name].read_text())
    funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    inner = {id(s): s for f in funcs for s in ast.walk(f) if isinstance(s, (ast.Import, ast.ImportFrom))}
    lines = {s.lineno for s in inner.values()}
    return {(name, mod) for line, mod in imports(name) if line in lines}


def test_the_server_imports_at_the_top_of_its_modules_except_optional_extras() -> None:
    server = [m for m in MODULES if m.split(".")[0] == "bummerl"]
    late = set().union(*(late_imports(m) for m in server))
    assert late <= LATE_IMPORTS_ALLOWED, sorted(late - LATE_IMPORTS_ALLOWED)
    assert ("bummerl.app", "uvloop") in late  # the check sees an import inside a function


MAX_LINES = 700
"""No module of the house is longer (issue 36: rooms one can read); tests are not counted."""


def test_no_module_of_the_house_is_over_700_lines() -> None:
    long = {name: n for name, path in MODULES.items() if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert len(MODULES) > 150 and not long, long
