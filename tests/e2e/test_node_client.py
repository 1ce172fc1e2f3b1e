"""A non-Python client works: ``clients/node/play.mjs`` (Node.js built-ins only) plays a whole
match through the REST/JSON gateway of a real server. Skipped where no ``node`` is installed."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from bummerl.app import Runtime
from bummerl.config import Settings

NODE = shutil.which("node")
SCRIPT = Path(__file__).resolve().parents[2] / "clients" / "node" / "play.mjs"


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("variant", ["schnapsen-at", "santase"])
async def test_node_client_plays_a_match_over_rest(redis_url: str, variant: str) -> None:
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url)
    async with Runtime(settings, gateway_port=0) as rt:
        assert NODE is not None
        proc = await asyncio.create_subprocess_exec(
            NODE, str(SCRIPT), f"http://127.0.0.1:{rt.http_port}", variant, "11",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 120)
        assert proc.returncode == 0, err.decode()
        result = json.loads(out.decode().strip().splitlines()[-1])
        assert result["variant"] == variant
        assert rt.service is not None
        rec = await rt.service.record(result["match_id"])
        assert rec["over"] and rec["match_result"]["winner"] == result["winner"]
        assert len(rec["actions"]) == result["actions"] > 0
