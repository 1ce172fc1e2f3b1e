"""Records of matches that end by a concession (a resignation, a bot's illegal answer, a crash, a
client-side timeout) verify and show as well as those played to the end, in every spelling a
record reaches a verifier in: the SDK's dict of GetMatchRecord, the REST JSON, the stored form.

A walkthrough found ``bummerl verify``, ``match show`` and ``ladder export --format text`` failing
on every such match ("unknown kind 'OUTCOME_KIND_ILLEGAL' for 'resign'"): the API names the
record's kind with its enum name, the verifier knew only the stored short form."""

from __future__ import annotations

import asyncio
import json
import random
import urllib.request
from typing import Any

import pytest

from bummerl.app import Runtime
from bummerl.core.verify import outcome_kind, verify_record
from bummerl_cli.transcript import entries, text
from bummerl_client import AsyncClient


def _rest_record(http_port: int, match_id: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/v1/matches/{match_id}/record", timeout=10) as r:
        record: dict[str, Any] = json.loads(r.read())
        return record


@pytest.mark.parametrize(("reason", "kind"), [("", "RESIGN"), ("illegal", "ILLEGAL"), ("disconnect", "DISCONNECT"),
                                              ("timeout", "TIMEOUT")])
async def test_a_match_ended_by_a_concession_verifies_and_shows_over_grpc_and_rest(rt: Runtime, reason: str,
                                                                                 kind: str) -> None:
    rng = random.Random(7)
    async with AsyncClient(rt.target) as c:
        m = await c.create_match("schnapsen-at", seed=11)
        info = await c.information_set(m.match_id, 0, m.tokens[0])
        for _ in range(5):  # a few cards into the first deal
            seat = info["deal"]["to_act"]
            info = await c.information_set(m.match_id, seat, m.tokens[seat])
            got = await c.submit_action(m.match_id, seat, m.tokens[seat], int(info["version"]),
                                 rng.choice(info["legal_actions"])["id"])
            info = got["information_set"]
        await c.resign(m.match_id, 1, m.tokens[1], reason)
        sdk_record = await c.match_record(m.match_id)
    rest_record = await asyncio.to_thread(_rest_record, rt.http_port, m.match_id)
    for rec in (sdk_record, rest_record):
        assert rec["actions"][-1]["kind"] == f"OUTCOME_KIND_{kind}"  # the API's spelling
        assert verify_record(rec) == {"match_id": m.match_id, "commitment": rec["deck_commitment"], "deals": 1,
                                      "actions": 6, "winner": 0}
        shown = [e["text"] for e in entries(rec) if e["kind"] == "action"]  # what `bummerl match show` prints
        assert len(shown) == 6 and shown[-1] == f"v7 seat1: resign [{kind}]"
        assert f"match ends: seat0 wins ({reason or 'resigned'})" in text(rec)


def test_outcome_kinds_in_every_spelling() -> None:
    assert [outcome_kind(k) for k in ("ILLEGAL", "OUTCOME_KIND_ILLEGAL", 4, None, "", 6, 99)] == [
        "ILLEGAL", "ILLEGAL", "ILLEGAL", "", "", "ABANDONED", "99"]
