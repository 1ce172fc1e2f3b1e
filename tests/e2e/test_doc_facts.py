"""Facts the documents state about the code (issue 38): paths that exist, sections that exist,
the fault table's reasons as the runner reports them, card points and action ids as the engine
has them."""

from __future__ import annotations

import re
from pathlib import Path

from bummerl.rules.base import actions
from bummerl.rules.base.cards import RANK_POINTS
from bummerl_client.runner import FAULT_REASONS

ROOT = Path(__file__).resolve().parents[2]
DOCS = {name: (ROOT / name).read_text(encoding="utf-8") for name in ("README.md", "docs/ENGINE_PROTOCOL.md",
                                                                      "docs/DESIGN.md")}
PROTOCOL = DOCS["docs/ENGINE_PROTOCOL.md"]


def test_the_views_module_is_named_where_it_is() -> None:
    assert (ROOT / "service/bummerl/rules/base/views.py").exists()
    for name, text in DOCS.items():
        assert not re.search(r"(?<!base/)\brules/views\.py", text), f"{name} names rules/views.py"


def test_sections_the_protocol_points_to_exist() -> None:
    readme_heads = {h.strip() for h in re.findall(r"^#+ (.+)$", DOCS["README.md"], re.M)}
    for ref in re.findall(r'README, "([^"]+)"', PROTOCOL):
        assert ref in readme_heads, f'ENGINE_PROTOCOL.md points to README section "{ref}", which does not exist'


def test_the_fault_table_gives_the_reason_the_runner_resigns_with() -> None:
    for fault, reason in FAULT_REASONS.items():
        row = next(line for line in PROTOCOL.splitlines() if line.startswith(f"| `{fault}` |"))
        assert f"reason `{reason}`" in row, row


def test_card_points_and_action_ids_are_the_engines() -> None:
    shown = re.search(r"A (\d+), T (\d+), K (\d+), Q (\d+), J (\d+), 9 (\d+)", PROTOCOL)
    assert shown is not None and tuple(int(x) for x in shown.groups()) == RANK_POINTS
    rows = {m.group(2): int(m.group(1)) for m in re.finditer(r"^\| (\d+)(?:-\d+)? \| `(\w+)", PROTOCOL, re.M)}
    assert rows["play"] == 0 and rows["marriage"] == actions.MARRIAGE and rows["announce"] == actions.ANNOUNCE
    assert (rows["exchange"], rows["close"], rows["declare"], rows["draw"], rows["pass"]) == (
        actions.EXCHANGE, actions.CLOSE, actions.DECLARE, actions.DRAW, actions.PASS)
    for a in (actions.MARRIAGE, actions.ANNOUNCE, actions.DECLARE):
        assert f"`{actions.action_to_string(a).split()[0]}" in PROTOCOL
    assert "deal.history" in PROTOCOL and "trick_completed" in PROTOCOL and "counted" in PROTOCOL
