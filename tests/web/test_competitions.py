"""The competition pages (issue 37), in headless Chromium: a Swiss ladder's standings with tiebreaks
and rounds, a knockout's bracket, an arena's points table with its games watchable live, the
challenges page, and the leaderboard's later-leg column (issue 38)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from bummerl.app import Runtime
from bummerl.bots import make_bot
from bummerl_client import AsyncClient
from bummerl_client.botrunner import run_bot


async def with_bots(client: AsyncClient, specs: list[str], body: Callable[[list[dict[str, Any]]], Awaitable[None]]) -> None:
    """Register and connect one bot per spec (in this process) around ``body(registrations)``."""
    tag = uuid.uuid4().hex[:6]
    regs = [dict(await client.register_bot(f"{s}{i}-{tag}")) for i, s in enumerate(specs)]
    stop = asyncio.Event()
    runners = [asyncio.create_task(run_bot(client, r["bot_token"], lambda s=s, i=i: make_bot(s, i), stop=stop))
               for i, (s, r) in enumerate(zip(specs, regs, strict=True))]
    try:
        await body(regs)
    finally:
        stop.set()
        await asyncio.gather(*runners, return_exceptions=True)


async def finished(client: AsyncClient, ladder_id: str) -> None:
    async with asyncio.timeout(90):
        while (await client.ladder(ladder_id))["status"] == "LADDER_STATUS_RUNNING":
            await asyncio.sleep(0.1)


async def test_swiss_and_knockout_pages(page: Any, server: Runtime) -> None:
    async with AsyncClient(server.target) as client:
        async def play(regs: list[dict[str, Any]]) -> None:
            ids = [r["bot_id"] for r in regs]
            swiss = await client.create_ladder(name="sw", variant="schnapsen-at", bot_ids=ids, rounds=2,
                                               format="LADDER_FORMAT_SWISS", deals_per_game=1, pairs_per_meeting=1,
                                               duplicate_deals=True, concurrency=4)
            ko = await client.create_ladder(name="ko", variant="schnapsen-at", bot_ids=ids, format="LADDER_FORMAT_KNOCKOUT",
                                            deals_per_game=1, pairs_per_meeting=1, duplicate_deals=True, concurrency=4)
            await finished(client, swiss["ladder_id"])
            await finished(client, ko["ladder_id"])
            await page.goto(f"{page.base}/#/ladder/{swiss['ladder_id']}")
            await page.wait_for_selector("#swiss-standings")
            assert await page.locator("#swiss-standings tbody tr").count() == 3
            text = await page.text_content("#app") or ""
            assert "Buchholz" in text and "round 1" in text and "round 2" in text and "bye:" in text
            assert await page.locator("#standings th", has_text="later leg").count() == 1  # complete duplicate pairs
            await page.goto(f"{page.base}/#/ladder/{ko['ladder_id']}")
            await page.wait_for_selector("#bracket .tie")
            bracket = await page.text_content("#bracket") or ""
            assert "semi-final" in bracket and "final" in bracket and "bye" in bracket and "by score" in bracket \
                or "by game_points" in bracket or "by seed" in bracket

        await with_bots(client, ["greedy", "random", "random"], play)


async def test_arena_page_and_challenges_page(page: Any, server: Runtime) -> None:
    async with AsyncClient(server.target) as client:
        async def play(regs: list[dict[str, Any]]) -> None:
            lad = await client.create_ladder(name="ar", variant="schnapsen-at", bot_ids=[r["bot_id"] for r in regs],
                                             format="LADDER_FORMAT_ARENA", deals_per_game=1, duplicate_deals=False,
                                             concurrency=4)
            await page.goto(f"{page.base}/#/ladder/{lad['ladder_id']}")
            await page.wait_for_selector("#arena-standings")
            link = page.locator("#running-games a", has_text="watch live")
            await link.first.wait_for(timeout=30_000)  # an arena game is its own set: watchable while it runs
            async with asyncio.timeout(30):
                while not (await client.ladder_matches(lad["ladder_id"])):
                    await asyncio.sleep(0.1)
            await page.reload()
            await page.wait_for_selector("#arena-standings tbody tr")
            assert await page.locator("#arena-standings tbody tr").count() == 4
            await client.stop_ladder(lad["ladder_id"])
            ch = await client.challenge(regs[0]["bot_token"], "house:random", "santase", pairs=1, deals_per_game=1)
            await page.goto(f"{page.base}/#/challenges")
            await page.wait_for_selector("#challenge-list")
            row = page.locator("#challenge-list tr", has_text=regs[0]["name"])
            assert "accepted" in (await row.first.text_content() or "")
            assert await row.first.locator(f'a[href="#/ladder/{ch["ladder_id"]}"]').count() == 1

        await with_bots(client, ["greedy", "random", "greedy", "random"], play)
