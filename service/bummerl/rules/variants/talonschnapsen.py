"""``talonschnapsen``: Talonschnapsen (Dreierschnapsen), 3 players, soloist vs two (docs/RULES.md
§10, seed S3).

Inherits Bauernschnapsen (TS-INH-1) without fixed teams: 6 cards each and a 2-card talon
(TS-DEAL-1), which the declarer takes up, laying two cards away (TS-TAL-1); the declarer alone
is credited on success, each of the two others on failure (TS-SCORE-1); first to 24 (TS-MATCH-1).

Not yet in :mod:`bummerl.rules.variants` (the match layer is being made generic over deal
classes): import this module to register the variant.
"""

from __future__ import annotations

from ..deals.contract_at import TalonschnapsenDeal
from ..match.plans import ContractPlan
from ..table.options import AT_CONTRACT
from ..table.variant import register
from .bauernschnapsen import KINDS
from .bauernschnapsen import SPEC as BAUERN

SPEC = register(
    BAUERN.derive(
        id="talonschnapsen",
        name="Talonschnapsen (3 players, soloist vs two)",
        section="§10",
        rule_prefix="TS",
        description="20 cards, 6 each and a 2-card talon for the declarer, Bauernschnapsen contracts, "
                    "the declarer against the two others; first to 24.",
        num_players=3,
        teams=(),
        action_kinds=KINDS | {"discard"},
        deal_class=TalonschnapsenDeal,
        plan=ContractPlan(playoff_variant="schnapsen-at", playoff_places=(1,)),  # TS-MATCH-1, OPEN-TS-7
        options={
            "deal_mapping_version": AT_CONTRACT.option("deal_mapping_version", 1, "OPEN-GEN-2", "SRV-1", "TS-DEAL-1"),
            "dealer_rotation": AT_CONTRACT.option("dealer_rotation", "clockwise", "OPEN-TS-6", "TS-SEAT-1", allowed=("clockwise",)),
            "play_out_certain_contracts": AT_CONTRACT.option("play_out_certain_contracts", False, "OPEN-TS-4", "TS-CON-2"),
            "talon_discards_count_for": AT_CONTRACT.option("talon_discards_count_for", "declarer", "OPEN-TS-2", "TS-TAL-1",
                                               allowed=("declarer", "nobody", "defenders")),
            "match_target": AT_CONTRACT.option("match_target", 24, "TS-MATCH-1", "OPEN-TS-7"),
        },
    )
)
