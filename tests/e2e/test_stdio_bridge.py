"""The stdio bridge (docs/ENGINE_PROTOCOL.md): example engines in two languages play whole
matches, and every kind of bot fault ends the match with a clear outcome, never a hang or a
traceback. A real server on port 0 and a real Valkey."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bummerl.app import Runtime
from bummerl.config import Settings
from bummerl_client import AsyncClient, play_match
from bummerl_client.bots import make_bot
from bummerl_client.stdio import StdioBot, default_log_dir

EXAMPLES = Path(__file__).resolve().parents[2] / "clients" / "examples"


@pytest.fixture
async def rt(redis_url: str) -> AsyncIterator[Runtime]:
    async with Runtime(Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url,
                                         reaper_poll_ms=10)) as r:
        yield r


async def test_posix_sh_example_engine_plays_a_whole_match(rt: Runtime, tmp_path: Path) -> None:
    bot = StdioBot(["sh", str(EXAMPLES / "random.sh")], log_path=tmp_path / "sh.log")
    async with AsyncClient(rt.target) as c:
        rec = await play_match(c, "schnapsen-at", [bot, make_bot("greedy", 1)])
    assert rec["over"] and "faults" not in rec and rec["match_result"]["reason"] == "target_reached"
    assert any(int(a["seat"]) == 0 for a in rec["actions"])


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
async def test_node_example_engine_plays_a_whole_match(rt: Runtime, tmp_path: Path) -> None:
    bot = StdioBot(["node", str(EXAMPLES / "random.mjs")], log_path=tmp_path / "node.log")
    async with AsyncClient(rt.target) as c:
        rec = await play_match(c, "santase", [make_bot("random", 2), bot])
    assert rec["over"] and "faults" not in rec


@pytest.mark.parametrize(
    ("script", "kind", "needle"),
    [
        ("while read l; do echo garbage words; done", "unparsable", "garbage words"),
        ("while read l; do echo 40; done", "illegal", "action 40 is not legal"),
        ("read l; echo bye >&2; exit 3", "crash", "code 3"),
        ("exit 3", "crash", "exited (code 3) "),  # gone before the first message: was "closed its stdin"
        ("while read l; do echo; done", "unparsable", "empty line"),
        ("sleep 30", "timeout", "within 0.5 s"),
    ],
)
async def test_bot_faults_end_the_match_and_are_reported(rt: Runtime, tmp_path: Path, script: str, kind: str,
                                                         needle: str) -> None:
    log = tmp_path / "bot.log"
    bot = StdioBot(["sh", "-c", script], decision_timeout_s=0.5, log_path=log)
    async with AsyncClient(rt.target) as c:
        rec = await play_match(c, "schnapsen-at", [make_bot("greedy", 1), bot])
    expected = {"unparsable": "illegal", "illegal": "illegal", "crash": "disconnect", "timeout": "timeout"}[kind]
    assert rec["over"] and rec["match_result"]["reason"] == expected and rec["match_result"]["winner"] == 0
    assert rec["actions"][-1]["kind"] == "OUTCOME_KIND_" + {"timeout": "TIMEOUT", "illegal": "ILLEGAL", "disconnect": "DISCONNECT"}[expected]
    [fault] = rec["faults"]
    assert fault["seat"] == 1 and fault["kind"] == kind and needle in fault["detail"]
    # every fault says where the bot's own stderr went: that is where its author looks first
    assert fault["detail"].endswith(f" (its stderr is in {log})")
    if "bye" in script:
        assert "bye" in log.read_text()


async def test_a_server_clock_timeout_is_the_servers_policy_not_a_resignation(rt: Runtime, tmp_path: Path) -> None:
    bot = StdioBot(["sh", "-c", "sleep 30"], log_path=tmp_path / "b.log", grace_s=0.5)
    tc = {"base_ms": 300, "increment_ms": 0, "move_cap_ms": 0, "lag_compensation_ms": 0, "scope": "match"}
    async with AsyncClient(rt.target) as c:
        rec = await play_match(c, "schnapsen-at", [bot, make_bot("greedy", 1)], time_control=tc)
    assert rec["match_result"]["reason"] == "timeout" and rec["match_result"]["winner"] == 1
    assert rec["faults"][0]["kind"] == "timeout"
    assert [a["kind"] for a in rec["actions"]][-1] == "OUTCOME_KIND_TIMEOUT"


async def test_join_reads_the_token_from_the_environment_and_exits_with_one_line(rt: Runtime) -> None:
    async with AsyncClient(rt.target) as c:
        m = await c.create_match("schnapsen-at")
    env = dict(os.environ, BUMMERL_SEAT_TOKEN=m.tokens[0])
    other = subprocess.Popen([sys.executable, "-m", "bummerl_client", "join", "--server", rt.target, "--match",
                              m.match_id, "--seat", "1", "--token-file", "-", "--bot", "greedy"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert other.stdin is not None
    other.stdin.write(m.tokens[1] + "\n")
    other.stdin.close()
    proc = await __import__("asyncio").to_thread(
        subprocess.run, [sys.executable, "-m", "bummerl_client", "join", "--server", rt.target, "--match", m.match_id,
                         "--seat", "0", "--bot", "exec:sh -c 'while read l; do echo nonsense; done'"],
        env=env, capture_output=True, text=True, timeout=60)
    await __import__("asyncio").to_thread(other.wait, 60)  # not other.wait(): the server runs on this loop
    assert proc.returncode == 4, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert "unparsable" in proc.stderr and "seat resigned" in proc.stderr
    assert f"(its stderr is in {Path(default_log_dir()) / m.match_id / 'seat0.log'})" in proc.stderr
    assert m.tokens[0] not in proc.stderr + proc.stdout
    result = json.loads(proc.stdout)  # as docs/ENGINE_PROTOCOL.md shows it
    assert result["fault"] == "unparsable" and result["match_id"] == m.match_id and result["seat"] == 0
    assert result["winner"] == 1 and set(result) == {"match_id", "seat", "winner", "game_points", "fault"}
    assert other.returncode == 0


async def test_bot_logs_are_kept_per_match_capped_and_pruned(tmp_path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    """A bot's stderr goes to <log dir>/<match id>/seat<N>.log, cut at LOG_CAP_BYTES; old match
    folders are removed; ``bummerl bot logs MATCH`` prints them."""
    import os
    import time

    from bummerl_cli.main import main
    from bummerl_client import stdio
    from bummerl_client.bot import InfoSet

    monkeypatch.setenv("BUMMERL_BOT_LOG_DIR", str(tmp_path))
    monkeypatch.setattr(stdio, "LOG_CAP_BYTES", 1000)
    old = tmp_path / "oldmatch"
    old.mkdir()
    week_ago = time.time() - 8 * 86400
    os.utime(old, (week_ago, week_ago))
    monkeypatch.setattr(stdio, "_pruned_at", 0.0)
    script = "head -c 5000 /dev/zero >&2; while read -r l; do echo 0; done"
    bot = StdioBot(["sh", "-c", script])
    info = InfoSet({"match_id": "m123", "seat": 1, "variant": "schnapsen-at", "version": "1",
                    "deal": {"to_act": 1}, "legal_actions": [{"id": 0, "text": "play AC"}]})
    await bot.achoose(info)
    await bot.aclose()
    log = tmp_path / "m123" / "seat1.log"
    text = log.read_text()
    assert text.startswith("\0" * 1000 + "\n[bummerl: log truncated at 1000 bytes; 4000 more bytes dropped]")
    assert not old.exists()  # older than the retention: pruned
    assert main(["bot", "logs", "m123"]) == 0
    assert "seat1.log" in capsys.readouterr().out


def test_the_bridge_gives_a_decision_its_move_time_and_its_overage_bank() -> None:
    """Under --tc move=2,bank=30 a decision may run into the bank: the bridge must not kill the
    bot at the end of the move time (it would resign a seat the server still keeps)."""
    from bummerl.bots.base import InfoSet

    bot = StdioBot(["true"], grace_s=0.5)
    clocks = [{"seat": 0, "running": True, "move_remaining_ms": "1500", "bank_ms": "20000"},
              {"seat": 1, "running": False, "move_remaining_ms": "0", "bank_ms": "30000"}]
    assert bot.time_limit_s(InfoSet({"seat": 0, "clocks": clocks})) == 1.5 + 20 + 0.5
    clocks[0]["bank_ms"] = "0"
    assert bot.time_limit_s(InfoSet({"seat": 0, "clocks": clocks})) == 2.0
    assert bot.time_limit_s(InfoSet({"seat": 0})) == 60.0
