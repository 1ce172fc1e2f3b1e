"""A bot process that crashes under ``bummerl bot run --bot exec:...`` loses that game (record
kind DISCONNECT, reason ``disconnect``) and is started afresh for its next game, as fastchess
restarts a crashed engine: one crash does not forfeit the rest of the ladder (issue 25)."""

from __future__ import annotations

import asyncio
import sys
import uuid
from pathlib import Path
from typing import Any

from bummerl.app import Runtime
from bummerl_client import AsyncClient
from bummerl_client.__main__ import bot_from_spec
from bummerl_client.botrunner import run_bot

ADMIN = "adm"

CRASH_ONCE = '''
import json, os, sys
marker = sys.argv[1]
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") != "decide":
        continue
    if not os.path.exists(marker):  # the first process to decide crashes; every later one plays
        open(marker, "w").close()
        sys.exit(7)
    print(msg["information_set"]["legal_actions"][0]["text"], flush=True)
'''


SERVER_SETTINGS = {"admin_token": ADMIN}


async def test_a_crashed_bot_process_is_restarted_for_its_next_game(rt: Runtime, tmp_path: Path) -> None:
    script = tmp_path / "crash_once.py"
    script.write_text(CRASH_ONCE)
    spec = f"exec:{sys.executable} {script} {tmp_path / 'crashed'}"
    stop = asyncio.Event()
    done: list[dict[str, Any]] = []
    async with AsyncClient(rt.target) as c:
        bots = [await c.register_bot(f"cr-{uuid.uuid4().hex[:8]}", admin_token=ADMIN) for _ in range(2)]
        runners = [asyncio.create_task(run_bot(c, bots[0]["bot_token"], lambda: bot_from_spec(spec),
                                               on_done=done.append, stop=stop)),
                   asyncio.create_task(run_bot(c, bots[1]["bot_token"], lambda: bot_from_spec("random"), stop=stop))]
        try:
            lad = await c.create_ladder(admin_token=ADMIN, name="cr", variant="schnapsen-at",
                                        bot_ids=[b["bot_id"] for b in bots], rounds=3, deals_per_game=1,
                                        duplicate_deals=True, concurrency=1)
            for _ in range(600):
                if (await c.ladder(lad["ladder_id"]))["status"] != "LADDER_STATUS_RUNNING":
                    break
                await asyncio.sleep(0.05)
            results = await c.ladder_matches(lad["ladder_id"])
        finally:
            stop.set()
            await asyncio.gather(*runners, return_exceptions=True)
    assert len(results) == 6
    crashed = [r for r in results if r["reason"] == "disconnect"]
    assert len(crashed) == 1 and crashed[0]["bots"][1 - int(crashed[0]["winner"])] == bots[0]["bot_id"]
    assert sum(1 for d in done if d.get("fault", "").startswith("crash")) == 1  # counted against it, once
    assert all(r["reason"] != "disconnect" for r in results if r is not crashed[0])  # the next games were played


async def test_bot_run_says_when_it_is_connected_and_when_it_retries(rt: Runtime) -> None:
    lines: list[str] = []
    async with AsyncClient(rt.target) as c:
        bot = await c.register_bot(f"st-{uuid.uuid4().hex[:8]}", admin_token=ADMIN)
        stop = asyncio.Event()
        task = asyncio.create_task(run_bot(c, bot["bot_token"], lambda: bot_from_spec("random"), stop=stop,
                                           on_status=lines.append, client_info="test-client/1"))
        for _ in range(50):
            if lines:
                break
            await asyncio.sleep(0.05)
        listed = next(b for b in await c.list_bots() if b["bot_id"] == bot["bot_id"])
        stop.set()
        await task
    assert lines == [f"connected as {bot['name']}, waiting for games"]
    assert listed["connected"] and listed["client"] == "test-client/1"
    down: list[str] = []
    async with AsyncClient("127.0.0.1:1") as dead:  # nothing listens there
        stop = asyncio.Event()
        task = asyncio.create_task(run_bot(dead, bot["bot_token"], lambda: bot_from_spec("random"), stop=stop,
                                           on_status=down.append))
        await asyncio.sleep(0.6)
        stop.set()
        await task
    assert down and all(x.startswith("server unreachable (UNAVAILABLE): retrying in") for x in down)
