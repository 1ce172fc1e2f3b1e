"""Search for the contract deals of ``strong`` (bauernschnapsen §9, talonschnapsen §10,
snapszer-hu-3p-sopron §11, snapszer-hu-4p §12; the contract skeleton of docs/RULES.md §1.8).

It sees only what a remote bot sees (the information set, RULES.md §14) and decides by
Perfect-Information Monte Carlo, as bridge programs value bids with double-dummy samples:

1. :class:`ContractSampler` reads the public history (trump naming, bids, passes, kontras, cards
   laid away and taken up, marriages shown, cards played) and samples *deals*: the hidden cards
   of the other seats (hands, laid-away cards, the talon, the cards not yet dealt) dealt at
   random (another seat's laid-away cards likelier cheap side cards: :meth:`ContractSampler._lay_weight`)
   among the layouts that fit the hand sizes, the marriages shown, the cards shown, the
   seat's own laid-away cards, and the voids and "could not head" facts that strict play
   (DEF-PLAY-STRICT / DEF-PLAY-NT, OPEN-GEN-3) revealed. Each sample is turned into a deck
   (the variant's ``arrange``) and the whole public history is replayed on the engine's deal
   class; a sample that any past action would have made illegal (a trump named without holding
   it, an ineligible bid) is rejected. So every sample is a full engine deal in which every
   public action happened, at the present decision.
2. Each legal action is applied to every sample and valued by the deal's outcome for the seat's
   side (game points credited to the side minus those credited to the best other seat, kontra
   multiplier included; when the game's number of deals is given, ``horizon``, the chance of each
   placement after it instead: :func:`make_placement_utility`): once few tricks are left (``exact_tricks``) by an exact alpha-beta on
   open cards in which every seat plays for its side (a partner plays for the team, the two
   defenders of a solo contract for each other), before that by a playout with a fast
   rule-based policy (:func:`policy`) down to that size, then the same exact search. Auction
   decisions (trump naming, bids, kontra, lay-away) are valued the same way: the rest of the
   auction by the policy, then the play.
3. The action with the best mean wins; clearly worse actions are dropped early (successive
   elimination on the same samples, as the two-player search does).

Budget: ``budget_ms`` wall milliseconds per decision (at least ``min_samples`` samples), or
``samples`` per decision without a time limit (repeatable from the seed).
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Mapping
from typing import Any

from bummerl.rules import IllegalActionError, Rules, configure_cached
from bummerl.rules import actions as A
from bummerl.rules import cards as K
from bummerl.rules.search import TEN_HIGH, VOID_MUST_TRUMP_TABLE, ContractDeal, legal_follow, winning_card

from ..bot import InfoSet
from .elimination import normal_cdf, pick_by_weight, sampling_done, survivors

#: Tricks left (at a lead) from which on a position is valued by the exact search.
EXACT_TRICKS = 3
#: Attempts to sample a deal that replays the public history before giving up.
MAX_TRIES = 60
#: Deals sampled per deal kept when the lay-away model weighs them (:meth:`ContractSampler.sample`).
LAY_WORLDS = 4


class NoSample(ValueError):
    """No deal consistent with the information set was found (the bot falls back to rules)."""


def _bits(m: int) -> int:
    return bin(m).count("1")


def _card(code: Any) -> int:
    return K.parse_card(str(code))


# ------------------------------------------------------------------------------------ sampling
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
def _pts(d: ContractDeal, c: int) -> int:
    return int(d.rules.points[c])


def policy(d: ContractDeal) -> int:
    """A fast rule-based action for the seat to act, from its own hand and the public state
    only: the auction as ``greedy`` plays it, then cheap leads, taking valuable tricks cheaply,
    giving points to a partner who wins, declaring with 66; the declarer of a Bettler ducks."""
    acts = d.legal_actions()
    if len(acts) == 1:
        return acts[0]
    ph = d.phase
    p = d.to_act_seat
    h = d.hands[p]
    if ph not in ("lead", "follow"):
        return _auction_policy(d, acts, p, h)
    trump = d.trump
    order = d.order
    my_side = d.side[p]
    avoid = d.contract == "bettler" and p == d.declarer
    if ph == "lead":
        if A.DECLARE in acts and d.side_points(my_side) >= 66:
            return A.DECLARE
        ann = [a for a in acts if A.ANNOUNCE <= a < A.EXCHANGE]
        if ann:
            return ann[0]
        marr = [a for a in acts if A.MARRIAGE <= a < A.ANNOUNCE]
        if marr and not avoid:
            return max(marr, key=lambda a: (A.marriage_card(a) // 6 == trump, A.marriage_card(a) % 6 == K.QUEEN))
        plays = [a for a in acts if a < A.MARRIAGE] or acts
        if avoid:
            return min(plays, key=lambda c: order[c % 6])
        aces = [c for c in plays if c // 6 != trump and order[c % 6] == max(order)]
        if aces:
            return max(aces, key=lambda c: _pts(d, c))
        return min(plays, key=lambda c: (c // 6 == trump, _pts(d, c), order[c % 6]))
    ws, wc = winning_card(d.trick, trump, order)
    last = len(d.trick) == d.n - 1
    trick_pts = sum(_pts(d, c) for _, c in d.trick)

    def wins(c: int) -> bool:
        return winning_card([*d.trick, (p, c)], trump, order)[0] == p

    winners = [c for c in acts if wins(c)]
    losers = [c for c in acts if not wins(c)]
    if avoid:
        if losers:
            return max(losers, key=lambda c: (order[c % 6], _pts(d, c)))
        return min(acts, key=lambda c: order[c % 6])
    if d.contract == "bettler" and d.side[ws] != my_side:
        # let the Bettler player's card win: play under it where possible
        return max(losers, key=lambda c: _pts(d, c)) if losers else min(acts, key=lambda c: order[c % 6])
    if d.side[ws] == my_side and ws != p:
        if last or not winners:
            pool = losers or acts
            return max(pool, key=lambda c: (c // 6 != trump, _pts(d, c))) if last else min(
                pool, key=lambda c: (c // 6 == trump, _pts(d, c)))
    if winners and (trick_pts >= 10 or last or d.contract not in ("", "einfacher_rufer", "mehet")):
        return min(winners, key=lambda c: (c // 6 == trump, _pts(d, c), order[c % 6]))
    pool = losers or acts
    return min(pool, key=lambda c: (c // 6 == trump, _pts(d, c), order[c % 6]))


def _auction_policy(d: ContractDeal, acts: list[int], p: int, h: int) -> int:
    """Trump naming, bids, kontra and lay-away as ``greedy`` plays them (its module docstring)."""
    pts = d.rules.points
    ph = d.phase
    if ph == "trump":
        def strength(a: int) -> tuple[int, int]:
            m = h & K.SUIT_MASK[a - A.TRUMP]
            return _bits(m), sum(pts[c] for c in K.cards_of(m))
        return max(acts, key=strength)
    if ph == "discard":
        tr = d.trump
        return min(acts, key=lambda a: ((a - A.DISCARD) // 6 == tr, pts[a - A.DISCARD]))
    if ph == "kontra":
        return A.PASS
    tr = d.trump
    trumps = K.cards_of(h & K.SUIT_MASK[tr]) if tr >= 0 else []
    aces = [c for c in K.cards_of(h) if c % 6 == K.ACE and c // 6 != tr]
    strong = len(trumps) >= 3 and any(c % 6 in (K.ACE, K.TEN) for c in trumps) and aces
    for name in ("schnapser", "snapszer"):
        if strong and name in A.CONTRACTS and A.bid_id(name) in acts:
            return A.bid_id(name)
    if A.bid_id("mehet") in acts:
        return A.bid_id("mehet")
    if A.PASS in acts:
        return A.PASS
    return acts[0]


# ------------------------------------------------------------------------------------ values
def outcome_value(d: ContractDeal, me: int) -> float:
    """Value of the finished deal ``d`` for seat ``me``: game points credited to ``me`` minus the
    most credited to a seat of the other side (kontra multiplier and bonuses included)."""
    o = d.outcome
    assert o is not None
    mine = o.awards[me]
    others = [o.awards[s] for s in range(d.n) if d.side[s] != d.side[me]]
    return float(mine - (max(others) if others else 0))


#: Spread (standard deviation, game points) of one future deal's credit margin between two seats
#: that it sets against each other (a kontra'd base game is worth 2-6, a snapszer 6-12).
SPREAD = 4.0
#: Scale of :func:`make_placement_utility`: a placement gained against every other seat is worth
#: this many game points of the margin utility (so that ``min_gap`` and the margin tie-break keep
#: their meaning).
PLACE_SCALE = 6.0
#: Weight of the mean game-point margin in :func:`make_placement_utility` (breaks ties between
#: outcomes of the same placements towards more points).
MARGIN_TIE = 0.05


def make_placement_utility(raw: Mapping[str, Any], horizon: int, spread: float = SPREAD,
                           ) -> Callable[[tuple[int, ...]], float] | None:
    """Utility of a contract deal's outcome for the seat of ``raw`` (its information set) when the
    game ends after ``horizon`` deals (SRV-5 deal limit: a ladder's or the bench's games) and scores
    the seat's **placement** by game-point totals (``ladder.stats.placement_scores``: against each
    other team, ahead 1, level 1/2, behind 0), as the two-player ``match`` objective values the
    match score.

    Returns ``f(awards)``, ``awards`` the deal's credits per match seat (game points,
    :attr:`DealOutcome.awards`), or None when ``horizon`` is 0 or the deal is past it. ``f`` is
    :data:`PLACE_SCALE` x the mean over the other teams ``j`` (a seat of each) of ``2 p_j - 1``, plus
    :data:`MARGIN_TIE` x the mean margin ``t_me - t_j`` (game points), where ``t`` are the totals after
    the deal and ``p_j`` the chance of finishing ahead of ``j`` (level counts half): exact when no
    deal is left; else ``Phi(margin / (spread * sqrt(m)))``, ``m`` the deals left that set ``me``
    and ``j`` against each other: in ``snapszer-hu-3p-sopron`` the deals whose hívó is one of the
    two (the hívó passes clockwise, HU3S-SEAT-1; in a deal of the third seat both are fogadó and
    are credited alike, HU3S-CON-9); in other three-seat games 2/3 of the deals left; in team games
    every deal."""
    if horizon <= 0:
        return None
    m = raw.get("match") or {}
    n = int(raw.get("num_seats", 0) or 0)
    me = int(raw.get("seat", 0))
    if n < 3:
        return None
    k = int(m.get("deal_number", 0) or 0)
    left = horizon - k - 1
    if left < 0:
        return None
    results = [x for x in (m.get("deals") or []) if not x.get("playoff")]
    if results:
        totals = [sum(int((x.get("game_points") or [0] * n)[s]) for x in results) for s in range(n)]
    else:
        totals = [int(x) for x in (m.get("game_points") or [0] * n)]
    team = [int(t) for t in (raw.get("team_of_seat") or range(n))]
    others: list[int] = []
    for s in range(n):
        if team[s] != team[me] and all(team[s] != team[o] for o in others):
            others.append(s)
    if not others:
        return None
    dealer = int(m.get("dealer", 0) or 0)
    sopron = str(raw.get("variant", "")) == "snapszer-hu-3p-sopron"
    sd: dict[int, float] = {}
    for j in others:
        if sopron:
            hivos = [(dealer + t + 1) % n for t in range(1, left + 1)]
            deals = float(sum(1 for h in hivos if h in (me, j)))
        elif len(set(team)) == n:
            deals = left * 2.0 / 3.0
        else:
            deals = float(left)
        sd[j] = spread * math.sqrt(deals)
    cache: dict[tuple[int, ...], float] = {}

    def placement(awards: tuple[int, ...]) -> float:
        v = cache.get(awards)
        if v is None:
            mine = totals[me] + awards[me]
            v = 0.0
            margin = 0.0
            for j in others:
                x = mine - totals[j] - awards[j]
                margin += x
                if sd[j] <= 0:
                    p = 1.0 if x > 0 else 0.5 if x == 0 else 0.0
                else:
                    p = normal_cdf(x / sd[j])
                v += 2.0 * p - 1.0
            v = cache[awards] = (PLACE_SCALE * v + MARGIN_TIE * margin) / len(others)
        return v

    return placement


def _cards_left(d: ContractDeal) -> int:
    return sum(_bits(h) for h in d.hands)


def play_copy(d: ContractDeal) -> ContractDeal:
    """A copy of ``d`` for the search of its trick play (:meth:`ContractDeal.search_copy`)."""
    return d.search_copy()


class Solver:
    """Exact alpha-beta on open cards for the play of a contract deal: seats of ``me``'s side
    maximise the value of the outcome (``utility`` of its awards, e.g. :func:`make_placement_utility`;
    None = :func:`outcome_value`), the others minimise it (a partner plays for the team).
    ``nodes`` counts the positions searched."""

    def __init__(self, me: int, utility: Callable[[tuple[int, ...]], float] | None = None) -> None:
        self.me = me
        self.utility = utility
        self.nodes = 0
        self.cache: dict[tuple[Any, ...], float] = {}

    def value(self, d: ContractDeal) -> float:
        """Value of the finished deal ``d``: ``utility(awards)`` when given, else :func:`outcome_value`."""
        if self.utility is None:
            return outcome_value(d, self.me)
        assert d.outcome is not None
        return self.utility(tuple(d.outcome.awards))

    def solve(self, d: ContractDeal, alpha: float = -math.inf, beta: float = math.inf) -> float:
        if d.phase == "over":
            return self.value(d)
        key = None
        if not d.trick:
            key = (tuple(d.hands), d.to_act_seat, tuple(d.trick_points), tuple(d.tricks_won), tuple(d.marriage_points),
                   d.announced, d.pending)
            v = self.cache.get(key)
            if v is not None:
                return v
        self.nodes += 1
        acts = d.legal_actions()
        if len(acts) > 2 and not d.trick:  # at a lead, the policy's card first (strict play
            first = policy(d)                 # leaves little to order when following)
            acts.sort(key=lambda a: a != first)
        maxing = d.side[d.to_act_seat] == d.side[self.me]
        best = -math.inf if maxing else math.inf
        a0, b0 = alpha, beta
        for a in acts:
            c = play_copy(d)
            ContractDeal.step(c, a)
            v = self.solve(c, alpha, beta)
            if maxing:
                if v > best:
                    best = v
                alpha = max(alpha, v)
            else:
                if v < best:
                    best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        if key is not None and a0 < best < b0:
            self.cache[key] = best
        return best


def evaluate(d: ContractDeal, me: int, solver: Solver, exact_tricks: int) -> float:
    """Value of ``d`` for ``me``: the policy plays until at most ``exact_tricks`` tricks are left
    (at a lead), then the exact search (:class:`Solver`)."""
    while d.phase != "over":
        if d.phase == "lead" and _cards_left(d) <= exact_tricks * d.n:
            return solver.solve(play_copy(d))
        ContractDeal.step(d, policy(d))
    return solver.value(d)


# ------------------------------------------------------------------------------------ the search
class ContractSearch:
    """One decision of ``strong`` in a contract deal (see the module docstring). ``budget_ms``
    wall milliseconds (0 = none), ``samples`` per decision (0 = by the budget), at least
    ``min_samples``; ``exact_tricks``: see :func:`evaluate`; ``horizon`` > 0: the game ends after
    that many deals and outcomes are valued by :func:`make_placement_utility` (``spread``), else by
    :func:`outcome_value` (None: the information set's ``match.max_deals``, SRV-5); ``lay_model`` > 0: the lay-away model of :meth:`ContractSampler.know_taken`
    with that sharpness, ``memory`` the bot's store across decisions for it; ``hivo_exact`` > 0 (the
    Hungarian contract games): the hívó's own decisions use that ``exact_tricks`` and
    ``hivo_samples`` samples (0 = ``samples``)."""

    def __init__(self, seed: int, budget_ms: float, samples: int, min_samples: int,
                 exact_tricks: int = EXACT_TRICKS, horizon: int | None = 0, spread: float = SPREAD,
                 lay_model: float = 0.0, memory: dict[str, Any] | None = None,
                 hivo_exact: int = 0, hivo_samples: int = 0) -> None:
        self.seed = seed
        self.hivo_exact = hivo_exact
        self.hivo_samples = hivo_samples
        self.lay_model = lay_model
        self.memory = memory if memory is not None else {}
        self.horizon = horizon
        self.spread = spread
        self.budget_ms = budget_ms
        self.samples = samples
        self.min_samples = min_samples
        self.exact_tricks = exact_tricks
        self.last_stats: dict[str, Any] = {}

    def _remember_taken(self, sampler: ContractSampler, info: InfoSet) -> None:
        """HU3S-KON-2: the taker of the hívó's laid-away cards knows them, but its information set
        does not say which of its cards they are: remember its hand at its last decision before
        the take-up (``memory``, kept by the bot across decisions) and tell the sampler the
        difference (:meth:`ContractSampler.know_taken`)."""
        deal_no = info.match.get("deal_number", 0)
        mine = sampler.hand | sampler.laid | sampler.played[sampler.me]
        if sampler.taker < 0:
            self.memory["before_take"] = (deal_no, mine)
        elif sampler.taker == sampler.me:
            before = self.memory.get("before_take")
            if before is not None and before[0] == deal_no and before[1] & ~mine == 0:
                sampler.know_taken(mine & ~before[1], self.lay_model)

    def _rng(self, info: InfoSet) -> random.Random:
        d = info.deal
        key = f"{self.seed}/{info.match.get('deal_number', 0)}/{len(d.get('history', []))}/{d.get('hand')}/{d.get('phase')}"
        return random.Random(zlib.crc32(key.encode()) ^ (self.seed & 0xFFFFFFFF) << 32)

    def choose(self, info: InfoSet, t0: float) -> int:
        """The chosen action id. Falls back to ``greedy``'s choice when no consistent deal can be
        sampled (not expected: the tests replay every sample)."""
        legal = [int(a["id"]) for a in info.legal_actions]
        if len(legal) == 1:
            return legal[0]
        rng = self._rng(info)
        try:
            sampler = ContractSampler(info.raw)
        except (NoSample, ValueError, KeyError):
            return greedy_choice(info)
        me = sampler.me
        if self.lay_model > 0:
            self._remember_taken(sampler, info)
        horizon = self.horizon if self.horizon is not None else int((info.raw.get("match") or {}).get("max_deals") or 0)
        utility = make_placement_utility(info.raw, horizon, self.spread)
        exact, samples = self.exact_tricks, self.samples
        if self.hivo_exact and sampler.variant.startswith("snapszer-hu") and me == (sampler.dealer + 1) % sampler.n:
            # the hívó's decisions (HU3S-SEAT-1, HU4-SEAT-2): a deeper exact search on fewer samples
            exact, samples = self.hivo_exact, self.hivo_samples or self.samples
        budget = self.budget_ms / 1000.0
        clock = info.move_time_ms()
        if clock is not None:
            budget = min(budget, clock / 20000.0) if budget > 0 else clock / 20000.0
        deadline = t0 + budget if budget > 0 else math.inf
        k = len(legal)
        vals: list[list[float]] = [[] for _ in legal]
        alive = list(range(k))
        n = 0
        nodes = 0
        while True:
            try:
                root = sampler.sample(rng)
            except NoSample:
                break
            if sorted(root.legal_actions()) != sorted(legal):
                break  # the engine and the served legal actions disagree: never expected
            solver = Solver(me, utility)
            for i in alive:
                d = root.copy()
                ContractDeal.step(d, legal[i])
                vals[i].append(evaluate(d, me, solver, exact))
            nodes += solver.nodes
            n += 1
            if sampling_done(n, samples, self.min_samples, deadline):
                break
            if n >= 8 and n % 4 == 0:
                alive = survivors(alive, vals, [0.0] * k, n, min_gap=0.05)
                if len(alive) == 1:
                    break
        self.last_stats = {"samples": n, "nodes": nodes}
        if n == 0:
            return greedy_choice(info)
        means = {i: sum(vals[i]) / n for i in alive}
        self.last_stats["means"] = {legal[i]: m for i, m in means.items()}
        best = max(means.values())
        cands = [legal[i] for i in alive if means[i] >= best - 1e-9]
        if len(cands) == 1:
            return cands[0]
        pref = policy(root)
        return pref if pref in cands else cands[0]


def greedy_choice(info: InfoSet) -> int:
    """``greedy``'s choice as an action id."""
    from .greedy import GreedyBot

    choice = GreedyBot().choose(info)
    return choice if isinstance(choice, int) else A.parse_action(choice)
