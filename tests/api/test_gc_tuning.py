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
