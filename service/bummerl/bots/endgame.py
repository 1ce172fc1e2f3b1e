"""Exact alpha-beta on open cards for a deal whose talon is closed (DEF-TAL-3) or exhausted
(DEF-TAL-2): the perfect-information endgame of one sampled deal.

Once nobody draws, a deal with both hands known is a finite two-player game with perfect
information: strict play (DEF-PLAY-STRICT), marriages where the variant still allows them
(``marriage_after_talon_closed``), declaring 66 at the own lead turn (DEF-DECL-1, OPEN-GEN-4), and
the end of the deal when the hands run out. :class:`EndgameSolver` searches it with bitmask hands,
fail-soft alpha-beta and a transposition table. Legal moves mirror the engine's rules; every end of
the deal (a declaration, the last trick) is scored by the engine itself on a scratch
:class:`~bummerl.rules.DealState` (``step``), so the variant's scoring hooks and options are never
re-implemented here. ``tests/clients/test_strong_bot.py`` checks the values against a plain
minimax over the engine's ``legal_actions``/``step`` on random closed and exhausted positions.

Values are from seat ``me``'s side, through a utility of the deal's outcome (winner, game points).
"""

from __future__ import annotations

from collections.abc import Callable

from bummerl.rules import DealEnd, DealOutcome, DealState, IllegalActionError
from bummerl.rules import actions as A
from bummerl.rules.search import (
    BIT,
    EXCHANGE_ON_CLOSE,
    FOLLOW,
    HIGHER,
    KING,
    LEAD,
    OVER,
    QUEEN,
    SUIT_MASK,
    cards_of,
)

INF = float("inf")
_KQ = tuple(BIT[s * 6 + KING] | BIT[s * 6 + QUEEN] for s in range(4))
_K_BITS = sum(BIT[s * 6 + KING] for s in range(4))

Utility = Callable[[DealOutcome], float]


def _order_key(trump: int, points: tuple[int, ...]) -> Callable[[int], tuple[int, int]]:
    # lead high cards first: aces and tens take most tricks in an endgame; trumps after side suits
    return lambda c: (-(points[c] + (3 if c // 6 == trump else 0)), c)


class EndgameSolver:
    """Solver for strict-play positions of one deal (fixed trump, closer and closing snapshot).

    ``solve(d)`` returns the minimax value (for ``me``) of a :class:`DealState` whose talon is
    closed or exhausted, in any phase. ``nodes`` counts searched nodes (a profile figure). The
    transposition table persists between calls, so one solver can serve every sample of a
    decision (keys hold both hands).
    """

    def __init__(self, d: DealState, me: int, utility: Utility) -> None:
        if not d.strict:
            raise ValueError("the endgame solver needs a closed or exhausted talon")
        self.me = me
        self.utility = utility
        self.key = (d.trump, d.closed_by, d.close_snapshot)
        self._build(d)

    def _build(self, root: DealState) -> None:  # noqa: C901 - one closure keeps the hot path local
        r = root.rules
        me = self.me
        utility = self.utility
        points = r.points
        trump = root.trump
        tmask = SUIT_MASK[trump]
        closed_by = root.closed_by
        non_closer_may_declare = r.non_closer_may_declare
        reject = r.false_declaration_penalty == "reject"
        declare_on_marriage = r.declare_on_marriage
        per_lead = r.marriages_per_lead
        first_lead_marriage = r.marriage_first_lead_allowed
        marriage_ok = r.marriage_after_talon_closed
        mpts = tuple(40 if s == trump else 20 for s in range(4))
        order = _order_key(trump, points)
        lead_order: dict[int, list[int]] = {}  # hand -> its cards in lead order
        tt: dict[tuple[int, ...], tuple[float, float]] = {}
        nodes = 0
        # a false declaration by p loses the deal for p by 1-3 game points: its value for `me` lies
        # between these bounds, so it is searched only when every other move is worse
        opp = 1 - me
        worst_false = max(utility(DealOutcome(opp, g, DealEnd.FALSE_DECLARATION)) for g in (1, 2, 3))
        best_false = min(utility(DealOutcome(me, g, DealEnd.FALSE_DECLARATION)) for g in (1, 2, 3))
        ends: dict[tuple[int, ...], float | None] = {}

        # the ends of the deal are scored on one scratch copy, put at each end's position by the
        # engine (DealState.set_position: no object per end; the talon, trump and closing stay)
        scratch = root.search_copy()
        at = scratch.set_position

        def declare_value(p: int, p0: int, p1: int, t0: int, t1: int, m0: int, m1: int) -> float | None:
            """p declares 66 (DEF-DECL-1): scored by the engine; None where the engine refuses the
            declaration (a false one under ``false_declaration_penalty = reject``, OBI-DECL-1)."""
            key = (0, p, p0, p1, t0, t1, m0, m1)
            if key in ends:
                return ends[key]
            at(hands=(0, 0), phase=LEAD, to_act=p, leader=p, trick_points=(p0, p1), tricks_won=(t0, t1),
               marriage_points=(m0, m1))
            try:
                scratch.step(A.DECLARE)
            except IllegalActionError:
                ends[key] = None
                return None
            assert scratch.outcome is not None
            v = ends[key] = utility(scratch.outcome)
            return v

        def last_trick_value(p: int, lc: int, f: int, p0: int, p1: int, t0: int, t1: int, m0: int, m1: int) -> float:
            """The last trick (p led lc, the other seat follows f) ends the deal: scored by the engine."""
            key = (1, p, lc, f, p0, p1, t0, t1, m0, m1)
            v = ends.get(key)
            if v is None:
                at(hands=(0, BIT[f]) if p == 0 else (BIT[f], 0), phase=FOLLOW, to_act=1 - p, leader=p, lead_card=lc,
                   trick_points=(p0, p1), tricks_won=(t0, t1), marriage_points=(m0, m1))
                scratch.step(f)
                assert scratch.outcome is not None
                v = ends[key] = utility(scratch.outcome)
            return v

        follow_moves: dict[tuple[int, int], list[tuple[int, int, int]]] = {}

        def moves_after(lc: int, legal: int) -> list[tuple[int, int, int]]:
            """(card, 1 if it wins the trick, points of the trick): winners first, cheapest first."""
            ls = lc // 6
            out = []
            for f in cards_of(legal):
                wins = (f < lc) if f // 6 == ls else (f // 6 == trump)
                out.append((f, 1 if wins else 0, points[lc] + points[f]))
            out.sort(key=lambda m: (-m[1], points[m[0]], m[0]))
            follow_moves[(lc, legal)] = out
            return out

        def follow(q: int, lc: int, h0: int, h1: int, p0: int, p1: int, t0: int, t1: int, m0: int, m1: int,
                   ann: int, alpha: float, beta: float) -> float:
            """Seat q follows the led card lc (already out of the leader's hand) under strict play."""
            nonlocal nodes
            nodes += 1
            hq = h1 if q else h0
            same = hq & SUIT_MASK[lc // 6]
            if same:
                legal = same & HIGHER[lc] or same
            else:
                legal = hq & tmask or hq
            moves = follow_moves.get((lc, legal)) or moves_after(lc, legal)
            if (h0 | h1) == hq and hq & (hq - 1) == 0:  # the leader's hand is empty: the deal's last trick
                vals = [last_trick_value(1 - q, lc, f, p0, p1, t0, t1, m0, m1) for f, _, _ in moves]
                return max(vals) if q == me else min(vals)
            maximize = q == me
            best = -INF if maximize else INF
            for f, wins, g in moves:
                n0 = h0 & ~BIT[f] if q == 0 else h0
                n1 = h1 & ~BIT[f] if q else h1
                if (q if wins else 1 - q) == 0:
                    v = lead(0, n0, n1, p0 + g, p1, 1, t1, m0, m1, ann, 1, 0, 0, alpha, beta)
                else:
                    v = lead(1, n0, n1, p0, p1 + g, t0, 1, m0, m1, ann, 1, 0, 0, alpha, beta)
                if maximize:
                    if v > best:
                        best = v
                        if v > alpha:
                            alpha = v
                            if alpha >= beta:
                                break
                elif v < best:
                    best = v
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            break
            return best

        def lead(p: int, h0: int, h1: int, p0: int, p1: int, t0: int, t1: int, m0: int, m1: int, ann: int,
                 tp: int, pend: int, turn: int, alpha: float, beta: float) -> float:
            """Seat p's lead turn (§1.7 step 1 under strict play); mirrors DealState._lead_actions."""
            nonlocal nodes
            nodes += 1
            key = None
            a0, b0 = alpha, beta
            if not pend:
                key = (p, h0, h1, p0, p1, t0, t1, m0, m1, ann, tp)
                ent = tt.get(key)
                if ent is not None:
                    lo, hi = ent
                    if lo >= beta or lo == hi:
                        return lo
                    if hi <= alpha:
                        return hi
                    if lo > alpha:
                        alpha = lo
                    if hi < beta:
                        beta = hi
            hp = h1 if p else h0
            maximize = p == me
            best = -INF if maximize else INF
            tw = t1 if p else t0
            may_declare = tw and (closed_by < 0 or closed_by == p or non_closer_may_declare)
            mine_m = m1 if p else m0
            pairs = hp & (hp >> 1) & _K_BITS
            if pairs and ann:
                for s in range(4):
                    if ann >> s & 1:
                        pairs &= ~_KQ[s]
            suits = [s for s in range(4) if pairs >> (s * 6 + KING) & 1] if (
                pairs and turn < per_lead and (tp or first_lead_marriage) and marriage_ok) else []
            children: list[tuple[int, int, int, int]] = []  # (kind, card or suit, m0, m1): 0 lead, 1 announce
            false_declaration = False
            # 1. declare now (OPEN-GEN-4 c: never automatic, so it is a choice); a correct one first,
            #    a false one last and only if it can matter (it loses 1-3 game points, DEF-DECL-1)
            if may_declare and (not pend or declare_on_marriage):
                dp = (p1 if p else p0) + mine_m
                v = declare_value(p, p0, p1, t0, t1, m0, m1) if dp >= 66 else None
                if v is not None:
                    if maximize:
                        best = v
                        alpha = max(alpha, v)
                    else:
                        best = v
                        beta = min(beta, v)
                elif not reject:
                    false_declaration = True
            # 2. announce a marriage and declare at once (OPEN-GEN-4 b); with one marriage per lead
            #    the other continuations of "announce" (leading its K or Q) equal the marriage moves
            if suits and ((declare_on_marriage and may_declare) or turn + 1 < per_lead):
                for s in suits:
                    children.append((1, s, m0, m1 + mpts[s]) if p else (1, s, m0 + mpts[s], m1))
            # 3. marriage + lead its K or Q (AT-MAR-1, OPEN-GEN-5)
            for s in (sorted(suits, key=lambda s: s != trump) if len(suits) > 1 else suits):
                n0, n1 = (m0, m1 + mpts[s]) if p else (m0 + mpts[s], m1)
                children.append((2, s * 6 + KING, n0, n1))
                children.append((2, s * 6 + QUEEN, n0, n1))
            # 4. lead any card (only a K/Q of an announced suit while a marriage is pending)
            playable = hp
            if pend:
                playable = 0
                for s in range(4):
                    if pend >> s & 1:
                        playable |= _KQ[s]
                playable &= hp
            cards = lead_order.get(playable)
            if cards is None:
                cards = lead_order[playable] = sorted(cards_of(playable), key=order)
            if alpha < beta:
                for kind, c, n0, n1 in children + [(0, c, m0, m1) for c in cards]:
                    if kind == 1:  # announce suit c
                        if per_lead > 1:
                            v = lead(p, h0, h1, p0, p1, t0, t1, n0, n1, ann | 1 << c, tp, pend | 1 << c, turn + 1,
                                     alpha, beta)
                        else:
                            v = declare_value(p, p0, p1, t0, t1, n0, n1)
                            if v is None:
                                continue
                    else:
                        a2 = ann | 1 << (c // 6) if kind == 2 else ann
                        if p:
                            v = follow(0, c, h0, h1 & ~BIT[c], p0, p1, t0, t1, n0, n1, a2, alpha, beta)
                        else:
                            v = follow(1, c, h0 & ~BIT[c], h1, p0, p1, t0, t1, n0, n1, a2, alpha, beta)
                    if maximize:
                        if v > best:
                            best = v
                            if v > alpha:
                                alpha = v
                                if alpha >= beta:
                                    break
                    elif v < best:
                        best = v
                        if v < beta:
                            beta = v
                            if alpha >= beta:
                                break
            if false_declaration and (best < worst_false if maximize else best > best_false):
                v = declare_value(p, p0, p1, t0, t1, m0, m1)
                if v is not None:
                    best = max(best, v) if maximize else min(best, v)
            if key is not None:
                old = tt.get(key, (-INF, INF))
                if best <= a0:
                    tt[key] = (old[0], min(old[1], best))
                elif best >= b0:
                    tt[key] = (max(old[0], best), old[1])
                else:
                    tt[key] = (best, best)
            return best

        def node_count() -> int:
            return nodes

        self._nodes = node_count
        self._lead = lead
        self._follow = follow

    @property
    def nodes(self) -> int:
        """Nodes searched so far (lead and follow turns)."""
        return self._nodes()

    def solve(self, d: DealState, alpha: float = -INF, beta: float = INF) -> float:
        """Minimax value for ``me`` of ``d`` (talon closed or exhausted; any phase)."""
        if d.phase == OVER:
            assert d.outcome is not None
            return self.utility(d.outcome)
        if (d.trump, d.closed_by, d.close_snapshot) != self.key or not d.strict:
            raise ValueError("position outside this solver's deal (trump, closer, snapshot) or talon open")
        h0, h1 = d.hands
        tp = 1 if d.trick_no else 0
        t0, t1 = (1 if d.tricks_won[0] else 0), (1 if d.tricks_won[1] else 0)
        p0, p1 = d.trick_points
        m0, m1 = d.marriage_points
        if d.phase == LEAD:
            return self._lead(d.to_act, h0, h1, p0, p1, t0, t1, m0, m1, d.announced, tp, d.pending,
                              d.turn_marriages, alpha, beta)
        if d.phase == FOLLOW:
            return self._follow(d.to_act, d.lead_card, h0, h1, p0, p1, t0, t1, m0, m1, d.announced, alpha, beta)
        if d.phase == EXCHANGE_ON_CLOSE:  # OPEN-O66-5 option: expand with the engine
            vals = []
            for a in d.legal_actions():
                c = d.copy()
                c.step(a)
                vals.append(self.solve(c))
            return max(vals) if d.to_act == self.me else min(vals)
        raise ValueError(f"cannot solve phase {d.phase}")


def plain_minimax(d: DealState, me: int, utility: Utility) -> float:
    """Exhaustive minimax over the engine's own ``legal_actions``/``copy``/``step`` (no pruning,
    no table): the reference the solver is tested against. Exponential: small positions only."""
    if d.phase == OVER:
        assert d.outcome is not None
        return utility(d.outcome)
    vals = []
    for a in d.legal_actions():
        c = d.copy()
        c.step(a)
        vals.append(plain_minimax(c, me, utility))
    return max(vals) if d.to_act == me else min(vals)
