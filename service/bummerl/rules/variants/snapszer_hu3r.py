"""``snapszer-hu-3p-rotation``: Hungarian three-player Snapszer, rotation form (docs/RULES.md §8,
seed S2).

Each deal is a ``snapszer-hu-2p`` deal (HU3R-INH-1); one player sits out in turn (HU3R-ROT-1,
option ``rotation``); only the deal winner scores (HU3R-SCORE-1); first to ``match_target`` (7)
wins, places 2 and 3 by score, equal scores sharing the place (HU3R-MATCH-1, OPEN-HU3R-2).
"""

from __future__ import annotations

from ..match.plans import RotationPlan
from ..table.options import TALON_ROTATION
from ..table.variant import default_match_format, register
from .snapszer_hu2 import SPEC as SNAPSZER_HU2

SPEC = register(
    SNAPSZER_HU2.derive(
        id="snapszer-hu-3p-rotation",
        aliases=("snapszer-3p-rotation",),
        name="Snapszer (Hungarian, 3 players, rotation)",
        section="§8",
        rule_prefix="HU3R",
        description="snapszer-hu-2p deals, one player sits out in turn; each keeps his own score; first to 7.",
        num_players=3,
        plan=RotationPlan(watcher_credited=False, playoff_places=()),
        match_format=default_match_format,
        catalogue=TALON_ROTATION,  # no Bummerls or sets; who sits out (the rotation plan)
        options={
            "match_format": None,  # HU2-MATCH-1 is not inherited (HU3R-INH-1)
            "set_target": None,
            "sets_to_win": None,
            "dealer_rotation": None,  # HU2-SEAT-1 is replaced by HU3R-ROT-1
            "match_target": TALON_ROTATION.option("match_target", 7, "OPEN-HU3R-2", "HU3R-MATCH-1"),
            "rotation": TALON_ROTATION.option("rotation", "cyclic", "OPEN-HU3R-1", "HU3R-ROT-1"),
        },
    )
)
