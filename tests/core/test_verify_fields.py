"""``bummerl verify`` checks every field the commitment and the replay can check (issue 38): the
action texts, the versions and deals of the actions, the counts of deals and seats, the final
version; a record is tied to its match by the commitment published at creation (the commitment
does not hash the match id, so a record of another match under this id is caught by that
commitment or by the id asked for), and the CLI prints the commitment."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bummerl.core import MatchService
from bummerl.core.verify import VerificationError, verify_record
from bummerl_cli.main import main

from .test_record_no_leak import ADMIN, play_randomly


@pytest.fixture
def asvc(tstore: Any, clock: Any) -> MatchService:
    return MatchService(tstore, now_ms=clock, admin_token=ADMIN)


async def _record(asvc: MatchService, seed: int) -> dict[str, Any]:
    created = await play_randomly(asvc, "schnapsen-at", seed=seed)
    rec: dict[str, Any] = json.loads(json.dumps(await asvc.record(created.match_id)))
    return rec


def _edit_text(r: dict[str, Any]) -> None:
    a = next(a for a in r["actions"] if str(a["action_text"]).startswith("play "))
    a["action_text"] = "play AS" if a["action_text"] != "play AS" else "play TS"


def _extra_deal(r: dict[str, Any]) -> None:
    r["deals"].append({**r["deals"][-1], "deal_number": len(r["deals"])})


def _twice_a_deal(r: dict[str, Any]) -> None:
    r["deals"].append(dict(r["deals"][0]))


def _extra_seat(r: dict[str, Any]) -> None:
    r["seats"].append({"seat": 2, "name": "ghost", "team": 0})


def _version(r: dict[str, Any]) -> None:
    r["actions"][3]["version"] = int(r["actions"][3]["version"]) + 7


def _final_version(r: dict[str, Any]) -> None:
    r["version"] = int(r["version"]) + 3


def _deal_of_action(r: dict[str, Any]) -> None:
    r["actions"][0]["deal_number"] = 3


def _kind(r: dict[str, Any]) -> None:
    r["actions"][0]["kind"] = "TIMEOUT"


@pytest.mark.parametrize("forge, says", [
    (_edit_text, "not the recorded text"), (_extra_deal, "deal"), (_twice_a_deal, "twice"),
    (_extra_seat, "3 seats"), (_version, "version"), (_final_version, "version"), (_deal_of_action, "deal"),
    (_kind, "kind"),
])
async def test_a_forged_field_fails(asvc: MatchService, forge: Callable[[dict[str, Any]], None], says: str) -> None:
    rec = await _record(asvc, 4)
    assert verify_record(rec)["commitment"] == rec["deck_commitment"]
    bad = copy.deepcopy(rec)
    forge(bad)
    with pytest.raises(VerificationError, match=says):
        verify_record(bad)


async def test_another_matchs_record_under_this_id_fails_against_the_published_commitment(asvc: MatchService) -> None:
    a, b = await _record(asvc, 4), await _record(asvc, 9)
    forged = {**b, "match_id": a["match_id"]}  # the whole record of b, under a's id
    verify_record(forged)  # alone it checks out: the commitment does not hash the match id ...
    with pytest.raises(VerificationError, match="published"):  # ... but not against a's published commitment
        verify_record(forged, commitment=a["deck_commitment"])
    with pytest.raises(VerificationError, match="is of match"):  # nor fetched as a's record under b's id
        verify_record(b, match_id=a["match_id"])
    assert verify_record(a, match_id=a["match_id"], commitment=a["deck_commitment"].upper())["deals"] >= 1


async def test_the_cli_prints_the_commitment_and_checks_a_given_one(asvc: MatchService, tmp_path: Path,
                                                                   capsys: Any) -> None:
    a, b = await _record(asvc, 4), await _record(asvc, 9)
    path = tmp_path / "a.json"
    path.write_text(json.dumps(a))
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["verify", str(path)]) == 0
    assert a["deck_commitment"] in capsys.readouterr().out
    assert await asyncio.to_thread(main, ["verify", str(path), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["ok"] and got["commitment"] == a["deck_commitment"] and not got["commitment_checked"]
    assert await asyncio.to_thread(main, ["verify", str(path), "--commitment", a["deck_commitment"], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["commitment_checked"]
    assert await asyncio.to_thread(main, ["verify", str(path), "--commitment", b["deck_commitment"]]) == 1
    assert "published" in capsys.readouterr().err
    _edit_text(a)
    path.write_text(json.dumps(a))
    assert await asyncio.to_thread(main, ["match", "show", "--file", str(path)]) == 2  # no forged text shown
    assert "not the recorded text" in capsys.readouterr().err
