"""The OpenSpiel game ``"bummerl"`` (service/bummerl/envs/openspiel.py) under OpenSpiel's own
checks: ``pyspiel.random_sim_test`` (random playouts with clone, serialization, observation and
returns checks) on every variant in both modes, pickling, the no-leak property of RULES §14.3 on
the tensors and strings, and OpenSpiel's IS-MCTS and determinized MCTS playing whole deals."""

from __future__ import annotations

import pickle
import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs the learning extra: pip install 'bummerl[learning]'")
np = pytest.importorskip("numpy")

from bummerl.envs import openspiel as bos  # noqa: E402
from bummerl.envs.common import returns_of  # noqa: E402
from bummerl.rules import (  # noqa: E402
    DealState,
    IllegalActionError,
    InvalidOptionError,
    MatchOverError,
    MatchState,
    public_known_cards,
)
from bummerl.rules.base.cards import BIT, cards_of  # noqa: E402

VARIANTS = bos.VARIANTS
TWO_PLAYER = [v for v in VARIANTS if bos.load(v).num_players() == 2]


def play_random(state, rng: random.Random, moves: int = 10**6):
    """Play chance and players uniformly at random until terminal or the history holds
    ``moves`` actions at a decision node."""
    while not state.is_terminal() and (state.is_chance_node() or len(state.history()) < moves):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choice(outcomes)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("mode", ["deal", "match"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_random_sim_test_every_variant(variant: str, mode: str) -> None:
    """OpenSpiel's generic random-simulation test (SRV-1 chance nodes, §13.1 scoring ranges)."""
    game = pyspiel.load_game("bummerl", {"variant": variant, "mode": mode, "match_target": 3} if mode == "match"
                             and "match_target" in bos.game_facts({"variant": variant})[0].options
                             else {"variant": variant, "mode": mode})
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("variant", VARIANTS)
def test_sampled_deal_mode(variant: str) -> None:
    """``deal=sampled``: no chance node, the decks and the first dealer come from a seed the state
    draws from the game's ``seed`` (the same seed, the same deals); OpenSpiel cannot serialise
    such Python states (it asks the game for its RNG state), so the random-simulation test runs
    without serialisation; resample_from_infostate keeps the seat's views."""
    params = {"variant": variant, "mode": "deal", "deal": "sampled", "seed": 4}
    game = pyspiel.load_game("bummerl", params)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    a, b = (pyspiel.load_game("bummerl", params).new_initial_state() for _ in range(2))
    assert not a.is_chance_node() and str(a) == str(b)
    assert str(game.new_initial_state()) != str(game.new_initial_state())
    rng = random.Random(variant)
    s = play_random(game.new_initial_state(), rng, rng.randrange(3, 12))
    if not s.is_terminal():
        p = s.current_player()
        r = s.resample_from_infostate(p, random.Random(2).random)
        assert views(r, p) == views(s, p)
        assert play_random(r, rng).is_terminal()


@pytest.mark.parametrize("variant", VARIANTS)
def test_deal_mode_returns_before_and_after_the_match_is_settled(variant: str) -> None:
    """``mode=deal`` leaves the finished deal unsettled until something reads the match: the
    returns then come from the plan's credit (MatchPlan.credit) and must equal those of the
    recorded DealResult (§13.1 scoring tables, O66-SCORE-2, STK-SCORE-1); a clone taken before
    settling settles on its own; the match read afterwards holds the deal's result."""
    rng = random.Random(variant)
    for deal in ("sampled", "shuffle"):
        game = bos.load(variant, mode="deal", deal=deal, seed=7)
        nonzero = 0
        for _ in range(12):
            s = play_random(game.new_initial_state(), rng)
            assert s._core.unsettled
            early, twin = s.returns(), s.clone()
            assert len(s.match.results) >= 1 and not s._core.unsettled
            assert s.returns() == early == returns_of(game.rules, s.match.results[:1])
            assert twin.returns() == early and twin.match.results[:1] == s.match.results[:1]
            nonzero += any(early)
        assert nonzero  # random deals are decided, not only drawn


def test_game_facts() -> None:
    two = bos.load("schnapsen-at")
    t = two.get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert two.num_players() == 2 and two.num_distinct_actions() == 41
    assert (two.min_utility(), two.max_utility()) == (-10.0, 10.0)  # 7 - 1 + 3 in one Bummerl
    deal = bos.load("schnapsen-at", mode="deal")
    assert (deal.min_utility(), deal.max_utility()) == (-3.0, 3.0)  # AT-SCORE-1: 1-3 game points
    four = bos.load("bauernschnapsen", mode="deal")
    assert four.num_players() == 4 and four.num_distinct_actions() == 89
    assert four.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM  # two partnerships
    three = bos.load("snapszer-hu-3p-sopron", mode="deal")
    assert three.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert three.max_utility() == 24 * 16  # ellenparaszt x16 (HU3S-CON table, mordkontra)


def test_parameters_are_checked() -> None:
    assert bos.load("sixty-six").rules.spec.id == "snaps-original66"  # aliases work
    assert bos.load("schnapsen-at", match_target=3).rules.set_goal == 3
    assert bos.load("schnapsen-at", auto_declare=True).rules.options["auto_declare"] is True
    with pytest.raises(InvalidOptionError, match="match_target"):
        bos.load("schnapsen-at", match_target=0)
    with pytest.raises(InvalidOptionError, match="auto_declare"):
        bos.load("schnapsen-at", auto_declare=2)
    with pytest.raises(ValueError, match="mode"):
        bos.load("schnapsen-at", mode="tournament")
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter"):
        pyspiel.load_game("bummerl", {"no_such_option": 1})
    # options of the three- and four-player games (BS-KON-2) are parameters too
    assert bos.load("bauernschnapsen", mode="deal", max_kontra_level=2).max_utility() == 24 * 4
    with pytest.raises(InvalidOptionError, match="max_kontra_level"):
        bos.load("schnapsen-at", max_kontra_level=2)  # not an option of this variant


def test_action_strings_and_illegal_actions() -> None:
    game = bos.load("schnapsen-at", mode="deal")
    s = game.new_initial_state()
    assert s.is_chance_node() and [a for a, _ in s.chance_outcomes()] == [0, 1]
    assert s.action_to_string(pyspiel.PlayerId.CHANCE, 1) == "dealer 1"
    s.apply_action(1)
    assert len(s.chance_outcomes()) == 20 and s.action_to_string(pyspiel.PlayerId.CHANCE, 12) == "deal AH"
    play_random(s, random.Random(1), moves=0)
    assert s.current_player() == 0  # dealer 1: the non-dealer leads (AT-LEAD-1)
    legal = s.legal_actions()
    assert {s.action_to_string(0, a).split()[0] for a in legal} <= {"play", "marriage", "announce", "exchange", "close", "declare"}
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in legal)
    with pytest.raises(IllegalActionError):
        s.apply_action(illegal)
    assert s.legal_actions() == legal  # unchanged
    play_random(s, random.Random(2))
    with pytest.raises(MatchOverError, match="terminal"):
        s.apply_action(legal[0])


@pytest.mark.parametrize("variant", ["schnapsen-at", "stockschnapsen", "snapszer-hu-4p"])
def test_pickle_and_serialize_round_trip(variant: str) -> None:
    game = bos.load(variant, max_deals=3)
    rng = random.Random(5)
    s = game.new_initial_state()
    while not s.is_terminal():
        for copy in (pickle.loads(pickle.dumps(s)), pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, s))[1]):
            assert str(copy) == str(s) and copy.history() == s.history()
            if not s.is_chance_node():
                p = s.current_player()
                assert copy.information_state_string(p) == s.information_state_string(p)
                assert copy.legal_actions() == s.legal_actions()
        for _ in range(rng.randrange(1, 30)):
            if s.is_terminal():
                break
            s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()))
    assert s.returns() == pickle.loads(pickle.dumps(s)).returns()


@pytest.mark.parametrize("variant", VARIANTS)
def test_python_queries_give_what_openspiel_gives(variant: str) -> None:
    """The state answers Python callers' queries in Python (legal actions, node kinds, the four
    views): at every node of random deals they equal what pyspiel's C++ methods give (called on
    the base class, through its trampolines and the game's default observers), also for another
    seat, at chance nodes and at the end; a view of the current player at a chance or terminal
    node raises SpielError as OpenSpiel does."""
    game = bos.load(variant, mode="match", max_deals=2)
    rng = random.Random(variant + "q")
    S = pyspiel.State
    nodes = 0
    for _ in range(2):
        s = game.new_initial_state()
        while True:
            assert s.is_chance_node() == S.is_chance_node(s) and s.is_player_node() == S.is_player_node(s)
            assert s.legal_actions() == S.legal_actions(s)
            for p in range(game.num_players()):
                assert s.legal_actions(p) == S.legal_actions(s, p)
                if nodes % 7 == 0 or s.is_terminal():
                    assert s.observation_tensor(p) == S.observation_tensor(s, p)
                    assert s.information_state_tensor(p) == S.information_state_tensor(s, p)
                    assert s.observation_string(p) == S.observation_string(s, p)
                    assert s.information_state_string(p) == S.information_state_string(s, p)
            if s.is_chance_node() or s.is_terminal():
                with pytest.raises(pyspiel.SpielError):
                    s.information_state_tensor()
            else:
                assert s.observation_string() == s.observation_string(s.current_player())
            strings = [s.information_state_string(p) for p in range(game.num_players())]  # at every node
            if not s.is_chance_node() and (nodes % 5 == 0 or s.is_terminal()):  # views kept across nodes
                fresh = pickle.loads(pickle.dumps(s))  # (a replay that computed nothing before)
                assert strings == [fresh.information_state_string(p) for p in range(game.num_players())]
            nodes += 1
            if s.is_terminal():
                break
            s.apply_action(rng.choice(s.legal_actions()))
    assert nodes > 50


def test_match_mode_shuffles_every_deal_and_counts_game_points() -> None:
    game = bos.load("schnapsen-at", match_target=3)
    s = play_random(game.new_initial_state(), random.Random(3))
    m = s.match
    assert m.over and len(s._core.decks) == len(m.results) >= 1
    assert all(sorted(d) == sorted(m.rules.deck) for d in s._core.decks)
    chance = [h.action for h in s.full_history() if h.player == pyspiel.PlayerId.CHANCE]
    assert len(chance) == 1 + 20 * len(m.results)  # first dealer + every deck card by card
    won = [sum(r.game_points[p] for r in m.results) for p in (0, 1)]
    assert s.returns() == [won[0] - won[1], won[1] - won[0]] and max(won) >= 3


# --------------------------------------------------------------------------- no leak (RULES §14.3)
def views(state, p: int) -> tuple[bytes, bytes, str, str]:
    return (np.asarray(state.observation_tensor(p), np.float32).tobytes(),
            np.asarray(state.information_state_tensor(p), np.float32).tobytes(),
            state.observation_string(p), state.information_state_string(p))


def hidden_swap(state, p: int, rng: random.Random):
    """A state that differs from ``state`` only in two cards hidden from seat ``p``, made on the
    engine's own state (not on any view): two cards held by other seats (or one and a face-down
    talon card) that no public event named are swapped in the deal's deck, and the same actions
    are replayed, checked; None if no such pair exists or the replay is not legal."""
    c = state._core
    m: MatchState = c.m
    d = m.deal
    spots: list[tuple[int, int]] = []  # (card, holder; -1 = talon)
    if isinstance(d, DealState):
        for i, seat in enumerate(d.seats):
            if seat != p:
                spots += [(x, seat) for x in cards_of(d.hands[i] & ~public_known_cards(d, seat))]
        spots += [(x, -1) for x in d.talon[d.tpos:-1]]
    else:
        shown = 0
        for e in d.history:
            if e[0] == "marriage":
                shown |= BIT[e[2] * 6 + 2] | BIT[e[2] * 6 + 3]
            elif e[0] == "show":
                shown |= sum(BIT[x] for x in e[2])
        for seat in range(m.num_seats):
            if seat != p:
                spots += [(x, seat) for x in cards_of(d.hands[seat] & ~shown)]
    pairs = [(a, b) for a in spots for b in spots if a[1] != b[1] and a[0] < b[0]]
    if not pairs:
        return None
    (x, _), (y, _) = rng.choice(pairs)
    k = len(c.decks) - 1
    deck = tuple(y if z == x else x if z == y else z for z in c.decks[k])
    m2 = MatchState(m.rules, 0, (*c.decks[:k], deck), c.first_dealer, m.max_deals)
    try:
        for _, a in m.actions:
            m2.apply(a)
    except IllegalActionError:
        return None
    other = state.clone()
    other._core.m = m2
    other._core.hist = ()  # a state computes each view once and keeps its history views:
    other._core.refresh()  # forget the ones of the state cloned, so that every view is m2's own
    return other


@pytest.mark.parametrize("variant", VARIANTS)
def test_tensors_do_not_leak_hidden_cards(variant: str) -> None:
    """Two states that differ only in cards hidden from seat p give p byte-identical observation
    and information-state tensors and strings; the seat that holds a swapped card sees it."""
    game = bos.load(variant, mode="deal")
    rng = random.Random(variant)
    checked = seen_by_holder = 0
    for _ in range(24):
        s = play_random(game.new_initial_state(), rng, len(game.deck) + rng.randrange(2, 16))
        if s.is_terminal():
            continue
        for p in range(game.num_players()):
            other = hidden_swap(s, p, rng)
            if other is None:
                continue
            assert views(other, p) == views(s, p)
            checked += 1
            seen_by_holder += any(views(other, q)[0] != views(s, q)[0] for q in range(game.num_players()) if q != p)
    assert checked >= 5 and seen_by_holder >= 1, (checked, seen_by_holder)


@pytest.mark.parametrize("variant", VARIANTS)
def test_resample_from_infostate_keeps_the_information_set(variant: str) -> None:
    """resample_from_infostate deals p's hidden cards anew: p's views are byte-identical, the
    deal itself usually is not, and the resampled state plays on to the end."""
    game = bos.load(variant, mode="deal")
    rng = random.Random(variant + "r")
    changed = 0
    for i in range(8):
        s = play_random(game.new_initial_state(), rng, len(game.deck) + rng.randrange(2, 16))
        if s.is_terminal():
            continue
        p = s.current_player()
        r = s.resample_from_infostate(p, random.Random(i).random)
        assert views(r, p) == views(s, p)
        assert r.legal_actions() == s.legal_actions()
        changed += str(r) != str(s)
        play_random(r, rng)
        assert r.is_terminal()
    assert changed >= 1


@pytest.mark.parametrize("deal", ["shuffle", "sampled"])
def test_resample_in_match_mode_replays_the_match(deal: str) -> None:
    """In match mode the resampled state replays every earlier deal on its own deck and deals the
    current one anew; the next deal is shuffled by chance again (``sampled``: by a new seed)."""
    game = bos.load("snaps-original66", match_target=4, deal=deal, seed=2)
    rng = random.Random(9)
    s = game.new_initial_state()
    while not s.is_terminal() and (s.match is None or s.match.deal_number < 1 or s.is_chance_node()
                                   or rng.random() < 0.7):
        s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()))
    assert not s.is_terminal() and s.match.deal_number >= 1
    p = s.current_player()
    r = s.resample_from_infostate(p, random.Random(1).random)
    assert views(r, p) == views(s, p) and r._dealt_decks()[:-1] == s._dealt_decks()[:-1]
    assert r.match.results == s.match.results
    if deal == "sampled":  # the deals to come are hidden from everybody: not the real ones
        k = s.match.deal_number + 1
        assert all(s.resample_from_infostate(p, random.Random(i).random).match.deck_for(k) != s.match.deck_for(k)
                   for i in range(3))
    play_random(r, rng)
    assert r.is_terminal() and r.match.over


# --------------------------------------------------------------------------- search bots
def play_deal(game, bots: dict[int, object], seed: int):
    """One deal with ``bots`` (seat -> pyspiel bot) and uniform random play elsewhere."""
    rng = random.Random(seed)
    s = game.new_initial_state()
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(rng.choice(s.chance_outcomes())[0])
        elif s.current_player() in bots:
            a = bots[s.current_player()].step(s)
            assert a in s.legal_actions()
            s.apply_action(a)
        else:
            s.apply_action(rng.choice(s.legal_actions()))
    return s


SEARCH_VARIANTS = [*TWO_PLAYER, "snapszer-hu-3p-sopron", "bauernschnapsen"]


@pytest.mark.parametrize("variant", SEARCH_VARIANTS)
def test_ismcts_and_determinized_mcts_play_whole_deals(variant: str) -> None:
    """OpenSpiel's ISMCTSBot (20 simulations, random rollouts) and MCTSBot with determinization
    (2 worlds x 10 simulations) play a full deal of a two-player variant, a three- and a
    four-player one; the returns are in the game's range."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = bos.load(variant, mode="deal")
    rs = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(1, rs)
    ismcts_bot = ismcts.ISMCTSBot(game, evaluator, 1.5, 20, random_state=rs)
    pimc = bos.DeterminizedMCTSBot(game, worlds=2, simulations=10, seed=2)
    s = play_deal(game, {0: ismcts_bot, 1: pimc}, seed=4)
    rets = s.returns()
    assert all(game.min_utility() <= x <= game.max_utility() for x in rets)
    # every deal credits somebody but a drawn one (snaps-original66 carries its points, O66-SCORE-2);
    # pyspiel's UniformProbabilitySampler, with which ISMCTSBot resamples, is seeded at random
    assert any(rets) or s.match.results[0].winner < 0


def test_bench_openspiel_prints_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """``bummerl bench openspiel`` (a benchmark, not a timed test: only that it measures)."""
    from bummerl_cli.main import main

    assert main(["bench", "openspiel", "--variant", "santase", "--seconds", "0.3", "--json"]) == 0
    import json

    r = json.loads(capsys.readouterr().out)
    assert r["variant"] == "santase" and min(r["wrapper_deals_per_s"], r["sampled_deals_per_s"], r["engine_deals_per_s"]) > 0
    assert r["ratio"] == pytest.approx(r["wrapper_deals_per_s"] / r["engine_deals_per_s"], abs=0.002)
    floor, native = r["floor_deals_per_s"], r["engine_deals_per_s"]  # pyspiel alone: a game doing nothing
    assert floor > 0 and r["ceiling_ratio"] == pytest.approx(floor / (floor + native), abs=0.002)


@pytest.mark.parametrize("deal", ["shuffle", "sampled"])
def test_deal_mode_terminal_state_shows_the_finished_deal(deal: str) -> None:
    """``mode=deal`` ends the engine's match with the deal (SRV-5 deal limit 1): the terminal
    views show that deal over, with its history, not a next deal."""
    game = bos.load("stockschnapsen", mode="deal", deal=deal, seed=1)
    s = play_random(game.new_initial_state(), random.Random(4))
    for p in range(3):
        info = s.info(p)
        assert info["match"]["over"] and info["deal"]["phase"] == "PHASE_OVER"
        assert any("card_played" in e or "declared" in e for e in info["deal"]["history"])
        assert info["match"]["deal_number"] == 0 and len(info["match"]["deals"]) == 1
