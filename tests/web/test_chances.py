"""The live chances bar (issue 39): a live two-player match shows each side's chances estimated from
the public view only (game points and the tricks taken), as a labelled meter that moves with the
match; the function reads only what every spectator's frame holds."""

from __future__ import annotations

from typing import Any

from bummerl.app import Runtime
from bummerl_client import AsyncClient
from bummerl_client.runner import play_seat

from .test_pages import PagePaced, _rest


class ChancesPaced(PagePaced):
    """:class:`PagePaced` that also reads the page's chances each time the page shows the version
    it decides at (samples tied to versions, not to a clock)."""

    def __init__(self, page: Any, spec: str, delay: float, seed: int = 0) -> None:
        super().__init__(page, spec, delay, seed)
        self.seen: list[tuple[str | None, str | None]] = []

    async def achoose(self, info: Any) -> int | str:
        await self.page.wait_for_function("v => Number(document.body.dataset.version || 0) >= v", arg=info.version,
                                          timeout=30000)
        self.seen.append(await self.page.evaluate(
            "() => { const m = document.querySelector('#chances'); return m ? [m.dataset.p0, m.dataset.p1] : [null, null]; }"))
        return await super().achoose(info)


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
    bot = ChancesPaced(page, "random", 0.01, 1)
    async with AsyncClient(server.target) as client:
        await play_seat(client, mid, 1, created["seat_tokens"][1]["token"], bot)
    shown = [(int(a), int(b)) for a, b in bot.seen if a is not None and b is not None]
    assert len(shown) > 5 and all(a + b == 100 for a, b in shown)
    assert len({a for a, _ in shown}) > 2  # it moves with the match (the tricks taken, the game points)
