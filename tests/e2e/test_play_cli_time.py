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
        [sys.executable, "-m", "bummerl_cli", "play", "--variant", "schnapsen-at", "--bots", "greedy,exec:sleep 1000",
         "--tc", "1+0", "--json"],
        capture_output=True, text=True, timeout=60,
    )
    took = time.monotonic() - t0
    assert proc.returncode == 3, proc.stderr  # join's code for a timeout
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["reason"] == "timeout" and result["winner"] == 0 and result["winner_bot"] == "greedy"
    assert result["faults"][0]["seat"] == 1 and result["faults"][0]["kind"] == "timeout"
    assert "Traceback" not in proc.stderr
    assert took < 30


def test_play_rejects_a_bad_time_control_in_one_line() -> None:
    proc = subprocess.run([sys.executable, "-m", "bummerl_cli", "play", "--tc", "5+x"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == ["bummerl play: --tc: bad time control part '5+x': expected BASE[+INC] "
                                                "in seconds, move=S, lag=S, bank=S or scope=match|deal"]


SLOW_ONCE = """
import json, os, sys, time
marker = sys.argv[1]
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") != "decide":
        continue
    if not os.path.exists(marker):  # the first decision of the whole match only, whatever the process
        open(marker, "w").close()
        time.sleep(3)
    print(msg["information_set"]["legal_actions"][0]["id"], flush=True)
"""


def test_a_bot_that_misses_one_deadline_plays_on_under_forfeit_deal_and_default_move(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``--timeout-policy forfeit-deal`` / ``default-move``: the server applies the policy and the
    match goes on, so the runner does not resign the seat: the exec bot (killed when it missed its
    deadline) is started again and plays to the end (it was resigned, reason timeout)."""
    script = tmp_path / "slow_once.py"
    script.write_text(SLOW_ONCE)
    for policy in ("forfeit-deal", "default-move"):
        marker = tmp_path / f"{policy}.marker"
        proc = subprocess.run(
            [sys.executable, "-m", "bummerl_cli", "play", "--variant", "schnapsen-at", "--bots",
             f"exec:{sys.executable} {script} {marker},random", "--tc", "move=1", "--timeout-policy", policy,
             "--seed", "4", "--json"],
            capture_output=True, text=True, timeout=120,
        )
        assert proc.returncode == 3, proc.stderr  # a fault, though the seat played on: join's code for a timeout
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        assert marker.exists()
        assert [f["kind"] for f in result["faults"]] == ["timeout"] and result["faults"][0]["seat"] == 0, result
        assert result["reason"] not in ("timeout", "resigned"), result  # the match was played out
        assert "Traceback" not in proc.stderr
