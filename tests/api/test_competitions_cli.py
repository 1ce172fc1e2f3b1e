"""Swiss and knockout from the command line (issue 37): `ladder run --format swiss|knockout` plays
a whole event against a running server with bundled bots, `ladder pairings` and `ladder bracket`
show it (tables and --json), and the plan flags are checked."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from bummerl.app import Runtime
from bummerl_cli.main import main
from bummerl_cli.pairings import plan_fields

ADMIN = "comp-admin"
SERVER_SETTINGS = {"admin_token": ADMIN}


async def cli(capsys: Any, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


async def newest(rt: Runtime, fmt: str) -> str:
    from bummerl_client import AsyncClient

    async with AsyncClient(rt.target) as c:
        ladders = [x for x in await c.list_ladders() if x["format"] == f"LADDER_FORMAT_{fmt.upper()}"]
        return max(ladders, key=lambda x: int(x["created_at_ms"]))["ladder_id"]


async def test_a_swiss_event_from_the_command_line(rt: Runtime, capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("BUMMERL_SERVER", rt.target)
    monkeypatch.setenv("BUMMERL_ADMIN_TOKEN", ADMIN)
    code, out, err = await cli(capsys, "ladder", "run", "--server", rt.target, "--format", "swiss", "--rounds", "2",
                               "--bots", "random,greedy,random,greedy,random", "--deals", "1", "--quiet", "--json")
    assert code == 0, err
    final = json.loads(out.splitlines()[-1])
    assert len(final["leaderboard"]) == 5 and len(final["pairings"]["standings"]) == 5
    lid = await newest(rt, "swiss")
    code, out, err = await cli(capsys, "ladder", "pairings", lid, "--json")
    p = json.loads(out)
    assert code == 0 and len(p["standings"]) == 5 and len(p["rounds"]) == 2
    assert sum(float(r["points"]) for r in p["standings"]) == 2 * 2 + 2  # a point a pairing, one a bye
    assert all(len(r["byes"]) == 1 for r in p["rounds"])
    code, out, err = await cli(capsys, "ladder", "pairings", lid, "--round", "2")
    assert code == 0 and "Buchholz" in out and "round 2" in out and "round 1 (" not in out
    code, out, err = await cli(capsys, "ladder", "bracket", lid)
    assert code == 0 and "Swiss standings" in out  # a Swiss ladder's "bracket" is its pairings


async def test_a_knockout_from_the_command_line(rt: Runtime, capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("BUMMERL_SERVER", rt.target)
    code, out, err = await cli(capsys, "ladder", "run", "--server", rt.target, "--admin-token", ADMIN, "--format",
                               "knockout", "--bots", "greedy,random,random", "--deals", "2", "--quiet", "--json")
    assert code == 0, err
    lid = await newest(rt, "knockout")
    code, out, err = await cli(capsys, "ladder", "bracket", lid)
    assert code == 0 and "semi-final" in out and "final" in out and "(bye)" in out, out
    code, out, err = await cli(capsys, "ladder", "bracket", lid, "--json")
    final = json.loads(out)["rounds"][-1]["meetings"][0]
    assert final["winner"] and final["decided_by"] in ("score", "game_points", "seed")


def test_plan_flags() -> None:
    assert plan_fields("round_robin", 3, 0, "listed", 4, "x") == {"rounds": 3}
    assert plan_fields("swiss", 2, 0, "listed", 9, "x") == {"rounds": 4, "pairs_per_meeting": 2}
    assert plan_fields("knockout", 1, 0, "rating", 9, "x") == {"rounds": 1, "pairs_per_meeting": 1,
                                                               "seeding": "rating"}
    with pytest.raises(SystemExit, match="Swiss rounds"):
        plan_fields("round_robin", 1, 3, "listed", 4, "x")
    with pytest.raises(SystemExit, match="knockout"):
        plan_fields("swiss", 1, 3, "rating", 4, "x")


async def test_bot_challenge_and_challenges_from_the_command_line(rt: Runtime, capsys: Any) -> None:
    from bummerl_client import AsyncClient

    async with AsyncClient(rt.target) as c:
        me = await c.register_bot(f"chcli-{__import__('uuid').uuid4().hex[:6]}", admin_token=ADMIN)
    code, out, err = await cli(capsys, "bot", "challenge", "house:random", "--token", me["bot_token"], "--server",
                               rt.target, "--deals", "1", "--tc", "move=2,bank=10", "--json")
    ch = json.loads(out)
    assert code == 0 and ch["state"] == "accepted" and ch["ladder_id"], err
    assert ch["time_control"]["bank_ms"] == "10000"
    code, out, err = await cli(capsys, "bot", "challenges", "--server", rt.target, "--bot", me["name"])
    assert code == 0 and ch["challenge_id"] in out and "accepted" in out
    with pytest.raises(SystemExit, match="NOT_FOUND: no registered bot 'nobody-at-all'"):
        await cli(capsys, "bot", "challenge", "nobody-at-all", "--token", me["bot_token"], "--server", rt.target)


async def test_bot_update_publishes_a_version(rt: Runtime, capsys: Any, monkeypatch: Any) -> None:
    from bummerl_client import AsyncClient
    from bummerl_client.botrunner import ensure_version

    monkeypatch.setenv("BUMMERL_SERVER", rt.target)
    monkeypatch.setenv("BUMMERL_ADMIN_TOKEN", ADMIN)
    name = f"ver-{__import__('uuid').uuid4().hex[:6]}"
    async with AsyncClient(rt.target) as c:
        me = await c.register_bot(name, admin_token=ADMIN)
        code, out, err = await cli(capsys, "bot", "update", name, "--version", "2", "--note", "deeper search", "--json")
        got = json.loads(out)
        assert code == 0 and got["version"] == "2" and got["versions"][-1]["note"] == "deeper search", err
        assert await ensure_version(c, me["bot_token"], "2") == "version 2"  # bot run --version 2: nothing to do
        assert await ensure_version(c, me["bot_token"], "3") == "published version 3"
        code, out, err = await cli(capsys, "bot", "list")
        assert code == 0 and "3 (3)" in out  # newest version, and how many
