"""Following a match in the browser (issue 39): the bugs people saw (option defaults, clocks,
contract ids, tiny captions, no winner banner, one tab title), each completed trick and deal
result shown (live, held for a moment; a replay step of its own; a "last trick" view), the
spectator's pace (a delay queue with a speed and a catch-up), a replay's position and view in the
URL, the clickable move list in card names, the record and a transcript to download, and a
long match's seat view loading with a sign and kept once loaded."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from bummerl.app import Runtime
from bummerl.core.verify import verify_record
from bummerl_client import AsyncClient, play_seat

from .test_pages import CODE, Slow, _finished, _rest, replay_frames

UNDERSCORED = re.compile(r"\b[a-z]+_[a-z_]+\b")


async def test_option_defaults_clocks_and_tab_titles(page: Any, server: Runtime) -> None:
    """Home shows each option's default as the API gives it (``default_value``; the page showed
    "= undefined"); a clock never shows 60 seconds ("14:60"); each page has its own tab title."""
    await page.goto(f"{page.base}/")
    await page.wait_for_selector("table.variants")
    variants = (await _rest(server, "GET", "/v1/variants"))["variants"]
    shown = await page.eval_on_selector_all("code.default", "cs => cs.map(c => c.textContent)")
    assert shown == [o["default_value"] for v in variants for o in v["options"]]
    assert "undefined" not in (await page.text_content("table.variants") or "")
    clocks = await page.evaluate("""async () => {
        const m = await import("/web/table.js");
        return [899960, 119999, 60000, 59999, 61500, 0].map(m.fmtClock); }""")
    assert clocks == ["14:59", "1:59", "1:00", "59.9s", "1:01", "0.0s"]
    home = await page.title()
    created = await _rest(server, "POST", "/v1/matches", {"variant": "santase", "seats": [
        {"name": "house:greedy"}, {"name": "house:random"}]})
    await _finished(server, created["match_id"])
    await page.goto(f"{page.base}/#/match/{created['match_id']}")
    await page.wait_for_selector(".replay-controls")
    assert created["match_id"] in await page.title() and await page.title() != home
    await page.goto(f"{page.base}/#/play")
    await page.wait_for_selector("#new")
    assert (await page.title()).startswith("Play")


async def test_four_seat_replay_names_contracts_and_shows_the_winner(page: Any, server: Runtime) -> None:
    """A Bauernschnapsen replay: contracts and calls in words (never ``einfacher_rufer``), card
    captions of at least 11 px (they were 6.5 px), a winner banner at the end, and three bots of
    the same name told apart."""
    created = await _rest(server, "POST", "/v1/matches", {"variant": "bauernschnapsen", "seats": [
        {"name": "house:greedy"}, {"name": "house:random"}, {"name": "house:greedy"}, {"name": "house:random"}],
        "options": {"match_target": "4"}})
    mid = created["match_id"]
    rec = await _finished(server, mid)
    await page.goto(f"{page.base}/#/match/{mid}")
    await page.wait_for_selector(".replay-controls")
    names = await page.eval_on_selector_all(".seat .name", "ns => ns.map(n => n.textContent)")
    assert len(set(names)) == 4, names
    banner = await page.text_content("#winner") or ""
    result = rec["match_result"]
    if int(result["winner"]) >= 0:
        winners = [names_by_seat for names_by_seat in await page.evaluate(
            "() => [...document.querySelectorAll('.seat')].sort((a, b) => a.dataset.seat - b.dataset.seat)"
            ".map(s => s.querySelector('.name').textContent)")]
        assert "wins" in banner or "win" in banner
        assert any(w in banner for w in winners)
    assert await page.evaluate("(async () => (await import('/web/table.js')).contractName('einfacher_rufer'))()") \
        == "Einfacher Rufer"
    await page.keyboard.press("Home")
    captioned = 0
    for _ in range(60):
        text = (await page.text_content(".center") or "") + (await page.text_content("#log") or "")
        assert not UNDERSCORED.search(text), UNDERSCORED.search(text)
        sizes = await page.eval_on_selector_all(".caption", "cs => cs.filter(c => c.offsetParent)"
                                                ".map(c => parseFloat(getComputedStyle(c).fontSize))")
        # a random match's replay may hold a step with no card in view (a deal's result at its end)
        assert min(sizes, default=11) >= 11, sizes
        captioned += bool(sizes)
        await page.keyboard.press("ArrowRight")
    assert captioned >= 20, captioned


async def test_each_completed_trick_and_deal_result_is_a_replay_step(page: Any, server: Runtime) -> None:
    """In a replay each completed trick is a step of its own (every card of it in the middle, who
    took it), each deal's end a step with its result (deal points, game points, why); a later
    state shows the deal's last trick on request."""
    created = await _rest(server, "POST", "/v1/matches", {"variant": "snapszer-hu-2p", "seats": [
        {"name": "house:random"}, {"name": "house:greedy"}], "options": {"match_format": "points", "match_target": "4"},
        "seed": 3})
    mid = created["match_id"]
    await _finished(server, mid)
    steps = (await _rest(server, "GET", f"/v1/matches/{mid}/replay"))["steps"]
    frames = replay_frames(steps)
    await page.goto(f"{page.base}/#/match/{mid}?replay&at={frames[0]['key']}")
    await page.wait_for_selector(".replay-controls")
    tricks = deals = lasts = 0
    for i, f in enumerate(frames):
        assert await page.evaluate("() => document.body.dataset.frame") == f["key"]
        if f["key"].endswith("t"):
            shown = await page.eval_on_selector_all(".trick.completed [data-card]", "cs => cs.map(c => c.dataset.card)")
            assert shown == [c["card"] for c in f["trick"]["cards"]]
            assert "takes the trick" in (await page.text_content("#taken") or "")
            tricks += 1
        elif f["key"].endswith("d"):
            rows = await page.eval_on_selector_all("#deal-result tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
            assert [r[1] for r in rows] == [str(x) for x in f["result"]["deal_points"]]
            assert [r[3] for r in rows] == [f"+{g}" if g else "0" for g in f["result"]["game_points"]]
            assert f["result"]["reason"].replace("_", " ") in (await page.text_content("#deal-result h3") or "")
            deals += 1
        elif i > 0 and frames[i - 1]["key"].endswith("t") and await page.query_selector("#last-trick"):
            await page.click("#last-trick summary")
            shown = await page.eval_on_selector_all("#last-trick [data-card]", "cs => cs.map(c => c.dataset.card)")
            assert shown == [c["card"] for c in frames[i - 1]["trick"]["cards"]]
            lasts += 1
        await page.keyboard.press("ArrowRight")
    ended = sum(1 for st in steps for e in st["events"] if "deal_ended" in e)
    taken = sum(1 for st in steps for e in st["events"] if "trick_completed" in e)
    # every completed trick and every deal's end was a step of its own (a random match may have few:
    # a deal can end on a declaration after one trick)
    assert tricks == taken >= 1 and deals == ended and lasts >= 1, (tricks, taken, deals, lasts)


async def test_live_view_holds_tricks_paces_and_catches_up(page: Any, server: Runtime) -> None:
    """Live, a fast match (a bot answering at once against house greedy): at speed 4x the page
    holds each completed trick (both cards, who took it) and the deal's result; it falls behind
    the match, says so, and "catch up to live" shows the end at once with the winner banner."""
    created = await _rest(server, "POST", "/v1/matches", {"variant": "schnapsen-at", "seats": [
        {"name": "house:greedy"}, {"name": "quick"}], "seed": 5})
    mid = created["match_id"]
    await page.goto(f"{page.base}/#/match/{mid}")
    await page.wait_for_selector("#speed")
    await page.select_option("#speed", "4")
    async with AsyncClient(server.target) as client:
        task = asyncio.ensure_future(play_seat(client, mid, 1, created["seat_tokens"][1]["token"], Slow("random", 0, 2)))
        await page.wait_for_function("() => document.querySelectorAll('.trick.completed [data-card]').length === 2",
                                     timeout=30000)
        assert "takes the trick" in (await page.text_content("#taken") or "")
        await page.wait_for_selector("#deal-result", timeout=60000)
        await page.select_option("#speed", "0.5")  # now surely behind the match, whatever the machine's speed
        await task
    await _finished(server, mid)
    assert await page.evaluate("() => document.body.dataset.over") != "1"  # the page is behind: the match ran faster
    await page.wait_for_selector("#catch-up:not([hidden])")
    assert "behind live" in (await page.text_content("#behind") or "")
    await page.click("#catch-up")
    await page.wait_for_selector("body[data-over='1']")
    assert await page.query_selector("#winner")
    assert (await page.text_content("#behind") or "") == "live"


async def test_replay_position_and_view_in_the_url_moves_and_downloads(page: Any, server: Runtime, tmp_path: Path) -> None:
    """The replay's URL holds its moment and view, and opens there; the move list names cards as the
    cards do and each move is a link to its moment; the record downloads (and verifies) and so does
    a transcript with one line per event; replay speed plays to the end."""
    created = await _rest(server, "POST", "/v1/matches", {"variant": "snapszer-hu-2p", "seats": [
        {"name": "house:greedy"}, {"name": "house:random"}], "options": {"match_format": "points", "match_target": "7"}})
    mid = created["match_id"]
    rec = await _finished(server, mid)
    await page.goto(f"{page.base}/#/match/{mid}")
    await page.wait_for_selector(".replay-controls")
    log = await page.text_content("#log") or ""
    assert not CODE.findall(log), CODE.findall(log)[:5]  # "makk ász", not "AC"
    links = await page.eval_on_selector_all("#log a[data-at]", "as => as.map(a => a.dataset.at)")
    target = links[len(links) // 3]
    await page.click(f'#log a[data-at="{target}"] >> nth=0')
    assert await page.evaluate("() => document.body.dataset.frame") == target
    assert f"at={target}" in page.url and "view=all" in page.url
    await page.select_option("#mode", "1")
    await page.wait_for_selector('.seat[data-seat="0"] .hand .back')
    url = page.url
    assert "view=1" in url
    shown = await page.inner_html("#board")
    other = await page.context.new_page()
    await other.goto(url)
    await other.wait_for_selector('.seat[data-seat="0"] .hand .back')
    assert await other.evaluate("() => document.body.dataset.frame") == target
    assert await other.input_value("#mode") == "1" and await other.inner_html("#board") == shown
    await other.close()
    async with page.expect_download() as dl:
        await page.click("#dl-record")
    record = json.loads(Path(await (await dl.value).path()).read_text())
    assert record == rec
    assert verify_record(record, mid)["match_id"] == mid
    async with page.expect_download() as dl:
        await page.click("#dl-transcript")
    lines = Path(await (await dl.value).path()).read_text().splitlines()
    steps = (await _rest(server, "GET", f"/v1/matches/{mid}/replay"))["steps"]
    events = sum(len(st["events"]) for st in steps)
    assert sum(1 for ln in lines if re.match(r"^\s*\d+  ", ln)) == events
    await page.select_option("#mode", "all")
    await page.select_option("#replay-speed", "live")
    await page.keyboard.press("Home")
    await page.click("[data-go=play]")
    await page.wait_for_function("n => document.body.dataset.frame === n", arg=str(steps[-1]["version"]), timeout=60000)
    assert "speed=live" in page.url


async def test_a_seat_view_loads_with_a_sign_and_is_kept(page: Any, server: Runtime) -> None:
    """Asking for a seat's view of a replay: while its information sets load, the board says so and
    shows no card (it showed every card, with no sign, for 8-12 s); once loaded, it is kept (the
    next seat and a second visit fetch nothing)."""
    created = await _rest(server, "POST", "/v1/matches", {"variant": "schnapsen-at", "seats": [
        {"name": "house:greedy"}, {"name": "house:random"}]})
    mid = created["match_id"]
    await _finished(server, mid)
    release = asyncio.Event()
    asked: list[str] = []

    async def hold(route: Any) -> None:
        asked.append(route.request.url)
        await release.wait()
        await route.continue_()

    await page.route("**/replay?seat_views=true", hold)
    await page.goto(f"{page.base}/#/match/{mid}")
    await page.wait_for_selector(".replay-controls")
    await page.select_option("#mode", "0")
    await page.wait_for_selector("#loading[aria-busy=true]")
    assert await page.eval_on_selector_all("#board [data-card]", "cs => cs.length") == 0
    release.set()
    await page.wait_for_selector('.seat[data-seat="1"] .hand .back, .seat[data-seat="1"] .hand:empty')
    await page.select_option("#mode", "1")
    await page.wait_for_selector('.seat[data-seat="0"] .hand .back, .seat[data-seat="0"] .hand:empty')
    await page.click("a[href='#/']")
    await page.wait_for_selector("table.variants")
    await page.go_back()
    await page.wait_for_selector(".replay-controls")
    await page.select_option("#mode", "0")
    await page.wait_for_selector('.seat[data-seat="1"] .hand .back, .seat[data-seat="1"] .hand:empty')
    assert len(asked) == 1, asked
