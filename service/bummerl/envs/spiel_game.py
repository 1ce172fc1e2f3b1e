"""The OpenSpiel game ``"bummerl"`` and its states (:mod:`bummerl.envs.openspiel` describes both):
:class:`BummerlGame` (one variant with its table options: the game's type and facts, the chance
outcomes, the encoder, the seeds of ``deal=sampled``), :class:`BummerlState` (the pyspiel state:
OpenSpiel's API answered on the Python side, the per-player views, ``resample_from_infostate``)
over its mutable core ``_Core`` (the engine's match, the chance history, what is cached), and
``_Observer`` (OpenSpiel's PyObserver). Importing this module registers the game with
``pyspiel.register_game`` (so that an unpickled state finds it).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Mapping
from typing import Any, overload

import numpy as np
import pyspiel

from bummerl.rules import (
    IllegalActionError,
    MatchOverError,
    MatchState,
    action_to_string,
    find_variant,
    history_views,
    information_set,
)
from bummerl.rules import actions as A
from bummerl.rules.base.cards import card_code, parse_card

from .common import Returns, max_deal_points, num_actions, observation_text, two_sides
from .encoding import Encoder
from .spiel_params import DEFAULT_PARAMS, GAME_NAME, game_facts

__all__ = ["BummerlGame", "BummerlState"]

_RESAMPLE_TRIES = 200
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_NO_VIEWS: dict[Any, Any] = {}  # the views of a state that has none yet (never written: _Core.remember)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_GAMES: dict[str, BummerlGame] = {}  # games of unpickled states, by parameters
_CARD_RE = re.compile(r'"([ATKQJ9][CSHD])"')


def _game_type(utility: Any = None, sampled: bool = False) -> pyspiel.GameType:
    chance = pyspiel.GameType.ChanceMode
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Bummerl (Schnapsen family)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance.SAMPLED_STOCHASTIC if sampled else chance.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility if utility is not None else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=DEFAULT_PARAMS,
    )


class BummerlGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel is untyped
    """One variant with its table options (:mod:`bummerl.envs.openspiel`). ``rules``, ``mode``,
    ``max_deals``, ``encoder`` (:class:`~bummerl.envs.encoding.Encoder`) are public."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        params = {**DEFAULT_PARAMS, **(params or {})}
        self.rules, self.mode, self.max_deals = game_facts(params)
        #: The engine's deal limit (SRV-5): 1 in ``mode=deal``, so that the match ends with the
        #: deal and a terminal state shows the finished deal, not a next one.
        self.engine_max_deals = 1 if self.mode == "deal" else self.max_deals
        #: Whether a finished deal is scored at once (``match``) or when the match is read (``deal``).
        self.settle_each = self.mode != "deal"
        self.sampled = params["deal"] == "sampled"
        seed = int(params["seed"])
        #: ``deal=sampled``: the RNG of the states' first dealers, first decks and seeds (a secret
        #: seed from the OS when ``seed`` is -1)
        self._seeds = random.Random(seed if seed >= 0 else random.SystemRandom().getrandbits(128))
        r = self.rules
        n = self.num_seats = r.spec.num_players
        self.deck: tuple[int, ...] = tuple(sorted(r.deck))
        #: ``outcomes[k][card]`` = ``(card, 1 / k)``: a chance outcome with ``k`` cards left to deal
        self.outcomes: list[list[tuple[int, float]]] = [[(x, 1.0 / k) for x in range(24)] if k else []
                                                        for k in range(len(self.deck) + 1)]
        self.encoder = Encoder(n, len(self.deck))
        #: game points per seat of finished deals (:class:`~bummerl.envs.common.Returns`)
        self.returns_of = Returns(r)
        per_deal = max_deal_points(r)
        if self.mode == "deal":
            bound = per_deal
            deals = 1
        else:
            sets = 2 * r.sets_goal - 1
            bound = sets * (r.set_goal + per_deal)
            teams = len(set(r.spec.team_of_seat))
            deals = self.max_deals or 2 * sets * (teams * max(1, r.set_goal - 1) + 1) + 4
        two = two_sides(r)
        utility = pyspiel.GameType.Utility.ZERO_SUM if two else pyspiel.GameType.Utility.GENERAL_SUM
        per_deal_length = self.encoder.rows + len(self.deck)
        info = pyspiel.GameInfo(
            num_distinct_actions=num_actions(r),
            max_chance_outcomes=max(len(self.deck), n, 24),
            num_players=n,
            min_utility=float(-bound if two else 0),
            max_utility=float(bound),
            utility_sum=0.0 if two else None,
            max_game_length=1 + deals * per_deal_length,
        )
        super().__init__(_game_type(utility, self.sampled), info, params)

    def new_initial_state(self) -> BummerlState:
        return BummerlState(self)

    def next_deal(self) -> tuple[int, int, tuple[int, ...]]:
        """``deal=sampled``: ``(seed, first dealer, first deck)`` of a new state, all from the
        ``seed`` parameter's RNG (uniform dealer, SRV-4; uniform deck order, SRV-1); the engine
        deals any later deal from ``seed``. Drawn here rather than from the engine's seed, whose
        text-keyed shuffles cost more than a whole random playout's engine work."""
        rng = self._seeds
        deck = list(self.rules.deck)
        rng.shuffle(deck)
        return rng.getrandbits(63), rng.randrange(self.num_seats), tuple(deck)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        return _Observer(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class _Core:
    """The mutable part of a state, in one attribute so that OpenSpiel's clone (a ``deepcopy``
    of every attribute) copies it with :meth:`MatchState.copy` instead of walking the rules."""

    __slots__ = ("game", "_m", "unsettled", "first_dealer", "deck", "decks", "start", "terminal", "player", "legal", "left",
                 "sampler", "seed", "views", "hist")

    def __init__(self, game: BummerlGame) -> None:
        self.game = game
        self._m: MatchState | None = None    # the match (:attr:`m`); None until the first deal is dealt
        self.unsettled = False                # mode=deal: the deal is over, the match not yet settled
        self.first_dealer = -1               # chance outcome 1 (-1: not drawn yet)
        self.deck: list[int] | None = None   # cards drawn so far while a deck is being shuffled
        self.decks: tuple[tuple[int, ...], ...] = ()
        self.start: MatchState | None = None  # the match at the start of the current deal (match mode)
        self.terminal = False
        self.player = _CHANCE                 # cached current player
        self.legal: list[int] | None = None  # cached sorted legal actions of the player
        self.left: list[int] = []             # cards not drawn yet while a deck is shuffled
        # resample_from_infostate of a state built from a deal (BummerlState.from_deal)
        self.sampler: Callable[[int, Any], BummerlState] | None = None
        self.seed = 0                         # the engine's deal seed (deal=sampled; else 0, decks explicit)
        self.views: dict[Any, Any] = _NO_VIEWS  # views of this state computed so far (BummerlState.info)
        self.hist: tuple[Any, ...] = ()       # the deal's public history views as last computed (grows)
        if game.sampled:  # the first dealer and deck drawn by the game, later decks from the seed: no chance node
            self.seed, self.first_dealer, deck = game.next_deal()
            self.decks = (deck,)
            m = self._m = MatchState(game.rules, self.seed, self.decks, self.first_dealer, game.engine_max_deals)
            self.player = m.deal.acting  # what refresh gives a new match, without its checks

    @property
    def m(self) -> MatchState | None:
        """The match, its finished deal settled (``mode=deal`` steps leave the last deal
        unsettled, :meth:`MatchState.step` with ``settle=False``, until something reads it)."""
        if self.unsettled:
            assert self._m is not None
            self._m.settle_deal()
            self.unsettled = False
        return self._m

    @m.setter
    def m(self, m: MatchState | None) -> None:
        self._m = m
        self.unsettled = False

    def remember(self, key: Any, view: Any) -> None:
        """Keep a view of this state (:meth:`BummerlState._info`, :meth:`BummerlState._view`)."""
        if self.views is _NO_VIEWS:  # the shared empty dict of a state with no view yet is never written
            self.views = {}
        self.views[key] = view

    def refresh(self) -> None:
        """Recompute the cached current player after a change; forget the cached legal actions
        and views."""
        self.legal = None
        self.views = _NO_VIEWS
        if self.first_dealer < 0 or self.deck is not None:
            self.player = _CHANCE
        elif self.terminal:
            self.player = _TERMINAL
        else:
            assert self.m is not None
            self.player = self.m.to_act

    def __getstate__(self) -> dict[str, Any]:
        """Plain data for pickling (OpenSpiel serialises a Python state's attributes with
        pickle): the game's parameters, the chance outcomes and the actions; the match is
        replayed from them."""
        return {"params": dict(self.game.get_parameters()), "seed": self.seed, "first_dealer": self.first_dealer,
                "deck": self.deck,
                "decks": self.decks, "terminal": self.terminal,
                "actions": [a for _, a in self.m.actions] if self.m is not None else None}

    def __setstate__(self, data: dict[str, Any]) -> None:
        key = json.dumps(data["params"], sort_keys=True)
        game = _GAMES.get(key)
        if game is None:
            game = _GAMES[key] = BummerlGame(data["params"])
        self.game = game
        self.seed = data["seed"]
        self.first_dealer = data["first_dealer"]
        self.deck = data["deck"]
        self.decks = tuple(tuple(d) for d in data["decks"])
        self.terminal = data["terminal"]
        self.m = self.start = None
        self.left = [x for x in game.deck if x not in (self.deck or ())]
        self.sampler = None
        self.views = {}
        self.hist = ()
        if data["actions"] is not None:
            self.m, self.start = self.replay(self.decks, data["actions"])
        self.refresh()

    def replay(self, decks: tuple[tuple[int, ...], ...], actions: list[int],
               checked: bool = False) -> tuple[MatchState, MatchState | None]:
        """The match replayed on ``decks`` with ``actions`` (``checked``: raises
        IllegalActionError for an action not legal there), and its state at the start of the
        last deal (match mode; None in deal mode)."""
        g = self.game
        m = MatchState(g.rules, self.seed, decks, self.first_dealer, g.engine_max_deals)
        last = len(decks) - 1
        track = g.mode == "match"
        start = m.copy() if track and last == 0 else None
        for a in actions:
            if checked:
                m.apply(a)
            else:
                m.step(a)
            if start is None and track and m.deal_number == last:
                start = m.copy()
        return m, start

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        c = _Core.__new__(_Core)
        c.game = self.game
        c._m = self._m.copy() if self._m is not None else None
        c.unsettled = self.unsettled
        c.first_dealer = self.first_dealer
        c.deck = None if self.deck is None else self.deck[:]
        c.decks = self.decks
        c.start = self.start  # never changed in place
        c.terminal = self.terminal
        c.player = self.player
        c.legal = self.legal
        c.left = self.left[:]
        c.sampler = self.sampler
        c.seed = self.seed
        c.views = self.views  # the same state: the same views (a change replaces the dict, never clears it)
        c.hist = self.hist
        return c

    @property
    def dealing(self) -> bool:
        return self.first_dealer < 0 or self.deck is not None

    def deal_in(self, deck: tuple[int, ...]) -> None:
        """The shuffled deck of the next deal is complete: deal it (match start), or re-deal the
        deal the engine began from its seed by replaying the finished deal from its start."""
        g = self.game
        self.decks = (*self.decks, deck)
        if self.m is None:
            self.m = MatchState(g.rules, 0, self.decks, self.first_dealer, g.engine_max_deals)
        else:
            assert self.start is not None
            m = self.start.copy()
            m.decks = self.decks
            for _, a in self.m.actions[len(m.actions):]:
                m.step(a)
            self.m = m
        self.deck = None
        self.hist = ()  # the deal the engine began from its seed is replaced: so are its history views
        if g.mode == "match":
            self.start = self.m.copy()

    def deal_finished(self, m: MatchState, settle: bool) -> None:
        """After a player's action that finished a deal (:meth:`BummerlState._apply_action`):
        the end of the game, or the next deal (shuffled by chance nodes unless sampled)."""
        if not settle or m.over:  # (in mode=deal a deal that ties at the target goes on to a
            self.unsettled = not settle  # play-off deal despite the deal limit: STK-MATCH-2, TS-MATCH-1)
            self.terminal = True
            self.player = _TERMINAL
        elif not self.game.sampled:
            self.deck = []  # the next deal is shuffled by chance nodes
            self.left = list(self.game.deck)
            self.player = _CHANCE
        else:
            self.player = m.deal.acting


class _LazyCore:
    """``BummerlState._core``: the core of a state is made on its first use (then it lives in the
    state's ``__dict__``, which comes first): OpenSpiel's ``clone`` asks the game for a new initial
    state and then deep-copies this state's attributes onto it, so the state made only to be
    cloned into costs nothing (and draws no deal seed)."""

    @overload
    def __get__(self, state: None, owner: type[BummerlState] | None = None) -> _LazyCore: ...

    @overload
    def __get__(self, state: BummerlState, owner: type[BummerlState] | None = None) -> _Core: ...

    def __get__(self, state: BummerlState | None, owner: type[BummerlState] | None = None) -> _LazyCore | _Core:
        if state is None:
            return self
        core = state.__dict__["_core"] = _Core(state.get_game())
        return core


class BummerlState(pyspiel.State):  # type: ignore[misc]  # pyspiel is untyped
    """A state of :class:`BummerlGame`. ``match`` is the engine's :class:`MatchState` (None
    before the first deal is dealt; while a later deal is shuffled it already holds a deal the
    engine made from its own seed, which no view shows and which is replaced)."""

    def __init__(self, game: BummerlGame) -> None:
        super().__init__(game)

    _core = _LazyCore()

    @property
    def match(self) -> MatchState | None:
        return self._core.m

    @classmethod
    def from_deal(cls, game: BummerlGame, deal: Any, dealer: int,
                  sampler: Callable[[int, Any], BummerlState]) -> BummerlState:
        """A ``mode=deal`` state holding ``deal`` (an engine deal of the game's variant rebuilt
        from an information set: :mod:`bummerl_client.bots.determinize`,
        :mod:`bummerl_client.bots.contract_search`) dealt by match seat ``dealer``, whose
        ``resample_from_infostate(p, s)`` is ``sampler(p, s)``. Such a state has no chance history
        and cannot be pickled."""
        if game.mode != "deal":
            raise ValueError("from_deal needs a game of mode 'deal'")
        st = cls(game)
        c = st._core
        c.first_dealer = dealer
        c.decks = (tuple(game.deck),)
        c.m = MatchState(game.rules, 0, c.decks, dealer, game.engine_max_deals)
        c.m.deal = deal
        c.sampler = sampler
        c.refresh()
        return st

    # ---------------------------------------------------------------- OpenSpiel API
    def current_player(self) -> int:
        return self._core.player

    def _legal_actions(self, player: int) -> list[int]:
        c = self._core
        if player != c.player or player < 0:
            return []
        if c.legal is None:
            assert c._m is not None
            c.legal = c._m.deal.legal_actions()  # ascending (the Deal protocol; not over: a seat acts)
        return c.legal[:]

    # Python-side answers to pyspiel's queries, the same as the C++ ``State`` methods give (those
    # reach this class through pyspiel's trampolines: ``legal_actions()`` alone makes four Python
    # calls from C++), for Python callers without the crossings. C++ callers (C++ algorithms,
    # ``apply_action``) still go through the C++ methods, which call the methods above.
    def is_chance_node(self) -> bool:
        return self._core.player == _CHANCE

    def is_player_node(self) -> bool:
        return self._core.player >= 0

    def is_simultaneous_node(self) -> bool:
        return False

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The sorted legal actions of ``player`` (default: the current player); at a chance node
        the outcomes' actions (whatever ``player``), at the end ``[]``, for another seat ``[]``.
        Raises pyspiel.SpielError for another pseudo-player, as OpenSpiel does."""
        c = self._core
        cur = c.player
        if cur >= 0 and (player is None or player == cur):  # the seat to act (the hot path)
            legal = c.legal
            if legal is None:
                assert c._m is not None
                legal = c.legal = c._m.deal.legal_actions()  # ascending (the Deal protocol; a seat acts)
            return legal[:]
        if cur == _TERMINAL:
            return []
        if cur == _CHANCE:
            return list(range(c.game.num_seats)) if c.first_dealer < 0 else c.left[:]
        assert player is not None  # (the current player is a seat: player is another one)
        if player < 0:
            raise pyspiel.SpielError(f"Called LegalActions for pseudo-player {player}")
        return []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        c = self._core
        if c.first_dealer < 0:
            n = c.game.rules.spec.num_players
            return [(s, 1.0 / n) for s in range(n)]
        return list(map(c.game.outcomes[len(c.left)].__getitem__, c.left))

    def _apply_action(self, action: int) -> None:
        """A chance outcome or a player's action (checked: raises the engine's
        IllegalActionError, the state then unchanged; MatchOverError on a terminal state)."""
        c = self._core
        if c.player >= 0:  # a player's action (the hot path of a playout: what refresh does, inline)
            m = c._m
            assert m is not None
            legal = c.legal
            settle = c.game.settle_each  # mode=deal: one deal is the game, its end is scored when read
            finished = m.step(action, settle) if legal is not None and action in legal else m.apply(action, settle)
            c.legal = None
            c.views = _NO_VIEWS
            if finished:
                c.deal_finished(m, settle)
            else:  # the same deal goes on
                c.player = m.deal.acting
            return
        if c.terminal:
            raise MatchOverError("the game is over: no action can be applied to a terminal state")
        deck = c.deck
        if deck is not None:  # a card of the deck being shuffled (the most frequent node)
            left = c.left
            try:
                left.remove(action)
            except ValueError:
                raise ValueError(f"card {action} is not left to deal") from None
            deck.append(action)
            if left:
                return  # still shuffling: a chance node again (nothing cached to forget)
            c.deal_in(tuple(deck))
        elif c.first_dealer < 0:
            n = c.game.num_seats
            if not 0 <= action < n:
                raise ValueError(f"first dealer must be a seat 0..{n - 1}, not {action}")
            c.first_dealer = int(action)
            c.deck = []
            c.left = list(c.game.deck)
        c.refresh()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"dealer {action}" if self._core.first_dealer < 0 else f"deal {card_code(action)}"
        return action_to_string(action)

    def is_terminal(self) -> bool:
        return self._core.terminal

    def returns(self) -> list[float]:
        c = self._core
        m = c._m  # (c.m, unless the deal is unsettled)
        if not c.terminal or m is None:
            return [0.0] * c.game.num_seats
        if c.unsettled:  # the deal's credit, as its result will record it (MatchPlan.credit)
            return c.game.returns_of.points(m.plan.credit(m, m.deal))
        return c.game.returns_of(m.results[:1] if c.game.mode == "deal" else m.results)

    def __str__(self) -> str:
        c = self._core
        decks = " | ".join(" ".join(card_code(x) for x in d) for d in c.decks)
        acts = " ".join(str(a) for _, a in c.m.actions) if c.m is not None else ""
        dealing = "" if c.deck is None else " dealing " + " ".join(card_code(x) for x in c.deck)
        seed = f"seed {c.seed}; " if c.game.sampled else ""
        return f"{seed}dealer {c.first_dealer}; decks {decks}; actions {acts}{dealing}"

    # ---------------------------------------------------------------- views
    def info(self, player: int) -> dict[str, Any]:
        """``player``'s information set (:func:`bummerl.rules.information_set`) without the legal
        actions; while a deck is being shuffled only ``variant``, ``seat``, ``num_seats`` and
        ``match`` (before the first deal: an empty match), ``deal`` None."""
        return dict(self._info(player))

    def _info(self, player: int) -> dict[str, Any]:
        """:meth:`info`, computed once per state and player (not to be modified)."""
        c = self._core
        info: dict[str, Any] | None = c.views.get(player)
        if info is not None:
            return info
        n = c.game.num_seats
        if not 0 <= player < n:
            raise ValueError(f"player {player} is not at this table (0..{n - 1})")
        if c.m is None:
            info = {"variant": c.game.rules.spec.id, "seat": player, "num_seats": n,
                    "match": {"game_points": [0] * n, "sets_won": [0] * n, "deal_number": 0, "dealer": -1},
                    "deal": None}
        else:
            c.hist = history_views(c.m, c.hist)  # the events added since last time are converted
            info = dict(information_set(c.m, player, c.hist))
            info.pop("legal_actions", None)
            info.pop("clocks", None)
            if c.deck is not None:
                info = {"variant": info["variant"], "seat": player, "num_seats": n, "match": info["match"],
                        "deal": None}
        c.remember(player, info)
        return info

    def _view(self, player: int | None, kind: str) -> Any:
        """``kind`` (``"info_string"``, ``"obs_string"``, ``"info_tensor"``, ``"obs_tensor"``) of
        ``player`` (None: the current player), computed once per state and player: what
        OpenSpiel's default observers give (:class:`_Observer`). Raises pyspiel.SpielError for a
        player not at the table, as OpenSpiel does."""
        c = self._core
        if player is None:
            player = c.player
        key = (kind, player)
        v = c.views.get(key)
        if v is not None:
            return v
        if not 0 <= player < c.game.num_seats:
            raise pyspiel.SpielError(f"{kind}: player {player} is not at this table (0..{c.game.num_seats - 1})")
        info = self._info(player)
        if kind == "info_string":
            v = json.dumps(info, sort_keys=True, separators=(",", ":"))
        elif kind == "obs_string":
            v = observation_text(info)
        else:
            v = c.game.encoder.encode(info, kind == "info_tensor")
            v.flags.writeable = False
        c.remember(key, v)
        return v

    # Python-side answers to OpenSpiel's observation queries (the C++ ones call the default
    # observers below through pyspiel, and ask the game for a new state to size every tensor).
    def information_state_string(self, player: int | None = None) -> str:
        """The information set of ``player`` (default: the current player) as canonical JSON."""
        text: str = self._view(player, "info_string")
        return text

    def observation_string(self, player: int | None = None) -> str:
        """A short text of ``player``'s current view (:func:`~bummerl.envs.common.observation_text`)."""
        text: str = self._view(player, "obs_string")
        return text

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """``player``'s information state tensor, ``info_size`` floats (:mod:`bummerl.envs.encoding`)."""
        floats: list[float] = self._view(player, "info_tensor").tolist()
        return floats

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """``player``'s observation tensor, ``size`` floats (:mod:`bummerl.envs.encoding`)."""
        floats: list[float] = self._view(player, "obs_tensor").tolist()
        return floats

    def _dealt_decks(self) -> tuple[tuple[int, ...], ...]:
        """``deal=sampled``: the deck of every deal so far, from the seed (a play-off deal's from
        its own variant's deck, as the engine dealt it)."""
        m = self._core.m
        assert m is not None
        plan = m.rules.spec.plan
        po = getattr(plan, "playoff_variant", None)
        po_rules = find_variant(po).configure() if po else m.rules
        return tuple(tuple(m.deck_for(i, po_rules if i < len(m.results) and m.results[i].playoff
                                      else getattr(m.deal, "rules", m.rules) if i == m.deal_number else m.rules))
                     for i in range(m.deal_number + 1))

    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> BummerlState:
        """A state that ``player_id`` cannot tell from this one (:mod:`bummerl.envs.openspiel`), drawn with
        ``probability_sampler`` (OpenSpiel's sampler, a callable giving a float in [0, 1); None =
        Python's ``random``). Earlier actions are replayed checked, so a deal in which a past action
        would have been illegal (a trump named from a suit the seat held, 4 alsó without the four
        jacks) is refused and another drawn: up to 100 uniform permutations of the hidden cards,
        then 100 single swaps of two of them. Raises RuntimeError if none fits."""
        rng = random.Random(int(probability_sampler() * 2**53) if probability_sampler is not None
                            else random.getrandbits(53))
        c = self._core
        if c.sampler is not None:
            return c.sampler(player_id, probability_sampler or random.random)
        new: BummerlState = self.clone()
        nc: _Core = new._core
        if c.m is None or c.dealing:
            if nc.deck:  # the cards shuffled so far are hidden from everybody
                nc.deck = rng.sample(list(c.game.deck), len(nc.deck))
                nc.left = [x for x in c.game.deck if x not in nc.deck]
            return new
        want = json.dumps(self.info(player_id), sort_keys=True)
        base = c.decks if not c.game.sampled else self._dealt_decks()
        k = len(base) - 1
        seen = {parse_card(x) for x in _CARD_RE.findall(want)}
        pool = [x for x in base[k] if x not in seen]
        for attempt in range(_RESAMPLE_TRIES):
            perm = pool[:]
            if attempt < _RESAMPLE_TRIES // 2:
                rng.shuffle(perm)
            elif len(perm) >= 2:  # past actions that needed a hidden card (a trump named from a
                i, j = rng.sample(range(len(perm)), 2)  # suit held, a contract's cards): swap two
                perm[i], perm[j] = perm[j], perm[i]
            sigma = dict(zip(pool, perm, strict=True))
            decks = (*base[:k], tuple(sigma.get(x, x) for x in base[k]))
            actions = [_relabel(a, sigma) for _, a in c.m.actions]  # a hidden discard lays away the new card
            if c.game.sampled:
                nc.seed = rng.getrandbits(63)  # later deals are hidden from everybody: a new seed
            try:
                nc.m, nc.start = nc.replay(decks, actions, checked=True)  # later deals: from nc.seed
            except IllegalActionError:
                continue
            nc.decks = decks
            nc.hist = ()
            nc.refresh()
            if json.dumps(new.info(player_id), sort_keys=True) == want:
                return new
        raise RuntimeError(f"no deal consistent with seat {player_id}'s information set found in {_RESAMPLE_TRIES} tries")


def _relabel(a: int, sigma: Mapping[int, int]) -> int:
    """Action ``a`` with the card it names replaced by ``sigma`` (only a ``discard`` can name a
    card hidden from the resampling seat: cards played or shown are seen by everybody)."""
    if A.DISCARD <= a < A.BID:
        return A.DISCARD + sigma.get(a - A.DISCARD, a - A.DISCARD)
    return a


class _Observer:
    """OpenSpiel's PyObserver: ``tensor`` + ``dict`` (named views) and ``string_from``.
    Private information: the observing seat's (``SINGLE_PLAYER``, the default) or none
    (``NONE``: the hand, own points and laid-away cards are left out); all players' private
    information is not offered (ValueError)."""

    def __init__(self, game: BummerlGame, iig_obs_type: Any) -> None:
        self.encoder = game.encoder
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        pi = iig_obs_type.private_info
        if pi == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("bummerl observations never show other players' private cards")
        self.public_only = pi == pyspiel.PrivateInfoType.NONE
        size = self.encoder.info_size if self.perfect_recall else self.encoder.size
        self.tensor = np.zeros(size, np.float32)
        self.dict = self.encoder.views(self.tensor, self.perfect_recall)

    def _info(self, state: BummerlState, player: int) -> dict[str, Any]:
        info = state.info(player)  # a copy: changed below
        if self.public_only and info.get("deal") is not None:
            deal = dict(info["deal"])
            deal["hand"] = []
            deal["laid_away"] = []
            deal.pop("own_tricks", None)
            info["deal"] = deal
        return info

    def set_from(self, state: BummerlState, player: int) -> None:
        self.encoder.encode(self._info(state, player), self.perfect_recall, self.tensor)

    def string_from(self, state: BummerlState, player: int) -> str:
        info = self._info(state, player)
        if self.perfect_recall:
            return json.dumps(info, sort_keys=True, separators=(",", ":"))
        return observation_text(info)


pyspiel.register_game(_game_type(), BummerlGame)
