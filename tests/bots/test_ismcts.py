"""Information-set MCTS (issue 41): ``strong``'s ISMCTS search (``bummerl.bots.ismcts``,
``strong:search=ismcts``) and the benchmark's plain reference (``bummerl_bench.ismcts_ref``,
``ismcts-ref``). Both play only legal actions, are repeatable from a seed with a fixed number of
iterations, stop at their deadline, and find the winning move of a position once they search it;
``strong-v1`` and the levels keep PIMC. No timed assertions: strength is measured by
``bummerl bench strong``, not here."""

from __future__ import annotations

import math
import random

import pytest

from bummerl.api.codec import information_set_to_pb
from bummerl.bots import StrongBot, make_bot
from bummerl.bots.endgame import plain_minimax
from bummerl.bots.ismcts import Ismcts
from bummerl.bots.strong import LEVELS, policy
from bummerl.bots.utility import make_utility
from bummerl.rules import DealOutcome, MatchState, find_variant, list_variants
from bummerl.rules import actions as A
from bummerl.rules import information_set as engine_infoset
from bummerl.rules.search import OVER
from bummerl.rules.worlds import PublicDeal
from bummerl_bench.ismcts_ref import IsmctsRefBot, make_ref
from bummerl_bench.strong import bench_strong
from bummerl_client import InfoSet
from bummerl_client.client import to_dict

VARIANTS = [v.id for v in list_variants() if v.num_players == 2]
ISMCTS = "strong:search=ismcts,iterations=60,seed=7"


def served(m: MatchState, seat: int) -> InfoSet:
    return InfoSet(to_dict(information_set_to_pb(engine_infoset(m, seat))))


def positions(variant: str, count: int, seed: int, strict_only: bool = False) -> list[MatchState]:
    """Random positions of one-deal matches (seat to act, not over); ``strict_only``: talon closed
    or exhausted."""
    rng = random.Random(seed)
    out: list[MatchState] = []
    while len(out) < count:
        m = MatchState(find_variant(variant).configure({}), rng.randrange(2**62), max_deals=1)
        for _ in range(rng.randrange(0, 24)):
            if m.over:
                break
            legal = m.legal_actions()
            m.apply(A.CLOSE if A.CLOSE in legal and rng.random() < 0.2
                    else rng.choice([a for a in legal if a not in (A.DECLARE, A.CLOSE)] or legal))
        while not m.over and strict_only and not m.deal.strict:
            legal = m.legal_actions()
            m.apply(A.CLOSE if A.CLOSE in legal else rng.choice([a for a in legal if a != A.DECLARE] or legal))
        if not m.over:
            out.append(m)
    return out


def play(variant: str, specs: tuple[str, str], seed: int, max_deals: int = 1,
         options: dict[str, object] | None = None) -> MatchState:
    bots = [make_ref(s, seed * 2 + i) if s.startswith("ismcts-ref") else make_bot(s, seed * 2 + i)
            for i, s in enumerate(specs)]
    m = MatchState(find_variant(variant).configure(options or {}), seed, max_deals=max_deals)
    while not m.over:
        s = m.to_act
        a = bots[s].choose(served(m, s))
        m.apply(a if isinstance(a, int) else A.parse_action(a))  # IllegalActionError for an illegal one
    return m


@pytest.mark.parametrize("variant", VARIANTS)
def test_ismcts_and_the_reference_play_only_legal_actions(variant: str) -> None:
    assert play(variant, (ISMCTS, "ismcts-ref:iterations=60,seed=3"), seed=5, max_deals=2).over
    assert play(variant, ("random", "strong:search=ismcts,iterations=40,leaf=policy"), seed=6).over


@pytest.mark.parametrize(("variant", "options"), [
    ("snaps-original66", {"marriages_per_lead": 2, "exchange_on_opponent_close": True}),
    ("schnapsen-at", {"marriages_per_lead": 2, "false_declaration_penalty": "remaining_possible"})])
def test_ismcts_on_tables_with_other_paths_OPEN_GEN_5_OPEN_O66_5(variant: str, options: dict[str, object]) -> None:
    """Two marriages per lead, the exchange offered after the opponent's close, another penalty."""
    for seed in (1, 2):
        specs = ("strong:search=ismcts,leaf=mixed,iterations=40,seed=1", "ismcts-ref:iterations=40")
        assert play(variant, specs if seed == 1 else specs[::-1], seed, max_deals=2, options=options).over


def test_ismcts_is_deterministic_from_its_seed() -> None:
    a = play("schnapsen-at", (ISMCTS, "greedy"), seed=3, max_deals=2)
    b = play("schnapsen-at", (ISMCTS, "greedy"), seed=3, max_deals=2)
    assert a.actions == b.actions
    c = play("santase", ("ismcts-ref:iterations=50,seed=1", "greedy"), seed=4)
    d = play("santase", ("ismcts-ref:iterations=50,seed=1", "greedy"), seed=4)
    assert c.actions == d.actions
    m = positions("snapszer-hu-2p", 1, seed=9)[0]
    info = served(m, m.to_act)
    bot = make_bot(ISMCTS)
    first = bot.choose(info)
    for other in positions("snapszer-hu-2p", 3, seed=10):
        bot.choose(served(other, other.to_act))  # nothing carried over between decisions
    assert bot.choose(info) == first == make_bot(ISMCTS).choose(info)


def _win(me: int):
    def u(o: DealOutcome) -> float:
        return 0.0 if o.winner < 0 else (1.0 if o.winner == me else -1.0)
    return u


def _fixed(layout: tuple[int, list[int]]):
    return lambda rng: (layout[0], list(layout[1]))


@pytest.mark.parametrize("leaf", ["policy", "solve", "random"])
def test_ismcts_finds_the_forced_win_of_an_open_position(leaf: str) -> None:
    """Shown the real layout (every determinization the true deal), the search is a plain MCTS
    on open cards: in closed or exhausted positions where some move wins the deal by force and
    another loses it (exhaustive minimax over the engine's own moves), it plays a winning one."""
    found = 0
    for m in positions("schnapsen-at", 80, seed=17, strict_only=True):
        d = m.deal
        if sum(1 for c in range(64) if d.hands[d.to_act] >> c & 1) > 3:
            continue
        me = d.to_act
        util = _win(me)
        values = {}
        for a in d.legal_actions():
            c = d.copy()
            c.step(a)
            values[a] = plain_minimax(c, me, util)
        if max(values.values()) != 1.0 or min(values.values()) != -1.0:
            continue
        pub = PublicDeal(engine_infoset(m, me))
        real = (d.hands[1 - me], list(d.talon[d.tpos:])[:-1])
        tree = Ismcts(pub, sorted(values), util, policy, random.Random(1), _fixed(real), leaf=leaf)
        choice = tree.run(iterations=600)
        assert values[choice] == 1.0, (leaf, values, tree.stats())
        found += 1
    assert found >= 5


def test_ismcts_stops_at_its_deadline_and_counts_availability() -> None:
    m = positions("schnapsen-at", 1, seed=2)[0]
    pub = PublicDeal(engine_infoset(m, m.to_act))
    legal = m.legal_actions()
    tree = Ismcts(pub, legal, make_utility("win", {}, pub.me), policy, random.Random(3))
    choice = tree.run(deadline=0.0)  # a deadline already past: the minimum, checked every 8
    assert tree.iterations == 16 and choice in legal
    tree.run(iterations=200)
    root = tree.root
    assert root.visits == 200 and sum(k.visits for k in root.children.values()) == 200
    assert all(k.avail >= k.visits for k in root.children.values())
    with pytest.raises(ValueError, match="leaf"):
        Ismcts(pub, legal, make_utility("win", {}, pub.me), policy, random.Random(3), leaf="oracle")


def test_strong_v1_and_the_levels_keep_pimc() -> None:
    assert make_bot("strong:search=ismcts").search == "ismcts"
    assert all(make_bot(f"strong:level={k}").search == "pimc" for k in LEVELS)
    assert make_bot("strong-v1").search == "pimc"
    assert make_bot("strong:samples=8").search == "pimc"  # a count of sampled deals is PIMC's
    assert make_bot("strong:playout_close=true").playout_close and make_bot("strong").playout_close is False
    with pytest.raises(ValueError, match="unknown option 'search'"):
        make_bot("strong-v1:search=ismcts")
    for spec, msg in (("strong:search=alpha", "search must be"), ("strong:leaf=x", "leaf one of solve, policy, random"),
                      ("strong:exploration=0", "exploration > 0")):
        with pytest.raises(ValueError, match=msg):
            make_bot(spec)
    m = positions("schnapsen-at", 1, seed=4)[0]
    bot = make_bot("strong:search=ismcts,iterations=30,seed=1")
    assert isinstance(bot, StrongBot)
    bot.choose(served(m, m.to_act))
    assert bot.last_stats.get("iterations") in (None, 30)


def test_reference_options_and_declaration() -> None:
    ref = make_ref("ismcts-ref:budget_ms=20,iterations=7,exploration=1.5,seed=4", None)
    assert (ref.budget_ms, ref.iterations, ref.c, ref.seed) == (20.0, 7, 1.5, 4)
    with pytest.raises(ValueError, match="unknown option 'samples'"):
        make_ref("ismcts-ref:samples=3", None)
    with pytest.raises(ValueError, match="two-seat"):
        bench_strong(1, "stockschnapsen", "strong", "ismcts-ref")
    # it declares 66 when it is correct (DEF-DECL-1)
    rng = random.Random(8)
    declared = 0
    for _ in range(200):
        m = positions("schnapsen-at", 1, seed=rng.randrange(1 << 30))[0]
        if A.DECLARE in m.legal_actions() and m.deal.deal_points(m.to_act) >= 66:
            assert IsmctsRefBot(1, budget_ms=0, iterations=20).choose(served(m, m.to_act)) == A.DECLARE
            declared += 1
            if declared == 3:
                break


def test_bench_strong_plays_the_reference() -> None:
    r = bench_strong(1, "schnapsen-at", "strong:search=ismcts,iterations=20,seed=1", "ismcts-ref:iterations=20")[0]
    assert r["pairs"] == 1 and r["decisions"] > 0 and math.isfinite(r["mean_decision_ms"])
    assert r.get("opponent_decision_ms") is not None  # the reference counts its decisions


def test_ismcts_is_unused_once_every_card_is_known() -> None:
    """With every card known the exact solver decides (a determined deal): as strong-v1 does."""
    for m in positions("snaps-obican", 30, seed=12, strict_only=True):
        info = served(m, m.to_act)
        if not PublicDeal(info.raw).determined or len(m.legal_actions()) < 2:
            continue
        a = make_bot("strong:search=ismcts,iterations=30,seed=1").choose(info)
        b = make_bot("strong-v1:samples=30,seed=1").choose(info)
        assert a == b
        assert m.deal.phase != OVER


@pytest.mark.parametrize("variant", VARIANTS)
def test_mixed_playout_follows_as_the_engine_and_the_rule_policy_DEF_PLAY_STRICT(variant: str) -> None:
    """The ``mixed`` playout picks a trick's second card from bitmasks: the cards it may choose
    among are the engine's legal actions (free while the talon is open, DEF-PLAY-STRICT once it is
    closed or exhausted) and its policy half plays the rule policy's card."""
    from bummerl.bots.ismcts import _follow_policy
    from bummerl.rules.search import FOLLOW, HIGHER, SUIT_MASK, cards_of

    rng = random.Random(3)
    checked = 0
    for _ in range(150):
        d = MatchState(find_variant(variant).configure({}), rng.randrange(2**62), max_deals=1).deal.search_copy()
        while d.phase != OVER:
            acts = d.legal_actions()
            if d.phase == FOLLOW:
                p, lc = d.to_act, d.lead_card
                h = d.hands[p]
                same = h & SUIT_MASK[lc // 6]
                legal = ((same & HIGHER[lc] or same) if same else (h & SUIT_MASK[d.trump] or h)) if d.strict else h
                assert cards_of(legal) == acts
                assert _follow_policy(h, legal, lc, lc // 6, d.trump, d.strict, d.rules.points) == policy(d)
                checked += 1
            d.step(rng.choice([a for a in acts if a != A.DECLARE] or acts) if rng.random() < 0.7 else policy(d))
    assert checked > 500
    # and whole playouts end every deal with an outcome, never on a false declaration
    m = positions(variant, 1, seed=5)[0]
    pub = PublicDeal(engine_infoset(m, m.to_act))
    tree = Ismcts(pub, m.legal_actions(), make_utility("win", {}, pub.me), policy, random.Random(2), leaf="mixed")
    for _ in range(50):
        d = pub.deal_state(*pub.sample(tree.rng))
        tree._mixed(d)
        assert d.phase == OVER and d.outcome is not None


def test_time_management_stops_clear_decisions_and_goes_on_with_unclear_ones() -> None:
    """``Ismcts.run`` with ``clear``: past ``early`` it stops once the most visited root action has
    ``clear`` times the visits of the next; past ``deadline`` it goes on while that is not so, up to
    ``late``. Deadlines in the past or never reached make it count-driven (no timing asserted)."""
    m = positions("schnapsen-at", 1, seed=2)[0]
    pub = PublicDeal(engine_infoset(m, m.to_act))
    legal = m.legal_actions()
    util = make_utility("win", {}, pub.me)
    tree = Ismcts(pub, legal, util, policy, random.Random(3))
    tree.run(deadline=math.inf, early=-math.inf, late=math.inf, clear=1.5)  # stops only when clear
    assert tree.is_clear(1.5) and tree.iterations % 8 == 0
    tree = Ismcts(pub, legal, util, policy, random.Random(3))
    tree.run(deadline=-math.inf, early=-math.inf, late=-math.inf, clear=1e9)  # never clear: `late` ends it
    assert tree.iterations == 16 and not tree.is_clear(1e9)
    assert not tree.is_clear(0.0)
    bot = make_bot("strong:budget_ms=5,clear=3,bank=1,seed=1")
    assert isinstance(bot, StrongBot) and (bot.clear, bot.bank) == (3.0, 1.0)
    for other in positions("schnapsen-at", 4, seed=10):
        assert other.legal_actions().count(bot.choose(served(other, other.to_act))) == 1
        assert 0.0 <= bot._bank_s <= 4 * 0.005  # what it banks is capped


def test_draws_merge_keys_no_node_by_the_card_drawn() -> None:
    """``draws``: ``observe`` keys the node after a draw step (santase: the winner of a trick may
    close before drawing, SAN-CLOSE-1) by the card the deciding seat drew (``OBSERVED + card``),
    ``merge`` tells no drawn card apart (one node for all), ``first`` only the first draw below the
    root."""
    from bummerl.bots.ismcts import OBSERVED

    m = next(m for m in positions("santase", 40, seed=21) if not m.deal.strict and m.deal.trick_no <= 1)
    pub = PublicDeal(engine_infoset(m, m.to_act))
    util = make_utility("win", {}, pub.me)

    def observed(node: object, depth: int = 0) -> list[int]:
        out = []
        for key, kid in node.children.items():  # type: ignore[attr-defined]
            out += ([depth] if key >= OBSERVED else []) + observed(kid, depth + 1)
        return out

    trees = {}
    for draws in ("observe", "first", "merge"):
        tree = Ismcts(pub, m.legal_actions(), util, policy, random.Random(5), leaf="mixed", draws=draws)
        tree.run(iterations=600)
        trees[draws] = observed(tree.root)
    assert trees["observe"] and not trees["merge"]
    assert make_bot("strong").draws == "merge"  # strong's default: it measured ahead in santase
    assert len(trees["first"]) < len(trees["observe"])
    with pytest.raises(ValueError, match="draws"):
        make_bot("strong:draws=some")


def test_solve_talon_ends_mixed_playouts_in_the_exact_endgame_DEF_TAL_2() -> None:
    """``solve_talon``: with at most that many cards in the talon at the root, a ``mixed`` playout
    stops where strict play begins (talon exhausted, DEF-TAL-2, or closed, DEF-TAL-3) and the
    position takes the exact endgame's value (the solver's window, the utility's bounds, keeps it
    exact); with more cards at the root the playout goes on to the end of the deal."""
    from bummerl.bots.endgame import EndgameSolver
    from bummerl.rules.search import FOLLOW

    checked = 0
    for m in positions("schnapsen-at", 30, seed=23):
        if m.deal.strict:
            continue
        me = m.to_act
        pub = PublicDeal(engine_infoset(m, me))
        util = _win(me)
        on = Ismcts(pub, m.legal_actions(), util, policy, random.Random(4), leaf="mixed", solve_talon=pub.talon_size)
        off = Ismcts(pub, m.legal_actions(), util, policy, random.Random(4), leaf="mixed", solve_talon=pub.talon_size - 1)
        assert on.solve_strict and not off.solve_strict
        rng = random.Random(9)
        for _ in range(4):
            world = pub.deal_state(*pub.sample(rng))
            d = world.copy()
            on._mixed(d)
            assert d.phase == OVER or (d.strict and d.phase != FOLLOW)
            if d.phase != OVER:
                assert on.evaluate(d.copy()) == EndgameSolver(d, me, util).solve(d.copy())
                checked += 1
            d = world.copy()
            off._mixed(d)
            assert d.phase == OVER
    assert checked >= 20
    with pytest.raises(ValueError, match="solve_talon"):
        Ismcts(pub, m.legal_actions(), util, policy, random.Random(4), solve_talon=-1)


@pytest.mark.parametrize("objective", ["win", "points", "match"])
def test_the_utility_bounds_window_keeps_the_endgame_exact(objective: str) -> None:
    """The exact endgame searched within the utility's least and greatest values (the window of
    ``solve_talon``'s searches) gives the value of the unbounded search on closed and exhausted
    positions (DEF-TAL-2, DEF-TAL-3), for every objective's utility."""
    from bummerl.bots.endgame import EndgameSolver
    from bummerl.bots.ismcts import utility_bounds

    info = {"match": {"game_points": [3, 5], "target": 7}}
    assert utility_bounds(make_utility("win", info, 0)) == (-1.0, 1.0)
    assert utility_bounds(make_utility("points", info, 0)) == (-3.0, 3.0)
    for m in positions("schnapsen-at", 25, seed=29, strict_only=True):
        d = m.deal
        util = make_utility(objective, info, d.to_act)
        assert (EndgameSolver(d, d.to_act, util).solve(d.copy(), *utility_bounds(util))
                == EndgameSolver(d, d.to_act, util).solve(d.copy()))


def test_solve_talon_option_and_its_default() -> None:
    from bummerl.bots.strong import SOLVE_TALON

    assert make_bot("strong:solve_talon=4").solve_talon == 4
    assert make_bot("strong").solve_talon == SOLVE_TALON == 6
    with pytest.raises(ValueError, match="solve_talon"):
        make_bot("strong:solve_talon=-1")
