"""``bummerl match show``'s transcript: derived from the record alone; a revealed record shows the
hands as dealt and every trick with its winner, an unrevealed one only what onlookers may see."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from bummerl.core import MatchService
from bummerl_cli.transcript import entries, text

from .test_record_no_leak import ADMIN, play_randomly


@pytest.fixture
def asvc(tstore: Any, clock: Any) -> MatchService:
    return MatchService(tstore, now_ms=clock, admin_token=ADMIN)


@pytest.mark.parametrize("variant", ["schnapsen-at", "talonschnapsen", "bauernschnapsen"])
async def test_a_revealed_transcript_shows_hands_tricks_and_the_result(asvc: MatchService, variant: str) -> None:
    created = await play_randomly(asvc, variant, seed=4)
    rec = json.loads(json.dumps(await asvc.record(created.match_id)))
    es = entries(rec)
    deals = [e for e in es if e["kind"] == "deal"]
    assert len(deals) == len(rec["deals"])
    for d in deals:  # every card dealt to a seat appears once, in that deal's hands
        cards = [c for h in d["hands"] for c in h]
        assert cards and len(cards) == len(set(cards))
    plays = [e for e in es if e["kind"] == "action"]
    assert [e["version"] for e in plays] == [a["version"] for a in rec["actions"]]
    out = text(rec)
    assert out.count("won by") == sum(1 for e in es if "won by" in e["text"]) > 0
    assert out.count("match ends") == 1 and rec["seats"][0]["name"] in out  # the result once (it came twice)
    if variant == "talonschnapsen":  # the lay-away shows its card once revealed
        assert any(re.search(r": discard [9TJQKA][CSHD]", e["text"]) for e in plays) or "discard" not in out


async def test_an_unrevealed_transcript_shows_no_hand(asvc: MatchService) -> None:
    created = await asvc.create_match("talonschnapsen", seed=4, admin_token=ADMIN)
    rec = json.loads(json.dumps(await asvc.record(created.match_id)))
    es = entries(rec)
    assert not rec["revealed"] and all("hands" not in e for e in es)
    assert "not revealed" in text(rec)



async def test_match_show_command(asvc: MatchService, tmp_path: Any, capsys: Any) -> None:
    from bummerl_cli.main import main

    created = await play_randomly(asvc, "schnapsen-at", seed=8)
    rec = json.loads(json.dumps(await asvc.record(created.match_id)))
    f = tmp_path / "rec.json"
    f.write_text(json.dumps(rec))
    assert main(["match", "show", "--file", str(f)]) == 0
    out = capsys.readouterr().out
    assert out == text(rec) and "deal 1" in out
    assert main(["match", "show", "--file", str(f), "--format", "jsonl"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines == json.loads(json.dumps(entries(rec)))
    assert main(["match", "show", "nosuch"]) == 2  # no server: one line, exit 2
    assert "--server" in capsys.readouterr().err
