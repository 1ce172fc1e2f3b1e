"""``bummerl bench engine``: random deals on the engine's in-place hot path, in a process of their own.

:func:`bench_engine` measures in the calling process; :func:`bench_engine_isolated` runs it in a
fresh interpreter that imports this module and the engine only. The
figure of the same code moved by 5-7% with what the process had imported before the engine (the
whole CLI, or ``statistics`` and the bots first: a memory-layout effect measured in issue 36), so the
command measures the engine alone.
"""

from __future__ import annotations

import gc
import json
import random
import subprocess
import sys
import time
from typing import Any

from bummerl.rules import TalonDeal, actions, find_variant

__all__ = ["bench_engine", "bench_engine_isolated"]

DECLARE = actions.DECLARE
OVER = TalonDeal.OVER


def bench_engine_isolated(variant: str, seconds: float = 10.0, seed: int = 1, policy: str = "random") -> dict[str, Any]:
    """:func:`bench_engine` in a fresh interpreter (``sys.executable -c``) that imports only this
    module and the engine; the same dict. Raises ValueError for a bad policy or an unknown variant
    (UnknownVariantError), and with the child's last line of error if it fails."""
    if policy not in ("random", "no-declare"):
        raise ValueError(f"unknown policy {policy!r}: random or no-declare")
    find_variant(variant)  # UnknownVariantError (a ValueError) here, not from the child
    code = ("import json, sys; from bummerl_bench.engine import bench_engine; "
            "print(json.dumps(bench_engine(sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4])))")
    out = subprocess.run([sys.executable, "-c", code, variant, repr(seconds), str(seed), policy],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        lines = out.stderr.strip().splitlines()
        raise ValueError(lines[-1] if lines else f"the engine benchmark exited with {out.returncode}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def bench_engine(variant: str, seconds: float = 10.0, seed: int = 1, policy: str = "random") -> dict[str, Any]:
    """Play random deals of ``variant`` for ``seconds`` (wall clock) on this thread.

    ``policy`` ``"random"``: uniform over the legal actions (random players often declare 66
    falsely, which ends a deal early); ``"no-declare"``: uniform over the legal actions other
    than ``declare``, so deals run their full length. Returns ``{"variant", "policy", "deals",
    "actions", "seconds", "deals_per_s", "actions_per_s", "actions_per_deal"}``. The objects that
    exist before the run are frozen out of the collector's passes (``gc.freeze``, as ``bummerl
    serve`` does), so the figure is the engine's, not that of the modules the process imported
    (the whole CLI costs about 4% of deals/s otherwise).
    """
    if policy not in ("random", "no-declare"):
        raise ValueError(f"unknown policy {policy!r}: random or no-declare")
    gc.collect()
    gc.freeze()
    try:
        return _engine_run(variant, seconds, seed, policy)
    finally:
        gc.unfreeze()


def _engine_run(variant: str, seconds: float, seed: int, policy: str) -> dict[str, Any]:
    rules = find_variant(variant).configure({})
    rng = random.Random(seed)
    choice = rng.choice
    deck = list(rules.deck)
    deals = acts = 0
    skip_declare = policy == "no-declare"
    t0 = time.perf_counter()
    deadline = t0 + seconds
    contract = rules.spec.deal_class if rules.spec.talon is None else None  # None: the two-player deal
    n = rules.spec.num_players
    while time.perf_counter() < deadline:
        for _ in range(500):
            rng.shuffle(deck)
            if contract is not None:  # a contract deal of 3 or 4 seats (§1.8)
                c = contract.new(rules, deck, deals % n)
                while not c.over:
                    legal = c.legal_actions()
                    if skip_declare and DECLARE in legal and len(legal) > 1:
                        legal.remove(DECLARE)
                    c.step(choice(legal))
                    acts += 1
                deals += 1
                continue
            d = TalonDeal.new(rules, deck, deals & 1)  # two-player deals, also of the rotation games
            while d.phase != OVER:
                legal = d.legal_actions()
                if skip_declare and legal[-1] == DECLARE and len(legal) > 1:
                    legal.pop()  # declare has the highest id of a lead turn's actions
                d.step(choice(legal))
                acts += 1
            deals += 1
    dt = time.perf_counter() - t0
    return {
        "variant": rules.spec.id, "policy": policy, "deals": deals, "actions": acts, "seconds": round(dt, 3),
        "deals_per_s": round(deals / dt, 1), "actions_per_s": round(acts / dt, 1),
        "actions_per_deal": round(acts / deals, 2),
    }
