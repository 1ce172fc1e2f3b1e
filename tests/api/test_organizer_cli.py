"""The organizer's day from the command line (issue 21), against a running server: register bots,
list them with their presence, create a ladder, list its games, pause/resume/stop it, read its
leaderboard and cross table, rotate and revoke tokens; every command with --json."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import pytest

from bummerl.app import Runtime
from bummerl_cli.common import MIN_PAIRS_FOR_ELO, elo_cell
from bummerl_cli.main import main

ADMIN = "org-admin"


SERVER_SETTINGS = {"admin_token": ADMIN}


async def run(capsys: Any, *argv: str) -> Any:
    """``bummerl ARGV --json`` in a thread (it runs its own event loop); its JSON output."""
    capsys.readouterr()
    code = await asyncio.to_thread(main, [*argv, "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


async def test_the_organizers_commands(rt: Runtime, capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("BUMMERL_SERVER", rt.target)
    monkeypatch.setenv("BUMMERL_ADMIN_TOKEN", ADMIN)
    tag = uuid.uuid4().hex[:6]
    a = await run(capsys, "bot", "register", f"a-{tag}", "--description", "first")
    await run(capsys, "bot", "register", f"b-{tag}")
    assert a["bot_token"].startswith(a["bot_id"] + ".")
    bots = {x["name"]: x for x in await run(capsys, "bot", "list")}
    assert not bots[f"a-{tag}"]["connected"] and "bot_token" not in json.dumps(bots)
    lad = await run(capsys, "ladder", "create", "--bots", f"a-{tag},b-{tag}", "--deals", "2", "--concurrency", "1")
    lid = lad["ladder_id"]
    assert int(lad["matches_total"]) == 4
    paused = await run(capsys, "ladder", "pause", lid)
    assert paused["status"] == "LADDER_STATUS_PAUSED"
    games = await run(capsys, "ladder", "games", lid, "--state", "planned")
    assert len(games) >= 3 and all(g["state"] == "planned" for g in games)
    monkeypatch.setenv("COLUMNS", "80")  # tables on an 80-column terminal: ids and names whole (they were cut with '…')
    for argv in (["ladder", "list"], ["bot", "list"]):
        capsys.readouterr()
        assert await asyncio.to_thread(main, argv) == 0
        shown = capsys.readouterr().out
        assert (lid if argv[0] == "ladder" else f"a-{tag}") in shown and "…" not in shown, shown
    monkeypatch.delenv("COLUMNS")
    assert (await run(capsys, "ladder", "resume", lid))["status"] == "LADDER_STATUS_RUNNING"
    assert lid in [x["ladder_id"] for x in await run(capsys, "ladder", "list")]
    board = await run(capsys, "ladder", "leaderboard", lid)
    assert {e["name"] for e in board["entries"]} == {f"a-{tag}", f"b-{tag}"}
    cross = await run(capsys, "ladder", "crosstable", lid)
    assert set(cross) == {f"a-{tag}", f"b-{tag}"}
    stopped = await run(capsys, "ladder", "stop", lid)
    assert stopped["status"] == "LADDER_STATUS_STOPPED" and int(stopped["matches_running"]) == 0
    capsys.readouterr()  # piped (no terminal, no COLUMNS): rows stay whole, not one letter a line at 80 columns
    assert await asyncio.to_thread(main, ["ladder", "list"]) == 0
    [row] = [x for x in capsys.readouterr().out.splitlines() if lid in x]
    cells = [c.strip() for c in row.split("│")[1:-1]]
    assert cells[0] == lid and cells[4] == "stopped" and cells[-1] == "-"  # a stopped ladder misses no bot
    # `ladder create` prints the id alone (L=$(bummerl ladder create ...)); the count goes to stderr
    assert await asyncio.to_thread(main, ["ladder", "create", "--bots", f"a-{tag},b-{tag}", "--deals", "1"]) == 0
    out = capsys.readouterr()
    second = out.out.strip()
    assert out.out == second + "\n" and second.startswith("l") and out.err == f"ladder {second}: 2 games\n"
    await run(capsys, "ladder", "stop", second)
    capsys.readouterr()  # watch --json: every event as a line, until the ladder's end
    assert await asyncio.wait_for(asyncio.to_thread(main, ["ladder", "watch", lid, "--json"]), 20) == 0
    events = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert events[0]["type"] == "created" and events[-1]["type"] == "finished"
    # export finds the server through BUMMERL_SERVER too (it had its own default, localhost:50051)
    assert await asyncio.wait_for(asyncio.to_thread(main, ["ladder", "export", "--ladder", lid]), 20) == 0
    assert all(json.loads(x)["ladder_id"] == lid for x in capsys.readouterr().out.splitlines())
    # --tc: both forms make a ladder under that time control (it failed with a ParseError of the scope)
    for tc, field, ms in (("5+0.1", "base_ms", "5000"), ("move=2", "move_cap_ms", "2000")):
        timed = await run(capsys, "ladder", "create", "--bots", f"a-{tag},b-{tag}", "--deals", "1", "--tc", tc)
        assert timed["time_control"]["scope"] == "TIME_CONTROL_SCOPE_MATCH" and timed["time_control"][field] == ms, timed
        await run(capsys, "ladder", "stop", timed["ladder_id"])
    for bad in (["--deals", "0"], ["--matches", "0"], ["--concurrency", "0"]):  # not whole matches / the default
        capsys.readouterr()
        with pytest.raises(SystemExit) as stop:
            await asyncio.to_thread(main, ["ladder", "create", "--bots", f"a-{tag},b-{tag}", *bad])
        assert stop.value.code == 2
        assert f"argument {bad[0]}: must be at least 1, not 0" in capsys.readouterr().err
    new = await run(capsys, "bot", "rotate-token", f"a-{tag}")
    assert new["bot_token"] != a["bot_token"]
    monkeypatch.setenv("COLUMNS", "40")  # a narrow terminal: the token shown once stays on one line
    assert await asyncio.to_thread(main, ["bot", "rotate-token", f"a-{tag}"]) == 0
    [shown] = [x.rsplit(" ", 1)[-1] for x in capsys.readouterr().out.splitlines() if "token" in x]
    assert shown.startswith(a["bot_id"] + ".") and len(shown) == len(new["bot_token"])
    assert (await run(capsys, "bot", "revoke", f"b-{tag}"))["revoked"]
    assert (await run(capsys, "bot", "delete", f"b-{tag}"))["deleted"]
    # a deleted bot leaves `bot list` (its name is free: after re-registering there were two rows of it)
    again = await run(capsys, "bot", "register", f"b-{tag}")
    listed = [x for x in await run(capsys, "bot", "list") if x["name"] == f"b-{tag}"]
    assert [x["bot_id"] for x in listed] == [again["bot_id"]]
    every = [x for x in await run(capsys, "bot", "list", "--all") if x["name"] == f"b-{tag}"]
    assert len(every) == 2 and sum(bool(x.get("deleted")) for x in every) == 1
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["bot", "revoke", "nobody-" + tag]) == 2
    assert "no bot named" in capsys.readouterr().err


def test_too_few_pairs_say_na_instead_of_infinity() -> None:
    assert elo_cell({"elo": "Infinity", "elo_ci95": "Infinity", "deal_pairs": 2, "games": 4}) == \
        f"n/a (needs {MIN_PAIRS_FOR_ELO} pairs)"
    assert elo_cell({"elo": 35.0, "elo_ci95": 20.0, "deal_pairs": 40, "games": 80}) == "+35.0 +/- 20.0"
    assert elo_cell({"elo": "Infinity", "elo_ci95": "Infinity", "deal_pairs": 0, "games": 12}) == "n/a (unbounded so far)"


def test_ladder_run_shows_pairs_as_the_leaderboard_does() -> None:
    """``ladder run``'s pair table uses the same cell (it printed ``inf`` and ``-70.4 +/- 307.5``)."""
    from rich.console import Console

    from bummerl_cli.ladder_run import _pairs_table

    board = {"pairs": [{"a": "x", "b": "y", "elo": float("inf"), "elo_ci95": float("inf"), "los": 1.0,
                        "deal_pairs": 2, "games": 4, "sprt_result": ""}]}
    console = Console(width=200, record=True)
    console.print(_pairs_table(board, {"x": "greedy", "y": "random"}))
    text = console.export_text()
    assert "n/a (needs 10 pairs)" in text and "inf" not in text


def test_named_bot_specs() -> None:
    from bummerl_cli.ladder_run import named_specs

    assert named_specs("mine=exec:./bot --fast,ref=strong:samples=32,seed=1,greedy") == [
        ("mine", "exec:./bot --fast"), ("ref", "strong:samples=32,seed=1"), ("", "greedy")]
    assert named_specs("strong:budget_ms=50,samples=8,random") == [("", "strong:budget_ms=50,samples=8"),
                                                                   ("", "random")]
    # py: specs are named and listed like exec: ones (NAME=py:... was refused as an option of the bot before)
    assert named_specs("strong:samples=8,slowg=py:wk/slow.py:SlowGreedy,py:b.py:B") == [
        ("", "strong:samples=8"), ("slowg", "py:wk/slow.py:SlowGreedy"), ("", "py:b.py:B")]
    from bummerl_cli.ladder_run import _bot_name

    assert _bot_name("py:wk/slow.py:SlowGreedy", 0, "abc") == "SlowGreedy-0-abc"


async def test_ladder_run_keeps_named_bots_and_removes_the_others(rt: Runtime, capsys: Any) -> None:
    tag = uuid.uuid4().hex[:6]
    argv = ["ladder", "run", "--server", rt.target, "--admin-token", ADMIN, "--bots", f"mine-{tag}=random,greedy",
            "--deals", "1", "--quiet", "--json"]
    for _ in range(2):  # twice: the named bot is the same bot both times
        capsys.readouterr()
        assert await asyncio.to_thread(main, argv) == 0
        out = json.loads(capsys.readouterr().out.splitlines()[-1])
        assert {e["name"] for e in out["leaderboard"]} >= {f"mine-{tag}"}
        # one complete duplicate pair each: the later-leg advantage over the gRPC API, not flagged on one set
        assert all(e["later_leg"]["sets"] == 1 and not e["later_leg"]["flagged"] for e in out["leaderboard"]), out
    bots = [b for b in await asyncio.to_thread(lambda: _list_bots(rt.target))]
    mine = [b for b in bots if b["name"] == f"mine-{tag}"]
    assert len(mine) == 1 and not mine[0]["deleted"]
    throwaway = [b for b in bots if b["name"].startswith("greedy-1-")]
    assert throwaway and all(b["deleted"] for b in throwaway)


def _list_bots(target: str) -> list[dict[str, Any]]:
    async def go() -> list[dict[str, Any]]:
        from bummerl_client import AsyncClient

        async with AsyncClient(target) as c:
            return await c.list_bots()

    return asyncio.run(go())


def test_ladder_watch_names_the_bots_of_each_result() -> None:
    """`ladder watch` listed 'game 10: disconnect, scores [0.0, 1.0]', naming nobody."""
    from bummerl_cli.organizer import result_line

    r = {"game": 10, "bots": ["b1", "b2"], "scores": [0.0, 1.0], "reason": "disconnect"}
    assert result_line(r, {"b1": "alice", "b2": "bob"}) == "game 10: alice 0 - bob 1 (disconnect)"
    three = {"game": 3, "bots": ["b1", "b2", "b3"], "scores": ["0.5", "1", "0"], "reason": "target_reached"}
    assert result_line(three, {"b1": "a"}) == "game 3: a 0.5 - b2 1 - b3 0 (target_reached)"


def _shown(table: Any) -> str:
    import io

    from rich.console import Console
    con = Console(file=io.StringIO(), width=250)
    con.print(table)
    return str(con.file.getvalue())  # type: ignore[attr-defined]


def test_the_leaderboard_shows_each_bots_elo_against_the_leader_as_the_web_page() -> None:
    """``ladder leaderboard`` (and ``ladder run``) show the ladder page's "Elo vs leader" column:
    from the pair of the bot and the leader, signed from the bot's side."""
    from bummerl_cli.common import elo_vs_leader, leaderboard_table
    board = {"entries": [{"rank": 1, "bot_id": "x", "name": "lead", "ordinal": 5, "mu": 30, "sigma": 3, "games": 40},
                         {"rank": 2, "bot_id": "y", "name": "next", "ordinal": 1, "mu": 25, "sigma": 3, "games": 40},
                         {"rank": 3, "bot_id": "z", "name": "new", "ordinal": 0, "mu": 25, "sigma": 8, "games": 0}],
             "pairs": [{"a": "y", "b": "x", "elo": -35.0, "elo_ci95": 20.0, "deal_pairs": 20, "games": 40},
                       {"a": "x", "b": "z", "elo": 0, "elo_ci95": 0, "deal_pairs": 0, "games": 0}]}
    got = [elo_vs_leader(board, e) for e in board["entries"]]
    assert got == ["-", "-35.0 +/- 20.0", ""]
    board["pairs"][0] = {"a": "x", "b": "y", "elo": 35.0, "elo_ci95": 20.0, "deal_pairs": 20, "games": 40}
    assert elo_vs_leader(board, board["entries"][1]) == "-35.0 +/- 20.0"  # the same pair from the other side
    out = _shown(leaderboard_table(board, {}))
    assert "Elo vs leader" in out and "-35.0 +/- 20.0" in out


def test_the_leaderboard_shows_the_later_leg_advantage_and_flags_it() -> None:
    """Issue 38: each bot's score in the later legs of its duplicate sets minus the earlier ones."""
    from bummerl_cli.common import leaderboard_table
    entry = {"rank": 1, "bot_id": "x", "name": "mem", "ordinal": 5, "mu": 30, "sigma": 3, "games": 40,
             "later_leg": {"sets": 20, "mean": 0.5, "ci95_low": 0.3, "ci95_high": 0.7, "flagged": True}}
    honest = {**entry, "bot_id": "y", "name": "fair", "rank": 2,
              "later_leg": {"sets": 20, "mean": -0.05, "ci95_low": -0.2, "ci95_high": 0.1}}
    out = _shown(leaderboard_table({"entries": [entry, honest], "pairs": []}, {}))
    assert "later-leg advantage" in out and "+0.50 (+0.30..+0.70) over 20 FLAGGED" in out
    assert "-0.05 (-0.20..+0.10) over 20" in out and out.count("FLAGGED") == 1
    assert "later-leg" not in _shown(leaderboard_table({"entries": [{**entry, "later_leg": {}}], "pairs": []}, {}))


def test_four_seat_tables_say_sets_everywhere() -> None:
    """One word for a 3-4 seat duplicate unit: "sets" (it was "pairs/sets", "sets" and "needs 10 pairs")."""
    from bummerl_cli.common import set_word
    from bummerl_cli.ladder_run import _pairs_table
    from bummerl_cli.organizer import Organizer
    p = {"a": "x", "b": "y", "elo": 1.0, "elo_ci95": 1.0, "deal_pairs": 2, "games": 48, "los": 0.5}
    assert elo_cell(p, 4) == f"n/a (needs {MIN_PAIRS_FOR_ELO} sets)" and set_word(4) == "sets"
    assert elo_cell(p) == f"n/a (needs {MIN_PAIRS_FOR_ELO} pairs)"
    board = {"entries": [], "pairs": [p]}
    org = Organizer.__new__(Organizer)
    for table in (_pairs_table(board, {}, 4), org.board_tables({"num_players": 4}, board)):
        out = _shown(table)
        assert "sets" in out and "pairs/sets" not in out and "needs 10 pairs" not in out, out


async def test_ladder_create_passes_its_seed(capsys: Any, monkeypatch: Any) -> None:
    """``ladder create --seed`` (only ``ladder run`` had it) reaches CreateLadder."""
    from bummerl_cli import organizer
    from bummerl_cli.main import build_parser
    sent: dict[str, Any] = {}

    class Fake:
        async def list_bots(self) -> list[dict[str, Any]]:
            return [{"bot_id": "b1", "name": "a"}, {"bot_id": "b2", "name": "b"}]

        async def create_ladder(self, **fields: Any) -> dict[str, Any]:
            sent.update(fields)
            return {"ladder_id": "l1", "matches_total": 2}

    args = build_parser("ladder").parse_args(
        ["ladder", "create", "--bots", "a,b", "--deals", "1", "--seed", "42"])
    org = organizer.Organizer(args)
    await org.client.close()
    org.client = Fake()  # type: ignore[assignment]
    await org.ladder_create()
    assert sent["seed"] == 42 and sent["bot_ids"] == ["b1", "b2"]
