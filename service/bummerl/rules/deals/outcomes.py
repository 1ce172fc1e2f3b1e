"""The shared ends of a two-player deal played out without a declaration (the ``played_out`` hook
of :class:`~bummerl.rules.table.variant.TalonRules`): who wins an exhausted deal, and for how much.

* :func:`last_trick_decides` — schnapsen-at, snaps-obican, snapszer-hu-2p (and the rotation games);
* :func:`higher_total` — santase;
* :func:`both_over_65_draw` — snaps-original66.
"""

from __future__ import annotations

from ..table.facts import TalonFacts
from ..table.outcome import DealEnd, DealOutcome


def last_trick_decides(d: TalonFacts) -> DealOutcome:
    """AT-END-1 / AT-SCORE-2 (OPEN-AT-5), OBI-END-1 / OBI-SCORE-1, HU2-END-1 (OPEN-HU2-2).

    ``undeclared_66_at_end = last_trick_wins``: the last-trick winner wins, scoring 1
    (``last_trick_win_points = fixed1``) or by the table (``by_table``). ``holder_wins``: the other
    player wins instead, by the table, if he already held 66 deal points.
    """
    w = d.last_winner
    o = 1 - w
    if d.rules.behaviour.undeclared_66_holder_wins and d.deal_points(o) >= 66:
        return DealOutcome(o, d.table_points(w), DealEnd.PLAYED_OUT)
    return DealOutcome(w, d.last_trick_points(o), DealEnd.LAST_TRICK)


def higher_total(d: TalonFacts) -> DealOutcome:
    """SAN-END-2: equal totals are a drawn deal (same dealer deals again, SAN-DEAL-2); otherwise the
    higher total (last-trick bonus included) wins and scores per SAN-SCORE-1."""
    a, b = d.deal_points(0), d.deal_points(1)
    if a == b:
        return DealOutcome(-1, 0, DealEnd.DRAWN)
    w = 0 if a > b else 1
    return DealOutcome(w, d.table_points(1 - w), DealEnd.PLAYED_OUT)


def both_over_65_draw(d: TalonFacts) -> DealOutcome:
    """O66-END-2, O66-SCORE-2 (OPEN-O66-4): a played-out deal with both players over 65 is drawn
    and carries 1 game point (``draw_carry_point``); otherwise as in Santase: 65:65 is drawn
    without carry and the higher total (the player with 66) wins by O66-SCORE-1."""
    if d.deal_points(0) > 65 and d.deal_points(1) > 65:
        return DealOutcome(-1, 0, DealEnd.DRAWN, 1 if d.rules.draw_carry_point else 0)
    return higher_total(d)
