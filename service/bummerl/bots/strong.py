"""``strong``: a determinizing search bot for every variant (issue 11; 3-4 players: issue 24).

Three- and four-player games: a rotation deal (``stockschnapsen``, ``snapszer-hu-3p-rotation``)
and the play-off deal of a contract game are two-player deals, searched as below in deal seats
(:func:`bummerl.rules.worlds.local_view`), a rotation deal's outcomes valued against both other seats
(:func:`make_rotation_utility`: in Stockschnapsen the seat sitting out scores too); the contract deals (``bauernschnapsen``,
``talonschnapsen``, ``snapszer-hu-3p-sopron``, ``snapszer-hu-4p``) by the search of
:mod:`~bummerl.bots.contract_search`. ``strong-v1`` (:class:`StrongV1Bot`) is the bot as
issue 11 left it: the two-player PIMC search below, greedy's rules at 3-4 seats. The rest of this
docstring describes the two-player search.

It sees only what a remote bot sees (the information set, RULES.md §14). At a two-seat table it
decides by default by information-set MCTS (``search=ismcts``, :mod:`.ismcts`, issue 41: one tree
over its own information sets, a sampled deal per iteration; below, option ``search``); with
``search=pimc`` (``strong-v1``, the levels, ``samples``, the rotation and play-off deals of the
3-4 player games) by Perfect-Information Monte Carlo:

1. :class:`~bummerl.rules.worlds.PublicDeal` rebuilds the public state of the deal
   from the history and samples full deals consistent with it: own hand, every card seen, the
   trump card, marriage cards shown, cards taken by exchange, and the voids and "could not head"
   facts revealed by strict play after closing or exhaustion (DEF-PLAY-STRICT).
2. Each legal action is applied to every sampled deal (the engine's in-place ``DealState.step``)
   and valued: once the talon is closed or exhausted by the exact alpha-beta of
   :class:`~bummerl.bots.endgame.EndgameSolver` on open cards; before that by a playout
   with a fast rule-based policy until the talon is closed or exhausted, then the same solver.
3. The action with the best mean value wins. Values are a utility of the deal's outcome: by
   default the chance of winning the match (set, Bummerl) after the deal under a simple model of
   future deals, so that game points count for what they are worth at the current score.

66 is declared as soon as it is correct while the talon is open (DEF-DECL-1; a marriage that
reaches 66 is announced first, OPEN-GEN-4 b); once the talon is closed or exhausted the solver
compares declaring with playing on.

Options (bot spec ``strong:budget_ms=50,samples=0,seed=1``):

* ``budget_ms`` (default 50): wall time per decision in **milliseconds**; 0 = no time limit.
  Capped at a 20th of the move time left when the match has a clock.
* ``samples`` (default 0 = as many as the budget allows, at least ``min_samples``): sampled deals
  per decision. ``samples`` without ``budget_ms`` means no time limit: the decision then depends
  only on the information set and the seed.
* ``seed``: seed of the sampling (also the ``seed`` argument of :func:`make_bot`).
* ``objective``: what the search maximises; it should follow how the game is scored:

  ==========================================  =============  ==========================================
  the game                                    objective      the search maximises
  ==========================================  =============  ==========================================
  a whole match (to 7, 11, two sevens: the    ``match``      the chance of winning the match (set,
  information set's ``max_deals`` is 0)       (default)      Bummerl) after the deal at the score
  a game of N deals as a ladder plays it      ``match``      the chance that the margin of game-point
  (``match.max_deals`` = N, SRV-5; N = 1: a   (default)      totals holds (N = 1: the deal won or
  one-deal game scored won / lost)                           lost), :func:`make_deal_limit_utility`
  single deals scored by their game points    ``points``     the expected game points (won minus
  (a tally of points per deal; the                           lost): not in the information set,
  information set cannot say so)                             so it is chosen by this option
  single deals scored won / lost regardless   ``win``        the chance of winning the deal
  ==========================================  =============  ==========================================

  ``strong-v1`` reads no deal limit: its ``match`` is always the match to the target.
* ``close_margin`` (default 0.15): a close must beat the best other action by this much utility
  (PIMC overrates closing: after a close it plays as if it saw the opponent's cards).
* ``prune`` (default true): successive elimination; from the 8th sample on, every 4 samples, an
  action that is worse than the best on the same sampled deals by more than three standard errors
  is no longer evaluated, and the decision ends when one action is left.
* ``min_samples`` (default 4): sampled deals evaluated even when the budget is spent.
* ``exact_tricks`` (default 3; contract deals of the 3-4 player games only): tricks left from
  which on a sampled deal's play is searched exactly instead of played out by the policy.
* ``horizon`` (default: the information set's ``match.max_deals``; contract deals of the 3-4
  player games only): when > 0, the game ends after that many deals (SRV-5 deal limit: a ladder's
  ``deals_per_game``, ``bummerl bench strong --deals``, by default one deal per seat) and scores
  placements by game-point totals; a contract deal's outcome is then valued by the chance of each
  placement (:func:`~.contract_search.make_placement_utility`) instead of the game-point margin to
  the best other seat. 0 = never (a whole match: the margin); a number overrides what the
  information set says.
* ``spread`` (default 4.0): game points, the spread of a future deal's margin in that utility.
* ``lay_model`` (default 0 = off; ``snapszer-hu-3p-sopron``): after its kontra took up the hívó's
  two laid-away cards (HU3S-KON-2; remembered from its own hand before, the information set does
  not say which they are), weigh the hívó's sampled hands by the chance that he laid those two away
  (cheap side cards first, :meth:`~bummerl.rules.worlds.ContractSampler.lay_likelihood`, this sharpness).
* ``hivo_exact`` (default 0 = ``exact_tricks``; the Hungarian contract games) and ``hivo_samples``
  (default 0 = ``samples``): the hívó's own decisions search exactly from that many tricks left, on
  that many sampled deals (a deeper search where the play is the hívó's, the fogadó's decisions
  keep the samples).
* ``blunder`` (default 0): the chance, at each decision where two or more cards may be played (a
  lead or a follow; not a marriage, bid, close or other choice), of playing one of them at random
  instead of searching: a handicap for graded opponents, repeatable for a seed.
* ``level`` (1..5): graded strength for ladders, a preset of the options above (:data:`LEVELS`:
  1, 3, 8, 24, 64 sampled deals per decision, no time limit; ``blunder`` 0.35, 0.15, 0.05 in
  levels 1-3); options given with it override it.
* ``swindle`` (default true): when every card is known and several moves are equal under best
  play by both sides, take the one that does best against a fallible opponent (the playout
  policy): it can only gain.
* ``infer`` (default 0 = off; two-player deals): inference about the opponent's hand from his
  choices made while the talon was open: each sampled deal is picked among ``worlds`` (default 4)
  uniform ones with chances by the likelihood of those choices under the rule policy
  (:class:`Inference`, :data:`MISS`); ``infer`` is the strength (the exponent of the likelihood
  of a choice the policy would not make; 1 = as measured on ``strong-v1``'s own games).
* ``close_lead`` (default false): value a close by the one lead after it that is best on average
  over the sampled deals, not by each sampled deal's own best lead (one level of PIMC's strategy
  fusion removed from the closing decision).

* ``search`` (two-player deals; default ``ismcts`` at a two-seat table, ``pimc`` in the rotation
  and play-off deals of the 3-4 player games and whenever ``samples`` or a ``level`` is given):
  ``pimc`` = the search above, ``ismcts`` = information-set MCTS (:mod:`.ismcts`: one tree over the seat's information sets, a sampled deal
  per iteration, UCB1 with availability counts), the same pre-rules (66 declared when correct,
  forced draws) and, once every card is known, the same exact solver. Its options: ``iterations``
  (default 0 = as many as ``budget_ms`` allows; without a budget 1000; a number means no time
  limit and a repeatable decision), ``exploration`` (default 1.0, the UCB1 constant on the -1..1
  utility scale) and ``leaf`` (a new node's playout: ``mixed``, the default: each move the rule
  policy's or random, half and half; ``solve``: the policy playout then the exact endgame, as
  ``pimc`` values a sampled deal; ``policy``: the rule policy to the end; ``random``: random moves
  to the end), ``playout_close`` (default false: a random move of a playout never closes the talon),
  ``mix`` (the chance that a ``mixed`` playout's move is the rule policy's, else a random one;
  default by the deck, :data:`MIX`: 0.7 with 20 cards, 0.5 with 24), ``solve_talon`` (default 6,
  :data:`SOLVE_TALON`; 0 = never: with at most that many cards in the talon, a ``mixed`` playout
  ends where strict play begins, valued by the exact endgame),
  ``draws`` (where a draw is a step of its own, santase and snaps-original66: ``merge``, the
  default, tells no card the seat draws apart, as the other variants' trees, where the draw comes
  with the trick's second card; ``observe`` keys the node after each draw by the card the seat
  drew; ``first``: only its first draw; ``merge`` measured +32 to +40 Elo over ``observe``), and
  time management: ``clear`` (default 3; 0 = off) and ``bank`` (default 1.0). With a
  time budget and no ``iterations``, a decision whose most visited action has ``clear`` times the
  visits of the next ends from half its budget on, and the time it did not use is banked (at most
  ``4 * bank`` budgets); a decision not clear at its deadline goes on by what the bank holds, up to
  ``bank`` budgets more. The mean time per decision stays at most the budget; under a server clock
  nothing is spent from the bank (the cap of a 20th of the move time left stays).
  The levels keep ``pimc`` (their meaning is unchanged); ``close_margin``, ``close_lead``,
  ``prune`` and ``min_samples`` are PIMC's. ISMCTS is the default since issue 41: over 400 duplicate
  pairs a variant at 50 ms it beats ``strong-v1`` by +64.9 Elo pooled (+55.5 .. +74.5), +44 to +93 in
  each variant (``bench/STRONG_RESULTS.md``, table 4), and the benchmark's plain ISMCTS
  ``ismcts-ref`` in ``schnapsen-at`` by +20.0 (+0.9 .. +39.2) over 400 pairs at 50 ms each
  (table 6).

``infer`` and ``close_lead`` are off by default: neither measured better than ``strong-v1`` at the
same time per decision (issue 24, ``bench/STRONG_NOTES.md``). ``strong-v1`` takes neither option.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
import zlib
from collections.abc import Callable, Mapping
from typing import Any

from bummerl.rules import DealOutcome, DealState
from bummerl.rules import actions as A
from bummerl.rules.search import BIT, DRAW, EXCHANGE_ON_CLOSE, FOLLOW, LEAD, OVER
from bummerl.rules.worlds import InconsistentInfo, PublicDeal, is_rotation_deal, local_view, match_playoff

from .base import Bot, InfoSet
from .contract_search import EXACT_TRICKS, SPREAD, ContractSearch, greedy_choice
from .elimination import pick_by_weight, sampling_done
from .elimination import survivors as _survivors
from .endgame import EndgameSolver
from .ismcts import DRAWS, LEAVES, Ismcts
from .utility import make_rotation_utility, make_utility

OBJECTIVES = ("match", "points", "win")
#: the two-player searches (``search``): information-set MCTS, Perfect-Information Monte Carlo
SEARCHES = ("ismcts", "pimc")
SEARCH = "ismcts"
EXPLORATION = 1.0
LEAF = "mixed"
#: ``mix`` by the size of the deck when not given: the rule policy's share of a playout's moves
#: (``schnapsen-at`` 400 pairs against ``strong-v1``: 0.7 ahead of 0.5; ``santase``: 0.5 ahead of 0.7)
MIX = {20: 0.7, 24: 0.5}
#: ``solve_talon``: cards in the talon from which on the playouts end in the exact endgame (0 = never)
SOLVE_TALON = 6
#: ``clear``: a decision whose most visited action has this many times the visits of the next is
#: clear (time management, :meth:`StrongBot._ismcts`)
CLEAR = 3.0
#: defaults of the inference options (see :class:`Inference`)
INFER = 0.0
WORLDS = 4

#: ``strong:level=1..5``: graded strength for ladders, as presets of the search's options (an
#: option given with the level overrides its preset). Sampled deals per decision without a time
#: limit and, in the lower levels, a chance of a random card (``blunder``: in one-deal games more
#: samples alone hardly grade the search, issue 24), so a level plays the same on any machine (under a clock the usual cap of a 20th of the
#: move time left still applies). Elo of each level against ``greedy``: README, Bots section, and
#: ``bench/STRONG_RESULTS.md``.
LEVELS: dict[int, dict[str, Any]] = {
    1: {"samples": 1, "min_samples": 1, "blunder": 0.35, "search": "pimc"},
    2: {"samples": 3, "min_samples": 3, "blunder": 0.15, "search": "pimc"},
    3: {"samples": 8, "blunder": 0.05, "search": "pimc"},
    4: {"samples": 24, "search": "pimc"},
    5: {"samples": 64, "search": "pimc"},
}


def _bool(text: str) -> bool:
    t = text.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"not a bool: {text!r}")


# ------------------------------------------------------------------------------------ policy
def policy(d: DealState) -> int:
    """A fast rule-based move for playouts (both seats), from the mover's own hand only: declare
    with 66, exchange, announce marriages, lead cheap side cards, take valuable tricks cheaply."""
    acts = d.legal_actions()
    if len(acts) == 1:
        return acts[0]
    ph = d.phase
    if ph == DRAW:
        return A.DRAW
    if ph == EXCHANGE_ON_CLOSE:
        return A.EXCHANGE if A.EXCHANGE in acts else A.PASS
    p = d.to_act
    pts = d.rules.points
    trump = d.trump
    if ph == LEAD:
        if A.DECLARE in acts and d.deal_points(p) >= 66:
            return A.DECLARE
        if A.EXCHANGE in acts:
            return A.EXCHANGE
        best_m, best_score = -1, -1
        for a in acts:
            if A.MARRIAGE <= a < A.ANNOUNCE:
                c = A.marriage_card(a)
                score = (2 if c // 6 == trump else 0) + (1 if c % 6 == 3 else 0)  # trumps first, lead the queen
                if score > best_score:
                    best_m, best_score = a, score
        if best_m >= 0:
            return best_m
        plays = [a for a in acts if a < A.MARRIAGE]
        if not plays:
            return acts[0]
        if d.strict:
            return max(plays, key=lambda c: (pts[c], c // 6 == trump, -c))
        h = d.hands[p]
        # cheap side card that does not break a marriage; trumps last
        return min(plays, key=lambda c: (c // 6 == trump, _in_pair(h, c), pts[c], c))
    # follow
    lc = d.lead_card
    ls = lc // 6
    value = pts[lc]
    winners = [c for c in acts if (c // 6 == ls and c < lc) or (c // 6 == trump and ls != trump)]
    open_talon = not d.strict
    if winners and (value >= 10 or not open_talon or any(c // 6 == ls for c in winners)):
        same = [c for c in winners if c // 6 == ls]
        pool = same or winners
        return min(pool, key=lambda c: (pts[c], -c))
    h = d.hands[p]
    return min(acts, key=lambda c: (c // 6 == trump, _in_pair(h, c), pts[c], c))


def _in_pair(h: int, c: int) -> bool:
    r = c % 6
    if r == 2:
        return bool(h & BIT[c + 1])
    if r == 3:
        return bool(h & BIT[c - 1])
    return False


# ------------------------------------------------------------------------------------ the bot
class StrongBot(Bot):
    """Information-set MCTS or Perfect-Information Monte Carlo, with an exact endgame (see the
    module docstring)."""

    name = "strong"
    #: takes the ``infer`` and ``worlds`` options (``strong-v1`` does not: it never infers)
    INFERENCE = True
    #: Whether the two-player search plays for a game's deal limit (``match.max_deals``).
    READS_DEAL_LIMIT = True

    def __init__(self, seed: int | None = None, budget_ms: float | None = None, samples: int = 0,
                 objective: str = "match", close_margin: float = 0.15, min_samples: int = 4,
                 prune: bool = True, swindle: bool = True, exact_tricks: int = EXACT_TRICKS,
                 infer: float = INFER, worlds: int = WORLDS, close_lead: bool = False,
                 horizon: int | None = None, spread: float = SPREAD, lay_model: float = 0.0,
                 hivo_exact: int = 0, hivo_samples: int = 0, blunder: float = 0.0, search: str | None = None,
                 iterations: int = 0, exploration: float = EXPLORATION, leaf: str = LEAF,
                 playout_close: bool = False, clear: float = CLEAR, bank: float = 1.0, draws: str = "merge",
                 mix: float | None = None, solve_talon: int = SOLVE_TALON) -> None:
        super().__init__(seed)
        #: the search was not named: the default, PIMC in the 3-seat rotation and play-off deals
        self._search_default = search is None
        if search is None:  # a count of sampled deals is PIMC's: `samples` alone keeps that search
            search = "pimc" if samples else SEARCH
        # each option's range: ValueError naming the bot and the rule broken
        for ok, rule in (
            (objective in OBJECTIVES, f"objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}"),
            (samples >= 0 and (budget_ms is None or budget_ms >= 0) and min_samples >= 1,
             "samples and budget_ms must be >= 0, min_samples >= 1"),
            (exact_tricks >= 0, "exact_tricks must be >= 0"),
            (infer >= 0.0 and worlds >= 1, "infer must be >= 0 and worlds >= 1"),
            ((horizon is None or horizon >= 0) and spread > 0, "horizon must be >= 0 and spread > 0"),
            (lay_model >= 0, "lay_model must be >= 0"),
            (hivo_exact >= 0 and hivo_samples >= 0, "hivo_exact and hivo_samples must be >= 0"),
            (0.0 <= blunder <= 1.0, "blunder must be in 0..1"),
            (search in SEARCHES and leaf in LEAVES, f"search must be one of {', '.join(SEARCHES)}, leaf one of "
                                                    f"{', '.join(LEAVES)}"),
            (iterations >= 0 and exploration > 0, "iterations must be >= 0 and exploration > 0"),
            (clear >= 0 and bank >= 0 and (mix is None or 0.0 <= mix <= 1.0) and solve_talon >= 0,
             "clear, bank and solve_talon must be >= 0, mix in 0..1"),
            (draws in DRAWS, f"draws must be one of {', '.join(DRAWS)}, not {draws!r}"),
        ):
            if not ok:
                raise ValueError(f"bot '{self.name}': {rule}")
        self.seed = seed if seed is not None else random.randrange(2**62)
        self.samples = samples
        #: milliseconds per decision; ``samples`` alone means no time limit (deterministic)
        self.budget_ms = budget_ms if budget_ms is not None else (0.0 if samples else 50.0)
        self.objective = objective
        self.close_margin = close_margin
        self.min_samples = min_samples
        self.prune = prune
        self.swindle = swindle
        self.exact_tricks = exact_tricks
        self.infer = infer
        self.worlds = worlds
        self.close_lead = close_lead
        self.horizon = horizon
        self.spread = spread
        self.lay_model = lay_model
        self.hivo_exact = hivo_exact
        self.hivo_samples = hivo_samples
        self.blunder = blunder
        self.search = search
        self.iterations = iterations
        self.exploration = exploration
        self.leaf = leaf
        self.playout_close = playout_close
        self.clear = clear
        self.bank = bank
        self.draws = draws
        self.mix = mix
        self.solve_talon = solve_talon
        self._bank_s = 0.0
        self._memory: dict[str, Any] = {}
        self.decisions = 0
        self.think_s = 0.0
        self.last_stats: dict[str, Any] = {}

    @classmethod
    def from_options(cls, seed: int | None, options: Mapping[str, str]) -> StrongBot:
        """Build from spec options (strings); ValueError names a bad or unknown option."""
        kw: dict[str, Any] = {}
        conv: dict[str, Callable[[str], Any]] = {
            "budget_ms": float, "samples": int, "seed": int, "objective": str, "close_margin": float,
            "min_samples": int, "prune": _bool, "swindle": _bool, "exact_tricks": int, "level": int,
            **({"infer": float, "worlds": int, "close_lead": _bool, "horizon": int, "spread": float,
                  "lay_model": float, "hivo_exact": int, "hivo_samples": int, "blunder": float, "search": str,
                  "iterations": int, "exploration": float, "leaf": str, "playout_close": _bool,
                  "clear": float, "bank": float, "draws": str, "mix": float, "solve_talon": int}
               if cls.INFERENCE else {}),
        }
        for k, v in options.items():
            if k not in conv:
                raise ValueError(f"unknown option {k!r} for bot '{cls.name}'; known: {', '.join(sorted(conv))}")
            try:
                kw[k] = conv[k](v)
            except ValueError:
                kind = {float: "number", int: "integer", _bool: "bool (true/false)"}.get(conv[k], "value")
                raise ValueError(f"bot '{cls.name}': option {k}={v!r} is not a valid {kind}") from None
        if "level" in kw:
            level = kw.pop("level")
            if level not in LEVELS:
                raise ValueError(f"bot '{cls.name}': level must be one of {', '.join(map(str, LEVELS))}, not {level}")
            # a preset's options this bot does not take are left out (strong-v1 has no blunder)
            kw = {**{k: v for k, v in LEVELS[level].items() if k in conv}, **kw}
        if "seed" in kw:
            seed = kw.pop("seed")
        return cls(seed, **kw)

    async def achoose(self, info: InfoSet) -> int | str:
        """:meth:`choose` in a worker thread, so that the runner's event loop (streams, keepalives,
        other matches of a ``bot run``, an in-process server) is not blocked while it thinks."""
        return await asyncio.to_thread(self.choose, info)

    def choose(self, info: InfoSet) -> int | str:
        t0 = time.perf_counter()
        try:
            if self.blunder > 0.0:
                slip = self._blunder(info)
                if slip is not None:
                    return slip
            return self._choose(info, t0)
        finally:
            self.decisions += 1
            self.think_s += time.perf_counter() - t0

    def _blunder(self, info: InfoSet) -> int | None:
        """With chance ``blunder``, when two or more cards may be played (a lead or a follow; not a
        marriage, a bid or any other choice), one of them at random; else None. Repeatable: drawn
        from the same generator as the search (:meth:`_rng`)."""
        cards = [int(a["id"]) for a in info.legal_actions if int(a["id"]) < A.MARRIAGE]
        if len(cards) < 2:
            return None
        rng = random.Random(self._rng(info).random())
        return rng.choice(cards) if rng.random() < self.blunder else None

    @property
    def mean_decision_ms(self) -> float:
        return 1000 * self.think_s / self.decisions if self.decisions else 0.0

    def _rng(self, info: InfoSet) -> random.Random:
        """A generator that depends only on the seed and the information set, so that a decision
        is repeatable whatever came before."""
        d = info.deal
        key = f"{self.seed}/{info.match.get('deal_number', 0)}/{len(d.get('history', []))}/{d.get('hand')}/{d.get('phase')}"
        return random.Random(zlib.crc32(key.encode()) ^ (self.seed & 0xFFFFFFFF) << 32)

    def _choose(self, info: InfoSet, t0: float,
                utility_of: Callable[[DealOutcome], float] | None = None, search: str | None = None) -> int:
        legal = [int(a["id"]) for a in info.legal_actions]
        if len(legal) == 1:
            return legal[0]
        if int(info.raw.get("num_seats", 2)) != 2 or info.deal.get("talon_state") in (None, "TALON_STATE_UNSPECIFIED"):
            return self._choose_multi(info, legal, t0)
        try:
            pub = PublicDeal(info.raw)
        except (InconsistentInfo, ValueError, KeyError):
            return _fallback(info, legal)
        me = pub.me
        # declare 66 whenever it is correct while the talon is open (DEF-DECL-1)
        if not pub.strict:
            if A.DECLARE in legal and pub.deal_points(me) >= 66:
                return A.DECLARE
            dp = pub.deal_points(me)
            for a in legal:
                if A.ANNOUNCE <= a < A.EXCHANGE and pub.tricks_won[me]:
                    s = a - A.ANNOUNCE
                    if dp + (40 if s == pub.trump else 20) >= 66:
                        return a  # OPEN-GEN-4 b: announce, then declare at once
            if pub.phase == DRAW and A.DRAW in legal and A.CLOSE not in legal:
                return A.DRAW
        elif A.DECLARE in legal and pub.deal_points(me) >= 66 and not pub.determined:
            return A.DECLARE  # hidden cards left: take the sure win rather than trust a sampled line
        # with every card known the solver weighs declaring against playing on for more points
        utility = utility_of or make_utility(self.objective, info.raw, me, self.READS_DEAL_LIMIT)
        budget = self.budget_ms / 1000.0
        clock = info.move_time_ms()
        if clock is not None:
            budget = min(budget, clock / 20000.0) if budget > 0 else clock / 20000.0
        deadline = t0 + budget if budget > 0 else math.inf
        rng = self._rng(info)
        infer = self._inference(pub)
        if (search or self.search) == "ismcts" and not pub.determined:
            return self._ismcts(pub, legal, utility, rng, deadline, infer, t0, budget, clock is not None)
        k = len(legal)
        bias = [0.0] * k  # PIMC overrates closing: a close must win by close_margin
        if A.CLOSE in legal:
            bias[legal.index(A.CLOSE)] = -self.close_margin * (3.0 if self.objective == "points" else 1.0)
        vals: list[list[float]] = [[] for _ in legal]
        close_i = legal.index(A.CLOSE) if A.CLOSE in legal and self.close_lead and not pub.determined else -1
        close_sub: dict[int, list[float]] = {}  # the closer's lead right after closing -> its values
        alive = list(range(k))
        solvers: dict[tuple[Any, ...], EndgameSolver] = {}
        n = 0
        while True:
            root = pub.deal_state(*self._world(pub, rng, infer))
            for i in alive:
                d = root.copy()
                d.step(legal[i])
                if i == close_i:
                    if self._close_leads(d, me, utility, solvers, close_sub):
                        # one lead after the close for every sampled deal (the best on average), not
                        # the best lead of each deal: the closer does not see the opponent's hand
                        lead = max(close_sub, key=lambda c: sum(close_sub[c]))
                        vals[i] = list(close_sub[lead])
                        continue
                    close_i = -1  # no lead of the closer's own right after closing: valued as usual
                vals[i].append(self._evaluate(d, me, utility, solvers))
            n += 1
            if pub.determined:
                break
            if sampling_done(n, self.samples, self.min_samples, deadline):
                break
            if self.prune and n >= 8 and n % 4 == 0:
                alive = _survivors(alive, vals, bias, n)
                if len(alive) == 1:
                    break
        means = {legal[i]: sum(vals[i]) / len(vals[i]) + bias[i] for i in range(k) if vals[i]}
        best = max(means[legal[i]] for i in alive)
        cands = [legal[i] for i in alive if means[legal[i]] >= best - 1e-9]
        self.last_stats = {"samples": n, "nodes": sum(s.nodes for s in solvers.values()), "means": means,
                           "alive": [legal[i] for i in alive]}
        if infer is not None:
            self.last_stats["inference"] = {"decisions": len(pub.opp_decisions), "worlds": infer.worlds}
        if A.DECLARE in cands and len(cands) > 1:
            if pub.deal_points(me) >= 66:
                return A.DECLARE  # as good as playing on: take the deal now
            cands.remove(A.DECLARE)  # a false declaration only ties when the deal is lost: play on
        if len(cands) == 1:
            return cands[0]
        sample = pub.deal_state(*self._world(pub, rng, None))
        if pub.determined and self.swindle:
            # equal under best play by both: pick the move that does best against a fallible
            # opponent (the playout policy), which can only gain
            scores = {}
            for a in cands:
                d = sample.copy()
                d.step(a)
                scores[a] = _against_policy(d, me, utility)
            top = max(scores.values())
            cands = [a for a in cands if scores[a] >= top - 1e-9]
            if len(cands) == 1:
                return cands[0]
        pref = policy(sample)
        if pref in cands:
            return pref
        return min(cands, key=lambda a: (a >= A.MARRIAGE, pub.rules.points[a] if a < A.MARRIAGE else 0, a))

    def _ismcts(self, pub: PublicDeal, legal: list[int], utility: Callable[[DealOutcome], float],
                rng: random.Random, deadline: float, infer: Inference | None, t0: float = 0.0,
                budget: float = 0.0, clocked: bool = False) -> int:
        """The two-player decision by information-set MCTS (:mod:`.ismcts`), determinizations drawn
        by :meth:`_world` (with inference when ``infer`` is on). Time management (``clear`` > 0,
        a time budget and no ``iterations``): a decision that is clear (the most visited action has
        ``clear`` times the visits of the next) ends from half its ``budget`` (seconds) on and banks
        the time it did not use; one that is not clear at its deadline goes on, by what the bank
        holds, up to ``bank`` times its budget more (never under a server clock, whose cap stays)."""
        tree = Ismcts(pub, legal, utility, policy, rng, lambda r: self._world(pub, r, infer), self.exploration, self.leaf,
                      self.playout_close, self.draws, self.mix if self.mix is not None else MIX.get(len(pub.rules.deck), 0.5),
                      self.solve_talon)
        if self.iterations or deadline == math.inf or self.clear <= 0.0:
            choice = tree.run(self.iterations, deadline if not self.iterations else math.inf)
        else:
            extra = 0.0 if clocked else min(self._bank_s, self.bank * budget)
            choice = tree.run(0, deadline, early=t0 + budget / 2, late=deadline + extra, clear=self.clear)
            used = time.perf_counter() - t0
            self._bank_s = min(max(0.0, self._bank_s + budget - used), 4 * self.bank * budget)
        self.last_stats = {"iterations": tree.iterations, "nodes": tree.nodes, "root": tree.stats()}
        return choice

    def _world(self, pub: PublicDeal, rng: random.Random, infer: Inference | None) -> tuple[int, list[int]]:
        """One hidden layout for the two-player search: ``(opponent's hand mask, face-down talon
        cards top first)`` (:meth:`PublicDeal.sample`), drawn by ``infer`` when inference is on.
        The benchmark's clairvoyant reference (``bummerl bench strong --bot oracle``) overrides it
        with the real layout; no bot served to a match does."""
        return pub.sample(rng) if infer is None else infer.sample(rng)

    def _inference(self, pub: PublicDeal) -> Inference | None:
        """The sampler with inference for this decision, or None (off, or nothing to infer from)."""
        if self.infer <= 0.0 or self.worlds < 2 or pub.determined or not pub.opp_decisions:
            return None
        return Inference(pub, self.infer, self.worlds)

    def _choose_multi(self, info: InfoSet, legal: list[int], t0: float) -> int:
        """Three- and four-player games (docs/RULES.md §7-§12): a rotation deal (§7, §8) is a
        two-player deal, searched as one in deal seats (:func:`~bummerl.rules.worlds.local_view`); a
        contract deal (§9-§12) by :class:`~.contract_search.ContractSearch`."""
        if is_rotation_deal(info.raw):
            try:
                local = InfoSet(local_view(info.raw))
            except ValueError:
                return _fallback(info, legal)
            utility = make_rotation_utility(info.raw) if self.objective == "match" and not match_playoff(info.raw) else None
            # ISMCTS was measured at two-seat tables only: by default these deals keep PIMC
            return self._choose(local, t0, utility, "pimc" if self._search_default else None)
        search = ContractSearch(self.seed, self.budget_ms, self.samples, self.min_samples, self.exact_tricks,
                                self.horizon, self.spread, self.lay_model, self._memory, self.hivo_exact,
                                self.hivo_samples)
        choice = search.choose(info, t0)
        self.last_stats = search.last_stats
        return choice

    def _close_leads(self, d: DealState, me: int, utility: Callable[[DealOutcome], float],
                     solvers: dict[tuple[Any, ...], EndgameSolver], out: dict[int, list[float]]) -> bool:
        """After ``me`` closed (``d``): when ``me`` leads at once, append each lead's exact value
        on this sampled deal to ``out[lead]`` and return True; else False."""
        if d.phase != LEAD or d.to_act != me or not d.strict:
            return False
        acts = d.legal_actions()
        if out and set(out) != set(acts):
            return False
        for a in acts:
            c = d.copy()
            c.step(a)
            out.setdefault(a, []).append(self._evaluate(c, me, utility, solvers))
        return True

    def _evaluate(self, d: DealState, me: int, utility: Callable[[DealOutcome], float],
                  solvers: dict[tuple[Any, ...], EndgameSolver]) -> float:
        while d.phase != OVER and not d.strict:
            d.step(policy(d))
        if d.phase == OVER:
            assert d.outcome is not None
            return utility(d.outcome)
        key = (d.trump, d.closed_by, d.close_snapshot)
        solver = solvers.get(key)
        if solver is None:
            solver = solvers[key] = EndgameSolver(d, me, utility)
        return solver.solve(d)


class StrongV1Bot(StrongBot):
    """``strong-v1``: ``strong`` as issue 11 left it, kept for comparisons (``bummerl bench strong
    --opponent strong-v1``): issue 11's two-player search (``search=pimc``), and in the three- and four-player games
    the rules of ``greedy`` (no search)."""

    name = "strong-v1"
    INFERENCE = False
    READS_DEAL_LIMIT = False  # issue 11's search modelled every game as a match to its target

    def __init__(self, seed: int | None = None, budget_ms: float | None = None, samples: int = 0,
                 objective: str = "match", close_margin: float = 0.15, min_samples: int = 4,
                 prune: bool = True, swindle: bool = True, exact_tricks: int = EXACT_TRICKS,
                 infer: float = 0.0, worlds: int = 1, close_lead: bool = False) -> None:
        super().__init__(seed, budget_ms, samples, objective, close_margin, min_samples, prune, swindle,
                         exact_tricks, 0.0, 1, False, search="pimc")

    def _choose_multi(self, info: InfoSet, legal: list[int], t0: float) -> int:
        return greedy_choice(info)


#: Likelihood of a choice of ``strong-v1`` that :func:`policy` would not have made, by the kind
#: of the policy's choice: measured on its own games (``schnapsen-at``, 12 samples a decision,
#: 30 deals: it leads the policy's card 33% of the time, follows with it 60%, announces the
#: policy's marriage 64%, exchanges when the policy would 33%) as the ratio of the chance of a
#: choice the policy would not make to that of the policy's choice, rounded.
MISS = {"lead": 0.5, "follow": 0.2, "marriage": 0.3, "exchange": 0.7}


class Inference:
    """Sampling with inference about the opponent's hand from his past choices.

    Each sampled deal is the pick, with chances proportional to their likelihood, of ``worlds``
    deals sampled uniformly (sampling-importance-resampling). The likelihood of a deal is the
    chance that the opponent, holding the hands that deal implies for him at each of his choices
    made while the talon was open (:meth:`PublicDeal.past_hands`), would have made them under a
    model of him: the rule-based :func:`policy`, whose choice has likelihood 1, any other
    ``MISS[kind] ** strength`` (``kind`` that of the policy's choice; ``strength`` 0 infers
    nothing). A choice the model would not have made in any deal weighs them all alike and so
    tells nothing."""

    def __init__(self, pub: PublicDeal, strength: float, worlds: int) -> None:
        self.pub = pub
        self.miss = {k: v ** strength for k, v in MISS.items()}
        self.worlds = worlds
        self._pred: dict[tuple[int, int], tuple[int, float]] = {}

    def predicted(self, k: int, hand: int) -> tuple[int, float]:
        """The model's choice at the opponent's choice ``k`` holding ``hand``, and the likelihood
        of any other choice (cached)."""
        key = (k, hand)
        out = self._pred.get(key)
        if out is None:
            try:
                d = self.pub.past_state(k, hand)
                a = policy(d)
            except (ValueError, IndexError):
                a = -1
                d = None
            if a == A.EXCHANGE:
                kind = "exchange"
            elif A.MARRIAGE <= a < A.ANNOUNCE:
                a = A.MARRIAGE + (a - A.MARRIAGE) // 2 * 2  # the suit matters, not the card led
                kind = "marriage"
            else:
                kind = "follow" if d is not None and d.phase == FOLLOW else "lead"
            out = self._pred[key] = (a, 1.0 if a < 0 else self.miss[kind])
        return out

    def likelihood(self, opp_hand: int, rng: random.Random) -> float:
        w = 1.0
        for k, h in enumerate(self.pub.past_hands(opp_hand, rng)):
            a, miss = self.predicted(k, h)
            if a != self.pub.opp_decisions[k][1]:
                w *= miss
        return w

    def sample(self, rng: random.Random) -> tuple[int, list[int]]:
        cands = [self.pub.sample(rng) for _ in range(self.worlds)]
        ws = [self.likelihood(c[0], rng) for c in cands]
        return pick_by_weight(rng, cands, ws)


def _against_policy(d: DealState, me: int, utility: Callable[[DealOutcome], float]) -> float:
    """Best value for ``me`` when the other seat plays :func:`policy` (open cards, small endgames)."""
    while d.phase != OVER and d.to_act != me:
        d.step(policy(d))
    if d.phase == OVER:
        assert d.outcome is not None
        return utility(d.outcome)
    best = -math.inf
    for a in d.legal_actions():
        c = d.copy()
        c.step(a)
        best = max(best, _against_policy(c, me, utility))
    return best




def _fallback(info: InfoSet, legal: list[int]) -> int:
    """A legal move when the information set cannot be read (never expected)."""
    for a in legal:
        if a < A.MARRIAGE:
            return a
    return legal[0]
