"""``snaps-obican``: Običan šnaps, 2 players, 20 cards (docs/RULES.md §4, seed S0): Original 66 with
the differences of §4.1 (OBI-INH-1). Jack exchange, five-card hands, closing only after the draw,
own tricks may be looked at, no drawn deals, first to 9."""

from __future__ import annotations

from ..base.cards import JACK
from ..deals.outcomes import last_trick_decides
from ..table.options import TALON, inherit
from ..table.variant import TalonRules, register
from .original66 import SPEC as ORIGINAL66

SPEC = register(
    ORIGINAL66.derive(
        id="snaps-obican",
        aliases=("obican",),
        name="Običan šnaps (2 players)",
        section="§4",
        rule_prefix="OBI",
        description="20 cards, jack exchange, close only after the draw, own tricks visible, last trick wins the deal; first to 9.",
        ranks=5,
        deal_pattern=(3, 2, "T"),
        direction="up",
        talon=TalonRules(
            exchange_rank=JACK,
            last_trick_bonus=0,
            played_out=last_trick_decides,
            closer_false_declaration_is_failed_close=True,
        ),
        # OBI-INH-1: every Original 66 option applies with its default unless changed here.
        options={
            "nine_value": None,  # no nines in the 20-card deck (OBI-DECK-1)
            "draw_carry_point": None,  # no drawn deals: the last trick decides (OBI-END-1)
            "deal_mapping_version": inherit("OPEN-OBI-1", "OBI-DEAL-2"),
            "exchange_min_talon": inherit("OBI-EXCH-1"),
            "exchange_before_first_trick": inherit("OBI-EXCH-1"),
            "exchange_requires_won_trick": inherit("OBI-EXCH-1"),
            "exchange_on_opponent_close": inherit("OBI-EXCH-1"),
            "close_timing": TALON.option("close_timing", "after_draw", "OBI-CLOSE-1"),
            "close_min_talon": inherit("OBI-INH-1"),
            "close_before_first_trick": inherit("OPEN-OBI-2", "OBI-CLOSE-1"),
            "close_score_basis": inherit("OBI-INH-1"),
            "failed_close_three_if": inherit("OBI-INH-1"),
            "non_closer_may_declare": inherit("OBI-INH-1"),
            "closed_deal_end": inherit("OPEN-OBI-5", "OBI-END-1"),
            "marriage_first_lead_allowed": inherit("OBI-INH-1"),
            "marriage_counts_after_first_trick": inherit("OBI-INH-1"),
            "marriage_after_talon_closed": inherit("OBI-INH-1"),
            "false_declaration_penalty": TALON.option(
                "false_declaration_penalty", "reject", "OPEN-OBI-4", "OBI-DECL-1",
                allowed=("reject", "flat2", "two_or_three", "max3", "remaining_possible")),
            "undeclared_66_at_end": TALON.option("undeclared_66_at_end", "last_trick_wins", "OBI-END-1"),
            "last_trick_win_points": TALON.option("last_trick_win_points", "fixed1", "OPEN-OBI-3", "OBI-SCORE-1"),
            "schneider_threshold": inherit("OBI-SCORE-1"),
            "may_view_own_tricks": TALON.option("may_view_own_tricks", True, "OBI-PLAY-1"),
            "match_target": TALON.option("match_target", 9, "OBI-MATCH-1"),
        },
    )
)
