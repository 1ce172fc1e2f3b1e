"""OpenSpiel figures (benchmarks that print figures, not timed tests): ``bummerl bench openspiel``
(random playouts per second through the OpenSpiel game, as a ratio of the native engine's
``bench engine`` in the same run) and ``python -m bummerl_bench.openspiel ismcts`` (OpenSpiel's
ISMCTSBot against bundled bots over duplicate deal pairs)."""

from __future__ import annotations

import random
import time
from typing import Any


def _playouts(game: Any, seconds: float, rng: random.Random) -> tuple[int, int, float]:
    """Random deals through pyspiel for ``seconds`` of this process's CPU time: ``(deals, player
    actions, CPU seconds)``."""
    choice = rng.choice
    deals = acts = 0
    t0 = time.process_time()
    deadline = t0 + seconds
    while time.process_time() < deadline:
        for _ in range(20):
            s = game.new_initial_state()
            while not s.is_terminal():
                if s.is_chance_node():
                    s.apply_action(choice(s.chance_outcomes())[0])
                else:
                    s.apply_action(choice(s.legal_actions()))
                    acts += 1
            s.returns()
            deals += 1
    return deals, acts, time.process_time() - t0


def _floor_game(chance_nodes: int, player_nodes: int) -> Any:
    """A Python OpenSpiel game that does nothing (not registered): ``chance_nodes`` chance nodes
    of 24 outcomes, then ``player_nodes`` decisions of 5 actions, each answered in O(1); what
    pyspiel's own calls cost a random playout of a deal of that shape."""
    import pyspiel

    t = pyspiel.GameType
    game_type = t(short_name="bummerl_floor", long_name="no-op", dynamics=t.Dynamics.SEQUENTIAL,
                  chance_mode=t.ChanceMode.EXPLICIT_STOCHASTIC, information=t.Information.IMPERFECT_INFORMATION,
                  utility=t.Utility.ZERO_SUM, reward_model=t.RewardModel.TERMINAL, max_num_players=2,
                  min_num_players=2, provides_information_state_string=False,
                  provides_information_state_tensor=False, provides_observation_string=False,
                  provides_observation_tensor=False, parameter_specification={})
    outcomes = [(i, 1 / 24) for i in range(24)]
    legal = [0, 1, 2, 3, 4]
    end = chance_nodes + player_nodes

    class State(pyspiel.State):  # the same Python-side answers as BummerlState gives
        def __init__(self, game: Any) -> None:
            super().__init__(game)
            self.n = 0

        def current_player(self) -> int:
            return -1 if self.n < chance_nodes else -4 if self.n >= end else self.n & 1

        def is_chance_node(self) -> bool:
            return self.n < chance_nodes

        def legal_actions(self, player: int | None = None) -> list[int]:
            return legal[:]

        def _legal_actions(self, player: int) -> list[int]:
            return legal[:]

        def chance_outcomes(self) -> list[tuple[int, float]]:
            return outcomes[:]

        def _apply_action(self, action: int) -> None:
            self.n += 1

        def is_terminal(self) -> bool:
            return self.n >= end

        def returns(self) -> list[float]:
            return [0.0, 0.0]

    class Game(pyspiel.Game):
        def __init__(self) -> None:
            super().__init__(game_type, pyspiel.GameInfo(
                num_distinct_actions=5, max_chance_outcomes=24, num_players=2, min_utility=-1.0, max_utility=1.0,
                utility_sum=0.0, max_game_length=end + 1), {})

        def new_initial_state(self) -> State:
            return State(self)

    return Game()


def bench_openspiel(variant: str, seconds: float = 10.0, seed: int = 1, slices: int = 10) -> dict[str, Any]:
    """Random deals of ``variant`` through ``pyspiel`` (``mode=deal``; uniform random actions
    through ``legal_actions`` / ``apply_action``, ``returns`` at the end) with the deck drawn at
    chance nodes (``deal=shuffle``) and with sampled deals (``deal=sampled``, no chance node),
    against :func:`bummerl_bench.benches.bench_engine` (the engine's in-place hot path, random policy)
    and against pyspiel alone (:func:`_floor_game`: the same playout of a game that does nothing,
    with the chance nodes of the deck and the mean player actions of the wrapper's deals so far)
    on the same thread: ``slices`` rounds of the five in turn, ``seconds`` in all. Rates are per
    second of this process's CPU time (``time.process_time``), so that other processes of a
    shared machine do not skew one part against another. Returns ``{"variant", "wrapper_deals_per_s",
    "wrapper_actions_per_s", "sampled_deals_per_s", "engine_deals_per_s", "ratio",
    "sampled_ratio", "floor_deals_per_s", "sampled_floor_deals_per_s", "ceiling_ratio",
    "sampled_ceiling_ratio", "seconds"}``: actions per second count player actions only (chance
    outcomes left out, as the engine's count has none); a ceiling ratio is the ratio a wrapper
    that added nothing to pyspiel's calls and the engine's own work would reach,
    ``floor / (floor + engine)`` in deals per second."""
    import pyspiel

    from bummerl.envs import openspiel
    from bummerl_bench import benches as bench

    rng = random.Random(seed)
    games = [pyspiel.load_game("bummerl", {"variant": variant, "mode": "deal"}),
             pyspiel.load_game("bummerl", {"variant": variant, "mode": "deal", "deal": "sampled", "seed": seed})]
    chance_nodes = 1 + len(openspiel.load(variant).deck)
    # deals, actions, seconds: shuffle, sampled, engine, floor with chance nodes, floor without
    tot = [[0, 0, 0.0] for _ in range(5)]
    part = seconds / 5 / slices
    for _ in range(slices):
        for i, g in enumerate(games):
            d, a, t = _playouts(g, part, rng)
            tot[i][0] += d
            tot[i][1] += a
            tot[i][2] += t
        c0 = time.process_time()
        e = bench.bench_engine(variant, part, seed=seed)
        tot[2][0] += e["deals"]
        tot[2][2] += time.process_time() - c0
        player_nodes = max(1, round(tot[0][1] / max(1, tot[0][0])))
        for i, ch in ((3, chance_nodes), (4, 0)):
            d, a, t = _playouts(_floor_game(ch, player_nodes), part, rng)
            tot[i][0] += d
            tot[i][2] += t
    shuffle, sampled, native, floor, floor_sampled = (x[0] / x[2] for x in tot)
    return {"variant": variant, "wrapper_deals_per_s": round(shuffle, 1), "wrapper_actions_per_s": round(tot[0][1] / tot[0][2], 1),
            "sampled_deals_per_s": round(sampled, 1), "engine_deals_per_s": round(native, 1),
            "ratio": round(shuffle / native, 3), "sampled_ratio": round(sampled / native, 3),
            "floor_deals_per_s": round(floor, 1), "sampled_floor_deals_per_s": round(floor_sampled, 1),
            "ceiling_ratio": round(floor / (floor + native), 3),
            "sampled_ceiling_ratio": round(floor_sampled / (floor_sampled + native), 3), "seconds": seconds}


def main(variant: str, seconds: float, as_json: bool) -> int:
    """``bummerl bench openspiel``: one line per variant (``all`` = every variant)."""
    import json

    from bummerl.rules import list_variants

    variants = [v.id for v in list_variants()] if variant == "all" else [variant]
    for v in variants:
        r = bench_openspiel(v, seconds)
        if as_json:
            print(json.dumps(r))
        else:
            print(f"openspiel {v}: random deals/s through pyspiel {r['wrapper_deals_per_s']:,.0f} with chance nodes "
                  f"({r['wrapper_actions_per_s']:,.0f} player actions/s), {r['sampled_deals_per_s']:,.0f} sampled; engine "
                  f"{r['engine_deals_per_s']:,.0f} deals/s: {r['ratio']}x / {r['sampled_ratio']}x; pyspiel alone "
                  f"{r['floor_deals_per_s']:,.0f} / {r['sampled_floor_deals_per_s']:,.0f}, ceiling {r['ceiling_ratio']}x / "
                  f"{r['sampled_ceiling_ratio']}x ({seconds} s, rates per CPU second)")
    return 0


def ismcts_bot_class(variant: str, simulations: int) -> type:
    """A :class:`bummerl_client.Bot` class (``cls(seed)``, as :func:`bummerl_client.bots.make_bot`
    builds bundled bots) playing OpenSpiel's ``ISMCTSBot`` with ``simulations`` per decision
    (UCT constant 1.5, one random rollout per leaf, a fresh search per decision) through
    :func:`bummerl_client.bots.from_openspiel`; it counts ``decisions`` and ``think_s``."""
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    from bummerl.envs.adapters import OpenSpielBot
    from bummerl.envs.openspiel import load

    game = load(variant, mode="deal")

    class IsmctsBot(OpenSpielBot):
        name = f"ismcts{simulations}"

        def __init__(self, seed: int | None = None) -> None:
            rs = np.random.RandomState(seed or 0)
            super().__init__(ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 1.5, simulations,
                                              random_state=rs), seed)
            self.decisions = 0
            self.think_s = 0.0

        def choose(self, info: Any) -> int | str:
            t0 = time.perf_counter()
            a = super().choose(info)
            self.decisions += 1
            self.think_s += time.perf_counter() - t0
            return a

    return IsmctsBot


def bench_ismcts(variant: str = "schnapsen-at", pairs: int = 200, simulations: int = 100,
                 opponents: tuple[str, ...] = ("greedy", "strong"), seed: int = 1) -> list[dict[str, Any]]:
    """OpenSpiel's ISMCTSBot (``simulations`` per decision) against each of ``opponents`` over
    ``pairs`` duplicate deal pairs of ``variant``, by :func:`bummerl_bench.benches.bench_strong` (the
    same deals, seat swap and suit relabelling, Elo with the 95% interval from
    :mod:`bummerl.ladder.stats`); the bot is registered for the run as ``ismcts<simulations>``."""
    from bummerl.bots import BOTS
    from bummerl_bench import benches as bench

    name = f"ismcts{simulations}"
    BOTS[name] = ismcts_bot_class(variant, simulations)
    try:
        return [r for o in opponents for r in bench.bench_strong(pairs, variant, name, o, 1, seed)]
    finally:
        del BOTS[name]


if __name__ == "__main__":  # python -m bummerl_bench.openspiel ismcts --pairs 200 --simulations 100
    import argparse
    import json

    ap = argparse.ArgumentParser(prog="python -m bummerl_bench.openspiel",
                                 description="OpenSpiel figures: 'openspiel' (playouts/s) or 'ismcts' (Elo)")
    ap.add_argument("what", choices=["openspiel", "ismcts"])
    ap.add_argument("--variant", default="schnapsen-at")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--simulations", type=int, default=100)
    ap.add_argument("--opponents", default="greedy,strong")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.what == "openspiel":
        raise SystemExit(main(a.variant, a.seconds, False))
    for r in bench_ismcts(a.variant, a.pairs, a.simulations, tuple(a.opponents.split(",")), a.seed):
        print(json.dumps(r))
