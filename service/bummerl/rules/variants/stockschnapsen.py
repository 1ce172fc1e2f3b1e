"""``stockschnapsen``: Stockschnapsen, 3 players, two play and one watches (docs/RULES.md §7, seed S3).

Not a game of its own (STK-INH-1): each deal is a ``schnapsen-at`` deal between the pair of
STK-ROT-1; its game points go to the deal winner and to the watcher (STK-SCORE-1); first to 7
(STK-MATCH-1); play-off deals decide tied first and second places (STK-MATCH-2/3/4).
"""

from __future__ import annotations

from ..match.plans import RotationPlan
from ..table.options import TALON_ROTATION
from ..table.variant import default_match_format, register
from .schnapsen_at import SPEC as SCHNAPSEN_AT

SPEC = register(
    SCHNAPSEN_AT.derive(
        id="stockschnapsen",
        aliases=("stock-schnapsen",),
        name="Stockschnapsen (3 players, two play, one watches)",
        section="§7",
        rule_prefix="STK",
        description="schnapsen-at deals between rotating pairs; the deal winner and the watcher score; first to 7.",
        num_players=3,
        plan=RotationPlan(watcher_credited=True, playoff_places=(1, 2)),
        match_format=default_match_format,
        catalogue=TALON_ROTATION,  # no Bummerls or sets; who sits out (the rotation plan)
        options={
            "bummerls_to_win": None,  # AT-MATCH-* are not inherited (STK-INH-1)
            "schneider_bummerl_value": None,
            "dealer_rotation": None,  # the rotation of STK-ROT-1/2 decides who deals
            "match_target": TALON_ROTATION.option("match_target", 7, "STK-MATCH-1"),
            "pair_dealer": TALON_ROTATION.option("pair_dealer", "first_listed", "OPEN-STK-1", "STK-ROT-2"),
        },
    )
)
