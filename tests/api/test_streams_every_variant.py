"""Every game is playable by bots that follow their ``StreamMatch`` (the SDK runner, as the docs
advise): a version that shows no public event (a lay-away card of Talonschnapsen's declarer,
TS-TAL-1, or of the Sopron hívó, HU3S-TAL-1) is still sent to every seat's stream."""

from __future__ import annotations

import asyncio

import pytest

from bummerl.app import Runtime
from bummerl.bots import make_bot
from bummerl.core.verify import verify_record
from bummerl.rules import list_variants
from bummerl_client import AsyncClient
from bummerl_client.runner import play_match

VARIANTS = [v.id for v in list_variants()]


@pytest.mark.parametrize("variant", VARIANTS)
async def test_every_variant_plays_to_the_end_on_streams(rt: Runtime, variant: str) -> None:
    n = next(v for v in list_variants() if v.id == variant).num_players
    bots = [make_bot("random", seed=i) for i in range(n)]
    async with AsyncClient(rt.target) as c:
        rec = await asyncio.wait_for(play_match(c, variant, bots, seed=7), 30)
    assert rec["over"] and "faults" not in rec
    # seats whose bots share a name are told apart in the record (and so in transcripts and pages)
    assert [s["name"] for s in rec["seats"]] == [f"random#{i}" for i in range(n)]
    assert len(rec["actions"]) == int(rec["version"]) - 1
    assert verify_record(rec)["actions"] == len(rec["actions"])  # the SDK's record checks out
    if variant in ("talonschnapsen", "snapszer-hu-3p-sopron"):  # the case that stalled: a lay-away
        assert any(a["action_text"].startswith("discard") for a in rec["actions"])
