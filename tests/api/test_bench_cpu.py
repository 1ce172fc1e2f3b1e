"""``bummerl_bench.benches._cpu_seconds``: the CPU a server process and its workers used (Linux /proc),
the figure the service benchmarks report per call (``server_cpu``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from bummerl_bench.benches import _cpu_seconds, cpu_figures

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs Linux /proc")

BURN = """
import sys, time
while time.process_time() < 0.5:
    pass
print("burnt", flush=True)
time.sleep(30)
"""


def test_cpu_seconds_counts_the_process_and_its_children() -> None:
    before = _cpu_seconds(os.getpid())
    assert before is not None
    child = subprocess.Popen([sys.executable, "-c", BURN], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "burnt\n"
        child_cpu = _cpu_seconds(child.pid)
        total = _cpu_seconds(os.getpid())
    finally:
        child.kill()
        child.wait()
    assert child_cpu is not None and child_cpu >= 0.45  # clock ticks of 10 ms
    assert total is not None and total - before >= child_cpu - 0.02


def test_cpu_figures_give_cpu_per_action_and_per_call() -> None:
    def run() -> dict[str, object]:
        t = time.process_time()
        while time.process_time() - t < 0.3:
            pass
        return {"submit_calls": 10, "seconds": 1.0, "calls_per_s": 20.0}

    cpu = cpu_figures(os.getpid(), run)["server_cpu"]
    assert 28 <= cpu["ms_per_action"] <= 90  # >= 0.3 s over 10 actions (plus whatever else the tree ran)
    assert cpu["ms_per_call"] == pytest.approx(cpu["ms_per_action"] / 2, abs=0.002)
    assert 0 < cpu["cores"] <= 2.0


def test_a_process_that_is_gone_has_no_figure() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert _cpu_seconds(child.pid) is None


def test_a_child_that_exits_between_two_readings_keeps_its_cpu() -> None:
    """A worker process that ends between two readings must not take its CPU with it (the sum of
    live processes fell, and bench figures showed a negative CPU per action)."""
    child = subprocess.Popen([sys.executable, "-c", BURN.replace("time.sleep(30)", "")], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline() == "burnt\n"
    time.sleep(0.1)  # a zombie or still running: counted as a child either way
    before = _cpu_seconds(os.getpid())
    child.wait()  # reaped: its time moves to our cutime
    after = _cpu_seconds(os.getpid())
    assert before is not None and after is not None and after >= before - 0.02
