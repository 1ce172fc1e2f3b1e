"""Every rule ID of the implemented variants (docs/RULES.md §2-§8, their OPEN items, and the shared
DEF/SRV/OPEN-GEN rules) has a test named after it (``test_AT_EXCH_2_...``).

The specification ships with the repository (docs/RULES.md); a checkout without it fails here
instead of skipping, so that a missing spec cannot pass unnoticed. ``BUMMERL_RULES_MD`` points
the test at another copy (e.g. a newer draft)."""

from __future__ import annotations

import os
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
RULES_MD = Path(os.environ.get("BUMMERL_RULES_MD", HERE.parents[1] / "docs" / "RULES.md"))
PREFIXES = ("AT", "O66", "OBI", "SAN", "HU2", "STK", "HU3R", "BS", "TS", "HU3S", "HU4")


#: Shared items that only concern the 3- and 4-player games (partners; viewing tricks there).
MULTI_PLAYER_ONLY = {"OPEN-GEN-3", "OPEN-GEN-6"}


def rule_ids(text: str) -> set[str]:
    alt = "|".join(PREFIXES)
    ids = set(re.findall(rf"\*\*((?:{alt})-[A-Z]+-\d+)\*\*", text))
    ids |= set(re.findall(rf"\*\*(OPEN-(?:{alt}|GEN)-\d+)\b", text))
    ids |= set(re.findall(r"\*\*((?:DEF|SRV)-[A-Z]+(?:-\d+)?)\*\*", text))
    return ids - MULTI_PLAYER_ONLY


def collected_test_names() -> str:
    names = []
    for p in HERE.glob("test_*.py"):
        names += re.findall(r"def (test_\w+)", p.read_text())
    return "\n".join(names)


def test_every_rule_id_of_the_two_player_variants_has_a_test() -> None:
    assert RULES_MD.is_file(), f"the rules specification is missing: {RULES_MD} (docs/RULES.md of the repository)"
    ids = rule_ids(RULES_MD.read_text())
    assert len(ids) > 150  # the parse found the specification
    names = collected_test_names()
    # the id starts the test name or follows another id in it (test_STK_ROT_2_OPEN_STK_1_...)
    missing = sorted(i for i in ids if not re.search(rf"^test_(?:\w*?_)?{i.replace('-', '_')}[a-z]?(?:_|$)", names, re.M))
    assert not missing, f"rule ids without a test named after them: {missing}"
