"""``santase``: Santase, Bulgarian Sixty-Six, 2 players, 24 cards (docs/RULES.md §5, seed S1).

Trump 9 exchange only after a won trick, no marriage during the first trick, closing only after
trick 1 (before or after the draw), +10 last trick, equal totals = drawn deal; first to 11.
"""

from __future__ import annotations

from ..base.cards import NINE
from ..deals.outcomes import higher_total
from ..deals.talon import TalonDeal
from ..match.plans import BummerlPlan
from ..table.options import TALON
from ..table.variant import TalonRules, VariantSpec, register

SPEC = register(
    VariantSpec(
        id="santase",
        aliases=("santase-bg", "bulgarian-66"),
        name="Santase (Bulgarian Sixty-Six, 2 players)",
        section="§5",
        rule_prefix="SAN",
        description="24 cards, 9 exchange only after a won trick, no marriage in the first trick, equal totals draw; first to 11.",
        ranks=6,
        deal_pattern=(3, 3, "T"),
        talon=TalonRules(
            exchange_rank=NINE,
            last_trick_bonus=10,
            played_out=higher_total,
            closer_false_declaration_is_failed_close=True,
        ),
        local_names="bg",
        deal_class=TalonDeal,
        plan=BummerlPlan(),
        catalogue=TALON,
        options=(
            TALON.option("deal_mapping_version", 1, "OPEN-GEN-2", "SRV-1", "SAN-DEAL-1"),
            TALON.option("nine_value", 0, "OPEN-SAN-1", "SAN-DECK-2"),
            TALON.option("exchange_min_talon", 4, "SAN-EXCH-3"),
            TALON.option("exchange_before_first_trick", False, "SAN-EXCH-1"),
            TALON.option("exchange_requires_won_trick", True, "SAN-EXCH-1"),
            TALON.option("exchange_on_opponent_close", False, "OPEN-O66-5", "SAN-EXCH-4"),
            TALON.option("close_timing", "before_or_after_draw", "SAN-CLOSE-1"),
            TALON.option("close_min_talon", 4, "OPEN-SAN-2", "SAN-CLOSE-2"),
            TALON.option("close_before_first_trick", False, "SAN-CLOSE-1"),
            TALON.option("close_score_basis", "at_end", "SAN-CLOSE-4"),
            TALON.option("failed_close_three_if", "opponent_no_trick_at_close", "OPEN-SAN-3", "SAN-CLOSE-5"),
            TALON.option("non_closer_may_declare", True, "SAN-CLOSE-6"),
            TALON.option("closed_deal_end", "closer_threshold", "SAN-END-3"),
            TALON.option("marriage_first_lead_allowed", False, "SAN-MAR-3"),
            TALON.option("marriage_counts_after_first_trick", True, "SAN-MAR-2"),
            TALON.option("marriage_after_talon_closed", True, "OPEN-SAN-6", "SAN-MAR-5"),
            TALON.option("marriages_per_lead", 1, "OPEN-GEN-5", "SAN-MAR-6"),
            TALON.option("declare_on_marriage", True, "OPEN-SAN-5", "SAN-DECL-1"),
            TALON.option("auto_declare", False, "OPEN-GEN-4", "SRV-3"),
            TALON.option("false_declaration_penalty", "two_or_three", "SAN-DECL-2"),
            TALON.option("schneider_threshold", 33, "SAN-SCORE-1"),
            TALON.option("schneider_threshold_includes_marriages", True, "OPEN-SAN-4", "SAN-SCORE-1"),
            TALON.option("may_view_own_tricks", False, "SAN-PLAY-3"),
            TALON.option("dealer_rotation", "winner_deals", "SAN-DEAL-2"),
            TALON.option("match_target", 11, "SAN-MATCH-1"),
        ),
    )
)
