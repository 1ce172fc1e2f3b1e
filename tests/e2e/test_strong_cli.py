"""``bummerl play --bots strong:...`` (issue 11): the strong bot plays a whole match through the SDK
against a local server (the same path as ``--server``), options after a colon; a bad option stops
the command with one line and no traceback."""

from __future__ import annotations

import json
import subprocess
import sys


def test_play_strong_with_options_against_greedy_through_a_server() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bummerl_cli", "play", "--variant", "snaps-original66", "--bots",
         "strong:samples=2,seed=3,greedy", "--seed", "4", "--json", "--tc", "60+1"],
        capture_output=True, text=True, timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["reason"] == "target_reached" and result["faults"] == []
    assert result["winner_bot"] in ("strong", "greedy") and result["actions"] > 20


def test_play_rejects_an_unknown_strong_option_in_one_line() -> None:
    proc = subprocess.run([sys.executable, "-m", "bummerl_cli", "play", "--bots", "strong:budget=5,greedy"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "bummerl play: unknown option 'budget' for bot 'strong'; known: bank, blunder, budget_ms, clear, close_lead, close_margin, "
        "draws, exact_tricks, exploration, hivo_exact, hivo_samples, horizon, infer, iterations, lay_model, leaf, level, "
        "min_samples, mix, objective, playout_close, prune, samples, search, seed, solve_talon, spread, swindle, worlds"]
