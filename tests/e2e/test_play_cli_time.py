"""``bummerl play`` with a time control (issue: server clocks): a bot that never answers loses on
time within seconds, as the JSON result says, with one line on stderr and no traceback."""

from __future__ import annotations

import json
import subprocess
import sys
import time


def test_play_with_a_sleeping_bot_ends_on_time_with_reason_timeout() -> None:
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "bummerl", "play", "--variant", "schnapsen-at", "--bots", "greedy,exec:sleep 1000",
         "--tc", "1+0", "--json"],
        capture_output=True, text=True, timeout=60,
    )
    took = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["reason"] == "timeout" and result["winner"] == 0 and result["winner_bot"] == "greedy"
    assert result["faults"][0]["seat"] == 1 and result["faults"][0]["kind"] == "timeout"
    assert "Traceback" not in proc.stderr
    assert took < 30


def test_play_rejects_a_bad_time_control_in_one_line() -> None:
    proc = subprocess.run([sys.executable, "-m", "bummerl", "play", "--tc", "5+x"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == ["bummerl play: --tc: bad time control part '5+x': expected BASE[+INC] "
                                                "in seconds, move=S, lag=S or scope=match|deal"]
