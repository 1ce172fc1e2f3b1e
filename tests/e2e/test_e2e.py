"""End to end: a ``bummerl serve`` subprocess and two bot processes (``python -m bummerl_client
join``) complete a Bummerl over the network; ``bummerl play --json`` prints its result line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from e2e_servers import spawn_server

from bummerl_client import Client


@pytest.fixture
def server() -> Iterator[str]:
    with spawn_server() as (proc, target):
        yield target
        proc.terminate()
        assert proc.wait(20) == 0, "server did not stop cleanly on SIGTERM"


@pytest.mark.parametrize("variant", ["schnapsen-at", "snaps-original66"])
def test_two_bot_processes_complete_a_bummerl(server: str, variant: str) -> None:
    with Client(server) as c:
        cm = c.create_match(variant, seats=["greedy", "random"], seed=17)
    bots = [
        subprocess.Popen(
            [sys.executable, "-m", "bummerl_client", "join", "--server", server, "--match", cm.match_id,
             "--seat", str(seat), "--token", cm.tokens[seat], "--bot", name, "--seed", str(seat)],
            stdout=subprocess.PIPE, text=True,
        )
        for seat, name in enumerate(["greedy", "random"])
    ]
    outs = [b.communicate(timeout=120)[0] for b in bots]
    assert [b.returncode for b in bots] == [0, 0]
    results = [json.loads(o.strip().splitlines()[-1]) for o in outs]
    with Client(server) as c:
        rec = c.match_record(cm.match_id)
    assert rec["over"]
    res = rec["match_result"]
    target = 7 if variant == "schnapsen-at" else 11
    assert max(res["game_points"]) >= target
    assert results[0]["winner"] == results[1]["winner"] == res["winner"]
    assert len(rec["actions"]) == int(rec["version"]) - 1


def test_stdio_bridge_bot_plays_through_the_server(server: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """An executable speaking the stdio protocol (here a tiny Python script) plays a seat."""
    script = tmp_path / "first_legal.py"
    script.write_text(
        "import sys, json\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        "    if msg['type'] == 'decide':\n"
        "        print(msg['information_set']['legal_actions'][0]['text'], flush=True)\n"
    )
    with Client(server) as c:
        cm = c.create_match("schnapsen-at", seed=2, options={"match_target": 3})
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "bummerl_client", "join", "--server", server, "--match", cm.match_id,
             "--seat", str(seat), "--token", cm.tokens[seat], "--bot", bot],
            stdout=subprocess.PIPE, text=True,
        )
        for seat, bot in enumerate([f"exec:{sys.executable} {script}", "random"])
    ]
    for p in procs:
        p.communicate(timeout=120)
        assert p.returncode == 0
    with Client(server) as c:
        assert c.match_record(cm.match_id)["over"]


def test_play_command_prints_json_result() -> None:
    env = dict(os.environ)
    env.pop("BUMMERL_REDIS_URL", None)
    out = subprocess.run(
        [sys.executable, "-m", "bummerl_cli", "play", "--variant", "schnapsen-at", "--bots", "greedy,random", "--seed", "5", "--json"],
        capture_output=True, text=True, timeout=120, env=env, check=True,
    ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert result["variant"] == "schnapsen-at"
    assert result["winner"] in (0, 1) and max(result["game_points"]) >= 7
    assert result["deals"] >= 1 and result["actions"] >= result["deals"]
