"""A bot's page (issue 39): its versions and record, and where it lost its points over its latest
finished ladder games (their analyses summed over its seats), reached from a ladder's standings."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from bummerl.app import Runtime
from bummerl.bots import make_bot
from bummerl_client import AsyncClient
from bummerl_client.botrunner import run_bot


async def test_a_bots_page_sums_the_analyses_of_its_games(page: Any, server: Runtime) -> None:
    tag = uuid.uuid4().hex[:6]
    async with AsyncClient(server.target) as client:
        regs = [await client.register_bot(f"{s}-{tag}") for s in ("greedy", "random")]
        await client.publish_version(regs[0]["bot_id"], "2", "a new search", regs[0]["bot_token"])
        stop = asyncio.Event()
        runners = [asyncio.create_task(run_bot(client, r["bot_token"], lambda s=s: make_bot(s, 1), stop=stop))
                   for r, s in zip(regs, ("greedy", "random"), strict=True)]
        try:
            lad = await client.create_ladder(name="bp", variant="schnapsen-at", bot_ids=[r["bot_id"] for r in regs],
                                             rounds=1, deals_per_game=1, duplicate_deals=True, concurrency=2)
            async with asyncio.timeout(60):
                while (await client.ladder(lad["ladder_id"]))["status"] == "LADDER_STATUS_RUNNING":
                    await asyncio.sleep(0.1)
        finally:
            stop.set()
            await asyncio.gather(*runners, return_exceptions=True)
    await page.goto(f"{page.base}/#/ladder/{lad['ladder_id']}")
    await page.click(f"#standings a:text('greedy-{tag}')")
    await page.wait_for_selector("#bot-summary", timeout=90_000)
    assert f"Bot greedy-{tag}" in await page.title()
    summary = page.locator("#bot-summary")
    assert await summary.get_attribute("data-games") == "2" and int(await summary.get_attribute("data-decisions") or 0) > 0
    assert "Mean loss" in (await summary.text_content() or "")
    assert await page.locator("#bot-phases tbody tr").count() == 3
    assert await page.locator("#bot-games tbody tr").count() == 2
    assert "a new search" in (await page.text_content("#bot-versions") or "")
