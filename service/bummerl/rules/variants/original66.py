"""``snaps-original66`` (alias ``sixty-six``): Šnaps 66 "Original 66", German Sixty-Six, 2 players,
24 cards (docs/RULES.md §3, seed S0).

Trump 9 exchange, closing before or after the draw, +10 for the last trick, drawn deals with a
carried point; each player starts at 11 and counts down (O66-MATCH-1).
"""

from __future__ import annotations

from ..base.cards import NINE
from ..deals.outcomes import both_over_65_draw
from ..deals.talon import TalonDeal
from ..match.plans import BummerlPlan
from ..table.options import TALON
from ..table.variant import TalonRules, VariantSpec, register

SPEC = register(
    VariantSpec(
        id="snaps-original66",
        aliases=("sixty-six", "original66"),
        name="Šnaps 66 / Sixty-Six (Original 66, 2 players)",
        section="§3",
        rule_prefix="O66",
        description="24 cards, trump 9 exchange, close before or after the draw, +10 last trick, drawn deals carry a point; 11 down to 0.",
        ranks=6,
        deal_pattern=(2, 2, 2, "T"),
        talon=TalonRules(
            exchange_rank=NINE,
            last_trick_bonus=10,
            played_out=both_over_65_draw,
            closer_false_declaration_is_failed_close=True,
        ),
        direction="down",
        local_names="hr",
        deal_class=TalonDeal,
        plan=BummerlPlan(),
        catalogue=TALON,
        options=(
            TALON.option("deal_mapping_version", 1, "OPEN-GEN-2", "SRV-1", "O66-DEAL-1"),
            TALON.option("nine_value", 0, "O66-DECK-1"),
            TALON.option("exchange_min_talon", 4, "OPEN-O66-1", "O66-EXCH-2"),
            TALON.option("exchange_before_first_trick", True, "O66-EXCH-1"),
            TALON.option("exchange_requires_won_trick", False, "O66-EXCH-1"),
            TALON.option("exchange_on_opponent_close", False, "OPEN-O66-5", "O66-EXCH-3"),
            TALON.option("close_timing", "before_or_after_draw", "O66-CLOSE-2"),
            TALON.option("close_min_talon", 4, "O66-CLOSE-3"),
            TALON.option("close_before_first_trick", True, "O66-CLOSE-2"),
            TALON.option("close_score_basis", "at_end", "OPEN-O66-2", "O66-CLOSE-6"),
            TALON.option("failed_close_three_if", "never", "O66-CLOSE-5"),
            TALON.option("non_closer_may_declare", False, "O66-CLOSE-4"),
            TALON.option("closed_deal_end", "closer_threshold", "O66-END-3"),
            TALON.option("marriage_first_lead_allowed", True, "O66-MAR-3"),
            TALON.option("marriage_counts_after_first_trick", True, "O66-MAR-3"),
            TALON.option("marriage_after_talon_closed", True, "O66-MAR-4"),
            TALON.option("marriages_per_lead", 1, "OPEN-GEN-5", "O66-MAR-6"),
            TALON.option("declare_on_marriage", True, "OPEN-GEN-4", "O66-DECL-5"),
            TALON.option("auto_declare", False, "OPEN-GEN-4", "SRV-3", "O66-DECL-1"),
            TALON.option("false_declaration_penalty", "flat2", "O66-DECL-4"),
            TALON.option("schneider_threshold", 33, "O66-SCORE-1"),
            TALON.option("schneider_threshold_includes_marriages", True, "O66-SCORE-1"),
            TALON.option("draw_carry_point", True, "OPEN-O66-4", "O66-SCORE-2"),
            TALON.option("may_view_own_tricks", False, "O66-PLAY-3"),
            TALON.option("dealer_rotation", "winner_deals", "OPEN-O66-3", "O66-DEAL-2"),
            TALON.option("match_target", 11, "O66-MATCH-1"),
        ),
    )
)
