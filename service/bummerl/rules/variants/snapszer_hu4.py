"""``snapszer-hu-4p``: Hungarian four-player Snapszer in two teams, 0&2 vs 1&3 (docs/RULES.md §12,
seed S2 "NÉGYES SNAPSZER").

Announcements and scoring of the soproni game (§11, HU4-INH-1) for teams: 3+2 cards each, trump
always hearts by default (OPEN-HU4-1), no laying away, kontra a plain call (HU4-KON-1), credit to
both members of the winning team (HU4-CON-9); first team to 33. The deal class is
:class:`bummerl.rules.contract_hu.FourPlayerDeal`.
"""

from __future__ import annotations

from ..contract_hu import FourPlayerDeal
from ..plan import ContractPlan
from ..variant import option, register
from .snapszer_hu3s import SPEC as SOPRON

SPEC = register(
    SOPRON.derive(
        id="snapszer-hu-4p",
        aliases=("negyes-snapszer",),
        name="Snapszer (Hungarian, 4 players, two teams)",
        section="§12",
        rule_prefix="HU4",
        description="Two teams (0&2 vs 1&3), hearts always trump, the soproni announcements for teams, "
        "kontra up to x16; first team to 33.",
        num_players=4,
        teams=(0, 1, 0, 1),
        action_kinds=SOPRON.action_kinds - {"discard"},
        deal_class=FourPlayerDeal,
        plan=ContractPlan(),  # one team scores per deal (HU4-MATCH-1)
        options=(
            option("deal_mapping_version", 1, "OPEN-GEN-2", "SRV-1", "HU4-DEAL-1"),
            option("trump_always_hearts", True, "OPEN-HU4-1", "HU4-DEAL-2"),
            option("trump_must_be_held", False, "OPEN-HU3S-7", "HU4-DEAL-2"),
            option("max_kontra_level", 4, "OPEN-HU3S-2", "HU4-KON-1"),
            option("defender_contract_first_lead", "hivo", "OPEN-HU3S-4", "HU4-LEAD-1"),
            option("four_jacks_ends_deal", True, "OPEN-HU3S-6", "HU4-CON-5"),
            option("kilences_partner_tricks_allowed", True, "OPEN-HU4-3", "HU4-CON-3"),
            option("void_must_trump", "always", "OPEN-GEN-3", "HU4-PLAY-1"),
            option("must_head_over_partner", True, "OPEN-GEN-3", "HU4-PLAY-1"),
            option("marriages_per_lead", 1, "OPEN-GEN-5", "HU4-MAR-1", allowed=(1,)),
            option("declare_on_marriage", True, "OPEN-GEN-4", "HU4-MAR-1"),
            option("false_declaration_penalty", "max3", "OPEN-HU2-7", "HU4-MAR-1"),
            option("undeclared_66_at_end", "last_trick_wins", "OPEN-HU3S-10", "HU4-END-1"),
            option("last_trick_win_points", "by_table", "OPEN-HU3S-10", "HU4-CON-1"),
            option("schneider_threshold", 33, "HU4-CON-1"),
            option("schneider_threshold_includes_marriages", False, "OPEN-HU3S-5", "HU4-CON-1"),
            option("dealer_rotation", "clockwise", "HU4-SEAT-2", allowed=("clockwise",)),
            option("match_target", 33, "OPEN-HU3S-11", "HU4-MATCH-1"),
        ),
    )
)
