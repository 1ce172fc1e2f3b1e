"""``snapszer-hu-3p-sopron``: Hungarian three-player Snapszer, "soproni" form (docs/RULES.md §11,
seed S2 "HÁRMAS SNAPSZER").

The hívó (left of the dealer) gets 8 cards (4+3+3 twice), names trump after his first four
unless ``trump_always_hearts``, lays two away and plays alone against the two fogadó players:
mehet (1-3), snapszer 6, kilences 9, paraszt 12, 4 alsó 13; the fogadó players' ellensnapszer 12,
ellenparaszt 24, kilences 9, and kontra by taking up the hívó's cards; kontra ladder up to x16.
First to 33 game points. The deal class is :class:`bummerl.rules.deals.contract_hu.SopronDeal`.
"""

from __future__ import annotations

from ..deals.contract_hu import SopronDeal
from ..match.plans import ContractPlan
from ..table.options import HU_CONTRACT
from ..table.variant import VariantSpec, register

ACTION_KINDS = frozenset((
    "play", "marriage", "announce", "declare", "pass", "trump", "discard", "bid",
    "kontra", "rekontra", "subkontra", "mordkontra",
))

SPEC = register(
    VariantSpec(
        id="snapszer-hu-3p-sopron",
        aliases=("soproni-snapszer",),
        name="Snapszer (Hungarian, 3 players, soproni)",
        section="§11",
        rule_prefix="HU3S",
        description="Hívó with 8 cards names trump, lays away 2 and plays alone against two; announcements "
        "and kontra up to x16; first to 33.",
        ranks=5,
        num_players=3,
        local_names="hu",
        action_kinds=ACTION_KINDS,
        deal_class=SopronDeal,
        plan=ContractPlan(playoff_variant="snapszer-hu-2p", playoff_places=(1,)),  # HU3S-MATCH-1, OPEN-HU3S-11
        catalogue=HU_CONTRACT,
        options=(
            HU_CONTRACT.option("deal_mapping_version", 1, "OPEN-GEN-2", "SRV-1", "HU3S-DEAL-1"),
            HU_CONTRACT.option("trump_always_hearts", False, "OPEN-HU3S-7", "HU3S-DEAL-2"),
            HU_CONTRACT.option("trump_must_be_held", False, "OPEN-HU3S-7", "HU3S-DEAL-2"),
            HU_CONTRACT.option("talon_discards_count_for", "owner", "OPEN-HU3S-1", "HU3S-TAL-1", "DEF-PTS-1",
                   allowed=("owner", "declarer", "defenders", "nobody")),
            HU_CONTRACT.option("max_kontra_level", 4, "OPEN-HU3S-2", "HU3S-KON-1", "HU3S-KON-2"),
            HU_CONTRACT.option("defender_contract_first_lead", "hivo", "OPEN-HU3S-4", "HU3S-LEAD-1"),
            HU_CONTRACT.option("four_jacks_ends_deal", True, "OPEN-HU3S-6", "HU3S-CON-5"),
            HU_CONTRACT.option("void_must_trump", "always", "OPEN-HU3S-8", "OPEN-GEN-3", "HU3S-PLAY-1"),
            HU_CONTRACT.option("must_head_over_partner", True, "OPEN-HU3S-8", "OPEN-GEN-3", "HU3S-PLAY-1"),
            HU_CONTRACT.option("marriages_per_lead", 1, "OPEN-GEN-5", "HU3S-MAR-1", allowed=(1,)),
            HU_CONTRACT.option("declare_on_marriage", True, "OPEN-GEN-4", "HU3S-DECL-1"),
            HU_CONTRACT.option("false_declaration_penalty", "max3", "OPEN-HU2-7", "HU3S-DECL-1"),
            HU_CONTRACT.option("undeclared_66_at_end", "last_trick_wins", "OPEN-HU3S-10", "HU3S-DECL-1"),
            HU_CONTRACT.option("last_trick_win_points", "by_table", "OPEN-HU3S-10", "HU3S-CON-4"),
            HU_CONTRACT.option("schneider_threshold", 33, "HU3S-CON-4"),
            HU_CONTRACT.option("schneider_threshold_includes_marriages", False, "OPEN-HU3S-5", "HU3S-CON-4"),
            HU_CONTRACT.option("may_view_own_tricks", False, "OPEN-GEN-6"),
            HU_CONTRACT.option("dealer_rotation", "clockwise", "HU3S-SEAT-1", allowed=("clockwise",)),
            HU_CONTRACT.option("match_target", 33, "OPEN-HU3S-11", "HU3S-MATCH-1"),
        ),
    )
)
