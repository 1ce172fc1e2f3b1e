"""The live chances bar (issue 39): a live two-player match shows each side's chances estimated from
the public view only (game points and the tricks taken), as a labelled meter that moves with the
match; the function reads only what every spectator's frame holds."""

from __future__ import annotations

import asyncio
from typing import Any

from bummerl.app import Runtime
from bummerl_client import AsyncClient
from bummerl_client.runner import play_seat

from .test_pages import PagePaced, _rest


async def test_a_live_match_shows_the_chances_of_each_side(page: Any, server: Runtime) -> None:
    created = await _rest(server, "POST", "/v1/matches", {"variant": "schnapsen-at", "seats": [
        {"name": "house:greedy"}, {"name": "slowpoke"}], "seed": 5})
    mid = created["match_id"]
    await page.goto(f"{page.base}/#/match/{mid}")
    await page.wait_for_selector("#chances")
    first = await page.get_attribute("#chances", "data-p0")
    assert first is not None and 0 < int(first) < 100
    label = await page.get_attribute("#chances", "aria-label") or ""
    assert "house:greedy" in label and "slowpoke" in label and "percent" in label
    await page.select_option("#speed", "live")
    seen: set[str] = set()

    async def watch() -> None:
        while True:
            p0 = await page.get_attribute("#chances", "data-p0")
            p1 = await page.get_attribute("#chances", "data-p1")
            if p0 is not None and p1 is not None:
                assert int(p0) + int(p1) == 100
                seen.add(p0)
            await asyncio.sleep(0.05)

    watcher = asyncio.create_task(watch())
    try:
        async with AsyncClient(server.target) as client:
            await play_seat(client, mid, 1, created["seat_tokens"][1]["token"], PagePaced(page, "random", 0.01, 1))
    finally:
        watcher.cancel()
    assert len(seen) > 2  # it moves with the match
