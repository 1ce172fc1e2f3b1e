"""``bummerl serve`` tunes the collector once started (bummerl.app.tune_gc)."""

from __future__ import annotations

import gc

from bummerl.app import GC_THRESHOLD, tune_gc


def test_tune_gc_freezes_what_exists_and_collects_less_often() -> None:
    old = gc.get_threshold()
    try:
        tune_gc()
        assert gc.get_threshold() == GC_THRESHOLD and gc.get_freeze_count() > 0
        assert GC_THRESHOLD[0] > old[0]
    finally:
        gc.unfreeze()
        gc.set_threshold(*old)
