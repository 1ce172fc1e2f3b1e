"""``schnapsen-at``: Austrian Schnapsen, 2 players, 20 cards (docs/RULES.md §2, seed S3).

Jack exchange, closing after the draw, no last-trick bonus: an exhausted deal without a
declaration goes to the winner of the last trick (AT-END-1). First to 7 game points (AT-MATCH-1).
"""

from __future__ import annotations

from ..base.cards import JACK
from ..deals.outcomes import last_trick_decides
from ..deals.talon import TalonDeal
from ..match.plans import BummerlPlan
from ..table.options import TALON
from ..table.variant import TalonRules, VariantSpec, register

SPEC = register(
    VariantSpec(
        id="schnapsen-at",
        name="Schnapsen (Austrian, 2 players)",
        section="§2",
        rule_prefix="AT",
        description="20 cards, trump Jack exchange, close after the draw, last trick wins the deal; Bummerl to 7.",
        ranks=5,
        deal_pattern=(3, "T", 2),
        talon=TalonRules(
            exchange_rank=JACK,
            last_trick_bonus=0,
            played_out=last_trick_decides,
            closer_false_declaration_is_failed_close=True,
        ),
        local_names="de",
        deal_class=TalonDeal,
        plan=BummerlPlan(),
        catalogue=TALON,
        options=(
            TALON.option("deal_mapping_version", 1, "OPEN-GEN-2", "SRV-1", "AT-DEAL-1"),
            TALON.option("exchange_min_talon", 4, "OPEN-AT-2", "AT-EXCH-2"),
            TALON.option("exchange_before_first_trick", True, "OPEN-AT-2", "AT-EXCH-2"),
            TALON.option("exchange_requires_won_trick", False, "OPEN-AT-2", "AT-EXCH-2"),
            TALON.option("exchange_on_opponent_close", False, "OPEN-O66-5", "AT-EXCH-3"),
            TALON.option("close_timing", "after_draw", "OPEN-AT-3", "AT-CLOSE-2"),
            TALON.option("close_min_talon", 4, "OPEN-AT-3", "AT-CLOSE-2"),
            TALON.option("close_before_first_trick", True, "OPEN-AT-3", "AT-CLOSE-2"),
            TALON.option("close_score_basis", "at_close", "OPEN-AT-4", "AT-CLOSE-3"),
            TALON.option("failed_close_three_if", "opponent_no_trick_at_close", "AT-CLOSE-4"),
            TALON.option("non_closer_may_declare", True, "OPEN-AT-4", "AT-CLOSE-5"),
            TALON.option("closed_deal_end", "closer_threshold", "AT-END-2"),
            TALON.option("marriage_first_lead_allowed", True, "OPEN-AT-7", "AT-MAR-4"),
            TALON.option("marriage_counts_after_first_trick", True, "OPEN-AT-7", "AT-MAR-5"),
            TALON.option("marriage_after_talon_closed", True, "AT-MAR-4"),
            TALON.option("marriages_per_lead", 1, "OPEN-GEN-5", "AT-MAR-6"),
            TALON.option("declare_on_marriage", True, "OPEN-GEN-4", "AT-DECL-2"),
            TALON.option("auto_declare", False, "OPEN-GEN-4", "SRV-3", "AT-DECL-1"),
            TALON.option("false_declaration_penalty", "two_or_three", "OPEN-AT-6", "AT-DECL-3"),
            TALON.option("undeclared_66_at_end", "last_trick_wins", "OPEN-AT-5", "AT-END-1"),
            TALON.option("last_trick_win_points", "fixed1", "OPEN-AT-5", "AT-SCORE-2"),
            TALON.option("schneider_threshold", 33, "OPEN-AT-1", "AT-SCORE-1"),
            TALON.option("schneider_threshold_includes_marriages", True, "OPEN-AT-1", "AT-SCORE-1"),
            TALON.option("may_view_own_tricks", False, "OPEN-AT-9", "AT-PLAY-3"),
            TALON.option("dealer_rotation", "alternate", "OPEN-AT-8", "AT-DEAL-2"),
            TALON.option("match_target", 7, "OPEN-AT-10", "AT-MATCH-1"),
            TALON.option("bummerls_to_win", 1, "OPEN-AT-10", "AT-MATCH-2"),
            TALON.option("schneider_bummerl_value", 2, "OPEN-AT-10", "AT-MATCH-2"),
        ),
    )
)
