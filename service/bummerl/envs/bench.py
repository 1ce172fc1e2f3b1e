"""``bummerl bench openspiel``: random playouts per second through the OpenSpiel game, as a ratio
of the native engine's ``bench engine`` in the same run (a benchmark that prints figures, not a
timed test)."""

from __future__ import annotations

import random
import time
from typing import Any


def bench_openspiel(variant: str, seconds: float = 10.0, seed: int = 1) -> dict[str, Any]:
    """Random deals of ``variant`` for ``seconds`` / 2 through ``pyspiel`` (``mode=deal``: the
    first dealer and the deck drawn at chance nodes, uniform random actions through
    ``legal_actions`` / ``apply_action``, ``returns`` at the end), then ``seconds`` / 2 of
    :func:`bummerl.bench.bench_engine` (the engine's in-place hot path, random policy) on the
    same thread. Returns ``{"variant", "wrapper_deals_per_s", "wrapper_actions_per_s",
    "engine_deals_per_s", "ratio", "seconds"}``; ``wrapper_actions_per_s`` counts player
    actions only (chance outcomes left out, as the engine's count has none)."""
    import pyspiel

    from bummerl import bench

    from . import openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game("bummerl", {"variant": variant, "mode": "deal"})
    rng = random.Random(seed)
    choice = rng.choice
    deals = acts = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds / 2
    while time.perf_counter() < deadline:
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
    dt = time.perf_counter() - t0
    native = bench.bench_engine(variant, seconds / 2, seed=seed)
    wrapper = deals / dt
    return {"variant": variant, "wrapper_deals_per_s": round(wrapper, 1), "wrapper_actions_per_s": round(acts / dt, 1),
            "engine_deals_per_s": native["deals_per_s"], "ratio": round(wrapper / native["deals_per_s"], 3),
            "seconds": seconds}


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
            print(f"openspiel {v}: {r['wrapper_deals_per_s']:,.0f} random deals/s through pyspiel "
                  f"({r['wrapper_actions_per_s']:,.0f} player actions/s, besides the chance nodes of the shuffle) vs engine "
                  f"{r['engine_deals_per_s']:,.0f} deals/s = {r['ratio']}x ({seconds} s, one core)")
    return 0
