"""A ladder of every 3- and 4-seat game played to its end by connected bots that follow their
streams (the SDK's bot runner, as ``bummerl bot run`` does): no game of the family may be left out
of the stream path again (issue 25: talonschnapsen and snapszer-hu-3p-sopron stalled there)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from bummerl.app import Runtime
from bummerl.bots import make_bot
from bummerl.rules import list_variants
from bummerl_client import AsyncClient
from bummerl_client.botrunner import run_bot

ADMIN = "adm"
SEATED = [v.id for v in list_variants() if v.num_players > 2]


SERVER_SETTINGS = {"admin_token": ADMIN}


def test_every_seated_game_is_covered() -> None:
    assert set(SEATED) == {"stockschnapsen", "snapszer-hu-3p-rotation", "talonschnapsen", "snapszer-hu-3p-sopron",
                           "bauernschnapsen", "snapszer-hu-4p"}


@pytest.mark.parametrize("variant", SEATED)
async def test_a_ladder_of_every_seated_game_finishes_on_streams(rt: Runtime, variant: str) -> None:
    seats = next(v.num_players for v in list_variants() if v.id == variant)
    stop = asyncio.Event()
    done: list[dict[str, Any]] = []
    async with AsyncClient(rt.target) as c:
        bots = [await c.register_bot(f"st-{uuid.uuid4().hex[:8]}", admin_token=ADMIN) for _ in range(seats)]
        runners = [asyncio.create_task(run_bot(c, b["bot_token"], lambda i=i: make_bot("random", seed=i),
                                               on_done=done.append, stop=stop)) for i, b in enumerate(bots)]
        try:
            lad = await c.create_ladder(admin_token=ADMIN, name="st", variant=variant,
                                        bot_ids=[b["bot_id"] for b in bots], rounds=1, deals_per_game=1,
                                        duplicate_deals=True, concurrency=8)
            for _ in range(1200):
                got = await c.ladder(lad["ladder_id"])
                if got["status"] != "LADDER_STATUS_RUNNING":
                    break
                await asyncio.sleep(0.05)
            games = 6 if seats == 3 else 24
            assert int(got["matches_played"]) == games, got
            assert len(done) == games * seats and all(d["outcome"] in ("won", "lost", "drawn") for d in done)
        finally:
            stop.set()
            await asyncio.gather(*runners, return_exceptions=True)
