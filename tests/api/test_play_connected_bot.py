"""A person plays a connected registered bot (issue 20, "Play ... or a connected one, when the admin
allows"): CreateMatch seats ``bot:<name>`` only when the server allows it, only a connected bot,
and the match reaches the bot through its assignment stream like a ladder game."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest

from bummerl.app import Runtime
from bummerl.bots import make_bot
from bummerl_client import AsyncClient, BummerlError
from bummerl_client.botrunner import run_bot
from bummerl_client.runner import play_seat

ADMIN = "play-admin"
SERVER_SETTINGS = {"admin_token": ADMIN, "play_connected_bots": True}


async def test_a_person_plays_a_connected_bot(rt: Runtime) -> None:
    async with AsyncClient(rt.target) as c:
        name = f"conn-{uuid.uuid4().hex[:8]}"
        bot = await c.register_bot(name, admin_token=ADMIN)
        with pytest.raises(BummerlError) as ei:  # not connected yet
            await c.create_match("santase", seats=["me", f"bot:{name}"], admin_token=ADMIN)
        assert ei.value.code == grpc.StatusCode.FAILED_PRECONDITION
        with pytest.raises(BummerlError) as ei:
            await c.create_match("santase", seats=["me", "bot:nobody-here"], admin_token=ADMIN)
        assert ei.value.code == grpc.StatusCode.NOT_FOUND
        done: list[dict[str, object]] = []
        stop = asyncio.Event()
        runner = asyncio.create_task(run_bot(c, bot["bot_token"], lambda: make_bot("random", 1), on_done=done.append,
                                             stop=stop))
        for _ in range(100):
            if any(b["bot_id"] == bot["bot_id"] and b["connected"] for b in await c.list_bots()):
                break
            await asyncio.sleep(0.05)
        cm = await c.create_match("santase", seats=["me", f"bot:{name}"], admin_token=ADMIN)
        assert cm.tokens[1] == ""  # the bot's seat is played with its bot token, not given out
        final = await asyncio.wait_for(play_seat(c, cm.match_id, 0, cm.tokens[0], make_bot("greedy", 2)), 60)
        assert final["match"]["over"]
        for _ in range(100):
            if done:
                break
            await asyncio.sleep(0.05)
        stop.set()
        await runner
    assert done and done[0]["match_id"] == cm.match_id and done[0]["seat"] == 1


async def test_without_the_setting_a_bot_seat_is_refused(rt: Runtime) -> None:
    """The default server (play_connected_bots off) refuses a bot:<name> seat: PERMISSION_DENIED."""
    from bummerl.api.servicer import GameServicer
    from bummerl.core.errors import PermissionDeniedError

    servicer = GameServicer(rt.service, ladders=rt.ladders)  # the setting's default: off
    with pytest.raises(PermissionDeniedError, match="BUMMERL_PLAY_CONNECTED_BOTS"):
        await servicer._connected_seats(["me", "bot:x"])
    assert await servicer._connected_seats(["me", "you"]) == {}
