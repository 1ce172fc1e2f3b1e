"""``bummerl bench strong``: a bot against another over duplicate deal pairs (two seats) or
duplicate sets under every seating (3-4 seats), per variant: Elo difference with a 95% interval,
mean decision time (:func:`bench_strong`)."""

from __future__ import annotations

import math
import random
import statistics
import time
from typing import Any

from bummerl.rules import TalonDeal, actions, find_variant, parse_action

DECLARE = actions.DECLARE
OVER = TalonDeal.OVER


def _duplicate_pairs(variant: str, bot: str, opponent: str, pair_seeds: list[tuple[int, int, list[int]]],
                     deals: int = 1, tc: str | None = None) -> dict[str, Any]:
    """Play duplicate pairs in this process (a worker of :func:`bench_strong`): for each ``(pair,
    seed, suit_perm)`` the decks of ``seed`` twice, ``bot`` at seat 0 then at seat 1 with the suits
    relabelled (as ladder duplicate pairs are, ladder/service.py). A game is ``deals`` deals (the
    SRV-5 deal limit; 0 = a whole match to the variant's target, AT-MATCH-1, O66-MATCH-1,
    HU2-MATCH-1: its deals follow the same decks in both games, the dealers as the match goes).
    ``tc`` (the CLI form, e.g. ``"5+0.1"``, :meth:`bummerl.core.clocks.TimeControl.parse`): both
    bots play under that time control on the wall clock, their information sets carry the clocks
    as the server's do, and a bot that exceeds its time loses the game (``timeout``, SRV-5).
    Bots decide from the engine's information set, which has the shape the API serves
    (:mod:`bummerl.rules.base.views`), without the round trip through protobuf."""
    from bummerl.core.clocks import Clocks, TimeControl
    from bummerl.rules import MatchState, information_set
    from bummerl_bench.oracle import OracleBot
    from bummerl_client import InfoSet

    rules = find_variant(variant).configure({})
    control = TimeControl.parse(tc) if tc else None
    out: dict[str, Any] = {"pairs": [], "gp": [], "decisions": 0, "think_s": 0.0, "actions": 0, "cpu_s": 0.0,
                           "opp_decisions": 0, "opp_think_s": 0.0, "opp_cpu_s": 0.0, "deals": 0, "timeouts": 0,
                           "opp_timeouts": 0}

    def now_ms() -> int:
        return int(time.monotonic() * 1000)

    for pair, seed, perm in pair_seeds:
        scores = []
        margin = 0
        played = 0
        for leg in (0, 1):
            me = leg  # the bot's seat
            b = _bench_bot(bot, pair * 2 + leg)
            o = _bench_bot(opponent, pair * 2 + 1 - leg)
            seats = [b, o] if leg == 0 else [o, b]
            m = MatchState(rules, seed, max_deals=deals, suit_perm=perm if leg else ())
            clocks = Clocks.start(control, 2, m.to_act, now_ms()) if control else None
            while not m.over:
                s = m.to_act
                info = information_set(m, s)
                if clocks is not None and control is not None:
                    info = {**info, "clocks": clocks.view(now_ms()), "time_control": control.to_dict()}
                if isinstance(seats[s], OracleBot):
                    seats[s].see(m, s)  # the clairvoyant reference (bummerl_bench.oracle) sees the deal
                c0 = time.process_time()
                a = seats[s].choose(InfoSet(info))
                out["cpu_s" if s == me else "opp_cpu_s"] += time.process_time() - c0
                if clocks is not None and clocks.expired(now_ms()):
                    m.concede(s, "timeout")  # SRV-5: the seat out of time loses the game
                    out["timeouts" if s == me else "opp_timeouts"] += 1
                    break
                deal = m.deal_number
                m.apply(a if isinstance(a, int) else int(a) if a.strip().isdigit() else parse_action(a))
                out["actions"] += 1
                if clocks is not None:
                    clocks = clocks.after_action(s, now_ms(), m.to_act, m.deal_number != deal)
            scores.append(0.5 if m.winner < 0 else float(m.winner == me))
            for res in m.results:
                if not res.playoff:
                    margin += res.game_points[me] - res.game_points[1 - me]
                    played += 1
            out["decisions"] += getattr(b, "decisions", 0)
            out["think_s"] += getattr(b, "think_s", 0.0)
            out["opp_decisions"] += getattr(o, "decisions", 0)
            out["opp_think_s"] += getattr(o, "think_s", 0.0)
        out["pairs"].append(sum(scores) / 2)
        out["gp"].append(margin / max(1, played))
        out["deals"] += played
    return out


def _bench_bot(spec: str, seed: int | None) -> Any:
    """A bot of a two-seat benchmark: :func:`bummerl_bench.oracle.bench_bot` (bundled bots and the
    clairvoyant ``oracle``) or the plain ISMCTS reference ``ismcts-ref`` (:mod:`bummerl_bench.ismcts_ref`)."""
    from bummerl_bench.ismcts_ref import is_ismcts_ref, make_ref
    from bummerl_bench.oracle import bench_bot

    return make_ref(spec, seed) if is_ismcts_ref(spec) else bench_bot(spec, seed)


def seated_legs(num_players: int) -> list[list[int]]:
    """The seatings of one duplicate set at a 3- or 4-seat table, as 1 = the bot under test, 0 =
    its opponent: three seats, the bot in each seat against two opponents; four seats (teams
    0&2 vs 1&3), the bot's team in each partnership position against a team of two opponents.
    These are all the seatings that differ once identical bots are not told apart (the ladder's
    ``seatings`` lists ``n!`` arrangements of distinct bots)."""
    if num_players == 4:
        return [[1, 0, 1, 0], [0, 1, 0, 1]]
    return [[1 if s == k else 0 for s in range(num_players)] for k in range(num_players)]


def _duplicate_sets(variant: str, bot: str, opponent: str, deals: int,
                    set_seeds: list[tuple[int, int, list[list[int]]]]) -> dict[str, Any]:
    """Play complete duplicate sets at a 3- or 4-seat table (a worker of :func:`bench_strong`):
    for each ``(set, seed, suit_perms)`` the deck plan of ``seed`` under every seating of
    :func:`seated_legs` (leg ``k`` with suit relabelling ``suit_perms[k]``, the first none), each
    game ``deals`` deals long. A game scores the bot's placement score (the share of the other
    teams placed behind its team, shared places half: ``ladder.stats.placement_scores``); a set
    scores the mean of its games. Bots decide from the engine's information set (the served shape)."""
    from bummerl.bots import make_bot
    from bummerl.ladder.stats import placement_scores
    from bummerl.rules import MatchState, information_set
    from bummerl_client import InfoSet

    rules = find_variant(variant).configure({})
    n = rules.spec.num_players
    team_of = rules.spec.team_of_seat
    out: dict[str, Any] = {"pairs": [], "gp": [], "decisions": 0, "think_s": 0.0, "actions": 0, "cpu_s": 0.0}
    for k, seed, perms in set_seeds:
        scores = []
        margin = 0.0
        for leg, seating in enumerate(seated_legs(n)):
            seats = [make_bot(bot if x else opponent, (k * 8 + leg) * n + s) for s, x in enumerate(seating)]
            m = MatchState(rules, seed, max_deals=deals, suit_perm=perms[leg] or ())
            while not m.over:
                s = m.to_act
                info = InfoSet(information_set(m, s))
                c0 = time.process_time()
                a = seats[s].choose(info)
                if seating[s]:
                    out["cpu_s"] += time.process_time() - c0
                m.apply(a if isinstance(a, int) else int(a) if a.strip().isdigit() else parse_action(a))
                out["actions"] += 1
            mine = [s for s in range(n) if seating[s]]
            scores.append(placement_scores(m.placements, team_of)[mine[0]])
            gp = [sum(r.game_points[s] for r in m.results) for s in range(n)]
            margin += (statistics.fmean(gp[s] for s in mine) - statistics.fmean(gp[s] for s in range(n) if not seating[s])) / max(1, len(m.results))
            for s in mine:
                out["decisions"] += getattr(seats[s], "decisions", 0)
                out["think_s"] += getattr(seats[s], "think_s", 0.0)
        out["pairs"].append(statistics.fmean(scores))
        out["gp"].append(margin / len(scores))
    return out


def bench_strong(pairs: int = 200, variant: str = "all", bot: str = "strong:samples=32,seed=1", opponent: str = "greedy",
                 jobs: int = 1, seed: int = 1, progress: Any = None, deals: int | None = None,
                 tc: str | None = None) -> list[dict[str, Any]]:
    """``bot`` against ``opponent`` over ``pairs`` duplicate deal pairs per variant (``all`` = every
    two-player variant): each deck is played twice, ``deals`` deals per game (default 1; 0 = whole
    matches to the variant's target, a pair of matches then being the unit), with the seats
    swapped and the suits relabelled in the second game; ``tc`` puts both bots under a time
    control (CLI form, e.g. ``"5+0.1"``; a bot out of time loses the game; ``timeouts`` and
    ``opponent_timeouts`` count them) (:func:`_duplicate_pairs`). Elo difference of ``bot`` over ``opponent`` with its
    95% interval and LOS from the pair scores (pentanomial, :mod:`bummerl.ladder.stats`), the mean
    game-point margin per deal, and ``bot``'s mean decision time in **milliseconds** (its own
    clock inside ``choose``). ``jobs`` worker processes share the pairs. Deterministic deals for a
    ``seed``; the bots' choices are deterministic only if they have no time limit. ``bot`` and
    ``opponent`` are bot specs (:func:`bummerl.bots.make_bot`) or, at two seats, ``oracle``:
    the clairvoyant reference of :mod:`bummerl_bench.oracle` (ValueError at three or four seats).

    Three- and four-seat variants (``multi`` = all six): ``pairs`` complete duplicate *sets*
    (:func:`_duplicate_sets`, every seating of :func:`seated_legs`), ``deals`` deals per game
    (default: as many as seats, so that each seat deals once and, in the rotation games, each pair
    plays once); the unit of the Elo
    estimate is the set, the score the bot's mean placement score, ``pentanomial`` is None and
    ``gp/deal`` is the bot's (team's) game points minus the opponents' mean per deal."""
    import concurrent.futures

    from bummerl.ladder.formats import fixed_suits, suit_perms
    from bummerl.ladder.stats import estimate, pentanomial
    from bummerl.rules import list_variants
    from bummerl_bench.ismcts_ref import is_ismcts_ref
    from bummerl_bench.oracle import is_oracle

    if variant in ("all", "multi"):
        variants = [v.id for v in list_variants() if (v.num_players == 2) == (variant == "all")]
    else:
        variants = [find_variant(variant).id]
    if (is_oracle(bot) or is_oracle(opponent)) and any(find_variant(v).num_players > 2 for v in variants):
        raise ValueError("the clairvoyant reference 'oracle' plays the two-seat variants only")
    if (is_ismcts_ref(bot) or is_ismcts_ref(opponent)) and any(find_variant(v).num_players > 2 for v in variants):
        raise ValueError("the plain ISMCTS reference 'ismcts-ref' plays the two-seat variants only")
    results = []
    for v in variants:
        rng = random.Random(f"bummerl/bench-strong/{seed}/{v}")
        spec = find_variant(v)
        n = spec.num_players
        if deals is not None and deals < 0:
            raise ValueError(f"deals must be >= 0 (0 = whole matches), not {deals}")
        if n > 2 and (deals == 0 or tc):
            raise ValueError("whole matches (deals 0) and a time control are measured at two seats only")
        game_deals = deals or n
        plan: list[Any] = []
        for i in range(pairs):
            if n > 2:
                legs = len(seated_legs(n))
                plan.append((i, rng.randrange(2**63), [[], *suit_perms(rng, legs - 1, fixed_suits(spec.configure({})))]))
                continue
            perm = [0, 1, 2, 3]
            while perm == [0, 1, 2, 3]:
                rng.shuffle(perm)
            plan.append((i, rng.randrange(2**63), perm))
        chunks = [plan[k::max(1, jobs * 4)] for k in range(max(1, jobs * 4))]

        pair_deals = 1 if deals is None else deals
        works = [((_duplicate_sets, v, bot, opponent, game_deals, c) if n > 2
                  else (_duplicate_pairs, v, bot, opponent, c, pair_deals, tc)) for c in chunks if c]

        t0 = time.perf_counter()
        merged: dict[str, Any] = {"pairs": [], "gp": [], "decisions": 0, "think_s": 0.0, "actions": 0, "cpu_s": 0.0,
                                  "opp_decisions": 0, "opp_think_s": 0.0, "opp_cpu_s": 0.0, "deals": 0, "timeouts": 0,
                                  "opp_timeouts": 0}
        if jobs > 1:
            with concurrent.futures.ProcessPoolExecutor(jobs) as ex:
                futs = [ex.submit(*w) for w in works]
                parts = []
                for f in concurrent.futures.as_completed(futs):
                    parts.append(f.result())
                    if progress:
                        progress(f"{v}: {sum(len(p['pairs']) for p in parts)}/{pairs} pairs")
        else:
            parts = [w[0](*w[1:]) for w in works]
        for p in parts:
            for k in merged:
                merged[k] += p.get(k, 0)
        est = estimate(merged["pairs"])

        def fin(x: float) -> float | None:  # JSON has no infinity: an unbounded figure is null
            return round(x, 1) if math.isfinite(x) else None

        results.append({
            "variant": v, "bot": bot, "opponent": opponent, "pairs": len(merged["pairs"]), "seed": seed,
            "elo": fin(est.elo), "elo_ci95": fin(est.elo_ci95),
            "elo_low": fin(est.elo_low), "elo_high": fin(est.elo_high),
            "los": round(est.los, 4), "score": round(est.score, 4),
            "pentanomial": pentanomial(merged["pairs"]) if n == 2 else None,
            "unit": (f"set of {len(seated_legs(n))} games, {game_deals} deal(s) each" if n > 2
                     else "pair of whole matches" if pair_deals == 0 else "pair" if pair_deals == 1
                     else f"pair of {pair_deals}-deal games"),
            "gp_margin_per_deal": round(statistics.fmean(merged["gp"]), 3) if merged["gp"] else 0.0,
            "mean_decision_ms": round(1000 * merged["think_s"] / max(1, merged["decisions"]), 2),
            # the bot's CPU time per decision (process time of the worker around ``choose``)
            "mean_decision_cpu_ms": round(1000 * merged["cpu_s"] / max(1, merged["decisions"]), 2),
            "decisions": merged["decisions"], "seconds": round(time.perf_counter() - t0, 1),
        })
        if n == 2:
            results[-1].update({"deals_per_game": pair_deals, "deals": merged["deals"], "tc": tc,
                                "timeouts": merged["timeouts"], "opponent_timeouts": merged["opp_timeouts"]})
        if n == 2 and merged["opp_decisions"]:
            # the same figures of the opponent when it counts its decisions (``strong``, ``strong-v1``):
            # both bots of a comparison at the same time per decision
            results[-1]["opponent_decision_ms"] = round(1000 * merged["opp_think_s"] / merged["opp_decisions"], 2)
            results[-1]["opponent_decision_cpu_ms"] = round(1000 * merged["opp_cpu_s"] / merged["opp_decisions"], 2)
        if progress:
            progress(f"{v}: done in {results[-1]['seconds']} s")
    return results
