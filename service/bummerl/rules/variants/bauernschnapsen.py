"""``bauernschnapsen``: Bauernschnapsen, 4 players in two fixed teams (docs/RULES.md §9, seed S3).

Seats 0 & 2 play against 1 & 3 (BS-SEAT-1). 5 cards each, dealt 3 + 2 clockwise from Vorhand,
who names trump after his first three cards (BS-DEAL-1/2); an auction over the contracts of
BS-CON-1 (all pass: einfacher Rufer); Kontra by the other side (BS-KON-2); strict play from
trick 1 (BS-PLAY-1); the first team to 24 game points wins (BS-MATCH-1).

Not yet in :mod:`bummerl.rules.variants` (the match layer is being made generic over deal
classes): import this module to register the variant.
"""

from __future__ import annotations

from ..deals.contract_at import BauernschnapsenDeal
from ..match.plans import ContractPlan
from ..table.options import AT_CONTRACT
from ..table.variant import VariantSpec, register

#: Action kinds of the Austrian contract games (no talon exchange/closing/drawing; TS adds discard).
KINDS = frozenset((
    "play", "marriage", "announce", "declare", "pass", "trump", "bid", "kontra", "rekontra", "subkontra", "mordkontra",
))

#: Options of §9.7 / §13 with their defaults (RULES.md §13.1, §13.2).
OPTIONS = (
    AT_CONTRACT.option("deal_mapping_version", 1, "OPEN-GEN-2", "SRV-1", "BS-DEAL-1"),
    AT_CONTRACT.option("must_head_over_partner", True, "OPEN-GEN-3", "BS-PLAY-1"),
    AT_CONTRACT.option("void_must_trump", "always", "OPEN-GEN-3", "BS-PLAY-1"),
    AT_CONTRACT.option("declare_on_marriage", True, "OPEN-GEN-4", "BS-DECL-1", "BS-CON-4"),
    AT_CONTRACT.option("auto_declare", False, "OPEN-GEN-4", "SRV-3", "BS-DECL-1"),
    AT_CONTRACT.option("auto_end_decided_contract", True, "OPEN-GEN-4", "SRV-3", "BS-CON-14"),
    AT_CONTRACT.option("marriages_per_lead", 1, "OPEN-GEN-5", "BS-MAR-1", allowed=(1,)),
    AT_CONTRACT.option("may_view_own_tricks", False, "OPEN-GEN-6"),
    AT_CONTRACT.option("auction_pass_is_final", True, "OPEN-BS-1", "BS-BID-2"),
    AT_CONTRACT.option("trump_must_be_held", True, "OPEN-BS-3", "BS-DEAL-2"),
    AT_CONTRACT.option("play_out_certain_contracts", False, "OPEN-BS-4", "BS-CON-9", "BS-CON-11"),
    AT_CONTRACT.option("max_kontra_level", 1, "OPEN-BS-5", "BS-KON-2"),
    AT_CONTRACT.option("false_declaration_penalty", "two_or_three", "OPEN-BS-8", "BS-DECL-1",
           allowed=("reject", "flat2", "two_or_three", "max3")),
    AT_CONTRACT.option("undeclared_66_at_end", "last_trick_wins", "OPEN-BS-8", "BS-CON-3"),
    AT_CONTRACT.option("dealer_rotation", "clockwise", "OPEN-BS-9", "BS-DEAL-3", allowed=("clockwise",)),
    AT_CONTRACT.option("last_trick_win_points", "fixed1", "OPEN-BS-10", "BS-SCORE-1"),
    AT_CONTRACT.option("schneider_threshold", 33, "OPEN-BS-10", "BS-SCORE-1"),
    AT_CONTRACT.option("schneider_threshold_includes_marriages", True, "OPEN-BS-10", "BS-SCORE-1"),
    AT_CONTRACT.option("enable_bettler", True, "OPEN-BS-11", "BS-BID-3", "BS-CON-12"),
    AT_CONTRACT.option("enable_zehnerloch", True, "OPEN-BS-11", "BS-BID-3", "BS-CON-13"),
    AT_CONTRACT.option("match_target", 24, "BS-MATCH-1"),
)

SPEC = register(
    VariantSpec(
        id="bauernschnapsen",
        name="Bauernschnapsen (4 players, 2 teams)",
        section="§9",
        rule_prefix="BS",
        description="20 cards, 5 each, Vorhand names trump after 3 cards, auction of contracts (Schnapser, Gang, "
                    "Bauernschnapser... up to 24), Kontra; teams 0&2 vs 1&3; first team to 24.",
        ranks=5,
        catalogue=AT_CONTRACT,
        options=OPTIONS,
        local_names="de",
        num_players=4,
        teams=(0, 1, 0, 1),
        action_kinds=KINDS,
        deal_class=BauernschnapsenDeal,
        plan=ContractPlan(),  # one team scores per deal: no ties (BS-MATCH-1)
    )
)
