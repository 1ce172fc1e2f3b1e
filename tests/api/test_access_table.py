"""docs/ACCESS.md's table of who may call what, walked cell by cell over gRPC and over REST
(issue 25): the test reads the table from the document, so the document and the server cannot
drift apart. Every denied call must leave nothing changed; every allowed one must get past the
token check (a stale version counts: the check came first)."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from bummerl.app import Runtime
from bummerl.v1 import game_pb2, game_pb2_grpc, ladder_pb2, ladder_pb2_grpc

ADMIN = "access-admin"
DOC = Path(__file__).resolve().parents[2] / "docs" / "ACCESS.md"
CALLERS = ("anyone", "seat token", "bot token", "admin token")
DENIED = {grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED}
HTTP_DENIED = {401, 403}


def table() -> dict[str, dict[str, Any]]:
    """``{call: {"rest": "GET /v1/...", "anyone": "no", ...}}`` from docs/ACCESS.md."""
    rows: dict[str, dict[str, Any]] = {}
    header: list[str] = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|") or set(line) <= set("|- "):
            continue
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if cells[0] == "call":
            header = cells
            continue
        rows[cells[0]] = dict(zip(header, cells, strict=True))
    return rows


# every denied cell is a failed authentication from 127.0.0.1: no per-peer limit here
# (tests/core/test_limits.py and tests/api/test_hostile_input.py test that limit)
SERVER_SETTINGS = {"admin_token": ADMIN, "rate_auth_failures_per_min": 0}


class World:
    """A plain match, a ladder with two bots and a game running, and tokens of every kind."""

    async def make(self, rt: Runtime) -> World:
        self.rt = rt
        self.channel = grpc.aio.insecure_channel(rt.target)
        self.game = game_pb2_grpc.GameServiceStub(self.channel)
        self.ladder = ladder_pb2_grpc.LadderServiceStub(self.channel)
        meta = [("authorization", f"Bearer {ADMIN}")]
        self.bots = []
        for _ in range(2):
            self.bots.append(await self.ladder.RegisterBot(ladder_pb2.RegisterBotRequest(name=f"acc-{uuid.uuid4().hex[:8]}"),
                                                           metadata=meta))
        lad = await self.ladder.CreateLadder(ladder_pb2.CreateLadderRequest(
            name="acc", variant="schnapsen-at", bot_ids=[b.bot_id for b in self.bots], rounds=1, deals_per_game=1,
            duplicate_deals=True, concurrency=2), metadata=meta)
        self.ladder_id = lad.ladder_id
        stream = self.ladder.StreamAssignments(ladder_pb2.StreamAssignmentsRequest(bot_id=self.bots[0].bot_id),
                                               metadata=[("authorization", f"Bearer {self.bots[0].bot_token}")])
        a = await asyncio.wait_for(stream.read(), 10)
        stream.cancel()
        self.bot_match, self.bot_seat = a.match_id, a.seat
        self.challenge_id = await self.challenge(1, 0)
        return self

    async def challenge(self, by: int, to: int) -> str:
        """A pending challenge from bot ``by`` to bot ``to`` (indexes of ``bots``)."""
        ch = await self.ladder.CreateChallenge(
            ladder_pb2.CreateChallengeRequest(challenged=self.bots[to].bot_id, variant="schnapsen-at"),
            metadata=[("authorization", f"Bearer {self.bots[by].bot_token}")])
        return str(ch.challenge_id)

    async def new_match(self) -> tuple[str, list[str]]:
        cm = await self.game.CreateMatch(game_pb2.CreateMatchRequest(variant="schnapsen-at"),
                                         metadata=[("authorization", f"Bearer {ADMIN}")])
        return cm.match_id, [t.token for t in cm.seat_tokens]

    def token(self, caller: str, seat_tokens: list[str]) -> str | None:
        return {"anyone": None, "seat token": seat_tokens[0], "bot token": self.bots[0].bot_token,
                "admin token": ADMIN}[caller]


def path_params(rest: str) -> list[str]:
    return re.findall(r"{(\w+)}", rest)


async def request_for(w: World, call: str, caller: str, own: bool) -> tuple[dict[str, Any], list[str]]:
    """The request (as the REST body + path params) for ``call`` by ``caller``: on a seat the token
    holds (``own``) or on another one; plus the seat tokens of the match used."""
    match_id, tokens = await w.new_match()
    seat = 0 if own else 1
    if caller == "bot token":  # a bot's seat is in its ladder match
        match_id, seat = w.bot_match, (w.bot_seat if own else 1 - w.bot_seat)
    req: dict[str, Any] = {"match_id": match_id, "seat": seat, "ladder_id": w.ladder_id,
                           "bot_id": w.bots[0].bot_id if own else w.bots[1].bot_id}
    body: dict[str, Any] = {
        "CreateMatch": {"variant": "schnapsen-at"},
        "SubmitAction": {"expected_version": 999, "action_text": "close"},  # stale: past the token check
        "RegisterBot": {"name": f"acc-{uuid.uuid4().hex[:8]}"},
        "CreateLadder": {"name": "x", "variant": "schnapsen-at", "bot_ids": [b.bot_id for b in w.bots],
                         "deals_per_game": 1},
        "CreateChallenge": {"challenged": w.bots[1].bot_id, "variant": "schnapsen-at"},
        "PublishBotVersion": {"version": f"v{uuid.uuid4().hex[:8]}"},
    }.get(call, {})
    if call == "AnswerChallenge":  # to bot 0 (the bot token's own) or to bot 1
        body = {"challenge_id": await w.challenge(1, 0) if own else await w.challenge(0, 1), "accept": False,
                "reason": "later"}
    if call == "GetChallenge":
        body = {"challenge_id": w.challenge_id}
    return {**req, **body}, tokens


def grpc_request(call: str, req: dict[str, Any]) -> Any:
    """The RPC's request message (its input type, from the service descriptor) filled from ``req``."""
    for module, service in ((game_pb2, "GameService"), (ladder_pb2, "LadderService")):
        method = module.DESCRIPTOR.services_by_name[service].methods_by_name.get(call)
        if method is not None:
            cls = getattr(module, method.input_type.name)
            msg = cls()
            names = set(cls.DESCRIPTOR.fields_by_name)
            json_format.ParseDict({k: v for k, v in req.items() if k in names}, msg)
            return msg
    raise AssertionError(call)


async def via_grpc(w: World, call: str, req: dict[str, Any], token: str | None) -> tuple[bool, Any]:
    """(allowed?, answer or first stream message) over gRPC."""
    stub = w.ladder if hasattr(ladder_pb2_grpc.LadderServiceServicer, call) else w.game
    method = getattr(stub, call)
    meta = [("authorization", f"Bearer {token}")] if token else []
    try:
        if call == "Play":  # a bidirectional call: the first request names the match and seat
            play = method(metadata=meta, timeout=10)
            await play.write(grpc_request(call, req))
            first = await asyncio.wait_for(play.read(), 10)
            play.cancel()
            if first is grpc.aio.EOF:
                raise AssertionError("Play ended without an update")
            return True, first
        got = method(grpc_request(call, req), metadata=meta, timeout=10)
        if isinstance(got, grpc.aio.UnaryStreamCall):
            first = await asyncio.wait_for(got.read(), 10)
            got.cancel()
            return True, first
        return True, await got
    except grpc.aio.AioRpcError as e:
        if e.code() in DENIED:
            return False, e
        return True, e  # past the token check (e.g. ABORTED for the stale version)


def via_rest(w: World, rest: str, req: dict[str, Any], token: str | None) -> tuple[bool, Any]:
    method, template = rest.split(" ", 1)
    path = template
    for p in path_params(template):
        path = path.replace("{" + p + "}", str(req[p]))
    body = {k: v for k, v in req.items() if k not in path_params(template) and k not in ("match_id", "seat", "ladder_id",
                                                                                       "bot_id")}
    headers = {"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})}
    r = urllib.request.Request(f"http://127.0.0.1:{w.rt.http_port}{path}", method=method, headers=headers,
                               data=json.dumps(body).encode() if method == "POST" else None)
    try:
        with urllib.request.urlopen(r, timeout=10) as resp:
            line = resp.readline()  # a stream: its first message is enough
            return True, json.loads(line) if line.strip() else {}
    except urllib.error.HTTPError as e:
        return e.code not in HTTP_DENIED, json.loads(e.read() or b"{}")


ROWS = table()


def test_the_table_lists_every_rpc() -> None:
    rpcs = {m.name for s in (game_pb2.DESCRIPTOR.services_by_name["GameService"],
                             ladder_pb2.DESCRIPTOR.services_by_name["LadderService"]) for m in s.methods}
    assert set(ROWS) == rpcs
    assert all(set(CALLERS) <= set(r) for r in ROWS.values())


@pytest.mark.parametrize("call", sorted(ROWS))
async def test_access_table_cell_by_cell_over_grpc_and_rest(rt: Runtime, call: str) -> None:
    w = await World().make(rt)
    row = ROWS[call]
    try:
        for caller in CALLERS:
            cell = row[caller]
            for own in (True, False) if cell == "own seat" or cell == "own bot" else (True,):
                for transport in ("grpc", "rest") if row["REST"].startswith(("GET", "POST", "DELETE")) else ("grpc",):
                    req, tokens = await request_for(w, call, caller, own)
                    token = w.token(caller, tokens)
                    if transport == "grpc":
                        allowed, got = await via_grpc(w, call, req, token)
                    else:
                        allowed, got = await asyncio.to_thread(via_rest, w, row["REST"], req, token)
                    want = cell in ("yes", "public", "full") or (cell in ("own seat", "own bot") and own)
                    assert allowed == want, f"{call} by {caller} ({'own' if own else 'other'}) over {transport}: {got}"
                    if cell in ("public", "full"):
                        revealed = got.revealed if transport == "grpc" else got.get("revealed", False)
                        assert revealed == (cell == "full"), f"{call} by {caller} over {transport}"
    finally:
        await w.channel.close()
