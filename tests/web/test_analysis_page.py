"""The post-game analysis in the replay (issue 39): while the server computes it the page says so
and asks again as the retry hint says; then each valued move shows its loss (and kind) beside it in
the move list, and a panel sums up each seat, its worst moves linking to their moments. The page
stays within the audit and a phone's width."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from bummerl.app import Runtime
from bummerl.core.analysis import AnalysisSettings, timed_values
from bummerl.core.analysis_store import Analyses

from .test_pages import _finished, _rest
from .test_people import AUDIT, DESKTOP, NO_SIDEWAYS, PHONE


class Gate:
    """A decision's valuation (thread mode) that waits until opened; counts calls by seed."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.seeds: Counter[int] = Counter()

    def __call__(self, info: dict[str, Any], settings: AnalysisSettings, seed: int) -> tuple[Any, float]:
        self.seeds[seed] += 1
        assert self.open.wait(30)
        return timed_values(info, settings, seed)


async def test_the_replay_shows_each_moves_loss_and_a_summary_per_seat(page: Any, server: Runtime) -> None:
    assert server.spectators is not None
    gate = Gate()
    an = Analyses.of(server.spectators)
    an.workers, an.settings, an.value_fn, an.retry_ms = 0, AnalysisSettings(samples=4, budget_ms=0, seed=3), gate, 300
    created = await _rest(server, "POST", "/v1/matches", {"variant": "schnapsen-at", "seats": [
        {"name": "house:greedy"}, {"name": "house:random"}]})
    mid = created["match_id"]
    await _finished(server, mid)
    await page.set_viewport_size(DESKTOP)
    await page.goto(f"{page.base}/#/match/{mid}?replay")
    await page.wait_for_selector("#analysis-pending")
    assert await page.locator(".log .loss").count() == 0
    gate.open.set()
    await page.wait_for_selector("#analysis-done", timeout=30_000)
    got = await _rest(server, "GET", f"/v1/matches/{mid}/analysis")
    assert got["state"] == "done" and an.computed == 1 and set(gate.seeds.values()) == {1}
    valued = [d for d in got["decisions"] if d["valued"]]
    badges = await page.eval_on_selector_all(
        ".log li .loss", "bs => bs.map(b => [b.closest('li').dataset.v, b.textContent, b.className])")
    assert len(badges) == len(valued) and [b[0] for b in badges] == [d["version"] for d in valued]
    fixed = "xs => xs.map(x => Number(x).toFixed(2))"  # the page's rounding (0.625 -> 0.63, Python's 0.62)
    losses = await page.evaluate(fixed, [d["loss"] for d in valued])
    for (_, text, cls), d, loss in zip(badges, valued, losses, strict=True):
        if d["loss"] > 0.005:
            assert text == f"−{loss}" + (f" {d['kind']}" if d["kind"] else "")
            assert cls == f"loss {d['kind'] or 'ok'}"
        else:
            assert text == "best"
    rows = await page.eval_on_selector_all("table.analysis tbody tr", "rs => rs.map(r => r.textContent)")
    assert len(rows) == 2 and "house:greedy" in rows[0] and "house:random" in rows[1]
    for s, row in zip(got["seats"], rows, strict=True):
        mean, total = await page.evaluate(fixed, [s["mean_loss"], s["total_loss"]])
        assert mean in row and total in row
    worst = page.locator("table.analysis a[data-v]").first
    if await worst.count():
        v = await worst.get_attribute("data-v")
        await worst.click()
        assert await page.evaluate("() => document.body.dataset.version") == v
    assert await page.evaluate(AUDIT) == []
    await page.set_viewport_size(PHONE)
    assert await page.evaluate(NO_SIDEWAYS)
