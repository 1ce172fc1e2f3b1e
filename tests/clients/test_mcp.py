"""``bummerl mcp`` (bummerl_client.mcp_server) through the mcp SDK's own client: a whole match
against ``house:greedy`` over stdio and over streamable HTTP, illegal and stale actions answered
with the API's reason codes, the rules as a tool and a resource, and no hidden card in any tool
result on every variant (RULES.md §14.3): each card code a result holds at version v must lie in
the seat's own information set at v (the replay's ``seat_views``, which the engine's no-leak suite
checks) or be public there. No test reaches the network beyond 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402

from bummerl.app import Runtime  # noqa: E402
from bummerl.config import Settings  # noqa: E402
from bummerl.rules import list_variants  # noqa: E402
from bummerl_client import AsyncClient  # noqa: E402
from bummerl_client.mcp_server import build_server  # noqa: E402

ADMIN = "mcp-test-admin-token"
CODE = re.compile(r"(?<![A-Za-z0-9])[ATKQJ9][CSHD](?![A-Za-z0-9])")


@pytest.fixture
async def rt(redis_url: str) -> AsyncIterator[Runtime]:
    """A server (gRPC, REST on ephemeral ports) with an admin token, so that tests can read a
    replay while its match runs (and the MCP server must present the token to create matches)."""
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url, admin_token=ADMIN)
    async with Runtime(settings, gateway_port=0) as runtime:
        yield runtime


def _env() -> dict[str, str]:
    keep = ("PATH", "HOME", "XDG_DATA_HOME", "BUMMERL_BOT_LOG_DIR", "PYTHONPATH", "VIRTUAL_ENV")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env["BUMMERL_TEST_ADMIN"] = ADMIN
    return env


async def _call(c: Client, tool: str, **args: Any) -> dict[str, Any]:
    res = await c.call_tool(tool, args)
    assert not res.is_error, (tool, args, res.content)
    assert res.structured_content is not None
    return dict(res.structured_content)


async def _play_whole_match(c: Client, seed: int) -> tuple[dict[str, Any], int]:
    """Start schnapsen-at against house:greedy and play it to the end with random legal actions
    (by text); returns the final record and how many actions the agent made."""
    rng = random.Random(seed)
    st = await _call(c, "start_match", variant="schnapsen-at", opponents=["house:greedy"], seat=1, seed=seed)
    handle = st["handle"]
    assert "Your hand:" in (await c.call_tool("get_state", {"handle": handle})).content[0].text  # type: ignore[union-attr]
    acts = 0
    st = await _call(c, "get_state", handle=handle, wait_for_turn_s=10)
    while not st["over"]:
        assert st["legal_actions"], st["text"]
        choice = rng.choice(st["legal_actions"])
        st = await _call(c, "act", handle=handle, action=choice["text"], wait_for_turn_s=10)
        assert st["applied"]["action"] == choice["id"]
        acts += 1
        assert acts < 400
    rec = await _call(c, "match_record", handle=handle)
    return rec, acts


def _check_record(rec: dict[str, Any], acts: int) -> None:
    assert rec["over"] is True
    assert rec["match_result"]["reason"]
    agent = [a for a in rec["actions"] if int(a.get("seat", -1)) == 1 and a.get("kind", "action") != "timeout"]
    assert len(agent) >= acts > 0


async def test_a_whole_match_against_house_greedy_over_stdio(rt: Runtime) -> None:
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "bummerl_cli", "mcp", "--server", rt.target, "--admin-token-env", "BUMMERL_TEST_ADMIN"], env=_env())
    async with Client(params) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        assert {"list_variants", "get_rules", "start_match", "join_match", "get_state", "legal_actions", "act",
                "resign", "match_record"} <= names
        rec, acts = await _play_whole_match(c, 5)
    _check_record(rec, acts)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_whole_match_against_house_greedy_over_http(rt: Runtime) -> None:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "bummerl_cli", "mcp", "--server", rt.target, "--transport", "http",
                             "--port", str(port), "--admin-token-env", "BUMMERL_TEST_ADMIN"],
                            env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(200):  # up to 20 s for the interpreter and uvicorn to start
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                await asyncio.sleep(0.1)
        async with Client(f"http://127.0.0.1:{port}/mcp") as c:
            rec, acts = await _play_whole_match(c, 6)
            # over HTTP a seat tool needs its handle: another agent cannot act for this seat
            res = await c.call_tool("get_state", {})
            assert res.is_error and res.structured_content
            assert res.structured_content["error"]["reason"] == "INVALID_ARGUMENT"
        _check_record(rec, acts)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def test_illegal_stale_and_unknown_actions_carry_the_api_reason(rt: Runtime) -> None:
    async with Client(build_server(rt.target, ADMIN)) as c:
        st = await _call(c, "start_match", variant="schnapsen-at", opponents=["house:greedy"], seat=0, seed=11)
        st = await _call(c, "get_state", wait_for_turn_s=10)
        hand = set(st["information_set"]["deal"]["hand"])
        other = next(f"{r}{s}" for s in "CSHD" for r in "ATKQJ" if f"{r}{s}" not in hand)
        res = await c.call_tool("act", {"action": f"play {other}"})
        assert res.is_error and res.structured_content
        assert res.structured_content["error"]["reason"] == "ILLEGAL_ACTION"
        assert res.content[0].text.startswith("ILLEGAL_ACTION")  # type: ignore[union-attr]
        res = await c.call_tool("act", {"action": "dance a polka"})
        assert res.is_error and res.structured_content
        assert res.structured_content["error"]["reason"] == "INVALID_ACTION"
        v = st["version"]
        legal = st["legal_actions"][0]
        got = await _call(c, "act", action=str(legal["id"]))  # by id, at the version shown
        assert got["applied"] == {"action": legal["id"], "at_version": v, "duplicate": False}
        now = got["version"]
        assert now > v and got["information_set"]["deal"]["to_act"] == 0  # greedy answered: our turn again
        res = await c.call_tool("act", {"action": got["legal_actions"][0]["text"], "expected_version": v})
        assert res.is_error and res.structured_content
        err = res.structured_content["error"]
        assert err["reason"] == "STALE_VERSION" and err["code"] == "ABORTED" and err["current_version"] == now, err
        assert (await _call(c, "get_state"))["version"] == now  # nothing was applied
        res = await c.call_tool("get_state", {"handle": "nope"})
        assert res.is_error and res.structured_content["error"]["reason"] == "NOT_FOUND"  # type: ignore[index]
        res = await c.call_tool("start_match", {"variant": "schnapsen-at", "opponents": ["bob"]})
        assert res.is_error and res.structured_content["error"]["reason"] == "INVALID_ARGUMENT"  # type: ignore[index]
        res = await c.call_tool("start_match", {"variant": "schnapsen-at", "opponents": ["house:llm:model=x"]})
        assert res.is_error and res.structured_content["error"]["reason"] == "INVALID_ARGUMENT"  # type: ignore[index]
        assert "never plays an llm" in res.content[0].text  # type: ignore[union-attr]
        done = await _call(c, "resign")
        assert done["match_result"]["winner"] == 1


async def test_a_server_with_an_admin_token_refuses_start_match_without_one(rt: Runtime) -> None:
    async with Client(build_server(rt.target)) as c:
        res = await c.call_tool("start_match", {"variant": "schnapsen-at"})
        assert res.is_error and res.structured_content
        assert res.structured_content["error"]["code"] == "PERMISSION_DENIED"


async def test_join_a_seat_by_token_and_read_the_rules(rt: Runtime) -> None:
    async with AsyncClient(rt.target) as api:
        created = await api.create_match("snaps-original66", None, ["me", "house:random"], 3, admin_token=ADMIN)
    async with Client(build_server(rt.target)) as c:
        res = await c.call_tool("join_match", {"match_id": created.match_id, "seat": 0, "token": "wrong"})
        assert res.is_error and res.structured_content
        assert res.structured_content["error"]["code"] == "UNAUTHENTICATED"
        st = await _call(c, "join_match", match_id=created.match_id, seat=0, token=created.tokens[0])
        assert st["information_set"]["variant"] == "snaps-original66"
        legal = await _call(c, "legal_actions", handle=st["handle"])
        assert legal["legal_actions"] == st["legal_actions"]
        rules = (await c.call_tool("get_rules", {"variant": "snaps-original66"})).content[0].text  # type: ignore[union-attr]
        assert "O66-DECK-1" in rules and "Cite:" not in rules
        full = (await c.call_tool("get_rules", {"variant": "santase", "full": True})).content[0].text  # type: ignore[union-attr]
        assert full.startswith("## 5. `santase`") and "Cite:" in full
        res = await c.call_tool("get_rules", {"variant": "no-such-game"})
        assert res.is_error and res.structured_content["error"]["reason"] == "UNKNOWN_VARIANT"  # type: ignore[index]
        read = await c.read_resource("bummerl://rules/schnapsen-at")
        assert "AT-DECK-1" in read.contents[0].text  # type: ignore[union-attr]
        variants = await _call(c, "list_variants")
        assert {v["id"] for v in variants["variants"]} == {v.id for v in list_variants()}


def _known(view: dict[str, Any]) -> set[str]:
    return set(CODE.findall(json.dumps(view)))


@pytest.mark.parametrize("variant", [v.id for v in list_variants()])
async def test_no_hidden_card_in_any_tool_result(rt: Runtime, variant: str) -> None:
    """The agent plays random legal actions against house:random seats (60 actions at most, more than
    a deal); every successful tool result is kept with its version. Then, from the replay with the
    seat views: a card that lies in a hand, the talon or laid away at version v and is not in the
    seat's own view at v must be in no result of version v."""
    rng = random.Random(variant)
    results: list[tuple[int, str]] = []
    n = next(v.num_players for v in list_variants() if v.id == variant)
    seat = n - 1
    async with Client(build_server(rt.target, ADMIN)) as c:
        async def call(tool: str, **args: Any) -> dict[str, Any]:
            got = await _call(c, tool, **args)
            text = json.dumps(got)
            results.append((int(got.get("version", 0)), text))
            return got

        st = await call("start_match", variant=variant, opponents=["house:random"], seat=seat, seed=rng.randrange(99))
        mid = st["match_id"]
        for _ in range(60):
            st = await call("get_state", wait_for_turn_s=10)
            if st["over"]:
                break
            rec = await _call(c, "match_record")
            results.append((int(rec["version"]), json.dumps(rec)))
            await call("legal_actions")
            st = await call("act", action=rng.choice(st["legal_actions"])["text"], wait_for_turn_s=10)
            if st["over"]:
                break
    async with AsyncClient(rt.target) as api:
        replay = await api.match_replay(mid, ADMIN, seat_views=True)
    steps = {int(s["version"]): s for s in replay["steps"]}
    checked = 0
    for version, text in results:
        step = steps.get(version)
        assert step is not None, (variant, version, sorted(steps)[:3])
        view = next(v for v in step["seat_views"] if int(v["seat"]) == seat)
        placed = {c for h in step["hands"] for c in h["cards"]} | set(step["talon"])
        placed |= {c for h in step["laid_away"] for c in h["cards"]}
        hidden = placed - _known(dict(view))
        got = json.loads(text)
        if "actions" in got:  # a record: the cards of earlier deals are dealt again; keep this deal's actions
            deal = int(step["public_view"]["match"]["deal_number"])
            got["actions"] = [a for a in got["actions"] if int(a.get("deal_number", -1)) == deal]
        leaked = hidden & set(CODE.findall(json.dumps(got)))
        assert not leaked, (variant, version, leaked, [t for t in re.split(r"[{}]", text) if leaked & set(CODE.findall(t))][:5])
        checked += bool(hidden)
    assert checked > 0  # the walk met positions with hidden cards


async def test_without_rules_md_the_rules_come_from_list_variants(rt: Runtime, tmp_path: Any,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A wheel install has no docs/RULES.md: get_rules then summarises ListVariants (the options
    with their rule IDs)."""
    monkeypatch.setenv("BUMMERL_RULES_MD", str(tmp_path / "missing.md"))
    async with Client(build_server(rt.target)) as c:
        text = (await c.call_tool("get_rules", {"variant": "schnapsen-at"})).content[0].text  # type: ignore[union-attr]
        assert text.startswith("Austrian Schnapsen") or "schnapsen-at" in text.splitlines()[0]
        assert re.search(r"- close_min_talon = \d+ \([A-Z]+-[A-Z]+-\d+", text), text[:500]
        res = await c.call_tool("get_rules", {"variant": "no-such-game"})
        assert res.is_error and res.structured_content["error"]["reason"] == "UNKNOWN_VARIANT"  # type: ignore[index]
