"""Worlds of a contract deal (bauernschnapsen §9, talonschnapsen §10, snapszer-hu-3p-sopron §11,
snapszer-hu-4p §12; the contract skeleton of docs/RULES.md §1.8) consistent with one seat's
information set (RULES.md §14): the engine's answer to "which deals could this be?", as
OpenSpiel's ``resample_from_infostate``.

:class:`ContractSampler` reads the public history (trump naming, bids, passes, kontras, cards
laid away and taken up, marriages shown, cards played) and samples *deals*: the hidden cards of
the other seats (hands, laid-away cards, the talon, the cards not yet dealt) dealt at random
(another seat's laid-away cards likelier cheap side cards: :meth:`ContractSampler._lay_weight`)
among the layouts that fit the hand sizes, the marriages shown, the cards shown, the seat's own
laid-away cards, and the voids and "could not head" facts that strict play (DEF-PLAY-STRICT /
DEF-PLAY-NT, OPEN-GEN-3) revealed. Each sample is turned into a deck (the variant's ``arrange``)
and the whole public history is replayed on the engine's deal class; a sample that any past
action would have made illegal (a trump named without holding it, an ineligible bid) is
rejected. So every sample is a full engine deal in which every public action happened, at the
present decision (tests/rules/test_worlds.py, every contract variant). Public through :mod:`bummerl.rules.worlds`;
a facade-level module of the engine's stack.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from .base import actions as A
from .base import cards as K
from .base.errors import IllegalActionError
from .base.tricks import TEN_HIGH, legal_follow, winning_card
from .deals.contract import VOID_MUST_TRUMP_TABLE, ContractDeal
from .table.variant import Rules, configure_cached
from .worlds_talon import InconsistentInfo

#: Attempts to sample a deal that replays the public history before giving up.
MAX_TRIES = 60
#: Deals sampled per deal kept when the lay-away model weighs them (:meth:`ContractSampler.sample`).
LAY_WORLDS = 4

T = TypeVar("T")


def _bits(m: int) -> int:
    return bin(m).count("1")


def _card(code: Any) -> int:
    return K.parse_card(str(code))


def pick_by_weight(rng: random.Random, items: Sequence[T], weights: Sequence[float]) -> T:
    """One of ``items`` drawn with chances proportional to ``weights`` (sampling-importance-
    resampling of sampled deals); the last item if every weight is 0. One ``rng.random()`` call."""
    x = rng.random() * sum(weights)
    for item, w in zip(items, weights, strict=True):
        x -= w
        if x < 0:
            return item
    return items[-1]


class NoSample(InconsistentInfo):
    """No deal consistent with the information set was found (the bot falls back to rules)."""




class ContractSampler:
    """What one seat knows about the current contract deal, rebuilt from its information set,
    and deals sampled consistently with it (see the module docstring).

    Raises :class:`NoSample` (a ValueError) when the information set cannot be read."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        deal = raw.get("deal") or {}
        self.variant = str(raw.get("variant", ""))
        opts = {str(k): str(v) for k, v in (raw.get("options") or {}).items()}
        self.rules: Rules = configure_cached(self.variant, opts)
        r = self.rules
        self.cls = r.spec.deal_class
        if self.cls is None or not issubclass(self.cls, ContractDeal):
            raise NoSample(f"{self.variant} has no contract deals")
        self.n = n = r.spec.num_players
        self.me = me = int(raw.get("seat", 0))
        self.hand = K.mask_of([_card(c) for c in deal.get("hand", [])])
        self.laid = K.mask_of([_card(c) for c in deal.get("laid_away", [])])
        taken_mine = K.mask_of([_card(c) for c in deal.get("laid_away_taken_up", [])])
        self.hand_sizes = [int(x) for x in deal.get("hand_sizes") or [0] * n]
        self.talon_size = int(deal.get("talon_size", 0) or 0)
        self.dealer = int((raw.get("match") or {}).get("dealer", 0))
        # the script: the public actions in order, as (seat, action id or a marker)
        script: list[tuple[str, int, int]] = []
        played = [0] * n
        laid_count = [0] * n
        known = [0] * n  # cards of a seat's collection that everybody knows (marriages, shown)
        taker = -1
        take_from = -1
        talon_taker = -1
        trump_namer, named = -1, -1
        forbidden = [0] * n  # cards a seat cannot hold in its hand now (revealed by strict play)
        trick: list[tuple[int, int]] = []
        trump = -1
        order: tuple[int, ...] = (6, 5, 4, 3, 2, 1)
        side = list(r.spec.teams or range(n))
        marriage: tuple[int, int] | None = None
        history = list(deal.get("history") or [])
        opt = r.options
        undertrump = VOID_MUST_TRUMP_TABLE[str(opt.get("void_must_trump", "always"))]
        head_partner = bool(opt.get("must_head_over_partner", True))
        for ev in history:
            if "deal_started" in ev:
                self.dealer = int(ev["deal_started"].get("dealer", self.dealer))
            elif "trump_named" in ev:
                e = ev["trump_named"]
                s = int(e.get("seat", -1))
                named = K.parse_suit(str(e.get("suit")))
                trump = named
                if s >= 0:
                    trump_namer = s
                    script.append(("act", s, A.TRUMP + named))
            elif "bid" in ev:
                e = ev["bid"]
                s, call = int(e.get("seat", 0)), str(e.get("call"))
                a = A.KONTRA + A.KONTRA_CALLS.index(call) if call in A.KONTRA_CALLS else A.bid_id(call)
                script.append(("act", s, a))
            elif "passed" in ev:
                script.append(("act", int(ev["passed"].get("seat", 0)), A.PASS))
            elif "cards_laid_away" in ev:
                e = ev["cards_laid_away"]
                s, c = int(e.get("seat", 0)), int(e.get("count", 0))
                laid_count[s] += c
                script.append(("discard", s, c))
            elif "cards_taken_up" in ev:
                e = ev["cards_taken_up"]
                s = int(e.get("seat", 0))
                if self.talon_size == 0 and any(k == "discard" for k, _, _ in script):
                    # the hívó's laid-away cards taken up by a kontra (HU3S-KON-2)
                    taker = s
                    take_from = next(x for k, x, _ in script if k == "discard")
                    laid_count[take_from] -= int(e.get("count", 0))
                else:
                    talon_taker = s  # the talon taken up by the declarer (TS-TAL-1)
            elif "contract" in ev:
                e = ev["contract"]
                decl = int(e.get("declarer", 0))
                partners = [int(x) for x in e.get("partners") or []]
                side = [0 if s == decl or s in partners else 1 for s in range(n)]
                ts = str(e.get("trump_suit") or "")
                trump = K.parse_suit(ts) if ts else -1
                if str(e.get("name")) == "zehnerloch":
                    order = TEN_HIGH
            elif "cards_shown" in ev:
                e = ev["cards_shown"]
                s = int(e.get("seat", 0))
                known[s] |= K.mask_of([_card(c) for c in e.get("cards") or []])
            elif "marriage_announced" in ev:
                e = ev["marriage_announced"]
                s, su = int(e.get("seat", 0)), K.parse_suit(str(e.get("suit")))
                known[s] |= K.BIT[su * 6 + K.KING] | K.BIT[su * 6 + K.QUEEN]
                marriage = (s, su)
                script.append(("announce", s, su))
            elif "card_played" in ev:
                e = ev["card_played"]
                s, c = int(e.get("seat", 0)), _card(e.get("card"))
                if trick and s != me:
                    forbidden[s] |= self._revealed(trick, c, s, trump, order, side, undertrump, head_partner)
                played[s] |= K.BIT[c]
                trick.append((s, c))
                if marriage is not None and marriage[0] == s and c // 6 == marriage[1]:
                    script[-1] = ("act", s, A.marriage_id(c))
                else:
                    script.append(("act", s, c))
                marriage = None
            elif "trick_completed" in ev:
                trick = []
            elif "declared" in ev:
                script.append(("act", int(ev["declared"].get("seat", 0)), A.DECLARE))
        # an announce not followed by its card is "announce" (to declare at once, OPEN-GEN-4 b)
        self.script = [("act", s, A.ANNOUNCE + x) if k == "announce" else (k, s, x) for k, s, x in script]
        self.played = played
        #: the seat with the deal's fixed announcing role (the hívó), -1 where the auction decides
        self.caller = self.cls.fixed_caller(self.dealer, n)
        self.trump_namer, self.named = trump_namer, named
        self.taker, self.take_from, self.talon_taker = taker, take_from, talon_taker
        self.taken_mine = taken_mine
        all_played = 0
        for m in played:
            all_played |= m
        deck = K.mask_of(list(r.deck))
        mine = self.hand | self.laid | played[me]
        # cards whose place is known: mine, played, shown/married and still held, taken-up cards of mine
        held_known = [known[s] & ~all_played & ~mine if s != me else 0 for s in range(n)]
        self.held_known = held_known
        #: my laid-away cards that a kontra took up (HU3S-KON-2): with the taker, in hand or laid away
        self.only_taker = taken_mine & ~all_played if taker >= 0 and taker != me else 0
        self.unseen = deck & ~mine & ~all_played
        for m in held_known:
            self.unseen &= ~m
        self.forbidden = [f & self.unseen for f in forbidden]
        self.laid_count = laid_count
        # slots of the other seats: hand now, laid away now; the talon; cards not yet dealt
        self.slots: list[tuple[int, str, int]] = []
        for s in range(n):
            if s == me:
                continue
            self.slots.append((s, "hand", self.hand_sizes[s] - _bits(held_known[s])))
            if laid_count[s] > 0:
                self.slots.append((s, "laid", laid_count[s]))
        if self.talon_size:
            self.slots.append((-1, "talon", self.talon_size))
        dealt = _bits(mine) + sum(_bits(m) for s, m in enumerate(played) if s != me) + sum(
            _bits(m) for m in held_known) + sum(c for _, _, c in self.slots)
        rest = len(r.deck) - dealt
        if rest < 0 or any(c < 0 for _, _, c in self.slots):
            raise NoSample("the hand sizes do not add up")
        if rest:
            self.slots.append((-1, "rest", rest))
        if sum(c for _, _, c in self.slots) != _bits(self.unseen):
            raise NoSample("the unseen cards do not fill the hidden places")
        self.known = known
        #: the hívó's laid-away cards this seat took up by its kontra (HU3S-KON-2), when known
        #: (:meth:`know_taken`; the information set does not say which of its cards they are)
        self.took = 0
        #: sharpness of the lay-away model that weighs the hívó's hand once his laid-away cards
        #: are known (:meth:`lay_likelihood`); 0 = off
        self.lay_beta = 0.0
        self._lik = 1.0

    def know_taken(self, cards: int, beta: float) -> None:
        """This seat took up ``cards`` (a card mask: the hívó's two laid-away cards, HU3S-KON-2):
        the samples give the hívó those cards as his laid-away ones, and with ``beta`` > 0 each
        sample is picked among :data:`LAY_WORLDS` by :meth:`lay_likelihood` (the hívó lays away
        what he least needs, HU3S-TAL-1). Ignored unless this seat is the taker and ``cards`` are
        two of its cards."""
        mine = self.hand | self.laid | self.played[self.me]
        if self.taker == self.me and self.take_from >= 0 and _bits(cards) == 2 and cards & ~mine == 0:
            self.took = cards
            self.lay_beta = beta

    def lay_likelihood(self, hand8: int, laid: int) -> float:
        """Chance that a player holding the 8 cards ``hand8`` lays away the two cards ``laid`` when
        he lays them away one by one, each card with a chance proportional to
        :meth:`_lay_weight` ** ``lay_beta`` (cheap side cards first: HU3S-TAL-1)."""
        cards = K.cards_of(hand8)
        w = {c: self._lay_weight(c) ** self.lay_beta for c in cards}
        total = sum(w.values())
        a, b = K.cards_of(laid)
        return float(w[a] * w[b] / total * (1.0 / (total - w[a]) + 1.0 / (total - w[b])))

    @staticmethod
    def _revealed(trick: list[tuple[int, int]], c: int, s: int, trump: int, order: tuple[int, ...], side: list[int],
                  undertrump: bool, head_partner: bool) -> int:
        """Cards seat ``s`` cannot have held when it played ``c`` to ``trick``: each card ``x``
        that, held with ``c`` alone, would have made ``c`` illegal (the follow rules of §1.4 are
        ordered obligations, so this is exact for one card at a time)."""
        w, _ = winning_card(trick, trump, order)
        partner = w != s and side[w] == side[s]
        out = 0
        for x in range(24):
            if x == c:
                continue
            if c not in legal_follow(K.BIT[c] | K.BIT[x], trick, trump, order, must_undertrump=undertrump,
                                     partner_winning=partner, must_head_over_partner=head_partner):
                out |= K.BIT[x]
        return out

    def sample(self, rng: random.Random) -> ContractDeal:
        """One deal consistent with the information set, replayed to the present (an engine deal
        that a search may step). Raises :class:`NoSample` after :data:`MAX_TRIES` failures.
        With the lay-away model on (:meth:`know_taken`), the pick of :data:`LAY_WORLDS` such deals
        with chances proportional to :meth:`lay_likelihood` (sampling-importance-resampling)."""
        if self.lay_beta <= 0 or not self.took:
            return self._one(rng)
        cands: list[ContractDeal] = []
        liks: list[float] = []
        for _ in range(LAY_WORLDS):
            cands.append(self._one(rng))
            liks.append(self._lik)
        return pick_by_weight(rng, cands, liks)

    def _one(self, rng: random.Random) -> ContractDeal:
        for _ in range(MAX_TRIES):
            d = self._try(rng)
            if d is not None:
                return d
        raise NoSample("no consistent deal found")

    def _try(self, rng: random.Random) -> ContractDeal | None:
        n, me = self.n, self.me
        place = self._place(rng)
        if place is None:
            return None
        lik = 1.0
        hand = [0] * n
        laid = [0] * n
        talon = 0
        rest = 0
        for (s, kind, _), m in zip(self.slots, place, strict=True):
            if kind == "hand":
                hand[s] |= m
            elif kind == "laid":
                laid[s] |= m
            elif kind == "talon":
                talon |= m
            else:
                rest |= m
        hand[me] = self.hand
        laid[me] = self.laid
        for s in range(n):
            hand[s] |= self.held_known[s]
        collection = [hand[s] | laid[s] | self.played[s] for s in range(n)]
        discards: dict[int, list[int]] = {s: K.cards_of(laid[s]) for s in range(n)}
        r = self.rules
        cls: Any = self.cls
        if self.taker >= 0:  # HU3S-KON-2: the hívó's laid-away cards went to the taker
            h, t = self.take_from, self.taker
            if h == me:
                x = self.taken_mine
            elif t == me and self.took:
                x = self.took
            else:
                pool = K.cards_of(collection[t] & ~laid[t])
                if len(pool) < 2:
                    return None
                x = K.mask_of(rng.sample(pool, 2))
            collection[t] &= ~x
            collection[h] |= x
            discards[h] = K.cards_of(x)
            if self.lay_beta > 0 and t == me and self.took:
                lik = self.lay_likelihood(collection[h], x)
        tal: list[int] = []
        if self.talon_taker >= 0:  # TS-TAL-1: the declarer took the talon up
            pool = K.cards_of(collection[self.talon_taker])
            tal = rng.sample(pool, cls.TALON)
            collection[self.talon_taker] &= ~K.mask_of(tal)
        elif talon:
            tal = K.cards_of(talon)
            rng.shuffle(tal)
        # cards not dealt yet complete the hands (the second round is dealt after trump naming):
        # then every card held now is of the first batch
        spare = K.cards_of(rest)
        rng.shuffle(spare)
        first = self._first_batch()
        hands: list[list[int]] = []
        for s in range(n):
            cs = K.cards_of(collection[s])
            need = self._initial_size(s) - len(cs)
            if need < 0 or need > len(spare):
                return None
            extra, spare = spare[:need], spare[need:]
            rng.shuffle(cs)
            dealt = cs + extra
            if s == self.trump_namer and self.named >= 0 and s != me:
                dealt = self._namer_first(dealt, first, rng)
            hands.append(dealt)
        if spare:
            tal = tal + spare
        try:
            deck = cls.arrange(r, self.dealer, hands, tal) if getattr(cls, "TALON", 0) else cls.arrange(r, self.dealer, hands)
            d: ContractDeal = cls.new(r, deck, self.dealer)
            for kind, s, x in self.script:
                if d.phase == "over":
                    return None
                if kind == "discard":
                    cards = discards.get(s, [])
                    if len(cards) < x:
                        return None
                    for c in cards[:x]:
                        d.step(A.DISCARD + c)
                    discards[s] = cards[x:]
                else:
                    if d.to_act != s:
                        return None
                    d.step(x)
            # my cards laid away so far in a lay-away not yet finished (no event until it is)
            for c in K.cards_of(self.laid & ~d.laid_away[me]):
                if d.phase != "discard" or d.to_act != me:
                    return None
                d.step(A.DISCARD + c)
        except (IllegalActionError, ValueError, KeyError, IndexError):
            return None
        if d.to_act != me or d.hands[me] != self.hand:
            return None
        self._lik = lik
        return d

    def _initial_size(self, s: int) -> int:
        """Cards dealt to seat ``s`` (the deal pattern: HU3S-DEAL-1, HU4-DEAL-1, BS-DEAL-1, TS-DEAL-1)."""
        cls: Any = self.cls
        if hasattr(cls, "ROUNDS") and cls.ROUNDS:
            k = (s - (self.dealer + 1)) % self.n
            return sum(int(rnd[k]) for rnd in cls.ROUNDS)
        return 3 + int(cls.SECOND_BATCH)

    def _first_batch(self) -> int:
        """Cards in the trump namer's first batch (the cards he names trump from)."""
        if hasattr(self.cls, "ROUNDS"):
            return int(self.cls.ROUNDS[0][0])
        return 3

    def _namer_first(self, h: list[int], first: int, rng: random.Random) -> list[int]:
        """Put a card of the named suit into the namer's first batch where the table demands
        that the namer holds trump (``trump_must_be_held``, OPEN-BS-3)."""
        if not self.rules.options.get("trump_must_be_held", False):
            return h
        if any(c // 6 == self.named for c in h[:first]):
            return h
        idx = [i for i, c in enumerate(h) if c // 6 == self.named]
        if not idx:
            return h
        i = rng.choice(idx)
        j = rng.randrange(first)
        h = h[:]
        h[i], h[j] = h[j], h[i]
        return h

    def _lay_weight(self, c: int) -> float:
        """Relative likelihood that another seat laid card ``c`` away: 1 / (1 + card points), a
        fifth of that for a card of the named trump suit."""
        return (0.2 if c // 6 == self.named else 1.0) / (1 + self.rules.points[c])

    def _place(self, rng: random.Random) -> list[int] | None:
        """Deal the unseen cards into the slots: first the laid-away slots of other seats, card
        by card with :meth:`_lay_weight`; then each card to a slot that may hold it (a hand slot
        not of a seat known to be void of it), most constrained cards first. None if stuck."""
        caps = [c for _, _, c in self.slots]
        masks = [0] * len(self.slots)
        cards = K.cards_of(self.unseen)
        allowed: list[list[int]] = []
        for c in cards:
            ok = [i for i, (s, kind, cap) in enumerate(self.slots)
                  if cap > 0 and not (kind == "hand" and self.forbidden[s] >> c & 1)
                  and not (self.only_taker >> c & 1 and s != self.taker)]
            allowed.append(ok)
        left = caps[:]
        placed = 0
        # laid-away cards of another seat: drawn first, cheap side cards likelier (a player lays
        # away what he least needs: the inference the lay-away allows, TS-TAL-1, HU3S-TAL-1)
        for i, (_, kind, cap) in enumerate(self.slots):
            if kind != "laid":
                continue
            for _ in range(cap):
                pool = [k for k in range(len(cards)) if not placed >> k & 1 and i in allowed[k]]
                if not pool:
                    return None
                k = rng.choices(pool, [self._lay_weight(cards[k]) for k in pool])[0]
                placed |= 1 << k
                masks[i] |= K.BIT[cards[k]]
                left[i] -= 1
        order = sorted((k for k in range(len(cards)) if not placed >> k & 1), key=lambda k: (len(allowed[k]), rng.random()))
        for k in order:
            ok = [i for i in allowed[k] if left[i] > 0]
            if not ok:
                return None
            w = [left[i] for i in ok]
            i = rng.choices(ok, w)[0]
            masks[i] |= K.BIT[cards[k]]
            left[i] -= 1
        return masks


# ------------------------------------------------------------------------------------ policy
