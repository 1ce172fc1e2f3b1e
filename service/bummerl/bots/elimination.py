"""Successive elimination of clearly worse actions and the sampling budget, shared by the
searches of ``strong``."""

from __future__ import annotations

import math
import time

from bummerl.rules.worlds import pick_by_weight

__all__ = ["normal_cdf", "pick_by_weight", "sampling_done", "survivors"]


def survivors(alive: list[int], vals: list[list[float]], bias: list[float], n: int, min_gap: float = 0.02) -> list[int]:
    """Successive elimination: drop an action whose paired difference (same sampled deals) to the
    best one (``bias`` added to each mean) is positive by more than three standard errors and by at
    least ``min_gap`` utility. ``vals[i]``: the values of action ``i`` on the same ``n`` samples."""
    means = {i: sum(vals[i]) / n + bias[i] for i in alive}
    b = max(alive, key=lambda i: means[i])
    keep = []
    for i in alive:
        if i == b:
            keep.append(i)
            continue
        diffs = [x - y for x, y in zip(vals[b], vals[i], strict=True)]
        md = means[b] - means[i]
        mu = sum(diffs) / n
        se = math.sqrt(sum((x - mu) ** 2 for x in diffs) / (n - 1) / n)
        if not (md > min_gap and md > 3 * se):
            keep.append(i)
    return keep


def sampling_done(n: int, samples: int, min_samples: int, deadline: float) -> bool:
    """Stop sampling after ``n`` samples? At ``samples`` (when set); at the ``deadline``
    (``time.perf_counter`` seconds) once ``min_samples`` are done; at 32 without either limit."""
    if samples and n >= samples:
        return True
    if n >= min_samples and time.perf_counter() >= deadline:
        return True
    return not samples and deadline == math.inf and n >= 32


def normal_cdf(x: float) -> float:
    """Phi(x), the standard normal distribution function (the placement and deal-limit utilities)."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))
