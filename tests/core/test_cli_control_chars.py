"""The CLI never prints control characters from stored data or record files raw (issue 38): bot
and ladder names, client strings and action texts come from whoever wrote them (an older server,
a hand-edited record), and an ESC sequence among them would drive the operator's terminal. Every
table cell and line that shows such text goes through :func:`bummerl_cli.common.safe`."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from bummerl.core import MatchService
from bummerl_cli import organizer
from bummerl_cli.common import leaderboard_table, safe
from bummerl_cli.main import main

from .test_record_no_leak import ADMIN, play_randomly

EVIL = "ev\x1b[2Jil\r\x07\u202e[red]x"
SHOWN = "ev\\x1b[2Jil\\r\\x07\\u202e[red]x"


def test_safe_escapes_control_and_override_characters() -> None:
    assert safe(EVIL) == SHOWN
    assert safe("plain name é ü 🂡") == "plain name é ü 🂡"
    assert safe("a\nb") == "a\\nb" and safe("a\x1b\nb", keep_newlines=True) == "a\\x1b\nb"


def test_leaderboard_table_shows_a_name_escaped() -> None:
    board = {"entries": [{"rank": 1, "name": EVIL, "ordinal": 1, "mu": 25, "sigma": 8, "games": 1}]}
    con = Console(file=io.StringIO(), width=250)
    con.print(leaderboard_table(board, {}))
    out = con.file.getvalue()  # type: ignore[attr-defined]
    assert "\x1b" not in out and "\r" not in out and SHOWN in out


class FakeClient:
    """The organizer's AsyncClient, answering with stored data that holds control characters."""

    bots = [{"bot_id": "b1", "name": EVIL, "connected": True, "connected_since_ms": "1", "client": "c\x1b]0;t\x07"},
            {"bot_id": "b2", "name": "ok"}]
    lad = {"ladder_id": "L1", "name": EVIL, "variant": "schnapsen-at", "bot_ids": ["b1", "b2"],
           "bot_names": {"b1": EVIL, "b2": "ok"}, "num_players": 2}

    async def list_bots(self) -> list[dict[str, Any]]:
        return self.bots

    async def ladder(self, _lid: str) -> dict[str, Any]:
        return self.lad

    async def list_ladders(self) -> list[dict[str, Any]]:
        return [self.lad]

    async def leaderboard(self, _lid: str, pooled: bool = False) -> dict[str, Any]:
        return {"entries": [{"rank": 1, "name": EVIL, "ordinal": 1, "mu": 25, "sigma": 8, "bot_id": "b1"}],
                "pairs": [{"a": "b1", "b": "b2", "deal_pairs": 1, "games": 2, "elo": 0, "elo_ci95": 0, "los": 0.5}]}

    async def ladder_matches(self, _lid: str) -> list[dict[str, Any]]:
        return [{"bots": ["b1", "b2"], "scores": [1, 0]}]

    async def ladder_games(self, _lid: str, _state: str) -> list[dict[str, Any]]:
        return [{"game": 1, "bots": ["b1", "b2"], "state": "done\x1b[1m", "match_id": "m1"}]


@pytest.mark.parametrize("cmd", [("bot", "list"), ("ladder", "list"), ("ladder", "leaderboard"),
                                 ("ladder", "crosstable"), ("ladder", "games")])
async def test_organizer_tables_escape_stored_text(cmd: tuple[str, str], capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    args = argparse.Namespace(cmd=cmd[0], bot_cmd=cmd[1] if cmd[0] == "bot" else None,
                              ladder_cmd=cmd[1] if cmd[0] == "ladder" else None, id="L1", json=False, server=None,
                              admin_token=None, pooled=False, state=None)
    org = organizer.Organizer(args)
    await org.client.close()
    org.client = FakeClient()  # type: ignore[assignment]
    await organizer.COMMANDS[cmd](org)
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out and "\u202e" not in out, repr(out)
    assert "\\x1b" in out


@pytest.fixture
def asvc(tstore: Any, clock: Any) -> MatchService:
    return MatchService(tstore, now_ms=clock, admin_token=ADMIN)


async def test_match_show_and_verify_escape_a_record_files_text(asvc: MatchService, tmp_path: Path,
                                                                capsys: Any) -> None:
    created = await play_randomly(asvc, "schnapsen-at", seed=4)
    rec = json.loads(json.dumps(await asvc.record(created.match_id)))
    rec["seats"][0]["name"] = EVIL
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec))
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["match", "show", "--file", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and SHOWN in out
    rec["match_id"] = "m\x1b[2J"
    rec["actions"][0]["action_text"] = "\x1b[2J" + rec["actions"][0]["action_text"]
    path.write_text(json.dumps(rec))
    for argv, code in ((["verify", str(path)], 1), (["verify", str(path), "--json"], 1),
                       (["match", "show", "--file", str(path)], 2)):
        assert await asyncio.to_thread(main, argv) == code  # the forged text fails (test_verify_fields) ...
        got = capsys.readouterr()
        assert "\x1b" not in got.out + got.err and "\\x1b[2J" in got.err, got  # ... and is shown escaped
