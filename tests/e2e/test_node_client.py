"""Non-Python clients work: ``clients/node/play.mjs`` (Node.js built-ins only) plays a whole match
through the REST/JSON gateway of a real server, and ``clients/node/grpc.mjs`` plays one over gRPC
with the API loaded by @grpc/proto-loader from proto/ alone (docs/CLIENTS.md). Skipped where no
``node`` is installed; the gRPC client's packages come from ``make setup`` (npm ci)."""

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
GRPC_SCRIPT = SCRIPT.parent / "grpc.mjs"
NODE_MODULES = SCRIPT.parent / "node_modules"


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


async def run_node(*args: str) -> dict:
    assert NODE is not None
    proc = await asyncio.create_subprocess_exec(
        NODE, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 0, err.decode()
    return json.loads(out.decode().strip().splitlines()[-1])


@pytest.mark.skipif(NODE is None, reason="node is not installed")
async def test_node_loader_finds_every_import_under_proto_alone() -> None:
    """@grpc/proto-loader with includeDirs = [proto/] only resolves google/api/annotations.proto
    (vendored) and sees both services with snake_case fields, string int64s and named enums."""
    if not (NODE_MODULES / "@grpc" / "proto-loader").is_dir():
        pytest.skip("clients/node/node_modules is missing (make setup runs npm ci there)")
    script = (
        f"import {{ loadApi, LOADER_OPTIONS }} from {json.dumps(GRPC_SCRIPT.as_uri())};"
        "const api = loadApi();"
        "console.log(JSON.stringify({includeDirs: LOADER_OPTIONS.includeDirs,"
        " game: Object.keys(api.GameService.service), ladder: Object.keys(api.LadderService.service)}));"
    )
    out = await run_node("--input-type=module", "-e", script)
    proto_dir = Path(__file__).resolve().parents[2] / "proto"
    assert [Path(p) for p in out["includeDirs"]] == [proto_dir]
    assert {"CreateMatch", "SubmitAction", "StreamMatch", "GetMatchRecord"} <= set(out["game"])
    assert "RegisterBot" in out["ladder"]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
async def test_node_grpc_client_plays_a_match(redis_url: str) -> None:
    if not (NODE_MODULES / "@grpc" / "grpc-js").is_dir():
        pytest.skip("clients/node/node_modules is missing (make setup runs npm ci there)")
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url)
    async with Runtime(settings) as rt:
        result = await run_node(str(GRPC_SCRIPT), rt.target, "schnapsen-at", "5")
        assert rt.service is not None
        rec = await rt.service.record(result["match_id"])
        assert rec["over"] and rec["match_result"]["winner"] == result["winner"]
        assert len(rec["actions"]) == result["actions"] > 0
        assert result["deal_numbers"][0] == 0  # deal numbers are 0-based (common.proto)
        refused = result["refused"]
        assert refused["code"] == "ABORTED", refused
        info = refused["error_info"]  # google.rpc.ErrorInfo in grpc-status-details-bin, decoded by Node
        assert info is not None and info["domain"] == "bummerl.v1" and info["reason"] == "STALE_VERSION"
        assert info["metadata"]["current_version"].isdigit()
