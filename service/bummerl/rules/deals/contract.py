"""The contract skeleton of the three- and four-player games (docs/RULES.md §1.8): hands without a
talon to draw from, an auction, an optional lay-away, kontra calls, then strict trick play for
every trick (DEF-PLAY-STRICT / DEF-PLAY-NT, :mod:`bummerl.rules.base.tricks`) with marriages and
declarations at lead turns, until the contract is decided.

:class:`ContractDeal` is the shared base: hands, the trick play, sides, laid-away cards, the
multiplier, the information set and the snapshot. A variant's deal class (``bauernschnapsen``,
``talonschnapsen``, ``snapszer-hu-3p-sopron``, ``snapszer-hu-4p``) subclasses it and supplies
the deal, the auction and its outcome through the hooks named ``_``-something below.

Seats here are match seats (all of them play). ``side[seat]`` is 0 for the declarer's side and 1
for the others once the contract is known (before that, each seat's fixed team, or its own seat).

History tuples (public; :func:`bummerl.rules.base.events.event_view` makes them ``Event`` dicts)::

    ("deal", dealer, -1)                 the deal starts (no turned card)
    ("trump", seat, suit)                trump named (BS-DEAL-2, TS-DEAL-1, HU3S-DEAL-2)
    ("bid", seat, call)                  a contract called, or a kontra call ("kontra", ...)
    ("pass", seat)                       pass in the auction, or no kontra
    ("discard", seat, count)             cards laid away face down (TS-TAL-1, HU3S-TAL-1)
    ("take", seat, count)                laid-away cards taken up (HU3S-KON-2)
    ("show", seat, (card, ...))          cards shown to everybody (BS-CON-9, HU3S-CON-5)
    ("contract", name, declarer, partners, trump, level, value)   the contract in force
    ("marriage", seat, suit, points)     20 / 40 announced (DEF-PTS-2)
    ("play", seat, card)
    ("trick", winner, ((seat, card), ...))
    ("declare", seat, correct, points)   66 declared for the side (BS-DECL-1, HU3S-DECL-1)
    ("timeout", seat, reason)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from ..base import actions as A
from ..base import cards as K
from ..base import views as V
from ..base.cards import BIT, SUIT_MASK, SUITS, card_code, cards_of
from ..base.errors import IllegalActionError
from ..base.events import event_view
from ..base.tricks import NORMAL, legal_follow, trick_winner, winning_card
from ..table.outcome import DealEnd, DealOutcome, DealSummary
from ..table.variant import Rules
from .slots import slots_from_dict, slots_to_dict

#: ``void_must_trump`` (OPEN-GEN-3): must a player void in the suit led trump when his trump
#: cannot win the trick?
VOID_MUST_TRUMP_TABLE: dict[str, bool] = {"always": True, "only_if_winning": False}
#: ``talon_discards_count_for`` (OPEN-TS-2, OPEN-HU3S-1): the side (0 = declarer's, 1 = the
#: others) for which the cards laid away by ``seat`` count, -1 for nobody.
TALON_DISCARDS_COUNT_FOR: dict[str, Callable[[ContractDeal, int], int]] = {
    "owner": lambda d, seat: d.side[seat],
    "declarer": lambda d, seat: 0,
    "defenders": lambda d, seat: 1,
    "nobody": lambda d, seat: -1,
}
#: ``defender_contract_first_lead`` (OPEN-HU3S-4): does the announcer of a fogadó contract lead
#: the first trick (else the hívó)?
DEFENDER_CONTRACT_FIRST_LEAD: dict[str, bool] = {"hivo": False, "announcer": True}
#: The option tables of the contract games (as :data:`bummerl.rules.table.behaviour.TABLES`); every
#: allowed value has a row (tests/rules/test_option_tables.py).
TABLES: dict[str, Mapping[str, Any]] = {
    "void_must_trump": VOID_MUST_TRUMP_TABLE,
    "talon_discards_count_for": TALON_DISCARDS_COUNT_FOR,
    "defender_contract_first_lead": DEFENDER_CONTRACT_FIRST_LEAD,
}

_KQ = tuple(BIT[s * 6 + K.KING] | BIT[s * 6 + K.QUEEN] for s in range(4))
_LIST_SLOTS = ("hands", "tricks_won", "trick_points", "marriage_points", "laid_away", "side", "won")


class ContractDeal:
    """One contract deal (§1.8). Subclasses implement :meth:`new` and the hooks; the base keeps
    the trick play. ``phase`` is one of :data:`PHASES`; ``order`` the rank order of the contract
    (:data:`~bummerl.rules.base.tricks.NORMAL` or ``TEN_HIGH``); ``trump`` -1 in a no-trump contract
    or before trump is named; ``level`` the kontra level (multiplier ``2 ** level``)."""

    PHASES: ClassVar[tuple[str, ...]] = ("trump", "bidding", "discard", "kontra", "lead", "follow", "over")
    #: phase -> :attr:`phase_name`, the information set's ``phase`` (:data:`bummerl.rules.base.views.PHASES`).
    PHASE_VIEW: ClassVar[dict[str, str]] = {
        "trump": "bidding", "bidding": "bidding", "discard": "bidding", "kontra": "bidding",
        "lead": "lead", "follow": "follow", "over": "over",
    }

    __slots__ = (
        "rules", "dealer", "seats", "n", "hands", "trump", "order", "phase", "to_act_seat", "leader", "trick",
        "trick_no", "tricks_won", "trick_points", "marriage_points", "won", "announced", "pending", "laid_away",
        "side", "contract", "declarer", "level", "value", "bids", "history", "outcome", "state",
    )

    rules: Rules
    dealer: int
    seats: tuple[int, ...]
    n: int
    hands: list[int]
    trump: int
    order: tuple[int, ...]
    phase: str
    to_act_seat: int
    leader: int
    trick: list[tuple[int, int]]
    trick_no: int
    tricks_won: list[int]
    trick_points: list[int]
    marriage_points: list[int]
    won: list[int]
    announced: int
    pending: int
    laid_away: list[int]
    side: list[int]
    contract: str
    declarer: int
    level: int
    value: int
    bids: list[tuple[int, str]]
    history: list[tuple[Any, ...]]
    outcome: DealOutcome | None
    state: dict[str, Any]
    """Variant-specific JSON-ready facts (auction progress, talon cards...): copied with the deal."""

    def _init(self, rules: Rules, dealer: int) -> None:
        """Set every slot to its start value (for :meth:`new` of a subclass)."""
        n = rules.spec.num_players
        self.rules = rules
        self.dealer = dealer
        self.n = n
        self.seats = tuple(range(n))
        self.hands = [0] * n
        self.trump = -1
        self.order = NORMAL
        self.phase = "bidding"
        self.to_act_seat = (dealer + 1) % n
        self.leader = (dealer + 1) % n
        self.trick = []
        self.trick_no = 0
        self.tricks_won = [0] * n
        self.trick_points = [0] * n
        self.marriage_points = [0] * n
        self.won = [0] * n
        self.announced = 0
        self.pending = 0
        self.laid_away = [0] * n
        self.side = list(rules.spec.teams or range(n))
        self.contract = ""
        self.declarer = -1
        self.level = 0
        self.value = 0
        self.bids = []
        self.history = [("deal", dealer, -1)]
        self.outcome = None
        self.state = {}

    def deal_batches(self, deck: list[int] | tuple[int, ...], start: int, batches: list[tuple[int, int]]) -> int:
        """Deal ``deck`` from index ``start``: each ``(seat, count)`` batch in order (SRV-1).
        Returns the index of the next undealt card."""
        i = start
        for seat, count in batches:
            for c in deck[i : i + count]:
                self.hands[seat] |= BIT[c]
            i += count
        return i

    def search_copy(self) -> ContractDeal:
        """A copy for a search of the trick play, cheaper than :meth:`copy`: the lists the trick play
        changes are copied, the rest is shared (the play only replaces entries of ``state``, so a
        shallow copy of it suffices), and the history is left empty (a search never reads it; the
        copy's events and views are not those of the deal)."""
        c = self.__class__.__new__(self.__class__)
        c.rules = self.rules  # one assignment per slot: the search's hot path (a loop costs 30% more)
        c.dealer = self.dealer
        c.seats = self.seats
        c.n = self.n
        c.hands = self.hands[:]
        c.trump = self.trump
        c.order = self.order
        c.phase = self.phase
        c.to_act_seat = self.to_act_seat
        c.leader = self.leader
        c.trick = self.trick[:]
        c.trick_no = self.trick_no
        c.tricks_won = self.tricks_won[:]
        c.trick_points = self.trick_points[:]
        c.marriage_points = self.marriage_points[:]
        c.won = self.won[:]
        c.announced = self.announced
        c.pending = self.pending
        c.laid_away = self.laid_away
        c.side = self.side
        c.contract = self.contract
        c.declarer = self.declarer
        c.level = self.level
        c.value = self.value
        c.bids = self.bids
        c.history = []
        c.outcome = self.outcome
        c.state = dict(self.state)
        return c

    def copy(self) -> ContractDeal:
        d = self.__class__.__new__(self.__class__)
        for name in ContractDeal.__slots__:
            setattr(d, name, getattr(self, name))
        for name in _LIST_SLOTS:
            setattr(d, name, getattr(self, name)[:])
        d.trick = self.trick[:]
        d.bids = self.bids[:]
        d.history = self.history[:]
        d.state = {k: (v[:] if isinstance(v, list) else v) for k, v in self.state.items()}
        return d

    # ------------------------------------------------------------------ protocol
    @property
    def to_act(self) -> int:
        return -1 if self.phase == "over" else self.to_act_seat

    @property
    def acting(self) -> int:
        """Match seat to act (all seats play a contract deal); -1 once over."""
        return -1 if self.phase == "over" else self.to_act_seat

    @property
    def dealer_seat(self) -> int:
        return self.dealer

    def winner_seat(self) -> int:
        """The outcome's winner (team or seat, see :class:`~bummerl.rules.table.outcome.DealOutcome`)."""
        return self.outcome.winner if self.outcome is not None else -1

    @property
    def over(self) -> bool:
        return self.phase == "over"

    @property
    def phase_name(self) -> str:
        return self.PHASE_VIEW[self.phase]

    def legal_actions(self) -> list[int]:
        """Legal action ids of the seat to act, ascending (:mod:`bummerl.rules.base.actions`)."""
        ph = self.phase
        if ph == "follow":
            return self._follow_actions()
        if ph == "lead":
            return sorted(self._lead_actions())
        if ph == "over":
            return []
        return sorted(self._auction_actions())

    def step(self, a: int) -> None:
        """Apply a legal action in place; raises IllegalActionError for an impossible one."""
        ph = self.phase
        p = self.to_act_seat
        if ph == "follow":
            self._play(p, a)
        elif ph == "lead":
            if a < A.MARRIAGE:
                self._play(p, a)
            elif a < A.ANNOUNCE:
                c = A.marriage_card(a)
                self._announce(p, c // 6)
                if self.phase != "over":  # a marriage may decide the contract (SRV-3)
                    self._play(p, c)
            elif a < A.EXCHANGE:
                self._announce(p, a - A.ANNOUNCE)
            elif a == A.DECLARE:
                self._declare(p)
            else:
                raise IllegalActionError(f"{A.action_to_string(a)} is not possible at a lead turn")
        elif ph == "over":
            raise IllegalActionError("the deal is over")
        else:
            self._auction_step(p, a)

    # ------------------------------------------------------------------ trick play
    def start_play(self, leader: int) -> None:
        """End of the auction: ``leader`` leads the first trick (BS-CON-2, HU3S-LEAD-1)."""
        self.phase = "lead"
        self.leader = leader
        self.to_act_seat = leader

    def partner_winning(self, seat: int) -> bool:
        """Is the current winning card of the trick held by ``seat``'s own side (OPEN-GEN-3)?"""
        if not self.trick:
            return False
        w, _ = winning_card(self.trick, self.trump, self.order)
        return w != seat and self.side[w] == self.side[seat]

    def _follow_actions(self) -> list[int]:
        p = self.to_act_seat
        r = self.rules
        return legal_follow(
            self.hands[p], self.trick, self.trump, self.order,
            must_undertrump=VOID_MUST_TRUMP_TABLE[str(r.options.get("void_must_trump", "always"))],
            partner_winning=self.partner_winning(p),
            must_head_over_partner=bool(r.options.get("must_head_over_partner", True)),
        )

    def _lead_actions(self) -> list[int]:
        """Any card (DEF-PLAY-LEAD); after ``announce`` only the K/Q of that suit; marriages where
        :meth:`_may_marry` allows (both cards held, one per lead, OPEN-GEN-5); ``declare`` where
        :meth:`_may_declare` allows; ``announce`` only where it enables declaring at once."""
        p = self.to_act_seat
        h = self.hands[p]
        if self.pending:
            kq = 0
            for s in range(4):
                if self.pending >> s & 1:
                    kq |= _KQ[s]
            acts = cards_of(h & kq)
        else:
            acts = cards_of(h)
            if self._may_marry(p):
                for s in range(4):
                    if h & _KQ[s] == _KQ[s] and not self.announced >> s & 1:
                        acts += [A.MARRIAGE + s * 2, A.MARRIAGE + s * 2 + 1]
                        if self._may_declare(p, self.marriage_value(s)):
                            acts.append(A.ANNOUNCE + s)
        if self._may_declare(p, 0):
            acts.append(A.DECLARE)
        return acts

    def marriage_value(self, s: int) -> int:
        """40 in the trump suit, else 20 (DEF-PTS-2)."""
        return 40 if s == self.trump else 20

    def _announce(self, p: int, s: int) -> None:
        pts = self.marriage_value(s)
        self.marriage_points[p] += pts
        self.announced |= 1 << s
        self.pending = 1 << s
        self.history.append(("marriage", p, s, pts))
        self._after_marriage(p, s)

    def _play(self, p: int, c: int) -> None:
        if not self.hands[p] & BIT[c]:
            raise IllegalActionError(f"{card_code(c)} is not in seat {p}'s hand")
        self.hands[p] ^= BIT[c]
        self.pending = 0
        self.trick.append((p, c))
        self.history.append(("play", p, c))
        if len(self.trick) < self.n:
            self.phase = "follow"
            self.to_act_seat = (p + 1) % self.n
            return
        trick = tuple(self.trick)
        w = trick_winner(trick, self.trump, self.order)
        pts = self.rules.points
        self.trick_points[w] += sum(pts[c] for _, c in trick)
        self.tricks_won[w] += 1
        for _, c in trick:
            self.won[w] |= BIT[c]
        self.trick = []
        self.trick_no += 1
        self.history.append(("trick", w, trick))
        self.leader = w
        self.to_act_seat = w
        self.phase = "lead"
        self._after_trick(w, trick)
        if self.phase != "over" and not any(self.hands):
            self._played_out()

    # ------------------------------------------------------------------ sides and points
    def side_seats(self, side: int) -> list[int]:
        return [s for s in range(self.n) if self.side[s] == side]

    def side_tricks(self, side: int) -> int:
        return sum(self.tricks_won[s] for s in range(self.n) if self.side[s] == side)

    def laid_away_points(self, side: int) -> int:
        """Card points of laid-away cards that count for ``side`` (DEF-PTS-1; whom they count for
        is the variant's :meth:`_laid_away_side`)."""
        pts = self.rules.points
        total = 0
        for s in range(self.n):
            if self.laid_away[s] and self._laid_away_side(s) == side:
                total += sum(pts[c] for c in cards_of(self.laid_away[s]))
        return total

    def side_trick_points(self, side: int) -> int:
        """Trick points of a side (DEF-PTS-1): its won cards plus laid-away cards counting for it."""
        return sum(self.trick_points[s] for s in range(self.n) if self.side[s] == side) + self.laid_away_points(side)

    def side_points(self, side: int) -> int:
        """Deal points of a side (DEF-PTS-3): trick points + marriages, counted once the side has
        won a trick (DEF-PTS-2)."""
        marr = sum(self.marriage_points[s] for s in range(self.n) if self.side[s] == side)
        return self.side_trick_points(side) + (marr if self.side_tricks(side) else 0)

    @property
    def multiplier(self) -> int:
        return 1 << self.level

    def end(self, awards: dict[int, int] | list[int], winner: int, game_points: int, reason: DealEnd | str) -> None:
        """The deal is over: ``awards`` game points per seat (a dict of the credited seats or a
        full list), ``winner`` team/seat (-1 none), ``game_points`` the value won."""
        full = [0] * self.n
        if isinstance(awards, dict):
            for s, v in awards.items():
                full[s] = v
        else:
            full = list(awards)
        why = reason if reason.__class__ is DealEnd else DealEnd(reason)  # a reason read back from JSON state
        self.outcome = DealOutcome(winner, game_points, why, 0, tuple(full))
        self.phase = "over"
        self.to_act_seat = -1

    # ------------------------------------------------------------------ hooks
    def _auction_actions(self) -> list[int]:
        """Legal actions before the first lead (trump naming, bids, lay-away, kontra)."""
        raise NotImplementedError

    def _auction_step(self, p: int, a: int) -> None:
        raise NotImplementedError

    def _may_marry(self, p: int) -> bool:
        """May ``p`` announce a marriage at this lead turn (BS-MAR-1, HU3S-MAR-1)?"""
        return False

    def _may_declare(self, p: int, extra: int) -> bool:
        """May ``p`` declare now, ``extra`` marriage points about to be announced (OPEN-GEN-4 b)?"""
        return False

    def _declare(self, p: int) -> None:
        raise IllegalActionError("declaring is not part of this contract")

    def _after_marriage(self, p: int, suit: int) -> None:
        """Called after ``p`` announced the marriage of ``suit`` (before the card is led); may end
        the deal when the marriage decides the contract (SRV-3, e.g. HU3S-CON-1)."""

    def _after_trick(self, winner: int, trick: tuple[tuple[int, int], ...]) -> None:
        """Called after each trick; ends the deal if the contract is decided (SRV-3)."""

    def _played_out(self) -> None:
        """All hands are empty and the deal is not yet decided."""
        raise NotImplementedError

    def _laid_away_side(self, seat: int) -> int:
        """Side for which ``seat``'s laid-away cards count, by the ``talon_discards_count_for``
        table (OPEN-TS-2, OPEN-HU3S-1); -1 for nobody."""
        return TALON_DISCARDS_COUNT_FOR[str(self.rules.options.get("talon_discards_count_for", "owner"))](self, seat)

    def forfeit(self, seat: int) -> None:
        """``seat`` loses the deal on time (SRV-5): its side's opponents are credited the
        standing value, at least 3 (as a schwarz loss), times the multiplier."""
        self.history.append(("timeout", seat, "TIMEOUT"))
        value = max(self.value, 3) * self.multiplier
        others = [s for s in range(self.n) if self.side[s] != self.side[seat]]
        self.end(dict.fromkeys(others, value), self.side[others[0]] if others else -1, value, DealEnd.TIMEOUT)

    # ------------------------------------------------------------------ results and views
    def summary(self, n: int = 0) -> DealSummary:
        """Per-seat deal points (the seat's side total), tricks won; ``schwarz`` / ``deal_schneider``
        of the losing side (no trick / under 33 trick points) when one side won; the contract."""
        pts = tuple(self.side_points(self.side[s]) for s in range(self.n))
        schwarz = schneider = False
        o = self.outcome
        if o is not None and o.winner >= 0 and self.contract and self.declarer >= 0:
            win_side = 0 if any(o.awards[s] for s in self.side_seats(0)) else 1
            lose = 1 - win_side
            schwarz = self.side_tricks(lose) == 0
            schneider = self.side_trick_points(lose) < 33
        return DealSummary(pts, tuple(self.tricks_won), schwarz, schneider, self.contract, self.declarer, self.multiplier)

    def view(self, seat: int, deal_number: int = 0, history: Sequence[V.Event] | None = None,
             num_seats: int = 0) -> V.DealView:
        """The ``deal`` part of ``seat``'s information set (§14.1-§14.3; :class:`~bummerl.rules.base.views.DealView`)
        in deal ``deal_number`` of the match: own hand and own laid-away cards only; every other
        hand, the talon and others' laid-away cards hidden; the seat's own laid-away cards that
        another seat took up by kontra stay known to it (``laid_away_taken_up``, HU3S-KON-2). Under ``may_view_own_tricks``
        (OPEN-GEN-6; default off) also ``own_tricks``: the seat's won cards, their trick points,
        and those plus its own marriages once its side has won a trick (DEF-PTS-2). ``history``:
        the views of this deal's history when the caller shares them across seats and states
        (:func:`bummerl.rules.match.infoset.history_views`); None = built here. ``num_seats``: the
        table's seats (:class:`~bummerl.rules.table.protocols.Deal`; every seat plays a contract
        deal, so it is :attr:`n`)."""
        sizes = [self.rules.spec.hand_size] * self.n  # the deal tuple has none (DealStarted.hand_sizes)
        owner, taken = self.state.get("taken_up") or (-1, 0)  # HU3S-KON-2: the hívó's cards taken up
        out: V.DealView = {
            "phase": V.PHASES[self.phase_name],
            "to_act": self.to_act,
            "leader": self.leader,
            "trump_suit": SUITS[self.trump] if self.trump >= 0 else "",
            "trump_card": "",
            "talon_size": 0,
            "talon_state": "TALON_STATE_UNSPECIFIED",
            "closed_by": -1,
            "trick_number": self.trick_no,
            "hand": [card_code(c) for c in cards_of(self.hands[seat])],
            "hand_sizes": [bin(h).count("1") for h in self.hands],
            "tricks_won": list(self.tricks_won),
            "current_trick": [{"seat": s, "card": card_code(c)} for s, c in self.trick],
            "history": list(history) if history is not None else [event_view(e, deal_number, 0, sizes)
                                                                    for e in self.history],
            "marriages": [
                {"seat": e[1], "suit": SUITS[e[2]], "points": e[3], "counted": self.side_tricks(self.side[e[1]]) > 0}
                for e in self.history if e[0] == "marriage"
            ],
            "seats": list(self.seats),
            "laid_away": [card_code(c) for c in cards_of(self.laid_away[seat])],
            "laid_away_taken_up": [card_code(c) for c in cards_of(taken)] if owner == seat else [],
            "auction": {
                "bids": [{"seat": s, "call": c} for s, c in self.bids],
                "contract": {
                    "name": self.contract, "declarer": self.declarer,
                    "partners": [s for s in range(self.n) if self.contract and self.side[s] == 0 and s != self.declarer],
                    "trump_suit": SUITS[self.trump] if self.trump >= 0 else "",
                    "kontra_level": self.level, "base_points": self.value,
                },
            },
        }
        if self.rules.may_view_own_tricks:
            points = self.trick_points[seat]
            marriages = self.marriage_points[seat] if self.side_tricks(self.side[seat]) else 0
            out["own_tricks"] = {"trick_points": points, "won_cards": [card_code(c) for c in cards_of(self.won[seat])],
                                 "deal_points": points + marriages}
        return out

    def to_snapshot(self) -> dict[str, Any]:
        """Every slot but ``rules`` as JSON-ready data (hidden cards included)."""
        return slots_to_dict(self, ContractDeal.__slots__)

    @classmethod
    def from_snapshot(cls, rules: Rules, data: dict[str, Any]) -> ContractDeal:
        """Inverse of :meth:`to_snapshot`; raises KeyError/TypeError on foreign data."""
        d: ContractDeal = slots_from_dict(cls, rules, ContractDeal.__slots__, data)
        d.order = tuple(data["order"])
        d.trick = [(s, c) for s, c in data["trick"]]
        d.bids = [(s, c) for s, c in data["bids"]]
        o = data["outcome"]
        d.outcome = DealOutcome(o[0], o[1], DealEnd(o[2]), o[3], tuple(o[4])) if o is not None else None
        return d

    @classmethod
    def fixed_caller(cls, dealer: int, num_seats: int) -> int:
        """The seat that holds the announcing role of a deal dealt by ``dealer`` whatever its
        cards (the Hungarian hívó, HU3S-SEAT-1, HU4-SEAT-2), or -1 where the auction decides who
        plays the contract (the Austrian games, BS-BID-1, TS-BID-1). A search reads the role from
        here, never from a variant id."""
        return -1

    def hand_of(self, seat: int) -> list[int]:
        return cards_of(self.hands[seat])

    def suit_cards(self, seat: int, suit: int) -> int:
        return self.hands[seat] & SUIT_MASK[suit]

