"""Worlds of a two-player talon deal consistent with one seat's information set (RULES.md §14):
the public state of the current deal rebuilt from the information set, and full deals sampled
consistently with it (the engine's answer to "which deals could this be?", as OpenSpiel's
``resample_from_infostate``; used by the ``strong`` bot's determinization and the learning
adapters). Public through :mod:`bummerl.rules.worlds`; a facade-level module of the engine's stack.

:class:`PublicDeal` replays the deal's public history (RULES.md §14.1, SRV-RECALL) to recover
everything the seat may know: its own hand, the counters of both sides (tricks, trick points,
marriages: all public events), the closing snapshot, the trump card's identity, the opponent's
cards that are known (a marriage partner shown, a card taken up by exchange, the face-up trump card
drawn last), and the cards the opponent cannot hold because strict play (DEF-PLAY-STRICT) after
closing (DEF-TAL-3) or exhaustion (DEF-TAL-2) forced him to follow, head or trump and he did not.
:meth:`PublicDeal.sample` deals the unseen cards uniformly among the layouts that respect all of
that, and :meth:`PublicDeal.deal_state` builds an engine :class:`~bummerl.rules.TalonDeal` that a
search can step in place (:meth:`~bummerl.rules.TalonDeal.from_public`).

Reads the information set in its one shape (the ``InformationSet`` message as JSON, as served and
as the engine builds it): events keyed by their ``Event.kind`` name, enums such as ``"PHASE_LEAD"``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from .base import actions as A
from .base import cards as K
from .deals.talon import TalonDeal
from .table.variant import Rules, configure_cached

LEAD, FOLLOW, DRAW, EXCHANGE_ON_CLOSE, OVER = (
    TalonDeal.LEAD, TalonDeal.FOLLOW, TalonDeal.DRAW, TalonDeal.EXCHANGE_ON_CLOSE, TalonDeal.OVER,
)

#: ``Event.kind`` name -> engine event type (the history tuple's first element).
_KINDS = {
    "deal_started": "deal", "trump_exchanged": "exchange", "talon_closed": "close", "passed": "pass",
    "marriage_announced": "marriage", "card_played": "play", "trick_completed": "trick", "card_drawn": "draw",
    "declared": "declare", "deal_ended": "deal_end", "match_ended": "match_end", "resigned": "resign",
    "timeout": "timeout",
}
_PHASES = {"PHASE_LEAD": LEAD, "PHASE_FOLLOW": FOLLOW, "PHASE_DRAW": DRAW, "PHASE_EXCHANGE_ON_CLOSE": EXCHANGE_ON_CLOSE,
           "PHASE_OVER": OVER}


def _bits(mask: int) -> int:
    return bin(mask).count("1")


def _card(code: Any) -> int:
    return K.parse_card(str(code)) if code not in (None, "") else -1


def events(history: list[Mapping[str, Any]]) -> list[tuple[str, Mapping[str, Any]]]:
    """``(engine type, fields)`` for each history event (kinds this module does not know are left out)."""
    out: list[tuple[str, Mapping[str, Any]]] = []
    for ev in history:
        for key, kind in _KINDS.items():
            if key in ev:
                out.append((kind, ev[key]))
                break
    return out


class InconsistentInfo(ValueError):
    """The information set does not add up (a bug or a foreign variant); the bot falls back."""


class PublicDeal:
    """What one seat knows about the current deal, rebuilt from its information set.

    Seat-indexed lists (``tricks_won``, ``trick_points``, ``marriage_points``, ``won``) are
    public: every trick and marriage is an event. ``opp_known`` = opponent cards everybody knows;
    ``forbidden`` = unseen cards the opponent cannot hold (revealed voids and "could not head");
    ``unseen`` = cards neither in the seat's hand, nor played, nor known to be elsewhere.
    """

    def __init__(self, raw: Mapping[str, Any]) -> None:
        deal = raw.get("deal", {})
        match = raw.get("match", {})
        self.variant = str(raw.get("variant", ""))
        opts = {str(k): str(v) for k, v in (raw.get("options") or {}).items()}
        self.rules: Rules = configure_cached(self.variant, opts)
        r = self.rules
        self.me = me = int(raw.get("seat", 0))
        self.opp = opp = 1 - me
        self.dealer = int(match.get("dealer", 0))
        self.phase = _PHASES.get(str(deal.get("phase", "")), OVER)
        self.to_act = int(deal.get("to_act", -1))
        self.hand = K.mask_of([_card(c) for c in deal.get("hand", [])])
        self.trump = K.parse_suit(str(deal.get("trump_suit", "C")))
        self.talon_size = int(deal.get("talon_size", 0))
        self.opp_size = int((deal.get("hand_sizes") or [0, 0])[opp])
        pts = r.points
        hand_size = r.spec.hand_size
        talon_left = len(r.deck) - 2 * hand_size
        bottom = -1
        closed_by = -1
        snapshot = (0, 0, 0, False)
        tricks = [0, 0]
        tpoints = [0, 0]
        mpoints = [0, 0]
        won = [0, 0]
        announced = 0
        played = 0
        opp_known = 0
        forbidden = 0
        leader = 1 - self.dealer  # the non-dealer leads the first trick (AT-LEAD-1)
        lead_card = -1
        trick_no = 0
        last_winner = -1
        trailing: list[tuple[int, int]] = []  # marriages announced at this lead turn, no card led yet
        # the opponent's choices while the talon was open, for inference (:meth:`past_hands`)
        trace: list[tuple[Any, ...]] = []  # forward order: ("decide", k), ("play", c), ("draw", c, pinned), ("exchange", up, down)
        decisions: list[tuple[dict[str, Any], int]] = []  # (public state before the choice, action taken)
        pinned = 0  # cards known to be in the opponent's hand (shown in a marriage, taken by exchange)
        opp_married = False  # the opponent announced a marriage at this lead turn
        for kind, ev in events(list(deal.get("history", []))):
            if kind in ("marriage", "play", "exchange") and int(ev.get("seat", 0)) == opp:
                open_talon = closed_by < 0 and talon_left > 0
                if kind == "exchange":
                    up, down = _card(ev.get("card_up")), _card(ev.get("card_down"))
                    trace.append(("exchange", up, down))
                    pinned = (pinned | K.BIT[up]) & ~K.BIT[down]
                elif kind == "marriage":
                    s = K.parse_suit(str(ev.get("suit", "C")))
                    if open_talon and not trailing:
                        trace.append(("decide", len(decisions)))
                        decisions.append((self._snapshot(opp, LEAD, leader, -1, trick_no, closed_by, snapshot, tricks,
                                                         tpoints, mpoints, won, announced, last_winner, talon_left,
                                                         bottom), A.MARRIAGE + 2 * s))
                    pinned |= K.BIT[s * 6 + K.KING] | K.BIT[s * 6 + K.QUEEN]
                    opp_married = True
                else:
                    c = _card(ev.get("card"))
                    if open_talon and not opp_married:
                        trace.append(("decide", len(decisions)))
                        decisions.append((self._snapshot(opp, LEAD if lead_card < 0 else FOLLOW,
                                                         opp if lead_card < 0 else 1 - opp, lead_card, trick_no,
                                                         closed_by, snapshot, tricks, tpoints, mpoints, won, announced,
                                                         last_winner, talon_left, bottom), c))
                    trace.append(("play", c))
                    pinned &= ~K.BIT[c]
                    opp_married = False
            elif kind == "draw" and int(ev.get("seat", 0)) == opp:
                trace.append(("draw", _card(ev.get("card")), pinned))
            if kind == "deal":
                bottom = _card(ev.get("trump_card"))
            elif kind == "exchange":
                bottom = _card(ev.get("card_down"))
                if int(ev.get("seat", 0)) == opp:
                    opp_known |= K.BIT[_card(ev.get("card_up"))]
            elif kind == "close":
                closed_by = int(ev.get("seat", 0))
                o = 1 - closed_by
                counted = mpoints[o] if tricks[o] or not r.marriage_counts_after_first_trick else 0
                snapshot = (tricks[o], tpoints[o], counted, bool(tricks[0] and tricks[1]))
            elif kind == "marriage":
                seat = int(ev.get("seat", 0))
                s = K.parse_suit(str(ev.get("suit", "C")))
                mpoints[seat] += int(ev.get("points", 0))
                announced |= 1 << s
                trailing.append((seat, s))
                if seat == opp:
                    opp_known |= K.BIT[s * 6 + K.KING] | K.BIT[s * 6 + K.QUEEN]
            elif kind == "play":
                seat = int(ev.get("seat", 0))
                c = _card(ev.get("card"))
                played |= K.BIT[c]
                trailing = []
                if lead_card < 0:
                    lead_card, leader = c, seat
                elif seat == opp and (closed_by >= 0 or talon_left == 0):
                    forbidden |= self._strict_inference(lead_card, c)
            elif kind == "trick":
                w = int(ev.get("winner", 0))
                cs = [_card(x.get("card")) for x in ev.get("cards", [])]
                tricks[w] += 1
                tpoints[w] += sum(pts[c] for c in cs)
                for c in cs:
                    won[w] |= K.BIT[c]
                trick_no += 1
                last_winner = leader = w
                lead_card = -1
            elif kind == "draw":
                talon_left -= 1
                c = _card(ev.get("card"))
                if c >= 0 and int(ev.get("seat", 0)) == opp:
                    opp_known |= K.BIT[c]
        self._trace = trace
        #: the opponent's choices while the talon was open: (public state before it, action id;
        #: a marriage as the id that leads its King)
        self.opp_decisions = decisions
        cur = deal.get("current_trick") or []
        if cur and _card(cur[0].get("card")) != lead_card:
            raise InconsistentInfo("current trick does not match the history")
        if self.phase == LEAD and self.to_act >= 0:
            leader = self.to_act
        self.closed_by = closed_by
        self.close_snapshot = snapshot
        self.tricks_won = tricks
        self.trick_points = tpoints
        self.marriage_points = mpoints
        self.won = won
        self.announced = announced
        self.leader = leader
        self.lead_card = lead_card
        self.trick_no = trick_no
        self.last_winner = last_winner
        mine = [s for seat, s in trailing if seat == self.to_act] if self.phase == LEAD else []
        self.pending = sum(1 << s for s in mine)
        self.turn_marriages = len(mine)
        self.played = played
        self.talon_left = talon_left
        self.bottom = bottom if talon_left > 0 else -1  # the (former) face-up trump card, still in the talon
        if self.talon_size != talon_left:
            raise InconsistentInfo(f"talon size {self.talon_size} but {talon_left} by the history")
        self.opp_known = opp_known & ~played
        deck = K.mask_of(list(r.deck))
        unseen = deck & ~self.hand & ~played & ~self.opp_known
        if self.bottom >= 0:
            unseen &= ~K.BIT[self.bottom]
        self.unseen = unseen
        self.forbidden = forbidden & unseen
        self.free_slots = self.opp_size - _bits(self.opp_known)
        self.talon_hidden = max(0, talon_left - 1)  # face-down talon cards (the bottom one is known)
        if _bits(unseen) != self.free_slots + self.talon_hidden or self.free_slots < 0:
            raise InconsistentInfo("the unseen cards do not fill the opponent's hand and the talon")
        if _bits(unseen & ~self.forbidden) < self.free_slots:
            self.forbidden = 0  # cannot happen with a consistent history; never sample an impossible deal
        cand = _bits(unseen & ~self.forbidden)
        #: True when every consistent deal gives the same future (hands known; talon order irrelevant)
        self.determined = (self.free_slots == 0 or cand == self.free_slots) and (
            self.talon_hidden <= 1 or closed_by >= 0
        )

    @staticmethod
    def _snapshot(opp: int, phase: int, leader: int, lead_card: int, trick_no: int, closed_by: int,
                  snapshot: tuple[int, int, int, bool], tricks: list[int], tpoints: list[int], mpoints: list[int],
                  won: list[int], announced: int, last_winner: int, talon_left: int, bottom: int) -> dict[str, Any]:
        return {"phase": phase, "to_act": opp, "leader": leader, "lead_card": lead_card, "trick_no": trick_no,
                "closed_by": closed_by, "close_snapshot": snapshot, "tricks_won": list(tricks),
                "trick_points": list(tpoints), "marriage_points": list(mpoints), "won": list(won),
                "announced": announced, "last_winner": last_winner, "talon_left": talon_left, "bottom": bottom}

    def past_hands(self, opp_hand: int, rng: random.Random) -> list[int]:
        """The opponent's hand before each of :attr:`opp_decisions`, if it holds ``opp_hand`` now:
        the history undone backwards (a card played goes back to the hand; a card drawn face down
        leaves it, one picked at random among those not known to have been there before)."""
        hands = [0] * len(self.opp_decisions)
        h = opp_hand
        for op in reversed(self._trace):
            kind = op[0]
            if kind == "play":
                h |= K.BIT[op[1]]
            elif kind == "decide":
                hands[op[1]] = h
            elif kind == "draw":
                c = op[1]
                if c < 0:
                    free = K.cards_of(h & ~op[2])
                    if not free:
                        continue
                    c = free[rng.randrange(len(free))] if len(free) > 1 else free[0]
                h &= ~K.BIT[c]
            else:  # exchange: the card taken up leaves the hand, the one put down returns
                h = (h & ~K.BIT[op[1]]) | K.BIT[op[2]]
        return hands

    def past_state(self, k: int, opp_hand: int) -> TalonDeal:
        """The deal as it stood before the opponent's choice ``k`` (:attr:`opp_decisions`), with
        ``opp_hand`` in his hand, an empty hand for this seat and filler cards in the talon (only
        its size and bottom card matter to the opponent's legal actions and rule-based policy)."""
        st = self.opp_decisions[k][0]
        n = st["talon_left"]
        bottom = st["bottom"]
        talon: list[int] = []
        if n > 0:
            taken = opp_hand | (K.BIT[bottom] if bottom >= 0 else 0)
            for c in self.rules.deck:
                if len(talon) >= n - 1:
                    break
                if not taken >> c & 1:
                    talon.append(c)
            talon.append(bottom)
        hands = [0, 0]
        hands[self.opp] = opp_hand
        return TalonDeal.from_public(
            self.rules, dealer=self.dealer, hands=hands, talon=talon, trump=self.trump, phase=st["phase"],
            to_act=st["to_act"], leader=st["leader"], lead_card=st["lead_card"], trick_no=st["trick_no"],
            closed_by=st["closed_by"], close_snapshot=st["close_snapshot"], tricks_won=st["tricks_won"],
            trick_points=st["trick_points"], marriage_points=st["marriage_points"], won=st["won"],
            announced=st["announced"], last_winner=st["last_winner"],
        )

    def _strict_inference(self, lead: int, follow: int) -> int:
        """Cards the follower cannot hold after following ``lead`` with ``follow`` under strict
        play (DEF-PLAY-STRICT, AT-STRICT-1/2, O66-STRICT-1, SAN-STRICT-1, HU2-STRICT-1): no card of
        the led suit that beats it if he played a lower one of that suit; void in the led suit if he
        did not follow it; void in trumps too if he neither followed nor trumped."""
        ls = lead // 6
        if follow // 6 == ls:
            return K.HIGHER[lead] if follow > lead else 0
        out: int = K.SUIT_MASK[ls]
        if follow // 6 != self.trump:
            out |= K.SUIT_MASK[self.trump]
        return out

    @property
    def strict(self) -> bool:
        return self.closed_by >= 0 or self.talon_left == 0

    def deal_points(self, seat: int) -> int:
        """DEF-PTS-3 from the public counters (marriages count once the seat has a trick)."""
        counted = self.tricks_won[seat] or not self.rules.marriage_counts_after_first_trick
        return self.trick_points[seat] + (self.marriage_points[seat] if counted else 0)

    def sample(self, rng: random.Random) -> tuple[int, list[int]]:
        """One consistent layout: ``(opponent hand mask, face-down talon cards top first)``.

        Uniform over the layouts that give the opponent his known cards plus ``free_slots``
        unseen cards he may hold, and the rest of the unseen cards to the talon in random order."""
        cand = K.cards_of(self.unseen & ~self.forbidden)
        opp = self.opp_known | K.mask_of(rng.sample(cand, self.free_slots))
        rest = K.cards_of(self.unseen & ~opp)
        rng.shuffle(rest)
        return opp, rest

    def deal_state(self, opp_hand: int, talon_cards: list[int], seats: tuple[int, int] = (0, 1)) -> TalonDeal:
        """An engine deal with the public counters and this layout (``talon_cards`` top first, the
        known bottom card appended), built by the engine's public constructor
        :meth:`~bummerl.rules.TalonDeal.from_public`; ``seats``: the match seats of deal seats 0
        and 1 (a rotation deal's pair). Its future under the engine is that of the real deal when
        the layout is the real one (tested)."""
        hands = [0, 0]
        hands[self.me] = self.hand
        hands[self.opp] = opp_hand
        return TalonDeal.from_public(
            self.rules,
            dealer=self.dealer,
            hands=hands,
            talon=[*talon_cards, self.bottom] if self.bottom >= 0 else talon_cards,
            trump=self.trump,
            phase=self.phase,
            to_act=self.to_act,
            leader=self.leader,
            lead_card=self.lead_card,
            trick_no=self.trick_no,
            closed_by=self.closed_by,
            close_snapshot=self.close_snapshot,
            tricks_won=self.tricks_won,
            trick_points=self.trick_points,
            marriage_points=self.marriage_points,
            won=self.won,
            announced=self.announced,
            pending=self.pending,
            turn_marriages=self.turn_marriages,
            last_winner=self.last_winner,
            seats=seats,
        )
