"""The Hungarian contract deals (docs/RULES.md §11 ``snapszer-hu-3p-sopron``, §12 ``snapszer-hu-4p``)
on the contract skeleton of :mod:`bummerl.rules.deals.contract` (§1.8).

:class:`SopronDeal` (three players, HU3S-*): the *hívó* (left of the dealer) gets 4+3+3 cards
twice (8), names trump after his first four cards unless ``trump_always_hearts``, lays two cards
away, then the announcement round (HU3S-BID-2): the hívó says ``mehet`` or announces ``snapszer``
/ ``kilences`` / ``paraszt`` / ``negyalso``; each *fogadó* player once, clockwise, passes, says
``kontra`` by taking up the hívó's laid-away cards (and lays two of his own away, HU3S-KON-2), or
announces a strictly higher ``ellensnapszer`` / ``ellenparaszt`` / ``kilences`` (or 4 alsó, which
ends the deal). Then the multiplier calls alternate between the sides up to ``max_kontra_level``
(HU3S-KON-1), and the six tricks are played strictly from the hívó's lead (HU3S-LEAD-1).

:class:`FourPlayerDeal` (HU4-*, HU4-INH-1) is the same game for two teams (seats 0&2 vs 1&3):
3+2 cards each, trump hearts by default, no laying away, kontra a plain call (HU4-KON-1), team
versions of the goals, credit to both members of the winning team (HU4-CON-9).

Actions are those of :mod:`bummerl.rules.base.actions` (``trump H``, ``discard QH``, ``bid NAME``,
``pass``, ``kontra`` .. ``mordkontra``, ``play``, ``marriage``, ``announce``, ``declare``).
Everything the deal needs beyond the base slots lives in ``state`` (JSON-ready):

``rest``       the undealt second round until trump is named (hidden from everybody)
``stage``      ``hivo`` (announcement step 1), ``round`` (step 2) or ``multiplier`` (step 3)
``turns``      seats still to speak in step 2, in order
``standing``   the contract standing in the announcement round; ``announcer`` its seat
``taker``      the fogadó player who took up the hívó's cards (-1 none, HU3S-KON-2)
``queue``      seats still to be asked in the current multiplier call; ``last_caller``
``discarding`` / ``discard_left`` / ``after_discard``  who lays away, how many, what follows
``bonus``      13 per seat for a 4 alsó shown under ``four_jacks_ends_deal = false``
``shown``      seats that showed the four alsó

Table options: the catalogue :data:`bummerl.rules.table.options.HU_CONTRACT`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from ..base import actions as A
from ..base.cards import BIT, JACK, SUIT_MASK, cards_of, parse_card
from ..base.errors import IllegalActionError
from ..table.outcome import DealEnd
from ..table.variant import Rules
from .contract import DEFENDER_CONTRACT_FIRST_LEAD, ContractDeal

HEARTS = 2
#: The four alsó (J) as a mask (HU3S-CON-5).
FOUR_JACKS = BIT[JACK] | BIT[6 + JACK] | BIT[12 + JACK] | BIT[18 + JACK]

#: Contract values (§11.2 table); ``mehet`` ranks lowest (it is scored 1-3, HU3S-CON-4).
VALUES: dict[str, int] = {
    "mehet": 1, "snapszer": 6, "kilences": 9, "paraszt": 12, "negyalso": 13, "ellensnapszer": 12, "ellenparaszt": 24,
}
#: The hívó's announcements (HU3S-BID-1) besides 4 alsó.
HIVO_CONTRACTS: tuple[str, ...] = ("mehet", "snapszer", "kilences", "paraszt")
#: The fogadó players' announcements (HU3S-CON-6, -7, -8) besides 4 alsó.
FOGADO_CONTRACTS: tuple[str, ...] = ("kilences", "ellensnapszer", "ellenparaszt")
#: Contracts with marriages (HU3S-MAR-1).
MARRIAGE_CONTRACTS = frozenset(("mehet", "snapszer", "ellensnapszer"))
#: Contracts won only by taking every trick (HU3S-CON-2, -3, -7).
ALL_TRICKS = frozenset(("kilences", "paraszt", "ellenparaszt"))
#: Contracts won by 66 with the other side trickless (HU3S-CON-1, -6).
SNAPSZER_LIKE = frozenset(("snapszer", "ellensnapszer"))

_BID_IDS = {name: A.bid_id(name) for name in VALUES}
_BID_NAMES = {v: k for k, v in _BID_IDS.items()}


def _penalty_max3(d: HuContractDeal, side: int) -> int:
    return 3


def _penalty_flat2(d: HuContractDeal, side: int) -> int:
    return 2


def _penalty_two_or_three(d: HuContractDeal, side: int) -> int:
    return 3 if not d.side_tricks(1 - side) else 2


def _penalty_remaining(d: HuContractDeal, side: int) -> int:
    return d.table_points(side)


#: ``false_declaration_penalty`` (HU3S-DECL-1 -> HU2-DECL-2, OPEN-HU2-7): game points of the
#: innocent side when side ``side`` declared falsely; None = a false "elég" is not offered.
PENALTIES: dict[str, Callable[[HuContractDeal, int], int] | None] = {
    "reject": None,
    "flat2": _penalty_flat2,
    "two_or_three": _penalty_two_or_three,
    "max3": _penalty_max3,
    "remaining_possible": _penalty_remaining,
}


class HuContractDeal(ContractDeal):
    """A Hungarian contract deal (§11/§12). Subclasses fix the shape: ``ROUNDS`` the batch sizes
    per round by offset from the hívó (SRV-1), ``LAY_AWAY`` the cards the hívó lays away and
    ``TAKE_UP`` whether the first kontra against a hívó contract takes them up (HU3S-KON-2)."""

    ROUNDS: ClassVar[tuple[tuple[int, ...], ...]] = ()
    LAY_AWAY: ClassVar[int] = 0
    TAKE_UP: ClassVar[bool] = False

    __slots__ = ()

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, rules: Rules, deck: Sequence[int], dealer: int, seats: Sequence[int] | None = None) -> HuContractDeal:
        """Deal ``deck`` (card ids, top first, the variant's 20 cards) for ``dealer`` (HU3S-DEAL-1,
        HU4-DEAL-1): round 1, trump naming by the hívó (HU3S-DEAL-2, HU4-DEAL-2) unless
        ``trump_always_hearts``, then round 2. Raises ValueError for a wrong deck or dealer."""
        n = rules.spec.num_players
        if sorted(deck) != sorted(rules.deck):
            raise ValueError(f"the deck must hold the variant's {len(rules.deck)} cards once each")
        if not 0 <= dealer < n:
            raise ValueError(f"dealer {dealer} is not a seat 0..{n - 1}")
        d = cls.__new__(cls)
        d._init(rules, dealer)
        h = d.hivo
        i = d.deal_batches(list(deck), 0, [((h + k) % n, c) for k, c in enumerate(cls.ROUNDS[0])])
        d.state = {
            "rest": list(deck[i:]), "stage": "", "turns": [], "standing": "", "announcer": -1, "taker": -1,
            "queue": [], "last_caller": -1, "discarding": -1, "discard_left": 0, "after_discard": "",
            "bonus": [0] * n, "shown": [],
        }
        if rules.options.get("trump_always_hearts", False):
            d.history.append(("trump", -1, HEARTS))
            d._name_trump(HEARTS)
        else:
            d.phase = "trump"
            d.to_act_seat = h
        return d

    @classmethod
    def arrange(cls, rules: Rules, dealer: int, hands: Sequence[Sequence[int | str]]) -> list[int]:
        """The deck order (top first) that deals exactly ``hands`` (one list per seat, codes or
        ids; each hand in the order its cards are dealt: the hívó's first round first) — the
        inverse of :meth:`new` (SRV-1). Raises ValueError if the hands do not fit the pattern."""
        n = rules.spec.num_players
        hs = [[parse_card(c) if isinstance(c, str) else c for c in hand] for hand in hands]
        h = (dealer + 1) % n
        if len(hs) != n:
            raise ValueError(f"expected {n} hands")
        deck: list[int] = []
        pos = [0] * n
        for rnd in cls.ROUNDS:
            for k, cnt in enumerate(rnd):
                s = (h + k) % n
                deck += hs[s][pos[s] : pos[s] + cnt]
                pos[s] += cnt
        if pos != [len(x) for x in hs] or sorted(deck) != sorted(rules.deck):
            raise ValueError("the hands do not match the deal pattern and the deck")
        return deck

    # ------------------------------------------------------------------ facts
    @classmethod
    def fixed_caller(cls, dealer: int, num_seats: int) -> int:
        """The hívó of a deal dealt by ``dealer``: first to receive cards, left of the dealer
        (HU3S-SEAT-1, HU4-SEAT-2)."""
        return (dealer + 1) % num_seats

    @property
    def hivo(self) -> int:
        """The hívó: first to receive cards, left of the dealer (HU3S-SEAT-1, HU4-SEAT-2)."""
        return self.fixed_caller(self.dealer, self.n)

    def team(self, seat: int) -> int:
        """Fixed team of ``seat`` in the auction: 0 the hívó('s team), 1 the fogadó players."""
        teams = self.rules.spec.teams
        if teams:
            return 0 if teams[seat] == teams[self.hivo] else 1
        return 0 if seat == self.hivo else 1

    def holds_four_jacks(self, seat: int) -> bool:
        return self.hands[seat] & FOUR_JACKS == FOUR_JACKS

    def _opt(self, name: str, default: Any) -> Any:
        return self.rules.options.get(name, default)

    # ------------------------------------------------------------------ auction
    def _name_trump(self, suit: int) -> None:
        self.trump = suit
        rest = self.state["rest"]
        n = self.n
        h = self.hivo
        i = 0
        for rnd in self.ROUNDS[1:]:
            i = self.deal_batches(rest, i, [((h + k) % n, c) for k, c in enumerate(rnd)])
        self.state["rest"] = []
        if self.LAY_AWAY:
            self._start_discard(h, "hivo")
        else:
            self._start_hivo()

    def _start_discard(self, seat: int, then: str) -> None:
        self.phase = "discard"
        self.to_act_seat = seat
        self.state["discarding"] = seat
        self.state["discard_left"] = self.LAY_AWAY
        self.state["after_discard"] = then

    def _start_hivo(self) -> None:
        self.phase = "bidding"
        self.state["stage"] = "hivo"
        self.to_act_seat = self.hivo

    def _may_kontra_in_round(self, p: int) -> bool:
        """HU3S-KON-2 / HU4-KON-1: a fogadó player against a standing hívó contract, once."""
        st = self.state
        return (
            int(self._opt("max_kontra_level", 4)) >= 1
            and st["announcer"] == self.hivo
            and self.level == 0
            and st["taker"] < 0
            and self.team(p) == 1
        )

    def _auction_actions(self) -> list[int]:
        ph = self.phase
        p = self.to_act_seat
        st = self.state
        if ph == "trump":
            held = self._opt("trump_must_be_held", False)
            return [A.TRUMP + s for s in range(4) if not held or self.hands[p] & SUIT_MASK[s]]
        if ph == "discard":
            return [A.DISCARD + c for c in cards_of(self.hands[p])]
        if ph == "kontra":
            return [A.PASS, A.KONTRA + self.level]
        jacks = self.holds_four_jacks(p) and p not in st["shown"]
        if st["stage"] == "hivo":
            acts = [_BID_IDS[c] for c in HIVO_CONTRACTS]
        else:
            acts = [A.PASS]
            if self.team(p) == 1:
                v = VALUES[st["standing"]]
                acts += [_BID_IDS[c] for c in FOGADO_CONTRACTS if VALUES[c] > v]
                if self._may_kontra_in_round(p):
                    acts.append(A.KONTRA)
        if jacks:
            acts.append(_BID_IDS["negyalso"])
        return acts

    def _auction_step(self, p: int, a: int) -> None:
        if a not in self._auction_actions():
            raise IllegalActionError(f"{A.action_to_string(a)} is not legal now")
        ph = self.phase
        st = self.state
        if ph == "trump":
            self.history.append(("trump", p, a - A.TRUMP))
            self._name_trump(a - A.TRUMP)
        elif ph == "discard":
            c = a - A.DISCARD
            self.hands[p] ^= BIT[c]
            self.laid_away[p] |= BIT[c]
            st["discard_left"] -= 1
            if st["discard_left"] == 0:
                self.history.append(("discard", p, self.LAY_AWAY))
                st["discarding"] = -1
                if st["after_discard"] == "hivo":
                    self._start_hivo()
                else:
                    self.phase = "bidding"
                    self._next_turn()
        elif ph == "kontra":
            if a == A.PASS:
                self.bids.append((p, "pass"))
                self.history.append(("pass", p))
                st["queue"].pop(0)
                if st["queue"]:
                    self.to_act_seat = st["queue"][0]
                else:
                    self._begin_play()
            else:
                self._raise(p)
        elif a == _BID_IDS["negyalso"]:
            self._four_jacks(p)
        elif a == A.PASS:
            self.bids.append((p, "pass"))
            self.history.append(("pass", p))
            self._next_turn()
        elif a == A.KONTRA:
            self.level = 1
            self.bids.append((p, "kontra"))
            self.history.append(("bid", p, "kontra"))
            st["last_caller"] = p
            if self.TAKE_UP:
                h = self.hivo
                taken = self.laid_away[h]
                self.hands[p] |= taken
                self.laid_away[h] = 0
                st["taker"] = p
                st["taken_up"] = [h, taken]  # the hívó still knows these cards (laid_away_taken_up)
                self.history.append(("take", p, bin(taken).count("1")))
                self._start_discard(p, "round")
            else:
                st["taker"] = p
                self._next_turn()
        else:
            name = _BID_NAMES[a]
            self.bids.append((p, name))
            self.history.append(("bid", p, name))
            if st["stage"] != "hivo" and self.level:
                self.level = 0  # HU3S-BID-2: the kontra on a replaced contract lapses
            st["standing"] = name
            st["announcer"] = p
            if st["stage"] == "hivo":
                st["stage"] = "round"
                st["turns"] = [(self.hivo + k) % self.n for k in range(1, self.n)]
                self.to_act_seat = st["turns"][0]
            else:
                self._next_turn()

    def _next_turn(self) -> None:
        st = self.state
        st["turns"].pop(0)
        if st["turns"]:
            self.to_act_seat = st["turns"][0]
        else:
            self._finish_announcements()

    def _four_jacks(self, p: int) -> None:
        """HU3S-CON-5 / HU4-CON-5 (OPEN-HU3S-6): the four alsó are shown; 13 to the holder (his
        team in 4p), the deal ends without play and without kontra — or, under
        ``four_jacks_ends_deal = false``, the 13 are kept for the end of the deal and the
        player acts again."""
        self.bids.append((p, "negyalso"))
        self.history.append(("bid", p, "negyalso"))
        self.history.append(("show", p, tuple(cards_of(FOUR_JACKS))))
        credited = self._credited(p)
        if self._opt("four_jacks_ends_deal", True):
            self.contract = "negyalso"
            self.declarer = p
            self.value = VALUES["negyalso"]
            self.level = 0
            self._set_sides()
            winner = self.rules.spec.teams[p] if self.rules.spec.teams else p
            self.end(dict.fromkeys(credited, 13), winner, 13, DealEnd.FOUR_JACKS)
            return
        self.state["shown"].append(p)
        for s in credited:
            self.state["bonus"][s] += 13

    def _credited(self, p: int) -> list[int]:
        """Seats credited for ``p``'s 4 alsó: himself (3p), his team (4p, HU4-CON-5)."""
        teams = self.rules.spec.teams
        return [s for s in range(self.n) if teams[s] == teams[p]] if teams else [p]

    def _set_sides(self) -> None:
        dt = self.team(self.declarer)
        self.side = [0 if self.team(s) == dt else 1 for s in range(self.n)]

    def _finish_announcements(self) -> None:
        """End of step 2 (HU3S-BID-2): the standing contract is in force; the multiplier calls
        (HU3S-KON-1) or the play follow."""
        st = self.state
        self.contract = st["standing"]
        self.declarer = st["announcer"]
        self.value = VALUES[self.contract]
        self._set_sides()
        maxk = int(self._opt("max_kontra_level", 4))
        if self.level >= maxk or (self.level == 0 and self.side[self.hivo] == 0):
            # a hívó contract is first doubled only in the announcement round (HU3S-KON-2)
            self._begin_play()
            return
        if self.level == 0:
            self._ask(1, self.declarer)  # against a fogadó contract the hívó's side speaks first
        else:
            self._ask(0, st["last_caller"])

    def _ask(self, side: int, after: int) -> None:
        """Offer the next multiplier call to ``side``'s players clockwise from ``after``'s left."""
        self.phase = "kontra"
        self.state["stage"] = "multiplier"
        q = [(after + k) % self.n for k in range(1, self.n + 1)]
        self.state["queue"] = [s for s in q if self.side[s] == side]
        self.to_act_seat = self.state["queue"][0]

    def _raise(self, p: int) -> None:
        self.level += 1
        call = A.KONTRA_CALLS[self.level - 1]
        self.bids.append((p, call))
        self.history.append(("bid", p, call))
        self.state["last_caller"] = p
        if self.level >= int(self._opt("max_kontra_level", 4)):
            self._begin_play()
        else:
            self._ask(1 - self.side[p], p)

    def _begin_play(self) -> None:
        """HU3S-LEAD-1 / HU4-LEAD-1 (OPEN-HU3S-4): the hívó leads, or the announcer of a fogadó
        contract under ``defender_contract_first_lead = announcer``; kilences has no trump."""
        self.state["queue"] = []
        self.state["stage"] = ""
        if self.contract == "kilences":
            self.trump = -1
        partners = tuple(s for s in range(self.n) if self.side[s] == 0 and s != self.declarer)
        self.history.append(("contract", self.contract, self.declarer, partners, self.trump, self.level, self.value))
        leader = self.hivo
        if self.side[self.hivo] == 1 and DEFENDER_CONTRACT_FIRST_LEAD[str(self._opt("defender_contract_first_lead", "hivo"))]:
            leader = self.declarer
        self.start_play(leader)

    # ------------------------------------------------------------------ play hooks
    def _may_marry(self, p: int) -> bool:
        """HU3S-MAR-1 / HU4-MAR-1: in the base game, snapszer and ellensnapszer."""
        return self.contract in MARRIAGE_CONTRACTS

    def _may_declare(self, p: int, extra: int) -> bool:
        """HU3S-DECL-1: "elég" in the base game at a lead turn of a side that has won a trick; a
        false one is offered unless ``false_declaration_penalty = reject``."""
        if self.contract != "mehet" or (self.pending and not self._opt("declare_on_marriage", True)):
            return False
        side = self.side[p]
        if not self.side_tricks(side):
            return False
        if PENALTIES[str(self._opt("false_declaration_penalty", "max3"))] is not None:
            return True
        return self.side_points(side) + extra >= 66

    def table_points(self, lose: int) -> int:
        """HU3S-CON-4 / HU4-CON-1 (HU2-SCORE-1): 3 if side ``lose`` took no trick, 2 if its trick
        points (laid-away cards included, marriages only under
        ``schneider_threshold_includes_marriages``) stay under ``schneider_threshold``, else 1."""
        if not self.side_tricks(lose):
            return 3
        pts = self.side_trick_points(lose)
        if self._opt("schneider_threshold_includes_marriages", False):
            pts = self.side_points(lose)
        return 2 if pts < int(self._opt("schneider_threshold", 33)) else 1

    def _declare(self, p: int) -> None:
        side = self.side[p]
        pts = self.side_points(side)
        ok = pts >= 66
        penalty = PENALTIES[str(self._opt("false_declaration_penalty", "max3"))]
        if not ok and penalty is None:
            raise IllegalActionError("a false declaration is not allowed at this table")
        self.history.append(("declare", p, ok, pts))
        if ok:
            self._credit(side, self.table_points(1 - side), DealEnd.DECLARED)
        else:
            assert penalty is not None
            self._credit(1 - side, penalty(self, side), DealEnd.FALSE_DECLARATION)

    def _credit(self, side: int, points: int, reason: DealEnd) -> None:
        """HU3S-CON-9 / HU4-CON-9: every seat of ``side`` is credited ``points`` x multiplier (the
        hívó alone when his side wins in sopron; each fogadó player the full value)."""
        v = points * self.multiplier
        seats = self.side_seats(side)
        awards = [v if s in seats else 0 for s in range(self.n)]
        for s, b in enumerate(self.state["bonus"]):
            awards[s] += b
        teams = self.rules.spec.teams
        if teams:
            winner = teams[seats[0]]
        else:
            winner = seats[0] if len(seats) == 1 else -1
        self.end(awards, winner, v, reason)

    def _after_marriage(self, p: int, suit: int) -> None:
        """SRV-3: a marriage that lifts the snapszer side to 66 decides the contract."""
        if self.contract in SNAPSZER_LIKE and self.side[p] == 0 and self.side_tricks(0) and self.side_points(0) >= 66:
            self._credit(0, self.value, DealEnd.CONTRACT_MADE)

    def _after_trick(self, winner: int, trick: tuple[tuple[int, int], ...]) -> None:
        """SRV-3: end as soon as the contract is decided (HU3S-CON-1..7, HU4-CON-2..7)."""
        c = self.contract
        if c in SNAPSZER_LIKE:
            if self.side[winner] == 1:
                self._credit(1, self.value, DealEnd.CONTRACT_DEFEATED)
            elif self.side_points(0) >= 66:
                self._credit(0, self.value, DealEnd.CONTRACT_MADE)
        elif c in ALL_TRICKS and winner != self.declarer:
            partner_ok = (
                c == "kilences" and self.side[winner] == 0 and bool(self.rules.spec.teams)
                and self._opt("kilences_partner_tricks_allowed", True)
            )
            if not partner_ok:
                self._credit(1, self.value, DealEnd.CONTRACT_DEFEATED)

    def _played_out(self) -> None:
        """All tricks played: the base game goes to the last trick's side (HU3S-DECL-1,
        HU4-END-1; OPEN-HU3S-10 options); an all-tricks contract still running is made."""
        c = self.contract
        if c == "mehet":
            win = self.side[self.leader]
            if self._opt("undeclared_66_at_end", "last_trick_wins") == "holder_wins":
                holders = [s for s in (0, 1) if self.side_points(s) >= 66]
                if len(holders) == 1:
                    win = holders[0]
            pts = 1 if self._opt("last_trick_win_points", "by_table") == "fixed1" else self.table_points(1 - win)
            self._credit(win, pts, DealEnd.LAST_TRICK)
        elif c in ALL_TRICKS:
            self._credit(0, self.value, DealEnd.CONTRACT_MADE)
        else:
            self._credit(1, self.value, DealEnd.CONTRACT_DEFEATED)


class SopronDeal(HuContractDeal):
    """``snapszer-hu-3p-sopron`` (§11): hívó 4+3+3 twice (8 cards), lays away 2, kontra by
    taking them up (HU3S-DEAL-1, HU3S-TAL-1, HU3S-KON-2)."""

    ROUNDS = ((4, 3, 3), (4, 3, 3))
    LAY_AWAY = 2
    TAKE_UP = True
    __slots__ = ()


class FourPlayerDeal(HuContractDeal):
    """``snapszer-hu-4p`` (§12, HU4-INH-1): 3 then 2 cards each (HU4-DEAL-1), no laying away,
    kontra a plain call (HU4-KON-1), teams 0&2 vs 1&3 (HU4-SEAT-1)."""

    ROUNDS = ((3, 3, 3, 3), (2, 2, 2, 2))
    LAY_AWAY = 0
    TAKE_UP = False
    __slots__ = ()
