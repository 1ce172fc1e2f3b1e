"""The Austrian contract deals: ``bauernschnapsen`` (docs/RULES.md §9) and ``talonschnapsen``
(§10), on the contract skeleton of §1.8 (:class:`~bummerl.rules.deals.contract.ContractDeal`).

Phases of one deal (``phase``):

``trump``   Vorhand (left of the dealer) holds his first three cards and names trump
            (BS-DEAL-2, TS-DEAL-1; ``trump_must_be_held``, OPEN-BS-3); then the rest is dealt.
``bidding`` the auction (BS-BID-2, TS-BID-1): clockwise from Vorhand, ``pass`` ("weiter") or
            ``bid NAME`` for an eligible contract ranking strictly higher (BS-CON table,
            TS-CON-1); a pass is final (``auction_pass_is_final``, OPEN-BS-1). All pass: the
            einfacher Rufer (BS-BID-1) with Vorhand as declarer (TS-BID-2).
``discard`` Talonschnapsen only: the declarer has taken up the two talon cards and lays away two
            cards (``discard X``, TS-TAL-1).
``kontra``  the side opposing the declarer (in the einfacher Rufer: opposing Vorhand) may call
            Kontra, then alternately Rekontra... up to ``max_kontra_level`` (BS-KON-2, OPEN-BS-5).
``lead`` / ``follow``  strict trick play (BS-PLAY-1) until the contract is decided (SRV-3).

Contracts (``contract``): ``einfacher_rufer`` or a name of :data:`bummerl.rules.base.actions.CONTRACTS`.
``side[seat]`` is 0 for the declarer's side (his partner too in Bauernschnapsen) and 1 for the
others. ``outcome.awards`` credits both members of the winning team (BS-SCORE-1), or the
declarer alone / each defender (TS-SCORE-1); ``outcome.winner`` is the winning team
(Bauernschnapsen), the declarer on success or -1 on failure (Talonschnapsen).

Extra facts live in :attr:`ContractDeal.state` (JSON-ready): ``vorhand``, ``named`` (the trump
named, also in no-trump contracts), ``rest`` (cards not yet dealt: hidden), ``talon`` (TS, hidden
until taken), ``passed``, ``passes``, ``high``, ``high_seat`` (auction), ``queue`` (seats still
to be asked for the next multiplier call), ``discards``, ``decided`` (a result held back while
play goes on under ``auto_end_decided_contract = false``).

Table options: the catalogue :data:`bummerl.rules.table.options.AT_CONTRACT`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from ..base import actions as A
from ..base.cards import BIT, SUIT_MASK, cards_of, parse_card
from ..base.errors import IllegalActionError
from ..base.tricks import NORMAL, TEN_HIGH
from ..base.views import DealView, Event
from ..table.outcome import DealEnd
from ..table.variant import Rules
from .contract import ContractDeal

RUFER = "einfacher_rufer"
"""Contract name of the simple game played when everybody passes (BS-BID-1, BS-CON-3)."""

#: Contract values in game points (BS-CON-1); the einfacher Rufer scores 1-3 (BS-SCORE-1).
VALUES: dict[str, int] = {
    RUFER: 1, "bettler": 5, "schnapser": 6, "gang": 9, "zehnerloch": 10, "bauernschnapser": 12,
    "kontraschnapser": 12, "farbenring": 18, "kontrabauernschnapser": 24, "herrenschnapser": 24,
}
#: Auction rank (BS-BID-2): a call must rank strictly higher; equal values cannot overcall, except
#: that the Herrenschnapser outranks the Kontrabauernschnapser.
RANKS: dict[str, int] = {**{k: 2 * v for k, v in VALUES.items()}, "herrenschnapser": 49}
#: Biddable contracts, low -> high.
BIDS: tuple[str, ...] = (
    "bettler", "schnapser", "gang", "zehnerloch", "bauernschnapser", "kontraschnapser", "farbenring",
    "kontrabauernschnapser", "herrenschnapser",
)
NO_TRUMP = frozenset(("bettler", "gang", "zehnerloch", "farbenring"))  # BS-CON-7/9/12/13
ALL_TRICKS = frozenset(("gang", "zehnerloch", "bauernschnapser", "kontrabauernschnapser", "farbenring", "herrenschnapser"))
SCHNAPSER = frozenset(("schnapser", "kontraschnapser"))  # BS-CON-4/5/6
DECLARER_LEADS = frozenset(("bettler", "gang", "zehnerloch", "farbenring"))  # BS-CON-2, OPEN-BS-2
CERTAIN = frozenset(("farbenring", "herrenschnapser"))  # BS-CON-9/11, OPEN-BS-4

def _count(mask: int) -> int:
    return bin(mask).count("1")


class BauernschnapsenDeal(ContractDeal):
    """One deal of Bauernschnapsen (§9): 4 seats, teams ``rules.spec.teams`` (0&2 vs 1&3), 5
    cards each dealt 3 + 2 clockwise from Vorhand with the trump named in between, no talon.

    Build with :meth:`new`; test decks with :meth:`arrange`. ``step`` raises
    :class:`IllegalActionError` for an action not in :meth:`legal_actions`."""

    __slots__ = ()

    #: Cards per hand in the second round of dealing and in the talon (TS-DEAL-1 overrides).
    SECOND_BATCH: ClassVar[int] = 2
    TALON: ClassVar[int] = 0
    #: Farbenring / Herrenschnapser are certain with 5-card hands (BS-CON-9/11, OPEN-BS-4).
    CERTAIN_CONTRACTS: ClassVar[frozenset[str]] = CERTAIN

    # ------------------------------------------------------------------ dealing
    @classmethod
    def new(cls, rules: Rules, deck: Sequence[int], dealer: int, seats: Sequence[int] | None = None) -> BauernschnapsenDeal:
        """A new deal from ``deck`` (card ids, top first, SRV-1): 3 cards to each seat clockwise
        from Vorhand; the rest waits until trump is named (BS-DEAL-1/2, TS-DEAL-1). ``seats`` is
        accepted for the :class:`~bummerl.rules.table.protocols.Deal` protocol (every seat plays).
        Raises ValueError for a deck of the wrong size."""
        d = cls.__new__(cls)
        d._init(rules, dealer)
        n = d.n
        deck = list(deck)
        if len(deck) != len(rules.deck) or set(deck) != set(rules.deck):
            raise ValueError(f"a deck of the {len(rules.deck)} cards of the variant is needed")
        v = (dealer + 1) % n
        i = d.deal_batches(deck, 0, [((v + k) % n, 3) for k in range(n)])
        d.phase = "trump"
        d.to_act_seat = v
        d.leader = v
        d.state = {
            "vorhand": v, "named": -1, "rest": list(deck[i:]), "talon": [], "passed": [False] * n, "passes": 0,
            "high": "", "high_seat": -1, "queue": [], "discards": 0, "decided": [],
        }
        return d

    @classmethod
    def arrange(cls, rules: Rules, dealer: int, hands: Sequence[Sequence[int | str]], talon: Sequence[int | str] = ()) -> list[int]:
        """The deck order (top first) that deals exactly ``hands`` (one list per seat, card ids
        or codes) and ``talon``: the inverse of :meth:`new`. The first three cards listed for a
        seat are his first batch (the cards Vorhand names trump from). Raises ValueError unless
        the cards are exactly the variant's deck."""
        n = rules.spec.num_players
        hs = [[parse_card(c) if isinstance(c, str) else c for c in h] for h in hands]
        tal = [parse_card(c) if isinstance(c, str) else c for c in talon]
        v = (dealer + 1) % n
        order = [(v + k) % n for k in range(n)]
        deck = [c for s in order for c in hs[s][:3]] + tal + [c for s in order for c in hs[s][3:]]
        size = 3 + cls.SECOND_BATCH
        if len(hs) != n or any(len(h) != size for h in hs) or len(tal) != cls.TALON or sorted(deck) != sorted(rules.deck):
            raise ValueError(f"{n} hands of {size} cards and a talon of {cls.TALON} must make up the deck")
        return deck

    def _deal_rest(self) -> None:
        """The second round (BS-DEAL-1) after the trump is named; TS-DEAL-1 lays the talon first."""
        rest = self.state["rest"]
        v = self.state["vorhand"]
        self.state["talon"] = rest[: self.TALON]
        self.deal_batches(rest, self.TALON, [((v + k) % self.n, self.SECOND_BATCH) for k in range(self.n)])
        self.state["rest"] = []

    # ------------------------------------------------------------------ roles
    @property
    def vorhand(self) -> int:
        return int(self.state["vorhand"])

    def _team(self, seat: int) -> int:
        return self.rules.spec.team_of_seat[seat]

    def eligible(self, p: int, name: str) -> bool:
        """May seat ``p`` call ``name`` by role and holding (BS-CON table, BS-CON-9/11, TS-CON-1,
        OPEN-BS-11)? Rank is not checked here."""
        opts = self.rules.options
        v = self.vorhand
        if name == "bettler":
            return bool(opts["enable_bettler"])
        if name == "zehnerloch":
            return bool(opts["enable_zehnerloch"])
        if name == "gang":
            return True
        same = self._team(p) == self._team(v)  # Vorhand or his partner (TS: Vorhand only)
        if name in ("schnapser", "bauernschnapser"):
            return same
        if name in ("kontraschnapser", "kontrabauernschnapser"):
            return not same
        named = self.state["named"]
        if name == "herrenschnapser":
            return p == v and _count(self.hands[p] & SUIT_MASK[named]) == 5
        if name == "farbenring":
            return p != v and self._ring_suit(p) >= 0
        raise ValueError(f"unknown contract {name!r}")

    def _ring_suit(self, p: int) -> int:
        """A non-trump suit of which ``p`` holds all five cards, or -1 (BS-CON-9)."""
        for s in range(4):
            if s != self.state["named"] and _count(self.hands[p] & SUIT_MASK[s]) == 5:
                return s
        return -1

    # ------------------------------------------------------------------ auction
    def step(self, a: int) -> None:
        """Apply a legal action in place. Raises :class:`IllegalActionError` for an action not in
        :meth:`legal_actions` (also after the deal is over)."""
        if self.phase == "over":
            raise IllegalActionError("the deal is over")
        if a not in self.legal_actions():
            raise IllegalActionError(f"{A.action_to_string(a) if 0 <= a < A.NUM_ACTIONS else a} is not legal now")
        super().step(a)

    def _auction_actions(self) -> list[int]:
        ph = self.phase
        p = self.to_act_seat
        if ph == "trump":
            if self.rules.options["trump_must_be_held"]:
                return [A.TRUMP + s for s in range(4) if self.hands[p] & SUIT_MASK[s]]
            return [A.TRUMP + s for s in range(4)]
        if ph == "bidding":
            high = RANKS[self.state["high"]] if self.state["high"] else 0
            return [A.PASS] + [A.bid_id(b) for b in BIDS if RANKS[b] > high and self.eligible(p, b)]
        if ph == "discard":
            return [A.DISCARD + c for c in cards_of(self.hands[p])]
        if ph == "kontra":
            return [A.PASS, A.KONTRA + self.level]
        return []

    def _auction_step(self, p: int, a: int) -> None:
        ph = self.phase
        st = self.state
        if ph == "trump":
            s = a - A.TRUMP
            st["named"] = s
            self.trump = s
            self.history.append(("trump", p, s))
            self._deal_rest()
            self.phase = "bidding"
            self.to_act_seat = self.vorhand
        elif ph == "bidding":
            if a == A.PASS:
                st["passed"][p] = True
                st["passes"] += 1
                self.history.append(("pass", p))
            else:
                name = A.bid_name(a)
                st["high"] = name
                st["high_seat"] = p
                st["passes"] = 0
                self.bids.append((p, name))
                self.history.append(("bid", p, name))
            self._next_bidder(p)
        elif ph == "discard":
            c = a - A.DISCARD
            self.hands[p] ^= BIT[c]
            self.laid_away[p] |= BIT[c]
            st["discards"] += 1
            if st["discards"] == self.TALON:
                self.history.append(("discard", p, self.TALON))
                self._start_kontra()
        elif ph == "kontra":
            q = st["queue"]
            if a == A.PASS:
                self.history.append(("pass", p))
                q.pop(0)
            else:
                self.level += 1
                call = A.KONTRA_CALLS[self.level - 1]
                self.bids.append((p, call))
                self.history.append(("bid", p, call))
                q[:] = self._callers(1 - self.side[p], p) if self.level < int(self.rules.options["max_kontra_level"]) else []
            if q:
                self.to_act_seat = q[0]
            else:
                self._start_play()

    def _next_bidder(self, p: int) -> None:
        """BS-BID-2 / TS-BID-1: the auction ends when every other player has passed after the
        last call (all players, if nobody called); otherwise the next seat clockwise that may
        still speak (with ``auction_pass_is_final`` a seat that passed is skipped)."""
        st = self.state
        n = self.n
        hs = st["high_seat"]
        if self.rules.options["auction_pass_is_final"]:
            done = all(st["passed"][s] for s in range(n) if s != hs)
            if not done:
                q = (p + 1) % n
                while st["passed"][q]:
                    q = (q + 1) % n
                self.to_act_seat = q
                return
        else:
            if st["passes"] < (n - 1 if hs >= 0 else n):
                self.to_act_seat = (p + 1) % n
                return
        self._end_auction()

    def _end_auction(self) -> None:
        """Fix the contract, declarer, sides, trump and rank order; the talon (TS-TAL-1), then
        the kontra calls."""
        st = self.state
        v = self.vorhand
        if st["high_seat"] < 0:
            name, decl = RUFER, v  # BS-BID-1, TS-BID-2
        else:
            name, decl = st["high"], st["high_seat"]
        self.contract = name
        self.declarer = decl
        self.value = VALUES[name]
        self.side = [0 if self._team(s) == self._team(decl) else 1 for s in range(self.n)]
        self.trump = -1 if name in NO_TRUMP else st["named"]
        self.order = TEN_HIGH if name == "zehnerloch" else NORMAL
        partners = tuple(s for s in range(self.n) if self.side[s] == 0 and s != decl)
        self.history.append(("contract", name, decl, partners, self.trump, 0, self.value))
        if self.TALON:
            for c in st["talon"]:
                self.hands[decl] |= BIT[c]
            st["talon"] = []
            self.history.append(("take", decl, self.TALON))
            self.phase = "discard"
            self.to_act_seat = decl
        else:
            self._start_kontra()

    def _callers(self, side: int, after: int) -> list[int]:
        """Seats of ``side`` clockwise, starting left of ``after`` (BS-KON-2)."""
        return [s for s in ((after + k) % self.n for k in range(1, self.n + 1)) if self.side[s] == side]

    def _start_kontra(self) -> None:
        if int(self.rules.options["max_kontra_level"]) >= 1:
            self.state["queue"] = self._callers(1, self.declarer)
            self.phase = "kontra"
            self.to_act_seat = self.state["queue"][0]
        else:
            self._start_play()

    def _start_play(self) -> None:
        """Settle a certain contract (OPEN-BS-4) or start the play; the first leader per
        BS-CON-2 / OPEN-BS-2: the declarer in Bettler, Gang, Zehnerloch and Farbenring, else
        Vorhand."""
        self.state["queue"] = []
        name = self.contract
        if name in self.CERTAIN_CONTRACTS and not self.rules.options["play_out_certain_contracts"]:
            s = self.trump if name == "herrenschnapser" else self._ring_suit(self.declarer)
            self.history.append(("show", self.declarer, tuple(cards_of(self.hands[self.declarer] & SUIT_MASK[s]))))
            self._credit(0, self.value, DealEnd.SETTLED)
            return
        self.start_play(self.declarer if name in DECLARER_LEADS else self.vorhand)

    # ------------------------------------------------------------------ play hooks
    def _may_marry(self, p: int) -> bool:
        """BS-MAR-1 (OPEN-BS-7): any leader in the einfacher Rufer; only the schnapsing player in
        tricks 1-3 of a Schnapser (BS-CON-5); nobody in the other contracts."""
        if self.contract == RUFER:
            return True
        return self.contract in SCHNAPSER and p == self.declarer and self.trick_no < 3

    def _may_declare(self, p: int, extra: int) -> bool:
        """BS-DECL-1 (einfacher Rufer: any player at his lead turn, for his side; a false
        declaration is offered unless ``false_declaration_penalty = reject``) and BS-CON-4 (the
        schnapsing player at his lead turn of trick 2 or 3). ``extra`` > 0: after announcing
        a marriage worth ``extra`` (OPEN-GEN-4 b) - offered only if that makes 66 at once."""
        if self.state["decided"]:
            return False
        if self.contract != RUFER and not (self.contract in SCHNAPSER and p == self.declarer and 1 <= self.trick_no <= 2):
            return False
        side = self.side[p]
        pts = self.side_points(side)
        if extra:
            return bool(self.rules.declare_on_marriage) and self.side_tricks(side) > 0 and pts + extra >= 66
        return self.rules.false_declaration_penalty != "reject" or pts >= 66

    def _declare(self, p: int) -> None:
        """DEF-DECL-1, BS-DECL-1, BS-SCORE-1, BS-CON-4: verify the side's deal points."""
        side = self.side[p]
        pts = self.side_points(side)
        correct = pts >= 66
        self.history.append(("declare", p, correct, pts))
        if self.contract == RUFER:
            if correct:
                self._credit(side, self.table_points(1 - side), DealEnd.DECLARED)
            else:
                self._credit(1 - side, self.false_declaration_points(1 - side), DealEnd.FALSE_DECLARATION)
        else:  # Schnapser going out (BS-CON-4)
            self._credit(0 if correct else 1, self.value, DealEnd.DECLARED if correct else DealEnd.FALSE_DECLARATION)

    def table_points(self, loser: int) -> int:
        """BS-SCORE-1 (OPEN-BS-10): 3 if side ``loser`` has no trick, 2 if its deal points
        (trick points only under ``schneider_threshold_includes_marriages = false``) are below
        ``schneider_threshold``, else 1."""
        if not self.side_tricks(loser):
            return 3
        r = self.rules
        pts = self.side_points(loser) if r.schneider_threshold_includes_marriages else self.side_trick_points(loser)
        return 2 if pts < r.schneider_threshold else 1

    def false_declaration_points(self, innocent: int) -> int:
        """BS-DECL-1 (AT-DECL-3): ``two_or_three`` 3 if the innocent side has no trick, else 2;
        ``flat2`` 2; ``max3`` 3."""
        pen = self.rules.false_declaration_penalty
        if pen == "flat2":
            return 2
        if pen == "max3":
            return 3
        return 3 if not self.side_tricks(innocent) else 2

    def _after_trick(self, winner: int, trick: tuple[tuple[int, int], ...]) -> None:
        """Decide the contract as soon as it is certain (BS-CON-14, SRV-3)."""
        if self.state["decided"]:
            return
        name = self.contract
        if name == RUFER:
            if self.rules.auto_declare and self.side_points(self.side[winner]) >= 66:
                self._declare(winner)  # OPEN-GEN-4 c: only when the table asks for it
        elif name in SCHNAPSER:  # BS-CON-4/5/6: tricks 1-3 by the declarer alone, 66 by then
            if winner != self.declarer:
                self._decide(False)
            elif self.trick_no == 3:
                self._decide(self.side_points(0) >= 66)
        elif name == "bettler":  # BS-CON-12: only the declarer's own tricks matter
            if winner == self.declarer:
                self._decide(False)
        elif name in ALL_TRICKS and winner != self.declarer:  # BS-CON-7/8/10/13, OPEN-BS-6
            self._decide(False)

    def _played_out(self) -> None:
        """All hands are empty: a held-back result, the all-tricks / Bettler success, or the end
        of the einfacher Rufer (BS-CON-3, OPEN-BS-8)."""
        dec = self.state["decided"]
        if dec:
            self._credit(dec[0], self.value, dec[1])
            return
        if self.contract != RUFER:
            self._credit(0, self.value, DealEnd.CONTRACT_MADE)
            return
        if self.rules.undeclared_66_at_end == "holder_wins":
            for side in (0, 1):
                if self.side_trick_points(side) >= 66:
                    self._credit(side, self.table_points(1 - side), DealEnd.PLAYED_OUT)
                    return
        w = self.side[self.leader]
        pts = 1 if self.rules.last_trick_win_points == "fixed1" else self.table_points(1 - w)
        self._credit(w, pts, DealEnd.LAST_TRICK)

    def _decide(self, made: bool) -> None:
        """A fixed-value contract is decided: end now (``auto_end_decided_contract``, SRV-3) or
        hold the result back until the hands are played out."""
        side = 0 if made else 1
        reason = DealEnd.CONTRACT_MADE if made else DealEnd.CONTRACT_DEFEATED
        if self.rules.options["auto_end_decided_contract"] or not any(self.hands):
            self._credit(side, self.value, reason)
        else:
            self.state["decided"] = [side, reason]

    def _credit(self, side: int, points: int, reason: DealEnd) -> None:
        """End the deal: ``points`` x multiplier to every seat of ``side`` (BS-SCORE-1,
        TS-SCORE-1). ``winner``: the team (Bauernschnapsen), else the declarer or -1."""
        value = points * self.multiplier
        seats = self.side_seats(side)
        if self.rules.spec.teams:
            winner = self._team(seats[0])
        else:
            winner = self.declarer if side == 0 else -1
        self.end(dict.fromkeys(seats, value), winner, value, reason)

    # ------------------------------------------------------------------ views
    def view(self, seat: int, deal_number: int = 0, history: Sequence[Event] | None = None,
             num_seats: int = 0) -> DealView:
        """The base information set (§14, :meth:`ContractDeal.view`, own tricks under
        ``may_view_own_tricks``), plus the size of a talon not yet taken up (TS)."""
        out = super().view(seat, deal_number, history, num_seats)
        out["talon_size"] = len(self.state["talon"])
        return out


class TalonschnapsenDeal(BauernschnapsenDeal):
    """One deal of Talonschnapsen (§10, TS-INH-1): 3 seats, no fixed teams (the declarer plays
    alone against the two others, who are pooled: TS-PLAY-1), 6 cards each dealt 3 + talon 2 + 3
    (TS-DEAL-1); the declarer takes up the talon and lays two cards away (TS-TAL-1); "all tricks"
    means all 6 and nothing is settled without play (TS-CON-2); eligibility per TS-CON-1."""

    __slots__ = ()

    SECOND_BATCH = 3
    TALON = 2
    CERTAIN_CONTRACTS = frozenset()
