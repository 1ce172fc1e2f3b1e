"""``snaps-obican``: Običan šnaps, 2 players, 20 cards (docs/RULES.md §4, seed S0): Original 66 with
the differences of §4.1 (OBI-INH-1). Jack exchange, five-card hands, closing only after the draw,
own tricks may be looked at, no drawn deals, first to 9."""

from __future__ import annotations

from ..cards import JACK
from ..variant import TalonRules, VariantSpec, option, register
from .schnapsen_at import last_trick_decides

SPEC = register(
    VariantSpec(
        id="snaps-obican",
        aliases=("obican",),
        name="Običan šnaps (2 players)",
        section="§4",
        rule_prefix="OBI",
        description="20 cards, jack exchange, close only after the draw, own tricks visible, last trick wins the deal; first to 9.",
        ranks=5,
        deal_pattern=(3, 2, "T"),
        talon=TalonRules(
            exchange_rank=JACK,
            last_trick_bonus=0,
            played_out=last_trick_decides,
            closer_false_declaration_is_failed_close=True,
        ),
        local_names="hr",
        options=(
            option("deal_mapping_version", 1, "OPEN-GEN-2", "OPEN-OBI-1", "OBI-DEAL-2"),
            option("exchange_min_talon", 4, "OPEN-O66-1", "OBI-EXCH-1"),
            option("exchange_before_first_trick", True, "OBI-EXCH-1"),
            option("exchange_requires_won_trick", False, "OBI-EXCH-1"),
            option("exchange_on_opponent_close", False, "OPEN-O66-5", "OBI-EXCH-1"),
            option("close_timing", "after_draw", "OBI-CLOSE-1"),
            option("close_min_talon", 4, "OBI-INH-1", "O66-CLOSE-3"),
            option("close_before_first_trick", True, "OPEN-OBI-2", "OBI-CLOSE-1"),
            option("close_score_basis", "at_end", "OPEN-O66-2", "OBI-INH-1"),
            option("failed_close_three_if", "never", "OBI-INH-1", "O66-CLOSE-5"),
            option("non_closer_may_declare", False, "OBI-INH-1", "O66-CLOSE-4"),
            option("closed_deal_end", "closer_threshold", "OPEN-OBI-5", "OBI-END-1"),
            option("marriage_first_lead_allowed", True, "OBI-INH-1", "O66-MAR-3"),
            option("marriage_counts_after_first_trick", True, "OBI-INH-1", "O66-MAR-3"),
            option("marriage_after_talon_closed", True, "OBI-INH-1", "O66-MAR-4"),
            option("marriages_per_lead", 1, "OPEN-GEN-5"),
            option("declare_on_marriage", True, "OPEN-GEN-4"),
            option("auto_declare", False, "OPEN-GEN-4", "SRV-3"),
            option("false_declaration_penalty", "reject", "OPEN-OBI-4", "OBI-DECL-1", allowed=("reject", "flat2", "two_or_three", "max3", "remaining_possible")),
            option("undeclared_66_at_end", "last_trick_wins", "OBI-END-1"),
            option("last_trick_win_points", "fixed1", "OPEN-OBI-3", "OBI-SCORE-1"),
            option("schneider_threshold", 33, "OBI-SCORE-1", "O66-SCORE-1"),
            option("schneider_threshold_includes_marriages", True, "O66-SCORE-1"),
            option("may_view_own_tricks", True, "OBI-PLAY-1"),
            option("dealer_rotation", "winner_deals", "OPEN-O66-3"),
            option("match_target", 9, "OBI-MATCH-1"),
        ),
    )
)
