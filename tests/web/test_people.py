"""The pages for the people who use them (issue 39): a player keeps the seat across navigation and
reloads (or resigns, after a confirmation), four-seat bots told apart, a phone layout (no sideways
scrolling at 390 px, the player's hand at the bottom), accessibility (live announcements, a log
reached by keyboard, named controls, headings in order), the card names' language, a dark theme,
and a ladder page that lists its running games and when each becomes watchable."""

from __future__ import annotations

import asyncio
from typing import Any

from bummerl.app import Runtime
from bummerl_client import AsyncClient

from .test_pages import Slow, _finished, _rest

DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}

NO_SIDEWAYS = "() => document.documentElement.scrollWidth <= window.innerWidth + 1"

AUDIT = """() => {
  // a small audit in the spirit of axe-core's rules (no network: axe is not bundled): every control
  // has an accessible name, headings go down one level at a time from one h1, ids are unique,
  // the page has a language and a live region
  const problems = [];
  const name = (el) => (el.getAttribute("aria-label") || "").trim()
    || (el.getAttribute("aria-labelledby") || "").split(" ").map((i) => document.getElementById(i)?.textContent || "").join("").trim()
    || (el.labels && [...el.labels].map((l) => l.textContent).join("").trim())
    || (el.textContent || "").trim() || (el.getAttribute("title") || "").trim() || (el.getAttribute("alt") || "").trim();
  for (const el of document.querySelectorAll("button, a[href], select, input:not([type=hidden]), [role=img], textarea")) {
    if (el.closest("[hidden]") || el.closest("svg[aria-hidden=true]")) continue;
    if (!name(el)) problems.push(`no name: ${el.outerHTML.slice(0, 120)}`);
  }
  const hs = [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")].map((h) => Number(h.tagName[1]));
  if (hs.filter((h) => h === 1).length !== 1) problems.push(`h1 count ${hs.filter((h) => h === 1).length}`);
  hs.forEach((h, i) => { if (i && h > hs[i - 1] + 1) problems.push(`heading h${hs[i - 1]} then h${h}`); });
  const ids = [...document.querySelectorAll("[id]")].map((e) => e.id);
  const dup = ids.filter((x, i) => ids.indexOf(x) !== i);
  if (dup.length) problems.push(`duplicate ids ${dup}`);
  if (!document.documentElement.lang) problems.push("no lang");
  if (!document.querySelector("[aria-live]")) problems.push("no live region");
  return problems;
}"""


async def _start(page: Any, variant: str, bot: str = "greedy") -> str:
    await page.goto(f"{page.base}/#/play?variant={variant}")
    await page.wait_for_selector("#new")
    await page.select_option("select[name=bot]", bot)
    await page.click("#new button")
    await page.wait_for_selector(".table")
    return str(page.url.split("#/play/")[1])


async def test_the_play_page_keeps_the_seat_and_resigns_after_a_confirmation(page: Any) -> None:
    """Going Home and Back, and reloading, return to the same game (the seat token in the tab's
    sessionStorage, never in the URL); resigning asks first, "no" plays on, "yes" ends the match."""
    await page.set_viewport_size(DESKTOP)
    mid = await _start(page, "santase")
    await page.wait_for_selector('.seat[data-seat="0"] button.card.legal, #actions button.act')
    await page.click("a[href='#/']")
    await page.wait_for_selector("table.variants")
    await page.go_back()
    await page.wait_for_selector('.seat[data-seat="0"] button.card.legal, #actions button.act')
    assert mid in (await page.text_content("#status") or "")
    await page.reload()
    await page.wait_for_selector('.seat[data-seat="0"] button.card.legal, #actions button.act')
    assert mid in page.url and "token" not in page.url
    await page.goto(f"{page.base}/#/play")
    await page.wait_for_selector("#running-games")
    await page.click(f"#running-games a[href='#/play/{mid}']")
    await page.wait_for_selector("#resign")
    await page.click("#resign")
    await page.wait_for_selector("#resign-confirm:not([hidden])")
    await page.click("#resign-no")
    await page.wait_for_selector("#resign-confirm", state="hidden")
    await page.wait_for_selector('.seat[data-seat="0"] button.card.legal, #actions button.act')
    await page.click("#resign")
    await page.click("#resign-yes")
    await page.wait_for_selector("#result")
    assert "lost" in (await page.text_content("#result") or "")


async def test_four_seat_play_names_the_bots_apart_and_keeps_the_hand_at_the_bottom(page: Any) -> None:
    """Bauernschnapsen against three greedy bots: the seats are named apart (they were all
    ``house:greedy``); at 1366x768 and at 390x844 the player's hand is below every other seat,
    on the phone it is on screen at the bottom without scrolling, and nothing scrolls sideways."""
    for size in (DESKTOP, PHONE):
        await page.set_viewport_size(size)
        await page.goto(f"{page.base}/#/play?variant=bauernschnapsen")
        await page.wait_for_selector("#new")
        assert await page.evaluate(NO_SIDEWAYS), size  # the form fits (489 px on a 390 px screen before)
        await _start(page, "bauernschnapsen")
        await page.wait_for_selector('.seat.own .hand [data-card]')
        names = await page.eval_on_selector_all(".seat .name", "ns => ns.map(n => n.textContent)")
        assert len(set(names)) == 4, names
        boxes = await page.evaluate("""() => [...document.querySelectorAll('.seat')].map(s => {
            const r = s.getBoundingClientRect(); return [s.classList.contains('own'), r.top, r.bottom]; })""")
        own = [b for b in boxes if b[0]][0]
        assert all(own[1] >= b[2] - 1 for b in boxes if not b[0]), boxes
        if size is PHONE:
            hand = await page.evaluate("() => { const r = document.querySelector('.seat.own .hand').getBoundingClientRect();"
                                       " return [r.top, r.bottom, window.innerHeight]; }")
            assert hand[0] >= 0 and hand[1] <= hand[2] + 1, hand
        assert await page.evaluate(NO_SIDEWAYS), size
        await page.click("#resign")
        await page.click("#resign-yes")
        await page.wait_for_selector("#result")


async def test_no_page_scrolls_sideways_on_a_phone(page: Any, server: Runtime) -> None:
    """Home, the play form (489 px wide before), a replay, a seat view and a ladder page fit a 390 px screen."""
    created = await _rest(server, "POST", "/v1/matches", {"variant": "snapszer-hu-4p", "seats": [
        {"name": "house:greedy"}, {"name": "house:random"}, {"name": "house:greedy"}, {"name": "house:random"}]})
    await _finished(server, created["match_id"])
    async with AsyncClient(server.target) as client:
        regs = [await client.register_bot(n) for n in ("phone-a", "phone-b")]
        lad = await client.create_ladder(name="phone", variant="schnapsen-at", bot_ids=[r["bot_id"] for r in regs],
                                         rounds=2, deals_per_game=1, concurrency=1, format="LADDER_FORMAT_ROUND_ROBIN")
    await page.set_viewport_size(PHONE)
    for url, sel in ((f"{page.base}/", "table.variants"), (f"{page.base}/#/play", "#new"),
                     (f"{page.base}/#/match/{created['match_id']}", ".replay-controls"),
                     (f"{page.base}/#/match/{created['match_id']}?replay&view=2", ".table"),
                     (f"{page.base}/#/ladder/{lad['ladder_id']}", "#played")):
        await page.goto(url)
        await page.wait_for_selector(sel)
        assert await page.evaluate(NO_SIDEWAYS), url


async def test_accessibility_audit_live_moves_and_a_keyboard_log(page: Any, server: Runtime) -> None:
    """Home, a replay and the play page pass the audit (named controls, headings in order, unique
    ids, a language, a live region); a move is announced in the live region; the event log is
    reached with Tab; card buttons are named with the card."""
    created = await _rest(server, "POST", "/v1/matches", {"variant": "bauernschnapsen", "seats": [
        {"name": "house:greedy"}, {"name": "house:random"}, {"name": "house:greedy"}, {"name": "house:random"}],
        "options": {"match_target": "4"}})
    await _finished(server, created["match_id"])
    await page.set_viewport_size(DESKTOP)
    await page.goto(f"{page.base}/")
    await page.wait_for_selector("table.variants")
    assert await page.evaluate(AUDIT) == []
    await page.goto(f"{page.base}/#/match/{created['match_id']}")
    await page.wait_for_selector(".replay-controls")
    assert await page.evaluate(AUDIT) == []
    await _start(page, "schnapsen-at")
    await page.wait_for_selector('.seat[data-seat="0"] button.card.legal, #actions button.act')
    assert await page.evaluate(AUDIT) == []
    assert await page.text_content("#announce")  # the deal (and the bot's move) were announced
    labels = await page.eval_on_selector_all("button.card.legal", "bs => bs.map(b => b.getAttribute('aria-label'))")
    titles = await page.eval_on_selector_all("button.card.legal title", "ts => ts.map(t => t.textContent)")
    assert labels and labels == [f"play {t}" for t in titles]
    await page.focus("#resign")
    for _ in range(60):
        if await page.evaluate("() => document.activeElement?.id") == "log":
            break
        await page.keyboard.press("Tab")
    assert await page.evaluate("() => document.activeElement?.id") == "log"


async def test_card_names_in_a_chosen_language_with_lang(page: Any, server: Runtime) -> None:
    """A Hungarian replay names its cards in Hungarian (``lang="hu"``); choosing German in the page
    renames the cards and the moves (``lang="de"``), and the choice stays after a reload."""
    created = await _rest(server, "POST", "/v1/matches", {"variant": "snapszer-hu-2p", "seats": [
        {"name": "house:greedy"}, {"name": "house:random"}], "options": {"match_format": "points", "match_target": "4"}})
    await _finished(server, created["match_id"])
    await page.goto(f"{page.base}/#/match/{created['match_id']}?replay&at=1")
    await page.wait_for_selector(".replay-controls")
    assert set(await page.eval_on_selector_all(".hand .card", "cs => cs.map(c => c.lang)")) == {"hu"}
    await page.select_option("#card-lang", "de")
    await page.wait_for_selector(".hand .card[lang=de]")
    names = await page.eval_on_selector_all(".hand .card", "cs => cs.map(c => c.getAttribute('aria-label'))")
    assert any(n.startswith(("Eichel", "Laub", "Herz", "Schellen")) for n in names), names
    assert set(await page.eval_on_selector_all("#log .cn", "cs => cs.map(c => c.lang)")) == {"de"}
    await page.reload()
    await page.wait_for_selector(".hand .card[lang=de]")
    await page.select_option("#card-lang", "")
    await page.wait_for_selector(".hand .card[lang=hu]")


async def test_a_dark_theme_follows_the_system(page: Any) -> None:
    """With the system's dark colour scheme the pages are dark; with the light one, light."""
    def lum(rgb: str) -> float:
        r, g, b = (int(x) for x in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3])
        return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255

    for scheme, dark in (("dark", True), ("light", False)):
        await page.emulate_media(color_scheme=scheme)
        await page.goto(f"{page.base}/")
        await page.wait_for_selector("table.variants")
        bg = await page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        fg = await page.evaluate("() => getComputedStyle(document.querySelector('main')).color")
        assert (lum(bg) < 0.3) == dark and (lum(fg) > 0.6) == dark, (scheme, bg, fg)


async def test_the_ladder_page_lists_running_games_and_when_they_become_watchable(page: Any, server: Runtime) -> None:
    """A duplicate ladder's page lists its running games with when each becomes watchable (once its
    set is over); a running game's page links back to the ladder; once the ladder is over every
    game links to its replay."""
    from bummerl_client.botrunner import run_bot

    async with AsyncClient(server.target) as client:
        regs = [await client.register_bot(n) for n in ("dup-greedy", "dup-random")]
        lad = await client.create_ladder(name="dup", variant="schnapsen-at", bot_ids=[r["bot_id"] for r in regs],
                                         rounds=2, deals_per_game=1, concurrency=1, duplicate_deals=True,
                                         format="LADDER_FORMAT_ROUND_ROBIN")
        await page.goto(f"{page.base}/#/ladder/{lad['ladder_id']}")
        await page.wait_for_selector("#played")
        go = asyncio.Event()

        class Gated(Slow):
            async def achoose(self, info: Any) -> int | str:
                await go.wait()
                return await super().achoose(info)

        runners = [asyncio.create_task(run_bot(client, r["bot_token"], lambda n=n: Gated(n, 0)))
                   for r, n in zip(regs, ("greedy", "random"), strict=True)]
        try:
            await page.wait_for_selector("#running-games tbody tr", timeout=30000)
            text = await page.text_content("#running-games") or ""
            assert "watchable once it ends and game" in text, text
            game = (await _rest(server, "GET", f"/v1/ladders/{lad['ladder_id']}/games?state=running"))["games"][0]
            await page.goto(f"{page.base}/#/match/{game['match_id']}?ladder={lad['ladder_id']}")
            await page.wait_for_selector("#back a")
            await page.click("#back a")
            await page.wait_for_selector("#played")
            go.set()
            await page.wait_for_function("() => document.querySelector('#ladder-status')?.textContent === 'finished'",
                                         timeout=60000)
        finally:
            go.set()
            for t in runners:
                t.cancel()
            await asyncio.gather(*runners, return_exceptions=True)
    links = await page.eval_on_selector_all("#games a[href^='#/match/']", "as => as.length")
    assert links == int(await page.get_attribute("#played", "data-played") or 0) > 0
