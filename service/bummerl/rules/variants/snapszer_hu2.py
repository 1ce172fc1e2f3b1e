"""``snapszer-hu-2p``: Hungarian Snapszer, 2 players, federation rules (docs/RULES.md §6, seed S2).

Alsó (J) exchange and closing ("takarás") need at least three cards above the trump card; own
closing scale (HU2-CLOSE-3/5); the 33 line counts tricks only (OPEN-HU2-4); match of two won
sevens (OPEN-HU2-1). Hungarian names: piros, tök, zöld, makk; ász, tízes, király, felső, alsó.
"""

from __future__ import annotations

from collections.abc import Callable

from ..base.cards import JACK
from ..deals.outcomes import last_trick_decides
from ..deals.talon import TalonDeal
from ..match.plans import BummerlPlan
from ..table.behaviour import pick
from ..table.options import TALON
from ..table.variant import Rules, TalonRules, VariantSpec, register

#: OPEN-HU2-1 ``match_format``: (set_target, sets_to_win, schneider_set_value) of a table.
MATCH_FORMATS: dict[str, Callable[[Rules], tuple[int, int, int]]] = {
    # first to set_target wins a set, sets_to_win sets win the match
    "sets": lambda r: (int(r.options["set_target"]), int(r.options["sets_to_win"]), 1),
    # first to match_target game points
    "points": lambda r: (int(r.options["match_target"]), 1, 1),
}


def hu2_match_format(r: Rules) -> tuple[int, int, int]:
    """OPEN-HU2-1 by the :data:`MATCH_FORMATS` table; a format it lacks raises
    InvalidOptionError when the table is configured."""
    return pick("match_format", r.options["match_format"], MATCH_FORMATS)(r)


SPEC = register(
    VariantSpec(
        id="snapszer-hu-2p",
        aliases=("snapszer", "kettes-snapszer"),
        name="Snapszer (Hungarian, 2 players)",
        section="§6",
        rule_prefix="HU2",
        description="20 cards, alsó exchange and closing need 3 cards above the trump, own closing scale; two won sevens.",
        ranks=5,
        deal_pattern=(3, "T", 2),
        talon=TalonRules(
            exchange_rank=JACK,
            last_trick_bonus=0,
            played_out=last_trick_decides,
            closer_false_declaration_is_failed_close=False,
        ),
        local_names="hu",
        deal_class=TalonDeal,
        plan=BummerlPlan(),
        match_format=hu2_match_format,
        catalogue=TALON,
        options=(
            TALON.option("deal_mapping_version", 1, "OPEN-GEN-2", "SRV-1", "HU2-DEAL-1"),
            TALON.option("exchange_min_talon", 4, "HU2-EXCH-1"),
            TALON.option("exchange_before_first_trick", True, "HU2-EXCH-1"),
            TALON.option("exchange_requires_won_trick", False, "HU2-EXCH-1"),
            TALON.option("exchange_on_opponent_close", False, "OPEN-O66-5", "HU2-EXCH-2"),
            TALON.option("close_timing", "after_draw", "HU2-CLOSE-2"),
            TALON.option("close_min_talon", 4, "HU2-CLOSE-1"),
            TALON.option("close_before_first_trick", True, "OPEN-HU2-5", "HU2-CLOSE-2"),
            TALON.option("close_score_basis", "at_end", "HU2-CLOSE-3"),
            TALON.option("failed_close_three_if", "either_no_trick_at_close", "HU2-CLOSE-5"),
            TALON.option("non_closer_may_declare", False, "OPEN-HU2-6", "HU2-CLOSE-4"),
            TALON.option("closed_deal_end", "closer_threshold", "HU2-END-2"),
            TALON.option("marriage_first_lead_allowed", True, "HU2-MAR-2"),
            TALON.option("marriage_counts_after_first_trick", True, "OPEN-HU2-3", "HU2-MAR-3"),
            TALON.option("marriage_after_talon_closed", True, "HU2-MAR-2"),
            TALON.option("marriages_per_lead", 1, "OPEN-GEN-5", "HU2-MAR-4"),
            TALON.option("declare_on_marriage", True, "OPEN-GEN-4", "HU2-DECL-3"),
            TALON.option("auto_declare", False, "OPEN-GEN-4", "SRV-3"),
            TALON.option("false_declaration_penalty", "max3", "OPEN-HU2-7", "HU2-DECL-2"),
            TALON.option("undeclared_66_at_end", "last_trick_wins", "OPEN-HU2-2", "HU2-END-1"),
            TALON.option("last_trick_win_points", "by_table", "OPEN-HU2-2", "HU2-END-1"),
            TALON.option("schneider_threshold", 33, "HU2-SCORE-1"),
            TALON.option("schneider_threshold_includes_marriages", False, "OPEN-HU2-4", "HU2-SCORE-1"),
            TALON.option("may_view_own_tricks", False, "OPEN-HU2-8", "HU2-PLAY-3"),
            TALON.option("dealer_rotation", "alternate", "HU2-SEAT-1"),
            TALON.option("match_format", "sets", "OPEN-HU2-1", "HU2-MATCH-1"),
            TALON.option("set_target", 7, "OPEN-HU2-1", "HU2-MATCH-1"),
            TALON.option("sets_to_win", 2, "OPEN-HU2-1", "HU2-MATCH-1"),
            TALON.option("match_target", 33, "OPEN-HU2-1", "HU2-MATCH-1"),
        ),
    )
)
