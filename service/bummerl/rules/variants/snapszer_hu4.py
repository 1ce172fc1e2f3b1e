"""``snapszer-hu-4p``: Hungarian four-player Snapszer in two teams, 0&2 vs 1&3 (docs/RULES.md §12,
seed S2 "NÉGYES SNAPSZER").

Announcements and scoring of the soproni game (§11, HU4-INH-1) for teams: 3+2 cards each, trump
always hearts by default (OPEN-HU4-1), no laying away, kontra a plain call (HU4-KON-1), credit to
both members of the winning team (HU4-CON-9); first team to 33. The deal class is
:class:`bummerl.rules.deals.contract_hu.FourPlayerDeal`.
"""

from __future__ import annotations

from ..deals.contract_hu import FourPlayerDeal
from ..match.plans import ContractPlan
from ..table.options import HU_CONTRACT, inherit
from ..table.variant import register
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
        # HU4-INH-1: the soproni options apply with their defaults unless changed here.
        options={
            "talon_discards_count_for": None,  # no laying away with four players (HU4-DEAL-1)
            "deal_mapping_version": inherit("HU4-DEAL-1"),
            "trump_always_hearts": inherit("OPEN-HU4-1", "HU4-DEAL-2", default=True),
            "trump_must_be_held": inherit("HU4-DEAL-2"),
            "max_kontra_level": inherit("HU4-KON-1"),
            "defender_contract_first_lead": inherit("HU4-LEAD-1"),
            "four_jacks_ends_deal": inherit("HU4-CON-5"),
            "kilences_partner_tricks_allowed": HU_CONTRACT.option("kilences_partner_tricks_allowed", True, "OPEN-HU4-3", "HU4-CON-3"),
            "void_must_trump": inherit("HU4-PLAY-1"),
            "must_head_over_partner": inherit("HU4-PLAY-1"),
            "marriages_per_lead": inherit("HU4-MAR-1"),
            "declare_on_marriage": inherit("HU4-MAR-1"),
            "false_declaration_penalty": inherit("HU4-MAR-1"),
            "undeclared_66_at_end": inherit("HU4-END-1"),
            "last_trick_win_points": inherit("HU4-CON-1"),
            "schneider_threshold": inherit("HU4-CON-1"),
            "schneider_threshold_includes_marriages": inherit("HU4-CON-1"),
            "dealer_rotation": inherit("HU4-SEAT-2"),
            "match_target": inherit("HU4-MATCH-1"),
        },
    )
)
