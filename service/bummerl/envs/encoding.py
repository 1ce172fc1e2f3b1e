"""One tensor encoding of a seat's information set, shared by the OpenSpiel game, the PettingZoo
env and the Gymnasium wrapper (and so by the local and the remote mode: it reads only the
``InformationSet`` dict, the shape the server sends, docs/RULES.md §14.1-§14.3).

:class:`Encoder` turns ``information_set(state, seat)`` (or the SDK's ``InfoSet.raw``) into a flat
``float32`` vector made of named pieces. Nothing else is read, so a tensor never carries a card
the seat may not see (the byte-identical no-leak check of tests/envs applies to it).

Seats are **relative**: index ``i`` of a per-seat piece is seat ``(seat + i) % n``, so index 0
is always the observing seat (one policy serves every seat). ``n`` = the variant's seats (2-4).
Cards are the engine's ids (``suit * 6 + rank``, suits ``C S H D``, ranks ``A T K Q J 9``; 24
slots in every variant, the 20-card decks leave the 9s at 0).

Every entry is in [0, 1]. Observation pieces (the current view; ``Encoder.pieces(False)``), in order:

================  ==========  ================================================================
name              shape       meaning
================  ==========  ================================================================
seat              (4,)        own seat, one-hot (absolute)
to_act            (n,)        seat to act (relative), one-hot; zeros between deals / at the end
phase             (7,)        ``PHASE_*`` one-hot (unspecified, lead, follow, draw,
                              exchange_on_close, bidding, over)
dealer            (n,)        dealer of the deal (relative)
hand              (24,)       own hand
trump_suit        (4,)        trump suit (zeros while not named / no trump)
trump_card        (24,)       face-up trump card under the talon
talon             (2,)        talon size / deck size; deal number / 32 (at most 1)
talon_state       (4,)        ``TALON_STATE_*`` one-hot (unspecified, open, closed, exhausted)
closed_by         (n,)        seat that closed the talon (relative)
current_trick     (n, 24)     card each seat put into the trick in progress
won_cards         (n, 24)     own won cards this deal (row 0 only) where the variant lets a
                              player look at his tricks (``own_tricks``, §14.2), else 0: won
                              cards as a set are a derived field §14.2 keeps from the players
                              (the trick events themselves are in ``history``)
known_cards       (n, 24)     cards publicly known to be in a seat's hand: shown marriage
                              partners, a card taken up by exchange, shown cards; not yet played
marriages         (n, 4)      marriages announced by seat and suit
hand_sizes        (n,)        cards in each hand / 12
tricks_won        (n,)        tricks won / 12
laid_away         (24,)       cards laid away that this seat may see (contract games)
contract          (18,)       contract of the deal (``einfacher_rufer`` + :data:`CONTRACTS` +
                              none), one-hot
declarer          (n,)        declarer of the contract (relative)
kontra_level      (5,)        multiplier level 0..4 (x1 .. x16), one-hot
own_points        (1,)        own deal points / 66 (at most 1) where the variant lets a player look at his
                              tricks (``own_tricks``, OBI-PLAY-1), else 0
game_points       (n,)        match game points / match target (counted up; at most 1)
sets_won          (n,)        sets (Bummerls) won / sets to win (at most 1)
================  ==========  ================================================================

The information state (``Encoder.pieces(True)``) is the observation plus the deal's public
history in order (perfect recall within the deal, as the server sends it; earlier deals are
summed up in ``game_points`` / ``sets_won``):

================  ==========  ================================================================
history           (H, R)      one row per ``deal.history`` event, ``H`` = :func:`history_rows`;
                              a row = kind one-hot (:data:`EVENT_KINDS`, 19) + seat (n,
                              relative: ``seat``, a trick's ``winner``, a deal's ``dealer``) +
                              cards named (24, multi-hot) + suit (4) + call (:data:`CALLS`, 22)
                              + flag (1: ``declared.correct``, ``cards_*.count`` / 4)
================  ==========  ================================================================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bummerl.rules import actions as A
from bummerl.rules.base.cards import NUM_CARDS, SUITS, parse_card

#: ``Event`` kinds in the order of their one-hot index (the oneof members of ``common.proto``).
EVENT_KINDS: tuple[str, ...] = (
    "deal_started", "trump_exchanged", "talon_closed", "marriage_announced", "card_played", "trick_completed",
    "card_drawn", "declared", "deal_ended", "match_ended", "resigned", "timeout", "bid", "contract", "passed",
    "trump_named", "cards_laid_away", "cards_taken_up", "cards_shown",
)
#: Auction calls and contract names (``Bid.call``, ``Contract.name``).
CALLS: tuple[str, ...] = ("pass", "einfacher_rufer", *A.CONTRACTS, *A.KONTRA_CALLS)
CONTRACT_NAMES: tuple[str, ...] = ("einfacher_rufer", *A.CONTRACTS, "")
PHASE_NAMES: tuple[str, ...] = ("PHASE_UNSPECIFIED", "PHASE_LEAD", "PHASE_FOLLOW", "PHASE_DRAW",
                                "PHASE_EXCHANGE_ON_CLOSE", "PHASE_BIDDING", "PHASE_OVER")
TALON_STATE_NAMES: tuple[str, ...] = ("TALON_STATE_UNSPECIFIED", "TALON_STATE_OPEN", "TALON_STATE_CLOSED",
                                      "TALON_STATE_EXHAUSTED")
_EV = {k: i for i, k in enumerate(EVENT_KINDS)}
_CALL = {k: i for i, k in enumerate(CALLS)}
_CONTRACT = {k: i for i, k in enumerate(CONTRACT_NAMES)}
_PHASE = {k: i for i, k in enumerate(PHASE_NAMES)}
_TALON = {k: i for i, k in enumerate(TALON_STATE_NAMES)}
_SUIT = {s: i for i, s in enumerate(SUITS)}
_CARD = {code: parse_card(code) for code in (r + s for r in "ATKQJ9" for s in SUITS)}


def history_rows(deck_size: int, num_seats: int) -> int:
    """Rows of the ``history`` piece: a bound on the events of one deal (every card played and
    drawn, a trick per card pair, bidding and announcements), ``3 * deck + 8 * seats + 16``."""
    return 3 * deck_size + 8 * num_seats + 16


class Encoder:
    """Tensors of one variant's information sets (module docstring: pieces and shapes).

    ``num_seats``: 2-4; ``deck_size``: 20 or 24. :meth:`encode` fills a flat ``float32`` array
    of :attr:`size` (``perfect_recall`` False, the observation) or :attr:`info_size` (True,
    the information state); :meth:`views` names its pieces. Raises ValueError for an
    information set of another table size or a deal history longer than :func:`history_rows`.
    """

    def __init__(self, num_seats: int, deck_size: int) -> None:
        n = self.n = num_seats
        self.deck_size = deck_size
        self.rows = history_rows(deck_size, n)
        self.row_size = len(EVENT_KINDS) + n + NUM_CARDS + 4 + len(CALLS) + 1
        self._obs: list[tuple[str, tuple[int, ...]]] = [
            ("seat", (4,)), ("to_act", (n,)), ("phase", (len(PHASE_NAMES),)), ("dealer", (n,)),
            ("hand", (NUM_CARDS,)), ("trump_suit", (4,)), ("trump_card", (NUM_CARDS,)), ("talon", (2,)),
            ("talon_state", (len(TALON_STATE_NAMES),)), ("closed_by", (n,)), ("current_trick", (n, NUM_CARDS)),
            ("won_cards", (n, NUM_CARDS)), ("known_cards", (n, NUM_CARDS)), ("marriages", (n, 4)),
            ("hand_sizes", (n,)), ("tricks_won", (n,)), ("laid_away", (NUM_CARDS,)),
            ("contract", (len(CONTRACT_NAMES),)), ("declarer", (n,)), ("kontra_level", (5,)), ("own_points", (1,)),
            ("game_points", (n,)), ("sets_won", (n,)),
        ]
        self._sizes = {name: int(np.prod(shape)) for name, shape in self.pieces(True)}
        self._off: dict[str, int] = {}  # flat offset of each piece
        i = 0
        for name, _ in self.pieces(True):
            self._off[name] = i
            i += self._sizes[name]
        self.size = self._off["history"]
        self.info_size = self.size + self.rows * self.row_size

    def pieces(self, perfect_recall: bool) -> list[tuple[str, tuple[int, ...]]]:
        """``[(name, shape)]`` in tensor order."""
        return self._obs + ([("history", (self.rows, self.row_size))] if perfect_recall else [])

    def views(self, flat: np.ndarray, perfect_recall: bool) -> dict[str, np.ndarray]:
        """Named, reshaped views into ``flat`` (writing a view writes ``flat``)."""
        out: dict[str, np.ndarray] = {}
        i = 0
        for name, shape in self.pieces(perfect_recall):
            k = self._sizes[name]
            out[name] = flat[i:i + k].reshape(shape)
            i += k
        return out

    def encode(self, info: Mapping[str, Any], perfect_recall: bool = False,
               out: np.ndarray | None = None) -> np.ndarray:
        """The tensor of ``info`` (an ``InformationSet`` dict; its ``deal`` may be None between
        deals, when only ``seat`` and ``match`` are read). Shape ``(size,)`` or ``(info_size,)``;
        written into ``out`` (of that shape, ``float32``) when given, and returned."""
        size = self.info_size if perfect_recall else self.size
        if out is None:
            flat = np.zeros(size, np.float32)
        else:
            flat = out
            flat.fill(0.0)
        put = self._entries(info, perfect_recall)
        if put:
            flat[list(put)] = list(put.values())
        return flat

    def _entries(self, info: Mapping[str, Any], perfect_recall: bool) -> dict[int, float]:
        """The non-zero entries of the tensor of ``info``: ``{flat index: value}`` (the tensor is
        written in one numpy call; a later entry for an index replaces an earlier one)."""
        n = self.n
        o = self._off
        me = int(info["seat"])
        if int(info.get("num_seats", n)) != n:
            raise ValueError(f"information set of {info.get('num_seats')} seats, encoder of {n}")

        def rel(s: Any) -> int:
            s = int(s)
            return (s - me) % n if 0 <= s < n else -1

        def row(s: Any) -> int:  # the row of a seat in an (n, k) piece (-1 is the last one, as numpy indexes)
            r = rel(s)
            return r if r >= 0 else n - 1

        put: dict[int, float] = {o["seat"] + me: 1.0}

        def one(piece: str, idx: int) -> None:
            if idx >= 0:
                put[o[piece] + idx] = 1.0

        match = info.get("match") or {}
        target = max(1, int(match.get("target", 1) or 1))
        sets_to_win = max(1, int(match.get("sets_to_win", 1) or 1))
        for s, gp in enumerate(match.get("game_points", ())):
            put[o["game_points"] + row(s)] = min(1.0, float(gp) / target)
        for s, w in enumerate(match.get("sets_won", ())):
            put[o["sets_won"] + row(s)] = min(1.0, float(w) / sets_to_win)
        put[o["talon"] + 1] = min(1.0, float(match.get("deal_number", 0)) / 32.0)
        one("dealer", rel(match.get("dealer", -1)))
        deal = info.get("deal")
        if deal is None:
            return put
        one("to_act", rel(deal.get("to_act", -1)))
        one("phase", _PHASE.get(str(deal.get("phase", "")), 0))
        base = o["hand"]
        for c in deal.get("hand", ()):
            put[base + _CARD[c]] = 1.0
        one("trump_suit", _SUIT.get(str(deal.get("trump_suit", "")), -1))
        if deal.get("trump_card"):
            put[o["trump_card"] + _CARD[deal["trump_card"]]] = 1.0
        put[o["talon"]] = float(deal.get("talon_size", 0)) / self.deck_size
        one("talon_state", _TALON.get(str(deal.get("talon_state", "")), 0))
        one("closed_by", rel(deal.get("closed_by", -1)))
        base = o["current_trick"]
        for tc in deal.get("current_trick", ()):
            put[base + row(tc["seat"]) * NUM_CARDS + _CARD[tc["card"]]] = 1.0
        base = o["hand_sizes"]
        for s, k in enumerate(deal.get("hand_sizes", ())):
            put[base + row(s)] = float(k) / 12.0
        base = o["tricks_won"]
        for s, k in enumerate(deal.get("tricks_won", ())):
            put[base + row(s)] = float(k) / 12.0
        base = o["laid_away"]
        for c in (*deal.get("laid_away", ()), *deal.get("laid_away_taken_up", ())):
            put[base + _CARD[c]] = 1.0
        base = o["marriages"]
        for mv in deal.get("marriages", ()):
            put[base + row(mv["seat"]) * 4 + _SUIT[mv["suit"]]] = 1.0
        auction = deal.get("auction") or {}
        contract = auction.get("contract") or {}
        put[o["contract"] + _CONTRACT.get(str(contract.get("name", "")), len(CONTRACT_NAMES) - 1)] = 1.0
        one("declarer", rel(contract.get("declarer", -1)))
        put[o["kontra_level"] + min(4, max(0, int(contract.get("kontra_level", 0))))] = 1.0
        own = deal.get("own_tricks")
        if own:
            put[o["own_points"]] = min(1.0, float(own.get("deal_points", 0)) / 66.0)
            for c in own.get("won_cards", ()):  # row 0: the observing seat
                put[o["won_cards"] + _CARD[c]] = 1.0
        history: Sequence[Mapping[str, Any]] = deal.get("history", ())
        if perfect_recall and len(history) > self.rows:
            raise ValueError(f"deal history of {len(history)} events exceeds the {self.rows} rows of the tensor")
        known: dict[int, set[int]] = {}  # card -> rows (seats) of known_cards holding it
        hist = o["history"] if perfect_recall else -1
        for i, ev in enumerate(history):
            for kind, body in ev.items():
                if kind in ("version", "deal_number"):
                    continue
                if kind == "trick_completed":
                    for tc in body["cards"]:
                        known.pop(_CARD[tc["card"]], None)
                elif kind == "card_played":
                    known.pop(_CARD[body["card"]], None)
                elif kind == "trump_exchanged":
                    known.setdefault(_CARD[body["card_up"]], set()).add(row(body["seat"]))
                elif kind in ("marriage_announced", "cards_shown"):
                    for c in body.get("shown_cards", body.get("cards", ())):
                        known.setdefault(_CARD[c], set()).add(row(body["seat"]))
                if hist >= 0:
                    self._row(put, hist + i * self.row_size, kind, body, rel)
        for tc in deal.get("current_trick", ()):
            known.pop(_CARD[tc["card"]], None)
        base = o["known_cards"]
        for c, seats in known.items():
            for r in seats:
                put[base + r * NUM_CARDS + c] = 1.0
        return put

    def _row(self, put: dict[int, float], r: int, kind: str, body: Mapping[str, Any], rel: Any) -> None:
        """The entries of one ``history`` row starting at flat index ``r`` (module docstring)."""
        n = self.n
        put[r + _EV[kind]] = 1.0
        base = r + len(EVENT_KINDS)
        for key in ("seat", "winner", "dealer", "declarer"):
            if key in body and isinstance(body[key], int):
                s = rel(body[key])
                if s >= 0:
                    put[base + s] = 1.0
                break
        base += n
        for key in ("card", "card_up", "card_down", "trump_card"):
            c = body.get(key)
            if c:
                put[base + _CARD[c]] = 1.0
        for c in (*body.get("shown_cards", ()), *body.get("cards", ())):
            code = c["card"] if isinstance(c, Mapping) else c
            put[base + _CARD[code]] = 1.0
        base += NUM_CARDS
        suit = body.get("suit") or body.get("trump_suit")
        if suit:
            put[base + _SUIT[suit]] = 1.0
        base += 4
        call = body.get("call") or body.get("name")
        if kind == "passed":
            call = "pass"
        if call in _CALL:
            put[base + _CALL[call]] = 1.0
        base += len(CALLS)
        if kind == "declared":
            put[base] = 1.0 if body.get("correct") else 0.0
        elif "count" in body:
            put[base] = float(body["count"]) / 4.0


def legal_mask(legal_ids: Sequence[int], size: int = A.NUM_ACTIONS) -> np.ndarray:
    """``int8`` mask of length ``size`` with 1 at each legal action id."""
    mask = np.zeros(size, np.int8)
    mask[list(legal_ids)] = 1
    return mask
