"""``bummerl serve`` tunes the collector once started (bummerl.app.tune_gc) and runs it on a clock
(bummerl.app.GcPacer, ``gc_pace_ms``)."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from bummerl.app import GC_THRESHOLD, GcPacer, tune_gc
from bummerl.config import Settings


def test_tune_gc_freezes_what_exists_and_collects_less_often() -> None:
    old = gc.get_threshold()
    try:
        tune_gc()
        assert gc.get_threshold() == GC_THRESHOLD and gc.get_freeze_count() > 0
        assert GC_THRESHOLD[0] > old[0]
    finally:
        gc.unfreeze()
        gc.set_threshold(*old)


def _collections() -> list[int]:
    return [g["collections"] for g in gc.get_stats()]


def test_the_pacer_collects_the_young_generation_and_the_older_ones_at_their_cadence() -> None:
    pacer = GcPacer(period_ms=1, young_per_middle=3, middle_per_full=2)
    old = gc.get_threshold()
    gc.set_threshold(0)  # no automatic collection between the steps
    try:
        before = _collections()
        generations = [pacer.step() for _ in range(12)]
        after = _collections()
    finally:
        gc.set_threshold(*old)
    assert generations == [0, 0, 1, 0, 0, 2, 0, 0, 1, 0, 0, 2]
    # each step was a real collection of that generation (CPython counts them per generation)
    assert [a - b for a, b in zip(after, before, strict=True)] == [8, 2, 2]


def test_a_cycle_is_freed_by_the_paced_young_collection() -> None:
    class Node:
        pass

    old = gc.get_threshold()
    gc.set_threshold(0)  # automatic collection off: only the pacer collects
    try:
        a, b = Node(), Node()
        a.other, b.other = b, a  # type: ignore[attr-defined]
        freed = asyncio.Event()
        weakref.finalize(a, freed.set)
        del a, b

        async def run() -> None:
            stop = asyncio.Event()
            task = asyncio.create_task(GcPacer(period_ms=5).run(stop))
            await asyncio.wait_for(freed.wait(), 2)
            stop.set()
            await asyncio.wait_for(task, 1)

        asyncio.run(run())
    finally:
        gc.set_threshold(*old)


@pytest.mark.parametrize("value", [-1, 10001, True])
def test_gc_pace_ms_out_of_range_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match="gc_pace_ms"):
        Settings(gc_pace_ms=value)  # type: ignore[arg-type]


def test_gc_pace_ms_comes_from_the_environment() -> None:
    assert Settings.from_env({"BUMMERL_GC_PACE_MS": "0"}).gc_pace_ms == 0
    assert Settings.from_env({}).gc_pace_ms == 10


class _Time:
    """A fake clock (seconds) that the patched collector advances by ``cost`` per collection."""

    def __init__(self) -> None:
        self.now = 0.0
        self.cost = 0.0

    def __call__(self) -> float:
        return self.now


def _drive(pacer: GcPacer, t: _Time, seconds: float) -> list[float]:
    """Steps as :meth:`GcPacer.run` makes them (a period of wall time, then a collection) for
    ``seconds`` of fake time; the periods used, in ms."""
    used = []
    end = t.now + seconds
    while t.now < end:
        used.append(round(pacer.period_s * 1000, 3))
        t.now += pacer.period_s
        pacer.step()
    return used


def test_the_budget_lengthens_the_period_of_a_busy_process_and_shortens_it_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Collections over ``budget`` of wall time double the period each second up to
    ``max_period_ms``; cheap ones (under half the budget) halve it back to ``period_ms``; a share
    between the two keeps it; ``budget`` 0 keeps the period fixed."""
    t = _Time()

    def collect(generation: int = 2) -> int:
        t.now += t.cost
        return 0

    monkeypatch.setattr(gc, "collect", collect)
    pacer = GcPacer(period_ms=10, max_period_ms=80, budget=0.03, clock=t, cpu_clock=t)
    t.cost = 0.003  # 3 ms per collection: over 3% of wall time at every period up to 80 ms
    busy = _drive(pacer, t, 6.0)
    assert busy[0] == 10 and max(busy) == 80 and sorted(set(busy)) == [10, 20, 40, 80]
    assert busy == sorted(busy)  # it only grew
    t.cost = 0.0
    idle = _drive(pacer, t, 6.0)
    assert idle[0] == 80 and idle[-1] == 10 and idle == sorted(idle, reverse=True)
    t.cost = 0.0005  # 0.5 ms: 2.5% of a 20 ms period, between half the budget and the budget
    steady = GcPacer(period_ms=20, max_period_ms=80, budget=0.03, clock=t, cpu_clock=t)
    assert set(_drive(steady, t, 4.0)) == {20}
    t.cost = 0.005
    fixed = GcPacer(period_ms=10, budget=0, clock=t, cpu_clock=t)
    assert set(_drive(fixed, t, 3.0)) == {10}


@pytest.mark.parametrize("value", [-0.1, 1.5, True])
def test_gc_budget_out_of_range_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match="gc_budget"):
        Settings(gc_budget=value)  # type: ignore[arg-type]
    if not isinstance(value, bool):
        with pytest.raises(ValueError, match="budget"):
            GcPacer(budget=value)  # type: ignore[arg-type]


def test_gc_budget_comes_from_the_environment() -> None:
    assert Settings.from_env({"BUMMERL_GC_BUDGET": "0"}).gc_budget == 0
    assert Settings.from_env({}).gc_budget == 0.05
