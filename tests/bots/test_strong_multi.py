"""``strong`` in the three- and four-player games (issue 24) and ``strong-v1``.

Contract deals (§9-§12): every sampled deal replays the public history and gives the seat the
information set it has (§14.1), the voids it infers from strict play (DEF-PLAY-STRICT,
OPEN-GEN-3) never exclude a card the other seat really holds, and the exact search agrees with a
plain minimax over the engine. Rotation deals (§7 STK-INH-1, §8 HU3R-INH-1) and the play-off deals
of the contract games are read as two-player deals. Bots see the information set as the API serves
it (engine dict -> protobuf -> JSON). No timed assertions: bots run with a sample count and no
time limit."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from bummerl.api.codec import information_set_to_pb
from bummerl.bots import GreedyBot, StrongBot, StrongV1Bot, make_bot
from bummerl.bots.contract_search import Solver, outcome_value, play_copy
from bummerl.rules import DealState, MatchState, find_variant, list_variants, parse_action
from bummerl.rules import information_set as engine_infoset
from bummerl.rules.deals.contract import ContractDeal
from bummerl.rules.worlds import ContractSampler, PublicDeal, is_rotation_deal, local_view
from bummerl_client import InfoSet
from bummerl_client.client import to_dict

MULTI = [v.id for v in list_variants() if v.num_players > 2]
CONTRACT = [v for v in MULTI if find_variant(v).deal_class is not None and issubclass(find_variant(v).deal_class, ContractDeal)]
ROTATION = [v for v in MULTI if v not in CONTRACT]
FAST = "strong:samples=3,seed=7"


def act(a: int | str) -> int:
    return a if isinstance(a, int) else parse_action(a)


def endgame_leads(variant: str) -> Iterator[MatchState]:
    """Positions of random matches of ``variant`` (seed 2) where a contract deal's seat leads with
    at most two cards a hand left: small enough for a plain minimax over the engine."""
    for m in positions(variant, 400, seed=2):
        d = m.deal
        if isinstance(d, ContractDeal) and d.phase == "lead" and sum(bin(h).count("1") for h in d.hands) <= 2 * d.n:
            yield m


def random_position(rules: object, rng: random.Random, most: int, max_deals: int = 0) -> MatchState | None:
    """A match of ``rules`` after up to ``most - 1`` random actions (a new seed from ``rng``), or
    None if it is over by then."""
    m = MatchState(rules, rng.randrange(2**62), max_deals=max_deals)  # type: ignore[arg-type]
    for _ in range(rng.randrange(0, most)):
        if m.over:
            break
        m.apply(rng.choice(m.legal_actions()))
    return None if m.over else m


def served(m: MatchState, seat: int) -> dict:
    return to_dict(information_set_to_pb(engine_infoset(m, seat)))


def positions(variant: str, count: int, seed: int) -> list[MatchState]:
    """Positions (a seat to act with a choice) of matches of ``variant`` played by greedy and
    random seats mixed, so that auctions, lay-aways, kontras and play vary."""
    rng = random.Random(seed)
    rules = find_variant(variant).configure({})
    out: list[MatchState] = []
    while len(out) < count:
        m = MatchState(rules, rng.randrange(2**62), max_deals=2)
        greedy = [rng.random() < 0.5 for _ in range(rules.spec.num_players)]
        while not m.over and len(out) < count:
            legal = m.legal_actions()
            if len(legal) > 1 and rng.random() < 0.3:
                out.append(m.copy())
            s = m.to_act
            if greedy[s]:
                m.apply(act(GreedyBot().choose(InfoSet(engine_infoset(m, s)))))
            else:
                m.apply(rng.choice(legal))
    return out


_FIELDS = ("hand", "hand_sizes", "tricks_won", "current_trick", "laid_away", "phase", "to_act", "leader",
           "trump_suit", "talon_size", "auction", "marriages")


def _history(view: dict) -> list[dict]:
    return [{k: v for k, v in e.items() if k not in ("version", "deal_number")} for e in view["history"] if "deal_started" not in e]


@pytest.mark.parametrize("variant", CONTRACT)
def test_sampled_deals_replay_the_public_history_and_give_the_same_information_set(variant: str) -> None:
    """§14.1: a sampled deal, replayed on the engine, shows the seat exactly what it was shown:
    its hand, its laid-away cards, the auction, every public event; its legal actions too. The
    voids and "could not head" facts inferred from strict play (DEF-PLAY-STRICT, OPEN-GEN-3) hold
    for the real hands (the inference never excludes a card a seat holds)."""
    rng = random.Random(3)
    checked = 0
    for m in positions(variant, 60, seed=11):
        if isinstance(m.deal, DealState):
            continue  # a play-off deal (two-player): see the rotation test
        me = m.to_act
        raw = served(m, me)
        sampler = ContractSampler(raw)
        for s in range(m.num_seats):
            if s != me:
                assert sampler.forbidden[s] & m.deal.hands[s] == 0, (variant, s)
        for _ in range(3):
            d = sampler.sample(rng)
            view = to_dict(information_set_to_pb(dict(engine_infoset(m, me), deal=d.view(me))))["deal"]
            for k in _FIELDS:
                assert view.get(k) == raw["deal"].get(k), (variant, k)
            assert _history(view) == _history(raw["deal"])
            assert sorted(d.legal_actions()) == sorted(int(a["id"]) for a in raw["legal_actions"])
            checked += 1
    assert checked >= 60


@pytest.mark.parametrize("variant", ROTATION + ["talonschnapsen"])
def test_rotation_and_playoff_deals_read_as_two_player_deals(variant: str) -> None:
    """STK-INH-1 / HU3R-INH-1 (and the play-off deals of TS-MATCH-1): the seat's information set
    in deal seats rebuilds a consistent two-player public deal with the seat's own hand."""
    seen = 0
    for m in positions(variant, 80, seed=5):
        raw = served(m, m.to_act)
        if not is_rotation_deal(raw):
            continue
        local = local_view(raw)
        pub = PublicDeal(local)
        assert local["num_seats"] == 2 and pub.hand == m.deal.hands[m.deal.seats.index(m.to_act)]
        assert pub.opp_size == bin(m.deal.hands[1 - m.deal.seats.index(m.to_act)]).count("1")
        seen += 1
    if variant in ROTATION:
        assert seen >= 40


def _minimax(d: ContractDeal, me: int) -> float:
    if d.phase == "over":
        return outcome_value(d, me)
    vals = []
    for a in d.legal_actions():
        c = d.copy()
        c.step(a)
        vals.append(_minimax(c, me))
    return max(vals) if d.side[d.to_act] == d.side[me] else min(vals)


@pytest.mark.parametrize("variant", CONTRACT)
def test_exact_search_equals_plain_minimax_over_the_engine(variant: str) -> None:
    """The alpha-beta (with its cache and cheap copies) of the trick play gives the value of a
    plain minimax over the engine's own ``copy``/``step``, sides playing for their side."""
    compared = 0
    for m in endgame_leads(variant):
        d = m.deal
        me = d.to_act
        assert Solver(me).solve(play_copy(d)) == _minimax(d.copy(), me)
        compared += 1
        if compared >= 12:
            break
    assert compared >= 3


@pytest.mark.parametrize("variant", MULTI)
def test_strong_plays_legal_actions_to_the_end_of_matches(variant: str) -> None:
    """Every decision is legal (the engine would raise) and the match ends, strong in every seat
    kind: alone against greedy and (four seats) with a strong partner."""
    rules = find_variant(variant).configure({})
    n = rules.spec.num_players
    for seed in (1, 2):
        bots = [make_bot(FAST if s % 2 == seed % 2 or n == 3 and s == seed else "greedy", s) for s in range(n)]
        m = MatchState(rules, seed, max_deals=3)
        while not m.over:
            s = m.to_act
            m.apply(act(bots[s].choose(InfoSet(served(m, s)))))
        assert m.over


@pytest.mark.parametrize("variant", MULTI)
def test_strong_is_repeatable_from_its_seed_and_v1_plays_as_greedy_there(variant: str) -> None:
    """Without a time limit a decision depends only on the information set and the seed; in the
    3-4 player games ``strong-v1`` keeps issue 11's behaviour (greedy's rules)."""
    for m in positions(variant, 6, seed=9):
        raw = served(m, m.to_act)
        a = make_bot("strong:samples=3,seed=4").choose(InfoSet(raw))
        assert a == make_bot("strong:samples=3,seed=4").choose(InfoSet(raw))
        assert a in {int(x["id"]) for x in raw["legal_actions"]}
        v1 = make_bot("strong-v1:samples=3,seed=4").choose(InfoSet(raw))
        assert v1 == act(GreedyBot().choose(InfoSet(raw)))


def test_strong_v1_is_todays_strong_in_two_player_games() -> None:
    """``strong-v1`` decides exactly as ``strong`` with its defaults (no inference, no
    ``close_lead``) in the two-player variants (same search) in whole matches (in a game of N deals
    ``strong`` plays for its deal limit, ``match.max_deals``, which ``strong-v1`` does not read),
    and takes neither option."""
    rules = find_variant("schnapsen-at").configure({})
    rng = random.Random(4)
    for _ in range(8):
        m = random_position(rules, rng, 8)
        if m is None:
            continue
        raw = served(m, m.to_act)
        assert make_bot("strong-v1:samples=4,seed=2").choose(InfoSet(raw)) == make_bot("strong:samples=4,seed=2").choose(InfoSet(raw))
    assert isinstance(make_bot("strong-v1"), StrongV1Bot) and isinstance(make_bot("strong-v1"), StrongBot)
    with pytest.raises(ValueError, match="unknown option 'nope' for bot 'strong-v1'"):
        make_bot("strong-v1:nope=1")
    for opt in ("infer", "worlds", "close_lead"):
        with pytest.raises(ValueError, match=f"unknown option '{opt}' for bot 'strong-v1'"):
            make_bot(f"strong-v1:{opt}=1")
    assert make_bot("strong-v1").infer == 0.0 and make_bot("strong:infer=1").infer == 1.0


def test_strong_team_beats_greedy_team_in_a_few_bauernschnapsen_deals() -> None:
    """A smoke figure, not a benchmark (``bummerl bench strong --variant multi`` is): over six
    duplicate sets of single deals (the strong team in both partnership positions), the strong
    team scores more game points than the greedy team."""
    rules = find_variant("bauernschnapsen").configure({})
    margin = 0
    for k in range(6):
        for leg in (0, 1):
            bots = [make_bot("strong:samples=6,seed=1" if s % 2 == leg else "greedy", s) for s in range(4)]
            m = MatchState(rules, 500 + k, max_deals=1)
            while not m.over:
                s = m.to_act
                m.apply(act(bots[s].choose(InfoSet(served(m, s)))))
            gp = m.results[0].game_points
            margin += gp[leg] - gp[1 - leg]
    assert margin > 0


def test_bench_strong_plays_complete_duplicate_sets_at_three_and_four_seats() -> None:
    """``bummerl bench strong`` at 3-4 seats: every seating of the bot (3 games a set) or of its
    team (2 games), the set as the unit of the Elo estimate, no pentanomial."""
    from bummerl_bench.benches import bench_strong, seated_legs

    assert seated_legs(3) == [[1, 0, 0], [0, 1, 0], [0, 0, 1]] and seated_legs(4) == [[1, 0, 1, 0], [0, 1, 0, 1]]
    for variant, games in (("talonschnapsen", 3), ("snapszer-hu-4p", 2)):
        (r,) = bench_strong(2, variant, "strong:samples=1,seed=1", "greedy", deals=1)
        assert r["pairs"] == 2 and r["pentanomial"] is None and r["unit"].startswith(f"set of {games} games")
        assert r["decisions"] > 0 and 0 <= r["score"] <= 1 and "elo_ci95" in r


def test_rotation_utility_weighs_the_seat_that_sits_out_STK_SCORE_1_HU3R_SCORE_1() -> None:
    """A rotation deal's outcome is valued against both other seats. In Stockschnapsen the seat
    sitting out is credited the deal's game points too (STK-SCORE-1): a deal lost costs against
    both others, a deal won gains against one only, so at level scores a loss weighs twice a win
    of the same game points. In the Hungarian game (HU3R-SCORE-1) nobody else is credited: a win
    gains against both others, a loss costs against one, the other way round.
    Outcomes are in deal seats (``deal.seats`` = [2, 0]: deal seat 1 is match seat 0)."""
    from bummerl.bots.utility import make_rotation_utility
    from bummerl.rules import DealOutcome

    def raw(variant: str, gp: list[int]) -> dict:
        return {"variant": variant, "seat": 0, "num_seats": 3, "deal": {"seats": [2, 0]},
                "match": {"game_points": gp, "target": 7}}

    stock = make_rotation_utility(raw("stockschnapsen", [0, 0, 0]))
    hu = make_rotation_utility(raw("snapszer-hu-3p-rotation", [0, 0, 0]))
    assert stock is not None and hu is not None
    for g in (1, 2, 3):
        win, loss = DealOutcome(1, g, ""), DealOutcome(0, g, "")
        assert 0 < stock(win) == pytest.approx(-stock(loss) / 2)
        assert 0 < hu(win) == pytest.approx(-2 * hu(loss))
    assert [stock(DealOutcome(1, g, "")) for g in (1, 2, 3)] == sorted({stock(DealOutcome(1, g, "")) for g in (1, 2, 3)})
    # reaching 7 first is first place whatever the others hold
    end = make_rotation_utility(raw("stockschnapsen", [6, 5, 0]))
    assert end is not None and end(DealOutcome(1, 1, "")) == pytest.approx(1.0)
    # a seat that does not play the deal, or a two-player table: none
    assert make_rotation_utility({**raw("stockschnapsen", [0, 0, 0]), "seat": 1}) is None
    assert make_rotation_utility({"num_seats": 2, "seat": 0, "deal": {"seats": [0, 1]}}) is None


def test_strong_levels_are_presets_of_the_sample_count() -> None:
    """``strong:level=1..5`` (ladders): more sampled deals per level, no time limit; an option
    given with a level overrides its preset; other levels are refused."""
    bots = [make_bot(f"strong:level={k}") for k in range(1, 6)]
    assert all(isinstance(b, StrongBot) and b.budget_ms == 0 for b in bots)
    samples = [b.samples for b in bots]
    assert samples == sorted(set(samples)) and samples[0] == 1 and bots[0].min_samples == 1
    blunders = [b.blunder for b in bots]
    assert blunders == sorted(blunders, reverse=True) and blunders[0] > 0 and blunders[-1] == 0
    b = make_bot("strong:level=5,samples=10,seed=3")
    assert (b.samples, b.seed) == (10, 3)
    for bad in ("strong:level=0", "strong:level=6", "strong:level=x"):
        with pytest.raises(ValueError, match="level"):
            make_bot(bad)
    m = MatchState(find_variant("schnapsen-at").configure({}), 5, max_deals=1)
    seats = [make_bot("strong:level=1,seed=1"), GreedyBot(2)]
    while not m.over:
        m.apply(act(seats[m.to_act].choose(InfoSet(served(m, m.to_act)))))
    assert seats[0].decisions > 3


@pytest.mark.parametrize("variant", ["schnapsen-at", "snapszer-hu-4p"])
def test_strong_blunder_plays_a_random_card_and_nothing_else(variant: str) -> None:
    """``blunder`` (the lower levels' handicap): with chance ``blunder`` a decision among two or
    more cards plays one of them at random; a decision of another kind (a bid, a marriage, a close,
    a trump, a kontra) is always searched. Repeatable for a seed; 0..1 only; not an option of
    ``strong-v1``."""
    rules = find_variant(variant).configure({})
    rng = random.Random(4)
    slips = searched = others = 0
    # a two-player deal seldom offers a choice without two playable cards; the contract deals'
    # auctions, trump naming and kontras often do
    want = 1 if variant == "schnapsen-at" else 10
    for _ in range(400):
        m = random_position(rules, rng, 30, 1)
        if m is None or len(m.legal_actions()) < 2:
            continue
        raw = served(m, m.to_act)
        cards = [int(a["id"]) for a in raw["legal_actions"] if int(a["id"]) < 24]
        plain = make_bot("strong:samples=2,min_samples=1,seed=3").choose(InfoSet(raw))
        always = make_bot("strong:samples=2,min_samples=1,seed=3,blunder=1").choose(InfoSet(raw))
        assert always == make_bot("strong:samples=2,min_samples=1,seed=3,blunder=1").choose(InfoSet(raw))
        assert plain == make_bot("strong:samples=2,min_samples=1,seed=3,blunder=0").choose(InfoSet(raw))
        if len(cards) >= 2:
            assert always in cards
            slips += always != plain
            searched += 1
        else:
            assert always == plain
            others += 1
        if searched >= 25 and others >= want:
            break
    assert searched >= 25 and others >= want and slips >= 5
    for bad in ("strong:blunder=-0.1", "strong:blunder=1.5"):
        with pytest.raises(ValueError, match="blunder"):
            make_bot(bad)
    with pytest.raises(ValueError, match="unknown option 'blunder'"):
        make_bot("strong-v1:blunder=0.1")
    # strong-v1 takes the levels' sample counts without the handicap
    v1 = make_bot("strong-v1:level=1")
    assert isinstance(v1, StrongV1Bot) and v1.samples == 1 and v1.blunder == 0.0


def _utility_minimax(d: ContractDeal, me: int, utility) -> float:
    if d.phase == "over":
        return utility(tuple(d.outcome.awards))
    vals = []
    for a in d.legal_actions():
        c = d.copy()
        c.step(a)
        vals.append(_utility_minimax(c, me, utility))
    return max(vals) if d.side[d.to_act] == d.side[me] else min(vals)


def _at_deal(variant: str, seed: int, deal: int, deals: int) -> MatchState:
    """A match of ``deals`` deals played by ``greedy`` up to the first choice of deal ``deal``."""
    rules = find_variant(variant).configure({})
    m = MatchState(rules, seed, max_deals=deals)
    while m.deal_number < deal or len(m.legal_actions()) < 2:
        s = m.to_act
        m.apply(act(GreedyBot().choose(InfoSet(engine_infoset(m, s)))))
    return m


@pytest.mark.parametrize("variant", ["snapszer-hu-3p-sopron", "snapszer-hu-4p"])
def test_placement_utility_in_the_last_deal_is_the_benchs_placement_score(variant: str) -> None:
    """SRV-5 deal limit: in the last deal of a game the placement utility is the placement score
    the game will get (``ladder.stats.placement_scores`` of the totals after the deal, what
    ``bummerl bench strong`` scores), scaled to [-PLACE_SCALE, PLACE_SCALE], plus the margin tie-break."""
    from bummerl.bots.contract_search import MARGIN_TIE, PLACE_SCALE, make_placement_utility
    from bummerl.ladder.stats import placement_scores
    from bummerl.rules.match.plans import placements_by_score

    rules = find_variant(variant).configure({})
    n = rules.spec.num_players
    team_of = rules.spec.team_of_seat
    rng = random.Random(4)
    for seed in (1, 2, 3):
        m = _at_deal(variant, seed, n - 1, n)
        me = m.to_act
        u = make_placement_utility(served(m, me), n)
        assert u is not None
        totals = [sum(r.game_points[s] for r in m.results) for s in range(n)]
        others = sorted({team_of[s] for s in range(n)} - {team_of[me]})
        rep = [team_of.index(t) for t in others]
        for _ in range(40):
            awards = tuple(rng.choice([0, 0, 1, 2, 3, 6, 12]) for _ in range(n))
            if n == 4:  # partners are credited alike (HU4-CON-1)
                awards = tuple(awards[s % 2] for s in range(n))
            after = [totals[s] + awards[s] for s in range(n)]
            score = placement_scores(placements_by_score(after, team_of), team_of)[me]
            margin = sum(after[me] - after[j] for j in rep) / len(rep)
            assert u(awards) == pytest.approx(PLACE_SCALE * (2 * score - 1) + MARGIN_TIE * margin)


def test_placement_utility_before_the_last_deal() -> None:
    """HU3S-SEAT-1 / HU3S-CON-9: before the last deal the utility grows with the seat's own credit
    and falls with another's, stays inside the placement scale, and counts against a seat only
    the deals left that set the two against each other (a seat that is hívó in no deal left
    against us: its margin is final, so the utility is a step in it). No horizon: no utility."""
    from bummerl.bots.contract_search import MARGIN_TIE, PLACE_SCALE, make_placement_utility

    m = _at_deal("snapszer-hu-3p-sopron", 5, 0, 3)
    me = m.to_act
    raw = served(m, me)
    assert make_placement_utility(raw, 0) is None
    u = make_placement_utility(raw, 3)
    assert u is not None
    zero = (0, 0, 0)
    for s in range(3):
        up = tuple(2 if x == s else 0 for x in range(3))
        assert (u(up) > u(zero)) == (s == me) and (u(up) < u(zero)) == (s != me)
    assert abs(u((24, 0, 0))) <= PLACE_SCALE + MARGIN_TIE * 24 + 1e-9
    # deal 0 of 3: hívó = dealer + 1; the two seats left as hívó are the other two, so every other
    # seat meets us once more: no step anywhere
    assert 0 < u((1, 0, 0)) - u(zero) < PLACE_SCALE
    # deal 1 of 3 for a seat: against the hívó of deal 2 one deal is left, against the other none
    m = _at_deal("snapszer-hu-3p-sopron", 5, 1, 3)
    raw = served(m, m.to_act)
    me = m.to_act
    u = make_placement_utility(raw, 3)
    last_hivo = (int(raw["match"]["dealer"]) + 2) % 3
    totals = [sum(r.game_points[s] for r in m.results) for s in range(3)]
    assert u is not None and last_hivo != me  # this deal (seed 5): we are fogadó in deal 2
    other = next(s for s in range(3) if s not in (me, last_hivo))
    level = totals[other] - totals[me]  # a credit that brings us level with ``other``
    assert level > 0

    def credit(x: int) -> tuple[int, ...]:
        return tuple(x if s == me else 0 for s in range(3))
    jump = u(credit(level + 1)) - u(credit(level))
    assert jump >= PLACE_SCALE / 2 * 0.99  # half of the placement against ``other`` (of two seats)
    assert u(credit(level + 2)) - u(credit(level + 1)) < jump / 2  # past it, only the smooth part


@pytest.mark.parametrize("variant", ["snapszer-hu-3p-sopron", "talonschnapsen"])
def test_exact_search_with_the_placement_utility_equals_plain_minimax(variant: str) -> None:
    """The alpha-beta valuing outcomes by the placement utility equals a plain minimax over the
    engine with the same utility (sides playing for their side)."""
    from bummerl.bots.contract_search import make_placement_utility

    compared = 0
    for m in endgame_leads(variant):
        d = m.deal
        me = d.to_act
        u = make_placement_utility(served(m, me), m.deal_number + 1 + compared % 2)
        assert u is not None
        assert Solver(me, u).solve(play_copy(d)) == pytest.approx(_utility_minimax(d.copy(), me, u))
        compared += 1
        if compared >= 10:
            break
    assert compared >= 3


def test_strong_takes_the_horizon_option() -> None:
    """``horizon`` and ``spread`` are options of ``strong`` (validated), not of ``strong-v1``."""
    bot = make_bot("strong:samples=2,seed=1,horizon=3,spread=3.5", 0)
    assert isinstance(bot, StrongBot) and bot.horizon == 3 and bot.spread == 3.5
    with pytest.raises(ValueError):
        make_bot("strong:horizon=-1", 0)
    with pytest.raises(ValueError):
        make_bot("strong-v1:horizon=3", 0)


def _kontra_taken(seed: int) -> tuple[MatchState, int, int, int] | None:
    """A ``snapszer-hu-3p-sopron`` deal in which a fogadó said kontra by taking up the hívó's
    laid-away cards (HU3S-KON-2), at the taker's first card decision: (match, taker, the cards
    taken up, the hívó's 8 cards before laying away). ``greedy`` plays, except that the first
    fogadó who may says kontra."""
    from bummerl.rules import actions as RA

    rules = find_variant("snapszer-hu-3p-sopron").configure({})
    m = MatchState(rules, seed, max_deals=1)
    taker, before, hand8 = -1, 0, 0
    while not m.over:
        s = m.to_act
        legal = m.legal_actions()
        if taker < 0 and RA.KONTRA in legal:
            hivo = next(x for x in range(3) if m.deal.laid_away[x])
            taker, before = s, m.deal.hands[s]
            hand8 = m.deal.hands[hivo] | m.deal.laid_away[hivo]
            m.apply(RA.KONTRA)
            continue
        if taker >= 0 and s == taker and m.deal.phase in ("lead", "follow") and len(legal) > 1:
            return m, taker, (m.deal.hands[s] | m.deal.laid_away[s]) & ~before, hand8
        m.apply(act(GreedyBot().choose(InfoSet(engine_infoset(m, s)))))
    return None


def test_lay_away_model_gives_the_hivo_the_cards_taken_up_and_is_a_distribution() -> None:
    """HU3S-KON-2 / HU3S-TAL-1: told the cards it took up, the taker's samples lay exactly those
    cards away for the hívó (the engine's record of the take-up), every sample still replays to
    the seat's information set; :meth:`lay_likelihood` sums to 1 over the pairs of an 8-card hand
    and prefers cheap side cards."""
    from itertools import combinations

    from bummerl.rules import cards as RK

    found = 0
    for seed in range(1, 40):
        got = _kontra_taken(seed)
        if got is None:
            continue
        m, taker, took, hand8 = got
        assert bin(took).count("1") == 2 and bin(hand8).count("1") == 8 and took & hand8 == took
        raw = served(m, taker)
        sampler = ContractSampler(raw)
        assert sampler.taker == taker
        sampler.know_taken(took, 2.0)
        assert sampler.took == took and sampler.lay_beta == 2.0
        rng = random.Random(seed)
        for _ in range(4):
            d = sampler.sample(rng)
            assert d.state["taken_up"][1] == took
            assert d.hands[taker] == m.deal.hands[taker]
            assert sorted(d.legal_actions()) == sorted(int(a["id"]) for a in raw["legal_actions"])
        pairs = [RK.mask_of(list(p)) for p in combinations(RK.cards_of(hand8), 2)]
        liks = {p: sampler.lay_likelihood(hand8, p) for p in pairs}
        assert sum(liks.values()) == pytest.approx(1.0)

        pts, named = m.rules.points, sampler.named
        cost = {p: sum(pts[c] + 100 * (c // 6 == named) for c in RK.cards_of(p)) for p in pairs}
        assert liks[min(pairs, key=cost.__getitem__)] > liks[max(pairs, key=cost.__getitem__)]
        found += 1
        if found >= 3:
            break
    assert found >= 3


def test_hivo_decisions_take_their_own_depth_and_samples() -> None:
    """``hivo_exact`` / ``hivo_samples``: the hívó's decisions (HU3S-SEAT-1: left of the dealer)
    are searched on ``hivo_samples`` sampled deals, every other seat's on ``samples``."""
    bot = make_bot("strong:samples=7,seed=1,hivo_exact=4,hivo_samples=5", 0)
    seen = {True: 0, False: 0}
    for m in positions("snapszer-hu-3p-sopron", 40, seed=8):
        if not isinstance(m.deal, ContractDeal):
            continue
        s = m.to_act
        bot.choose(InfoSet(served(m, s)))
        hivo = s == m.deal.hivo
        assert bot.last_stats["samples"] == (5 if hivo else 7)
        seen[hivo] += 1
    assert seen[True] >= 3 and seen[False] >= 3


@pytest.mark.parametrize("variant", ["snapszer-hu-3p-sopron", "talonschnapsen"])
def test_strong_takes_its_horizon_from_the_information_set_SRV_5(variant: str) -> None:
    """By default ``strong`` reads the game's deal limit (``match.max_deals``, SRV-5) as its
    ``horizon``: in a 3-deal game it decides as ``horizon=3`` does, in a whole match as
    ``horizon=0`` (the game-point margin); an explicit ``horizon`` overrides the information set."""
    rules = find_variant(variant).configure({})
    rng = random.Random(11)
    checked = 0
    for _ in range(12):
        for limit in (3, 0):
            m = random_position(rules, rng, 6, limit)
            if m is None:
                continue
            raw = served(m, m.to_act)
            plain = make_bot("strong:samples=6,seed=3").choose(InfoSet(raw))
            assert plain == make_bot(f"strong:samples=6,seed=3,horizon={limit}").choose(InfoSet(raw))
            checked += 1
    assert checked >= 16 and make_bot("strong").horizon is None
