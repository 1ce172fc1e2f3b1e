"""The pages in a real browser (headless Chromium, tests/web/conftest.py): watching a live match to
its end, stepping a replay, a person beating ``random`` by clicking, a ladder page that updates,
no hidden card on a spectator page, and a four-seat Bauernschnapsen game."""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path
from typing import Any

from bummerl.app import Runtime
from bummerl.bots import make_bot
from bummerl.rules.base.events import EVENT_KINDS  # noqa: F401  (the event kinds the pages render)
from bummerl_client import AsyncClient, Bot, play_seat

DOCS = Path(__file__).resolve().parents[2] / "docs"
UPDATE_SCREENSHOTS = os.environ.get("BUMMERL_UPDATE_SCREENSHOTS") == "1"
"""Write the README's screenshots (docs/replay.png, docs/ladder.png); else they go to a temporary directory."""


def _shot(tmp_path: Path, name: str) -> str:
    return str((DOCS if UPDATE_SCREENSHOTS else tmp_path) / name)
CODE = re.compile(r"(?<![A-Za-z0-9])[ATKQJ9][CSHD](?![A-Za-z0-9])")


class Slow(Bot):
    """A bundled bot that waits ``delay`` seconds before each answer (so a page sees the match live)."""

    def __init__(self, spec: str, delay: float, seed: int = 0) -> None:
        self.inner = make_bot(spec, seed)
        self.delay = delay
        self.name = spec

    async def achoose(self, info: Any) -> int | str:
        await asyncio.sleep(self.delay)
        return self.inner.choose(info)

    def choose(self, info: Any) -> int | str:  # pragma: no cover - achoose is used
        return self.inner.choose(info)


class PagePaced(Slow):
    """:class:`Slow`, but it answers only once the page shows the version it decides at: the page
    follows the match by the events it renders, not by how fast a loaded machine runs it (the
    page sampled on a 20 ms clock once saw 4 versions where the test wants 5)."""

    def __init__(self, page: Any, spec: str, delay: float, seed: int = 0) -> None:
        super().__init__(spec, delay, seed)
        self.page = page

    async def achoose(self, info: Any) -> int | str:
        await self.page.wait_for_function("v => Number(document.body.dataset.version || 0) >= v", arg=info.version,
                                          timeout=30000)
        return await super().achoose(info)


WATCH_SNAPSHOTS = """() => {
  // one snapshot per frame the page shows (each version, each completed trick, each deal result),
  // taken when it shows it (not on a polling clock): [the version whose events it shows, board, log]
  window.__snaps = [];
  const take = () => window.__snaps.push([document.body.dataset.frame || document.body.dataset.version || "0",
    document.querySelector('#board').innerHTML, document.querySelector('#log').innerHTML]);
  new MutationObserver(take).observe(document.body, {attributes: true, attributeFilter: ['data-frame']});
  take();
}"""


async def _rest(server: Runtime, method: str, path: str, body: Any = None) -> Any:
    import urllib.request

    def go() -> Any:
        req = urllib.request.Request(f"http://127.0.0.1:{server.http_port}{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    return await asyncio.to_thread(go)


async def _finished(server: Runtime, match_id: str, seconds: float = 60) -> dict[str, Any]:
    for _ in range(int(seconds * 20)):
        rec = await _rest(server, "GET", f"/v1/matches/{match_id}/record")
        if rec["over"]:
            return rec  # type: ignore[no-any-return]
        await asyncio.sleep(0.05)
    raise AssertionError("the match did not end")


def _public_cards(events: list[dict[str, Any]]) -> set[str]:
    """Card codes the public events of a deal have shown."""
    return set(CODE.findall(json.dumps(events)))


def _hidden_at(step: dict[str, Any], deal_events: list[dict[str, Any]]) -> set[str]:
    """Cards no onlooker may see at a replay step: in a hand or the talon's face-down part, not
    shown by the deal's public events (or as the face-up trump card)."""
    cards = {c for h in step["hands"] for c in h["cards"]} | set(step["talon"][:-1])
    cards |= {c for h in step["laid_away"] for c in h["cards"]}
    shown = _public_cards(deal_events) | {step["public_view"]["deal"]["trump_card"]}
    return cards - shown


def replay_frames(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frames a replay steps through, as the page makes them (web/match.js): for a version
    whose action completed a trick, first that trick on the version before (its last card out of
    its player's hand), then the deal's result if the deal ended, then the version itself.
    Each: ``key`` ("V", "Vt", "Vd"), ``version`` drawn, the open ``hands`` drawn, ``trick``."""
    out: list[dict[str, Any]] = []
    for i, st in enumerate(steps):
        trick = None
        for e in st["events"] if i else []:
            before = steps[i - 1]
            hands = [list(h["cards"]) for h in before["hands"]]
            if "trick_completed" in e:
                trick = e["trick_completed"]
            if trick:
                last = trick["cards"][-1]
                hands[int(last["seat"])] = [c for c in hands[int(last["seat"])] if c != last["card"]]
            if "trick_completed" in e:
                out.append({"key": f"{st['version']}t", "version": int(before["version"]), "hands": hands, "trick": trick})
            if "deal_ended" in e:
                out.append({"key": f"{st['version']}d", "version": int(before["version"]), "hands": hands, "trick": trick,
                            "result": e["deal_ended"]["result"]})
        out.append({"key": str(st["version"]), "version": int(st["version"]), "hands": [h["cards"] for h in st["hands"]],
                    "trick": None})
    return out


def _deal_events_by_version(steps: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    current: list[dict[str, Any]] = []
    for st in steps:
        for e in st["events"]:
            if "deal_started" in e:
                current = []
            current.append(e)
        out[int(st["version"])] = list(current)
    return out


async def test_watch_a_live_bot_match_to_its_end_without_a_hidden_card(page: Any, server: Runtime) -> None:
    """A spectator page follows a live match (house greedy against a slow random bot) to its end:
    the final score on the page equals the record; at every version the page showed, neither its
    DOM nor any network response it received held a card that was hidden at that version."""
    bodies: list[tuple[str, bytes]] = []

    async def keep(resp: Any) -> None:
        try:
            bodies.append((resp.url, await resp.body()))
        except Exception:  # noqa: BLE001 - a redirect or aborted request has no body
            pass

    page.on("response", lambda r: asyncio.ensure_future(keep(r)))
    created = await _rest(server, "POST", "/v1/matches", {"variant": "schnapsen-at", "seats": [
        {"name": "house:greedy"}, {"name": "slowpoke"}], "seed": 12})  # a whole Bummerl: several deals
    mid = created["match_id"]
    await page.goto(f"{page.base}/#/match/{mid}")
    await page.wait_for_selector(".table")
    await page.select_option("#speed", "4")  # paced (each completed trick and deal result held), but quicker
    await page.evaluate(WATCH_SNAPSHOTS)
    async with AsyncClient(server.target) as client:
        await play_seat(client, mid, 1, created["seat_tokens"][1]["token"], PagePaced(page, "random", 0.01, 1))
    await page.wait_for_selector("body[data-over='1']", timeout=10000)
    snapshots: list[tuple[int, str, str, str]] = [(int(re.sub(r"\D", "", k)), k, h, log)
                                                  for k, h, log in await page.evaluate("() => window.__snaps")]
    rec = await _finished(server, mid)
    gp = [int(await page.text_content(f"[data-testid=gp-{s}]") or -1) for s in range(2)]
    assert gp == [int(x) for x in rec["match_result"]["game_points"]]
    replay = await _rest(server, "GET", f"/v1/matches/{mid}/replay")
    steps = {int(s["version"]): s for s in replay["steps"]}
    deal_events = _deal_events_by_version(replay["steps"])
    live = [(v, k, h, log) for v, k, h, log in snapshots if v and v < int(rec["version"])]
    assert len({v for v, _, _, _ in live}) >= 5, "the page did not follow the match live"
    assert any(k.endswith("t") and "completed" in h for _, k, h, _ in live), "no completed trick was shown"
    for v, key, html, log in live:  # the table shows no hidden card; the log holds the public events
        if key.isdigit():
            hidden = _hidden_at(steps[v], deal_events[v])
        else:  # a completed trick or a deal's result: drawn on the version before, with the trick's cards
            trick = [e["trick_completed"] for e in steps[v]["events"] if "trick_completed" in e]
            hidden = _hidden_at(steps[v - 1], deal_events[v - 1]) - {c["card"] for t in trick for c in t["cards"]}
        leaked = hidden & set(CODE.findall(html))
        assert not leaked, (v, key, leaked)
        assert "deals" in log
    await asyncio.sleep(0.2)
    watched = [b for u, b in bodies if "/watch" in u]
    assert watched, "the watch stream's body was not seen"
    for url, body in bodies:
        if "/v1/" not in url:
            continue
        for line in body.decode().splitlines() if "/watch" in url else [body.decode()]:
            msg = json.loads(line)
            frame = msg.get("result", msg)
            v = int(frame.get("version") or 0)
            if v and v < int(rec["version"]) and "public_view" in frame:
                leaked = _hidden_at(steps[v], deal_events[v]) & set(CODE.findall(json.dumps(frame["public_view"])))
                assert not leaked, (url, v, leaked)
                for e in frame["events"]:  # each event shows nothing hidden once it is applied
                    u = int(e["version"])
                    leaked = _hidden_at(steps[u], deal_events[u]) & set(CODE.findall(json.dumps(e)))
                    assert not leaked, (url, u, e, leaked)


async def test_replay_steps_back_and_forth_with_the_record_cards(page: Any, server: Runtime, tmp_path: Path) -> None:
    """A finished match opens as a replay: stepping with the keys and buttons shows, with all
    cards open, exactly the hands of the replay at each frame (each version, and each completed
    trick and deal result a frame of its own); a seat's view shows only its own hand; the
    scrubber jumps. Saves replay.png (docs/ with BUMMERL_UPDATE_SCREENSHOTS=1)."""
    created = await _rest(server, "POST", "/v1/matches", {"variant": "snapszer-hu-2p", "seats": [
        {"name": "house:greedy"}, {"name": "house:random"}], "options": {"match_format": "points", "match_target": "7"}})
    mid = created["match_id"]
    await _finished(server, mid)
    replay = await _rest(server, "GET", f"/v1/matches/{mid}/replay")
    steps = replay["steps"]
    await page.goto(f"{page.base}/#/match/{mid}")
    await page.wait_for_selector(".replay-controls")

    async def shown() -> tuple[int, list[list[str]]]:
        return await page.evaluate("""() => [Number(document.body.dataset.version),
            [...document.querySelectorAll('.seat')].sort((a, b) => a.dataset.seat - b.dataset.seat)
              .map(s => [...s.querySelectorAll('.hand [data-card]')].map(c => c.dataset.card))]""")

    frames = replay_frames(steps)

    async def check(i: int) -> None:
        v, hands = await shown()
        assert v == frames[i]["version"], i
        assert hands == frames[i]["hands"], i
        assert await page.evaluate("() => document.body.dataset.frame") == frames[i]["key"], i

    await check(len(frames) - 1)  # a replay opens at the end of the match
    await page.keyboard.press("Home")
    await check(0)
    for _ in range(6):
        await page.keyboard.press("ArrowRight")
    await check(6)
    await page.click("[data-go=prev]")
    await page.keyboard.press("ArrowLeft")
    await check(4)
    await page.fill("#scrub", str(len(frames) // 2))
    await page.dispatch_event("#scrub", "input")
    await check(len(frames) // 2)
    await page.keyboard.press("End")
    await check(len(frames) - 1)
    await page.keyboard.press("Home")
    await page.keyboard.press("ArrowRight")
    await page.keyboard.press("ArrowRight")
    await check(2)
    await page.select_option("#mode", "1")  # seat 1's view: its own hand open, the other's backs
    await page.wait_for_selector('.seat[data-seat="0"] .hand .back')
    _, hands = await shown()
    assert hands[1] == frames[2]["hands"][1] and hands[0] == ["" for _ in frames[2]["hands"][0]]
    await page.select_option("#mode", "all")
    await page.keyboard.press("ArrowRight")
    names = await page.eval_on_selector_all(".hand [data-card] title", "els => els.map(e => e.textContent)")
    assert any(n.startswith(("makk", "zöld", "piros", "tök")) for n in names), names  # Hungarian card names
    await page.screenshot(path=_shot(tmp_path, "replay.png"), full_page=True)


def _choose(cards: list[dict[str, Any]], actions: list[str], trick: list[str], trump: str) -> tuple[str, str]:
    """A plain strategy for the person: exchange and marriages when offered, never close or
    declare; following, the cheapest card that takes the trick, else the cheapest; leading, the
    cheapest non-trump."""
    value = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0}
    for a in actions:
        if a.startswith(("exchange", "marriage")):
            return "action", a
    legal = [c["card"] for c in cards]
    if not legal:
        others = [a for a in actions if not a.startswith(("close", "declare"))]
        return "action", (others or actions)[0]
    if trick:
        led = trick[0]

        def beats(c: str) -> bool:
            if c[1] == led[1]:
                return "ATKQJ9".index(c[0]) < "ATKQJ9".index(led[0])
            return c[1] == trump

        winners = [c for c in legal if beats(c)]
        if winners and value[led[0]] + min(value[c[0]] for c in winners) >= 10:
            return "card", min(winners, key=lambda c: value[c[0]])
        return "card", min(legal, key=lambda c: (value[c[0]], c[1] == trump))
    return "card", min(legal, key=lambda c: (c[1] == trump, value[c[0]]))


async def test_a_person_wins_a_deal_against_random_by_clicking(page: Any) -> None:
    """Play page: a person takes seat 0 against house:random in schnapsen-at and clicks cards and
    buttons until seat 0 has won game points (a won deal); the seat token is never in the URL."""
    await page.goto(f"{page.base}/#/play?variant=schnapsen-at")
    await page.select_option("select[name=bot]", "random")
    await page.click("#new button")
    await page.wait_for_selector(".table")
    clicks = 0
    for _ in range(400):
        if int(await page.text_content("[data-testid=gp-0]") or 0) > 0:
            break
        if await page.query_selector("#result"):
            await page.click("text=play again")
            await page.click("#new button")
            await page.wait_for_selector(".table")
            continue
        # the page's turn: a legal card, an action button (or "next deal" after a deal's result), or the end
        await page.wait_for_selector('.seat[data-seat="0"] button.card.legal, #actions button.act, #result', timeout=30000)
        state = await page.evaluate("""() => ({
            cards: [...document.querySelectorAll('.seat[data-seat="0"] button.card.legal')].map(b => ({card: b.dataset.card})),
            actions: [...document.querySelectorAll('#actions button.act')].map(b => b.textContent),
            trick: [...document.querySelectorAll('.trick [data-card]')].map(c => c.dataset.card),
            trump: document.querySelector('.center')?.dataset.trump || '',
            version: document.body.dataset.version})""")
        if not state["cards"] and not state["actions"]:
            await asyncio.sleep(0.03)
            continue
        kind, what = _choose(state["cards"], state["actions"], state["trick"], state["trump"])
        clicks += 1
        if kind == "card":
            await page.click(f'.seat[data-seat="0"] button.card[data-card="{what}"]')
        else:
            await page.click(f'#actions button.act:text-is("{what}")')
        for _ in range(500):  # until the page shows the next version (no string eval: the pages' CSP forbids it)
            if await page.evaluate("() => document.body.dataset.version") != state["version"]:
                break
            await asyncio.sleep(0.02)
    assert clicks > 0 and int(await page.text_content("[data-testid=gp-0]") or 0) > 0
    assert "token" not in page.url and len(page.url) < 200


async def test_ladder_page_updates_while_the_ladder_runs(page: Any, server: Runtime, tmp_path: Path) -> None:
    """A ladder page opened before its games are played shows the games played rise to the total
    without a reload, then the standings and pairs. Saves ladder.png (docs/ with
    BUMMERL_UPDATE_SCREENSHOTS=1)."""
    from bummerl_client.botrunner import run_bot

    async with AsyncClient(server.target) as client:
        regs = [await client.register_bot(n) for n in ("greedy", "random")]
        lad = await client.create_ladder(name="web", variant="schnapsen-at", bot_ids=[r["bot_id"] for r in regs],
                                         rounds=12, deals_per_game=1, concurrency=1,
                                         format="LADDER_FORMAT_ROUND_ROBIN")
        listings = 0

        def count(req: Any) -> None:
            nonlocal listings
            listings += req.url.split("?")[0].endswith(f"/ladders/{lad['ladder_id']}/matches")

        page.on("request", count)
        await page.goto(f"{page.base}/#/ladder/{lad['ladder_id']}")
        await page.wait_for_selector("#played")
        assert (await page.text_content("#presence") or "").count("○") == 2  # no bot connected yet
        stop = asyncio.Event()
        runners = [asyncio.create_task(run_bot(client, r["bot_token"], lambda n=n: Slow(n, 0.03)))
                   for r, n in zip(regs, ("greedy", "random"), strict=True)]
        seen: list[int] = []
        total = int(await page.get_attribute("#played", "data-played") or 0)
        connected = False
        try:
            for _ in range(1200):
                # one read of both: the page re-renders them together from one GetLadder response
                played_s, status = await page.evaluate(
                    "() => [document.querySelector('#played')?.dataset.played || '0',"
                    " document.querySelector('#ladder-status')?.textContent || '']")
                played = int(played_s)
                connected = connected or (await page.text_content("#presence") or "").count("●") == 2
                if not seen or seen[-1] != played:
                    seen.append(played)
                if status == "finished":
                    break
                await asyncio.sleep(0.05)
        finally:
            stop.set()
            for t in runners:
                t.cancel()
            await asyncio.gather(*runners, return_exceptions=True)
    assert total == 0 and seen[-1] == 12 and len(seen) >= 3, seen
    assert connected  # the page showed both bots connected while they played
    rows = await page.eval_on_selector_all("#standings tbody tr", "rs => rs.map(r => r.textContent)")
    assert len(rows) == 2 and await page.eval_on_selector_all("#games tbody tr", "rs => rs.length") == 12
    cells = await page.eval_on_selector_all("#crosstable tbody td", "ts => ts.map(t => t.textContent)")
    assert len(cells) == 4 and cells[0] == cells[3] == "—", cells  # a 2x2 cross table, every game counted both ways
    assert all("/" in c for c in (cells[1], cells[2])), cells
    assert [int(c.split("/")[1]) for c in (cells[1], cells[2])] == [12, 12]
    assert float(cells[1].split("/")[0]) + float(cells[2].split("/")[0]) == 12
    # greedy won every game: an unbounded Elo shows as the CLI shows it (it was "Infinity ± Infinity"),
    # and not "so far" once the ladder is over
    text = await page.text_content("#pairs") or ""
    assert "n/a (unbounded" in text and "so far" not in text and "Infinity" not in text and "NaN" not in text, text
    assert listings == 1, f"the page fetched the whole /matches list {listings} times (once, then the stream's results)"
    await page.screenshot(path=_shot(tmp_path, "ladder.png"), full_page=True)


async def test_a_four_seat_bauernschnapsen_game(page: Any, server: Runtime) -> None:
    """A Bauernschnapsen match of four house bots: live and as a replay the page draws four seats
    with their teams, the contract and the bids."""
    created = await _rest(server, "POST", "/v1/matches", {"variant": "bauernschnapsen", "seats": [
        {"name": f"house:{b}"} for b in ("greedy", "random", "greedy", "random")], "options": {"match_target": "4"}})
    mid = created["match_id"]
    await _finished(server, mid)
    await page.goto(f"{page.base}/#/match/{mid}")
    await page.wait_for_selector(".replay-controls")
    assert await page.eval_on_selector_all(".seat", "s => s.length") == 4
    await page.keyboard.press("Home")
    assert await page.eval_on_selector_all(".seat .team", "s => s.map(t => t.textContent)") == \
        ["team 1", "team 2", "team 1", "team 2"]
    center = ""
    for _ in range(40):  # through the auction (its length depends on the deal) into the play
        await page.keyboard.press("ArrowRight")
        center = await page.text_content(".center") or ""
        if "Contract" in center:
            break
    assert "Contract" in center
    hands = await page.eval_on_selector_all(".seat .hand", "hs => hs.map(h => h.querySelectorAll('[data-card]').length)")
    assert sum(hands) > 0 and len(hands) == 4


async def test_home_lists_variants_matches_and_works_at_phone_width(page: Any, server: Runtime) -> None:
    """Home: every variant with its options, the recent matches with links; at a phone's width
    the page needs no horizontal scrolling."""
    created = await _rest(server, "POST", "/v1/matches", {"variant": "santase", "seats": [
        {"name": "ann"}, {"name": "house:random"}]})
    await page.set_viewport_size({"width": 390, "height": 800})
    await page.goto(f"{page.base}/")
    await page.wait_for_selector("#recent")
    assert f"#/match/{created['match_id']}" in (await page.inner_html("#recent"))
    variants = await _rest(server, "GET", "/v1/variants")
    assert await page.eval_on_selector_all("table.variants tbody tr", "rs => rs.length") == len(variants["variants"])
    assert await page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")


async def test_a_token_match_asks_for_its_watch_token(page: Any, server: Runtime) -> None:
    """A match watched by token: the page asks for it (kept in memory, not in the URL), then
    shows the match."""
    created = await _rest(server, "POST", "/v1/matches", {"variant": "schnapsen-at", "seats": [
        {"name": "a"}, {"name": "b"}], "watch": {"access": "token"}})
    await page.goto(f"{page.base}/#/match/{created['match_id']}")
    await page.wait_for_selector("#token input")
    await page.fill("#token input", created["watch_token"])
    await page.click("#token button")
    await page.wait_for_selector(".table")
    assert created["watch_token"] not in page.url


async def test_the_play_clock_ticks(page: Any) -> None:
    """Play with a clock: the seat to act has a running clock that counts down on the page."""
    await page.goto(f"{page.base}/#/play?variant=santase")
    await page.select_option("select[name=clock]", "60000+1000")
    await page.click("#new button")
    await page.wait_for_selector(".clock.running")
    first = await page.text_content(".clock.running")
    await asyncio.sleep(0.6)
    assert await page.text_content(".clock.running") != first


async def test_event_lines_speak_to_the_player_as_you(page: Any) -> None:
    """The play page names the player's seat "you": the log said "you deals", "you plays",
    "you takes the trick" and "1 points". Cards are named (English here), reasons in words."""
    await page.goto(f"{page.base}/")
    await page.wait_for_selector("table.variants")  # the card names have arrived
    lines = await page.evaluate("""async () => {
        const m = await import("/web/table.js");
        const names = ["you", "bot"];
        return [{deal_started: {dealer: 0}, deal_number: 0}, {card_played: {seat: 0, card: "AH"}},
                {trick_completed: {winner: 0, cards: [{card: "AH"}]}}, {passed: {seat: 0}},
                {card_played: {seat: 1, card: "TH"}}, {passed: {seat: 1}},
                {match_ended: {result: {placements: [1, 2], reason: "target_reached"}}}].map((e) => {
                  const d = document.createElement("div");
                  d.innerHTML = m.eventText(e, names, "en");
                  return d.textContent; });
    }""")
    assert lines == ["Deal 1: you deal", "you play ace of hearts", "you take the trick (ace of hearts)", "you pass",
                     "bot plays ten of hearts", "bot passes", "Match over: target reached, you win"]
