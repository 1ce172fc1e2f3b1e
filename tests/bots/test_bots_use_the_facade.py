"""The bots (``bummerl.bots``) and the SDK reach the engine through its facade only (issue 23):
``bummerl.rules`` and its public ``bummerl.rules.search`` (what the search bots need beyond it) and
``bummerl.rules.worlds`` (worlds consistent with an information set), never a module of the stack
(``rules/base``, ``table``, ``deals``, ``match``, ``variants``), so that the engine can move its
modules without breaking a bot; and it writes no field of an engine deal (it builds positions
with ``from_public`` / ``set_position``)."""

from __future__ import annotations

import ast
from pathlib import Path

from bummerl.rules import TalonDeal
from bummerl.rules.search import ContractDeal

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "clients" / "python" / "bummerl_client"
BOTS = ROOT / "service" / "bummerl" / "bots"
ALLOWED = {"bummerl.rules", "bummerl.rules.search", "bummerl.rules.worlds"}


def engine_imports(source: str) -> list[tuple[int, str]]:
    """``(line, module)`` of every import of a ``bummerl.rules`` module in ``source``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.startswith("bummerl.rules")]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("bummerl.rules"):
            out.append((node.lineno, node.module or ""))
    return out


def test_the_bots_and_the_sdk_import_the_engine_through_its_facade_only() -> None:
    files = sorted(BOTS.rglob("*.py")) + sorted(SDK.rglob("*.py"))
    assert len(files) > 15
    bad = [(f.relative_to(ROOT), line, mod) for f in files for line, mod in engine_imports(f.read_text())
           if mod not in ALLOWED]
    assert not bad, bad


def test_the_check_sees_a_deep_import() -> None:
    assert engine_imports("from bummerl.rules.deals.talon import LEAD\nimport bummerl.rules.base.cards\n") == [
        (1, "bummerl.rules.deals.talon"), (2, "bummerl.rules.base.cards")]
    assert engine_imports("from bummerl.rules import search\n") == [(1, "bummerl.rules")]


#: The fields of the engine's deal objects (``TalonDeal`` / ``DealState``, ``ContractDeal``).
DEAL_FIELDS = frozenset(TalonDeal.__slots__) | frozenset(ContractDeal.__slots__)


def deal_field_writes(source: str) -> list[tuple[int, str]]:
    """``(line, target)`` of every write of a deal field on an object other than ``self`` / ``cls``
    in ``source``: an assignment (also augmented, annotated, in a tuple, through a subscript such
    as ``d.hands[0] = ...`` or ``d.state["x"] = ...``), a ``del``, or ``setattr(x, "field", ...)`` with
    the name written out.
    A bot's own classes may have fields of the same names on ``self``."""
    out: list[tuple[int, str]] = []

    def check(t: ast.expr, line: int) -> None:
        if isinstance(t, ast.Tuple | ast.List | ast.Starred):
            for e in t.elts if not isinstance(t, ast.Starred) else [t.value]:
                check(e, line)
            return
        while isinstance(t, ast.Subscript):
            t = t.value
        if isinstance(t, ast.Attribute) and t.attr in DEAL_FIELDS:
            if not (isinstance(t.value, ast.Name) and t.value.id in ("self", "cls")):
                out.append((line, ast.unparse(t)))

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                check(t, node.lineno)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            check(node.target, node.lineno)
        elif isinstance(node, ast.Delete):
            for t in node.targets:
                check(t, node.lineno)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
              and node.args[1].value in DEAL_FIELDS):
            out.append((node.lineno, ast.unparse(node)))
    return out


def test_the_bots_write_no_field_of_an_engine_deal() -> None:
    """Issue 23: a search builds its positions with the engine's public constructors and methods
    (``TalonDeal.from_public``, ``search_copy``, ``set_position``, ``step``), never by assigning
    the deal's fields, so that the engine may change its representation."""
    files = sorted(BOTS.rglob("*.py")) + sorted(SDK.rglob("*.py"))
    bad = [(f.relative_to(ROOT), line, what) for f in files for line, what in deal_field_writes(f.read_text())]
    assert not bad, bad


def test_the_write_check_sees_every_form() -> None:
    src = (
        "d.hands = [1, 2]\n"
        "scratch.to_act = scratch.leader = 0\n"
        "d.hands[0] |= 4\n"
        "d.state['rest'] = []\n"
        "a, d.phase = 1, 2\n"
        "setattr(d, 'outcome', None)\n"
        "setattr(d, name, 1)\n"  # a computed name is not seen
        "self.hands = 0\n"
        "req.seed = 1\n"
        "setattr(Client, 'x', 1)\n"
    )
    assert [line for line, _ in deal_field_writes(src)] == [1, 2, 2, 3, 4, 5, 6]
