"""The ``strong`` bot (issue 11): its endgame solver is exact, its sampled deals are consistent
with the information set, it plays only legal actions, declares 66 when it is correct (DEF-DECL-1),
and it is deterministic from a seed. Bots see the information set as the API serves it (engine
dict -> protobuf -> JSON dict). No timed assertions: every bot here runs with a sample count and
no time limit."""

from __future__ import annotations

import random
import zlib

import pytest

from bummerl.api.codec import information_set_to_pb
from bummerl.bots import StrongBot, StrongV1Bot, make_bot, split_bot_specs
from bummerl.bots.endgame import EndgameSolver, plain_minimax
from bummerl.bots.utility import make_utility
from bummerl.rules import DealOutcome, DealState, MatchState, list_variants
from bummerl.rules import actions as A
from bummerl.rules import cards as K
from bummerl.rules import information_set as engine_infoset
from bummerl.rules.deals.talon import OVER
from bummerl.rules.worlds import PublicDeal
from bummerl_client import InfoSet
from bummerl_client.__main__ import bot_specs
from bummerl_client.client import to_dict

VARIANTS = [v.id for v in list_variants() if v.num_players == 2]  # the search is two-player
FAST = "strong:samples=3,seed=7"
#: Non-default tables that open other paths: two marriages per lead (OPEN-GEN-5), the exchange
#: offered after the opponent's close (OPEN-O66-5), false declarations rejected (OPEN-OBI-4).
ODD_TABLES = {
    "snaps-original66": {"marriages_per_lead": 2, "exchange_on_opponent_close": True},
    "schnapsen-at": {"marriages_per_lead": 2, "false_declaration_penalty": "remaining_possible"},
}
CASES = [(v, None) for v in VARIANTS] + [(v, o) for v, o in ODD_TABLES.items()]
CASE_IDS = [v if o is None else f"{v}-odd" for v, o in CASES]


def served(m: MatchState, seat: int) -> InfoSet:
    return InfoSet(to_dict(information_set_to_pb(engine_infoset(m, seat))))


def random_step(m: MatchState, rng: random.Random, close_p: float = 0.15) -> None:
    """One random legal action that is not a (usually false) declaration; closes sometimes."""
    legal = m.legal_actions()
    if A.CLOSE in legal and rng.random() < close_p:
        m.apply(A.CLOSE)
        return
    pool = [a for a in legal if a not in (A.DECLARE, A.CLOSE)] or legal
    m.apply(rng.choice(pool))


def positions(variant: str, count: int, seed: int, strict_only: bool = False, close_p: float = 0.15,
              options: dict[str, object] | None = None) -> list[MatchState]:
    """``count`` random positions of single-deal matches of ``variant`` (seat to act, not over)."""
    rng = random.Random(seed)
    out: list[MatchState] = []
    while len(out) < count:
        m = MatchState(find(variant, options), rng.randrange(2**62), max_deals=1)
        stop = rng.randrange(0, 24)
        for _ in range(stop):
            if m.over:
                break
            random_step(m, rng, close_p)
        while not m.over and strict_only and not m.deal.strict:
            random_step(m, rng, close_p)
        if not m.over:
            out.append(m)
    return out


def find(variant: str, options: dict[str, object] | None = None):
    from bummerl.rules import find_variant

    return find_variant(variant).configure(options or {})


def points_utility(me: int):
    def u(o: DealOutcome) -> float:
        return 0.0 if o.winner < 0 else float(o.game_points if o.winner == me else -o.game_points)
    return u


# ------------------------------------------------------------------------------------ solver
@pytest.mark.parametrize(("variant", "options"), CASES, ids=CASE_IDS)
def test_endgame_solver_agrees_with_plain_minimax_DEF_TAL_2_DEF_TAL_3(variant: str, options: dict | None) -> None:
    """Exact alpha-beta = exhaustive minimax over the engine's legal actions, on random closed
    (DEF-TAL-3) and exhausted (DEF-TAL-2) positions: strict play (DEF-PLAY-STRICT), marriages
    after closing, declaring (DEF-DECL-1, OPEN-GEN-4) and every variant's end-of-deal scoring.
    60 positions per variant and table (420 in all), shrunk by a few random plies so minimax stays
    small."""
    rng = random.Random(zlib.crc32(variant.encode()))
    checked = 0
    for m in positions(variant, 60, seed=len(variant) * 31, strict_only=True, close_p=0.3, options=options):
        d = m.deal.copy()
        for _ in range(rng.randrange(1, 4) if d.rules.spec.ranks == 6 else rng.randrange(0, 3)):
            if d.phase == OVER:
                break
            legal = [a for a in d.legal_actions() if a != A.DECLARE] or d.legal_actions()
            d.step(rng.choice(legal))
        if d.phase == OVER:
            continue
        me = rng.randrange(2)
        for util in (points_utility(me), make_utility("match", {"match": {"game_points": [3, 5], "target": 7}}, me)):
            solver = EndgameSolver(d, me, util)
            assert solver.solve(d) == plain_minimax(d, me, util), (variant, d.hands, d.phase, d.closed_by)
        checked += 1
    assert checked >= 45


def test_solver_table_serves_many_positions_of_one_deal() -> None:
    """One solver instance (shared transposition table) gives the same values as fresh ones."""
    for m in positions("snaps-original66", 20, seed=5, strict_only=True, close_p=1.0):
        d = m.deal
        shared = EndgameSolver(d, 0, points_utility(0))
        first = shared.solve(d)
        assert shared.solve(d) == first == EndgameSolver(d, 0, points_utility(0)).solve(d)


# ------------------------------------------------------------------------------------ determinization
def _hidden_layout(m: MatchState, seat: int) -> tuple[int, list[int]]:
    d = m.deal
    talon = d.talon[d.tpos:]
    return d.hands[1 - seat], talon[:-1] if talon else []


@pytest.mark.parametrize(("variant", "options"), CASES, ids=CASE_IDS)
def test_public_deal_rebuilds_the_engine_state_SRV_RECALL(variant: str, options: dict | None) -> None:
    """From the served information set alone (§14.1, SRV-RECALL: the full public history) the bot
    rebuilds every counter of the deal; with the true hidden cards filled in, the rebuilt deal is
    the engine's deal (history aside) and has the same legal actions."""
    for m in positions(variant, 60, seed=11, close_p=0.2, options=options):
        seat = m.to_act
        pub = PublicDeal(served(m, seat).raw)
        opp, talon = _hidden_layout(m, seat)
        d = pub.deal_state(opp, talon)
        real = m.deal
        for name in DealState.__slots__:
            if name in ("history", "talon", "tpos", "rules"):
                continue
            assert getattr(d, name) == getattr(real, name), (variant, name)
        assert d.talon == real.talon[real.tpos:]
        assert d.legal_actions() == real.legal_actions()
        assert pub.deal_points(0) == real.deal_points(0) and pub.deal_points(1) == real.deal_points(1)


@pytest.mark.parametrize("variant", VARIANTS)
def test_sampled_deals_are_consistent_with_the_information_set_DEF_PLAY_STRICT(variant: str) -> None:
    """Every sampled deal: gives the opponent his known cards (marriage partners shown, AT-MAR-3;
    cards taken by exchange; the face-up trump card drawn last), never a card seen elsewhere (own
    hand, played, the trump card in the talon), never a card of a suit he showed void in under
    strict play, nor one that would have headed a trick he did not head (DEF-PLAY-STRICT); and the
    sizes of hand and talon are the real ones. The real deal always passes the same checks."""
    rng = random.Random(3)
    deck = K.mask_of(list(find(variant).deck))
    voids_seen = 0
    for m in positions(variant, 50, seed=17, close_p=0.3):
        seat = m.to_act
        opp_seat = 1 - seat
        d = m.deal
        info = served(m, seat)
        pub = PublicDeal(info.raw)
        hand = K.mask_of([K.parse_card(c) for c in info.hand])
        played = 0
        cannot = 0  # re-derived here from the history, independently of the bot
        strict_now = False
        lead = -1
        talon_left = len(d.rules.deck) - 2 * d.rules.spec.hand_size
        for ev in d.history:
            if ev[0] == "close":
                strict_now = True
            elif ev[0] == "draw":
                talon_left -= 1
                strict_now = strict_now or talon_left == 0
            elif ev[0] == "play":
                played |= K.BIT[ev[2]]
                if lead < 0:
                    lead = ev[2]
                    continue
                if ev[1] == opp_seat and strict_now:
                    f = ev[2]
                    if f // 6 != lead // 6:
                        cannot |= K.SUIT_MASK[lead // 6]
                        if f // 6 != d.trump:
                            cannot |= K.SUIT_MASK[d.trump]
                    elif f > lead:
                        cannot |= K.HIGHER[lead]
                lead = -1
        voids_seen += bool(cannot & ~played)
        known_opp = K.mask_of([c for c in range(24) if K.BIT[c] & d.hands[opp_seat] and c in _public_cards(d, opp_seat)])
        bottom = d.talon[-1] if d.tpos < len(d.talon) else -1
        real_opp, real_talon = _hidden_layout(m, seat)
        assert real_opp & cannot == 0  # the inference is sound
        layouts = [(real_opp, real_talon)] + [pub.sample(rng) for _ in range(20)]
        for opp, talon in layouts:
            assert bin(opp).count("1") == bin(d.hands[opp_seat]).count("1")
            assert len(talon) == len(real_talon)
            tal = K.mask_of(talon)
            assert opp & known_opp == known_opp
            assert opp & (hand | played) == 0 and tal & (hand | played | opp) == 0
            assert opp & cannot == 0, (variant, K.cards_of(opp), K.cards_of(cannot))
            if bottom >= 0:
                assert not (opp | tal) & K.BIT[bottom]
            assert opp | tal | hand | played | (K.BIT[bottom] if bottom >= 0 else 0) == deck
    assert voids_seen or variant == "santase"


def _public_cards(d: DealState, seat: int) -> set[int]:
    out = set()
    for ev in d.history:
        if ev[0] == "exchange" and ev[1] == seat:
            out.add(ev[3])
        elif ev[0] == "marriage" and ev[1] == seat:
            out |= {ev[2] * 6 + K.KING, ev[2] * 6 + K.QUEEN}
        elif ev[0] == "draw" and ev[1] == seat and ev[2] >= 0:
            out.add(ev[2])
    return out


# ------------------------------------------------------------------------------------ play
def _play(variant: str, specs: tuple[str, str], seed: int, max_deals: int = 0) -> tuple[MatchState, list[StrongBot]]:
    bots = [make_bot(s, seed * 2 + i) for i, s in enumerate(specs)]
    m = MatchState(find(variant), seed, max_deals=max_deals)
    while not m.over:
        s = m.to_act
        info = served(m, s)
        a = bots[s].choose(info)
        a = a if isinstance(a, int) else A.parse_action(a) if not a.isdigit() else int(a)
        if isinstance(bots[s], StrongBot) and not m.deal.strict:
            p = m.deal
            if A.DECLARE in m.legal_actions() and p.deal_points(s) >= 66:
                assert a == A.DECLARE, "DEF-DECL-1: strong declares 66 as soon as it is correct"
        m.apply(a)  # raises IllegalActionError for an illegal action
    return m, [b for b in bots if isinstance(b, StrongBot)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_strong_plays_only_legal_actions_and_declares_66_DEF_DECL_1(variant: str) -> None:
    m, strong = _play(variant, (FAST, "greedy"), seed=21, max_deals=3)
    assert m.over and strong[0].decisions > 10
    m, _ = _play(variant, ("random", FAST), seed=22, max_deals=2)
    assert m.over


def test_strong_is_deterministic_from_its_seed() -> None:
    a, _ = _play("schnapsen-at", ("strong:samples=4,seed=5", "greedy"), seed=3, max_deals=2)
    b, _ = _play("schnapsen-at", ("strong:samples=4,seed=5", "greedy"), seed=3, max_deals=2)
    assert a.actions == b.actions
    # the same information set gives the same decision whatever the bot decided before
    m = positions("santase", 1, seed=9)[0]
    info = served(m, m.to_act)
    bot = make_bot("strong:samples=5,seed=1")
    first = bot.choose(info)
    for other in positions("santase", 3, seed=10):
        bot.choose(served(other, other.to_act))
    assert bot.choose(info) == first == make_bot("strong:samples=5,seed=1").choose(info)


def test_strong_beats_greedy_in_a_few_duplicate_deals() -> None:
    """A smoke figure, not a benchmark (``bummerl bench strong`` is): over 12 duplicate deal pairs
    strong scores more than greedy."""
    score = 0.0
    for pair in range(12):
        for leg in range(2):
            specs = ("strong:samples=6,seed=1", "greedy") if leg == 0 else ("greedy", "strong:samples=6,seed=1")
            m, _ = _play("schnapsen-at", specs, seed=100 + pair, max_deals=1)
            strong_seat = leg
            score += 0.5 if m.winner < 0 else float(m.winner == strong_seat)
    assert score > 12


# ------------------------------------------------------------------------------------ specs
def test_bot_specs_and_options() -> None:
    assert split_bot_specs("strong:budget_ms=50,greedy") == ["strong:budget_ms=50", "greedy"]
    assert split_bot_specs("strong:budget_ms=100,samples=8,seed=3,random") == [
        "strong:budget_ms=100,samples=8,seed=3", "random"]
    assert split_bot_specs("greedy,exec:./bot --x=1,strong") == ["greedy", "exec:./bot --x=1", "strong"]
    bot = make_bot("strong:budget_ms=20,samples=8,seed=3")
    assert isinstance(bot, StrongBot) and (bot.budget_ms, bot.samples, bot.seed) == (20.0, 8, 3)
    assert make_bot("strong:samples=8").budget_ms == 0  # samples alone: no time limit, deterministic
    assert make_bot("strong").budget_ms == 50
    for spec, msg in (("strong:budget=5", "unknown option 'budget'"), ("strong:samples=x", "samples='x'"),
                      ("greedy:samples=3", "takes no options"), ("nobody", "unknown bot 'nobody'"),
                      ("strong:objective=chess", "objective")):
        with pytest.raises(ValueError, match=msg):
            make_bot(spec)
    with pytest.raises(SystemExit, match=r"^bummerl play: unknown option 'nope'"):
        bot_specs("strong:nope=1,greedy", "bummerl play", 2)
    assert bot_specs("strong:budget_ms=50,greedy", "bummerl play", 2) == ["strong:budget_ms=50", "greedy"]


def test_match_utility_orders_outcomes_by_the_chance_to_win_the_match_DEF_PTS_4() -> None:
    """Game points (DEF-PTS-4) are worth what they change in the chance to win: more is better, a
    win better than a drawn deal, and a point that reaches the target is worth the whole match."""
    u = make_utility("match", {"match": {"game_points": [5, 0], "target": 7}}, 0)
    o = [u(DealOutcome(1, 3, "")), u(DealOutcome(1, 1, "")), u(DealOutcome(-1, 0, "")), u(DealOutcome(0, 1, ""))]
    assert o == sorted(o) and len(set(o)) == 4
    assert u(DealOutcome(0, 2, "")) == u(DealOutcome(0, 3, "")) == 1.0  # 7 reached either way
    sets = make_utility("match", {"match": {"game_points": [6, 0], "set_target": 7, "sets_won": [1, 0],
                                            "sets_to_win": 2}}, 0)
    assert sets(DealOutcome(0, 1, "")) == 1.0 and -1.0 < sets(DealOutcome(1, 3, "")) < 1.0


def test_deal_limit_utility_plays_for_the_games_format_SRV_5() -> None:
    """SRV-5: in a game of ``max_deals`` deals won by the higher total, the last deal is worth its
    result (won 1, drawn 0, lost -1, whatever the points); earlier, a bigger margin of totals is
    worth more, and what a deal won is worth shrinks with the deals left. A whole match, a
    three-seat table and ``strong-v1`` keep the model of a match to its target."""
    from bummerl.bots.utility import make_deal_limit_utility

    def info(limit: int, deal_number: int, deals: list[list[int]], carried: int = 0, seats: int = 2) -> dict:
        return {"num_seats": seats, "match": {"game_points": [0, 0], "target": 7, "max_deals": limit,
                                              "deal_number": deal_number, "carried_points": carried,
                                              "deals": [{"game_points": gp} for gp in deals]}}

    last = make_utility("match", info(1, 0, []), 0)
    assert [last(DealOutcome(0, 1, "")), last(DealOutcome(0, 3, "")), last(DealOutcome(-1, 0, "")),
            last(DealOutcome(1, 1, ""))] == [1.0, 1.0, 0.0, -1.0]
    behind = make_utility("match", info(2, 1, [[0, 2]]), 0)  # 2 behind before the last deal
    assert behind(DealOutcome(0, 1, "")) == -1.0 and behind(DealOutcome(0, 2, "")) == 0.0
    assert behind(DealOutcome(0, 3, "")) == 1.0
    carry = make_utility("match", info(2, 1, [[0, 2]], carried=1), 0)  # O66-SCORE-2: 1 + 1 carried ties
    assert carry(DealOutcome(0, 1, "")) == 0.0
    early = make_deal_limit_utility(info(5, 0, []), 0)
    vals = [early(DealOutcome(1, 3, "")), early(DealOutcome(1, 1, "")), early(DealOutcome(-1, 0, "")),
            early(DealOutcome(0, 1, "")), early(DealOutcome(0, 3, ""))]
    assert vals == sorted(vals) and len(set(vals)) == 5 and -1.0 < vals[0] and vals[-1] < 1.0
    later = make_deal_limit_utility(info(5, 3, [[0, 0]] * 3), 0)
    assert later(DealOutcome(0, 1, "")) > early(DealOutcome(0, 1, ""))  # fewer deals left to undo it
    to_target = make_utility("match", {"match": {"game_points": [5, 0], "target": 7}}, 0)
    for raw in (info(0, 0, []), info(1, 0, [], seats=3)):
        assert make_utility("match", raw, 0)(DealOutcome(0, 1, "")) < 1.0  # the match model, not the deal limit
    assert make_utility("match", info(1, 0, []), 0, deal_limit=False)(DealOutcome(0, 1, "")) < 1.0
    assert to_target(DealOutcome(0, 2, "")) == 1.0
    assert not StrongV1Bot.READS_DEAL_LIMIT and StrongBot.READS_DEAL_LIMIT


async def test_strong_thinks_without_blocking_the_event_loop() -> None:
    """achoose runs the search in a thread: a ticker on the same loop keeps running meanwhile."""
    import asyncio
    import time as _time

    from bummerl.bots import InfoSet, make_bot
    from bummerl.rules import information_set, new_match

    m = new_match("schnapsen-at", seed=5)
    info = InfoSet(information_set(m, m.to_act))
    bot = make_bot("strong:budget_ms=300,seed=1")
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    t = asyncio.create_task(ticker())
    t0 = _time.perf_counter()
    action = await bot.achoose(info)
    elapsed = _time.perf_counter() - t0
    t.cancel()
    assert int(action) in {int(a["id"]) for a in info.legal_actions}
    # the loop ran while the bot thought: a search on the loop's thread would let the ticker run
    # no step before the answer (0 ticks); a thread lets it run, however few steps a loaded machine
    # gives it (3 ticks were asked before, and a run at load average 6 saw 2 in 440 ms)
    assert elapsed < 0.05 or ticks >= 1


# ------------------------------------------------------------------------------------ inference
@pytest.mark.parametrize("variant", VARIANTS)
def test_inference_rebuilds_the_opponents_past_choices(variant: str) -> None:
    """PublicDeal.opp_decisions lists the opponent's choices made while the talon was open, and
    past_state rebuilds the deal as it stood before each one: given the opponent's true hand of
    that time, its legal actions are the engine's, the choice taken is among them, and the rule
    policy (the inference's model of him) picks what it picks on the engine's own deal.
    past_hands, from his hand now, gives hands of the right size made of cards he held at some
    time (undoing his draws, which are face down, it must guess which card he drew)."""
    from bummerl.bots.strong import policy

    checked = 0
    rng = random.Random(1)
    for seed in range(4):
        bots = [make_bot("greedy"), make_bot("greedy")]
        m = MatchState(find(variant), 50 + seed, max_deals=1)
        truth: dict[int, list[tuple[int, DealState]]] = {0: [], 1: []}  # per seat: (action, deal before it)
        while not m.over:
            s = m.to_act
            info = served(m, s)
            pub = PublicDeal(info.raw)
            opp = pub.opp
            # the opponent's open-talon choices, from the engine's own record of them
            real = [(a, d) for a, d in truth[opp] if not d.strict and d.phase in (0, 1) and not d.pending
                    and not (A.MARRIAGE <= a < A.EXCHANGE and d.turn_marriages)]
            real = [(a, d) for a, d in real if a != A.EXCHANGE and a != A.CLOSE and a != A.DECLARE]
            assert [x for _, x in pub.opp_decisions] == [
                A.MARRIAGE + (a - A.MARRIAGE) // 2 * 2 if A.MARRIAGE <= a < A.ANNOUNCE else a for a, _ in real]
            held = m.deal.hands[opp]  # every card he held at some time
            for _, d in truth[opp]:
                held |= d.hands[opp]
            hands = pub.past_hands(m.deal.hands[opp], rng)
            for k, (a, d) in enumerate(real):
                true_hand = d.hands[opp]
                st = pub.past_state(k, true_hand)
                assert st.legal_actions() == d.legal_actions()
                assert a in st.legal_actions()
                assert policy(st) == policy(d.copy())
                assert hands[k].bit_count() == true_hand.bit_count()
                assert hands[k] & ~held == 0
                checked += 1
            a = bots[s].choose(info)
            a = a if isinstance(a, int) else A.parse_action(a) if not a.isdigit() else int(a)
            truth[s].append((a, m.deal.copy()))
            m.apply(a)
    assert checked > 20


def test_inference_weighs_sampled_deals_by_the_opponents_choices() -> None:
    """A deal in which the opponent's past choices are the model's own weighs 1, one in which he
    passed up the model's marriage weighs MISS["marriage"] ** strength less; the sampler's picks
    are consistent layouts, repeatable from the generator, and strength 0 infers nothing."""
    from bummerl.bots.strong import MISS, Inference

    rules = find("schnapsen-at")
    found = 0
    for seed in range(200):
        m = MatchState(rules, seed, max_deals=1)
        rng = random.Random(seed)
        # the opponent (seat 1 here) leads a plain card while the policy would announce a marriage
        while not m.over and found < 3:
            s = m.to_act
            legal = m.legal_actions()
            marriages = [a for a in legal if A.MARRIAGE <= a < A.ANNOUNCE]
            if s == 1 and m.deal.phase == 0 and marriages and A.EXCHANGE not in legal and not m.deal.strict:
                plain = [a for a in legal if a < A.MARRIAGE and not (m.deal.hands[1] >> a & 1 and a % 6 in (K.KING, K.QUEEN))]
                if plain:
                    m.apply(plain[0])
                    if m.over or m.deal.strict or m.to_act != 0:
                        break
                    pub = PublicDeal(served(m, 0).raw)
                    inf = Inference(pub, 1.0, 4)
                    k = len(pub.opp_decisions) - 1
                    hand = m.deal.hands[1]
                    pred, miss = inf.predicted(k, pub.past_hands(hand, random.Random(0))[k])
                    assert A.MARRIAGE <= pred < A.ANNOUNCE and miss == MISS["marriage"]
                    assert inf.likelihood(hand, random.Random(0)) <= MISS["marriage"]
                    assert Inference(pub, 2.0, 4).likelihood(hand, random.Random(0)) <= MISS["marriage"] ** 2
                    assert Inference(pub, 0.0, 4).likelihood(hand, random.Random(0)) == 1.0
                    picks = [inf.sample(random.Random(7)) for _ in range(2)]
                    assert picks[0] == picks[1]
                    opp_hand, talon = picks[0]
                    assert opp_hand & pub.opp_known == pub.opp_known and opp_hand & ~(pub.unseen | pub.opp_known) == 0
                    assert opp_hand.bit_count() == pub.opp_size and len(talon) == pub.talon_hidden
                    found += 1
                    break
            m.apply(rng.choice([a for a in legal if a not in (A.DECLARE, A.CLOSE)] or legal))
        if found >= 3:
            break
    assert found >= 3


def test_a_close_is_valued_with_one_lead_for_every_sampled_deal() -> None:
    """close_lead: the closer's first lead after closing is the same on every sampled deal (he
    does not see the opponent's hand), so a close is worth the best lead's mean over the samples,
    never more than the mean of each sample's best lead (plain PIMC, close_lead=false) and less
    somewhere; the other actions' values are unchanged (same samples: no pruning, no time limit)."""
    lower = 0
    seen = 0
    for m in positions("schnapsen-at", 300, seed=31, close_p=0.0):
        if A.CLOSE not in m.legal_actions() or m.deal.trick_no < 2:
            continue
        info = served(m, m.to_act)
        fused = make_bot("strong:samples=6,seed=3,infer=0,prune=false,close_lead=false")
        fixed = make_bot("strong:samples=6,seed=3,infer=0,prune=false,close_lead=true")
        fused.choose(info)
        fixed.choose(info)
        a, b = fused.last_stats.get("means", {}), fixed.last_stats.get("means", {})
        if A.CLOSE not in a or A.CLOSE not in b:
            continue
        seen += 1
        assert b[A.CLOSE] <= a[A.CLOSE] + 1e-9
        lower += b[A.CLOSE] < a[A.CLOSE] - 1e-9
        assert {x: v for x, v in a.items() if x != A.CLOSE} == {x: v for x, v in b.items() if x != A.CLOSE}
        if lower:
            break
    assert lower
