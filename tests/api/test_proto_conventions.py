"""The proto's comments say what the server sends: each convention is read from the comment in
proto/bummerl/v1/*.proto and checked against real responses of a real server (gRPC through raw
stubs, so nothing is reshaped on the way; REST where the status matters).

* deal and trick numbers are 0-based;
* ``DealStarted.hand_sizes`` holds every hand's size right after the deal;
* in ``PHASE_EXCHANGE_ON_CLOSE`` the non-closer is to act;
* an unknown variant is ``INVALID_ARGUMENT`` (not ``NOT_FOUND``);
* in two-player variants each seat is its own team, ``[0, 1]``.
"""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest

from bummerl.app import Runtime
from bummerl.rules import find_variant, list_variants
from bummerl.v1 import common_pb2, game_pb2, game_pb2_grpc

PROTO = Path(__file__).resolve().parents[2] / "proto" / "bummerl" / "v1"
VARIANTS = [v.id for v in list_variants()]
TWO_PLAYER = [v.id for v in list_variants() if v.num_players == 2]
MULTI_PLAYER = [v.id for v in list_variants() if v.num_players > 2]


def comment_above(proto: str, declaration: str) -> str:
    """The ``//`` comment lines directly above the one line of ``proto`` (file name) that
    contains ``declaration`` inside ``message``/``enum`` ``block``, given as "Block.decl"."""
    block, decl = declaration.split(".", 1)
    text = (PROTO / proto).read_text()
    body = re.search(r"^(?:message|enum) " + re.escape(block) + r" \{\n(.*?)^\}", text, re.M | re.S)
    assert body, f"{block} not in {proto}"
    lines = body.group(1).splitlines()
    (i,) = [n for n, line in enumerate(lines) if line.strip().startswith(decl)]
    comment: list[str] = []
    for line in reversed(lines[:i]):
        if not line.strip().startswith("//"):
            break
        comment.insert(0, line.strip().removeprefix("//").strip())
    return " ".join(comment)


@pytest.fixture
async def stub(rt: Runtime) -> AsyncIterator[game_pb2_grpc.GameServiceStub]:
    async with grpc.aio.insecure_channel(rt.target) as channel:
        yield game_pb2_grpc.GameServiceStub(channel)


def auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


class Match:
    """A match driven through raw gRPC: ``infoset(seat)``, ``act(action)`` by the seat to act;
    every event and information set received is kept."""

    def __init__(self, stub: game_pb2_grpc.GameServiceStub, created: game_pb2.CreateMatchResponse) -> None:
        self.stub, self.created = stub, created
        self.id = created.match_id
        self.tokens = {t.seat: t.token for t in created.seat_tokens}
        self.events: list[common_pb2.Event] = []

    @classmethod
    async def create(cls, stub: game_pb2_grpc.GameServiceStub, variant: str, seed: int = 1,
                     options: dict[str, str] | None = None) -> Match:
        spec = find_variant(variant)
        req = game_pb2.CreateMatchRequest(variant=variant, seed=seed, options=options or {},
                                          seats=[game_pb2.SeatSpec(name=f"p{i}") for i in range(spec.num_players)])
        return cls(stub, await stub.CreateMatch(req))

    async def infoset(self, seat: int) -> common_pb2.InformationSet:
        return await self.stub.GetInformationSet(
            game_pb2.GetInformationSetRequest(match_id=self.id, seat=seat), metadata=auth(self.tokens[seat]))

    async def to_act(self) -> common_pb2.InformationSet:
        info = await self.infoset(0)
        return info if info.deal.to_act in (0, -1) else await self.infoset(info.deal.to_act)

    async def act(self, info: common_pb2.InformationSet, text: str) -> game_pb2.SubmitActionResponse:
        res = await self.stub.SubmitAction(
            game_pb2.SubmitActionRequest(match_id=self.id, seat=info.seat, expected_version=info.version,
                                         action_text=text),
            metadata=auth(self.tokens[info.seat]))
        self.events.extend(res.events)
        return res

    async def play_until(self, done: Any, limit: int = 400) -> common_pb2.InformationSet:
        """Plays the first legal action that is not a declaration (else the first) until
        ``done(info)`` holds for the seat to act's information set; returns that set."""
        for _ in range(limit):
            info = await self.to_act()
            if done(info) or info.match.over:
                return info
            acts = [a.text for a in info.legal_actions]
            await self.act(info, next((a for a in acts if a != "declare"), acts[0]))
        raise AssertionError("limit reached")


# --- deal and trick numbers are 0-based --------------------------------------------------------


def test_the_proto_documents_deal_and_trick_numbers_0_based() -> None:
    for proto, decl in [("common.proto", "DealResult.int32 deal_number"), ("common.proto", "Event.int32 deal_number"),
                        ("common.proto", "MatchView.int32 deal_number"), ("common.proto", "DealView.int32 trick_number"),
                        ("game.proto", "ActionRecord.int32 deal_number"), ("game.proto", "DealRecord.int32 deal_number")]:
        assert "0-based" in comment_above(proto, decl), (proto, decl)
    for proto in PROTO.glob("*.proto"):
        assert "1-based" not in proto.read_text(), proto.name


async def test_deal_and_trick_numbers_are_sent_0_based(stub: game_pb2_grpc.GameServiceStub) -> None:
    m = await Match.create(stub, "schnapsen-at", seed=3)
    first = await m.infoset(0)
    assert first.match.deal_number == 0 and first.deal.trick_number == 0
    assert [e.deal_number for e in first.deal.history] == [0] and first.deal.history[0].HasField("deal_started")
    # stream snapshot: the deal_started event of the first deal
    stream = stub.StreamMatch(game_pb2.StreamMatchRequest(match_id=m.id, seat=0, from_version=0),
                              metadata=auth(m.tokens[0]))
    snapshot = await stream.read()
    stream.cancel()
    assert [(e.WhichOneof("kind"), e.deal_number) for e in snapshot.events] == [("deal_started", 0)]

    after_trick = await m.play_until(lambda i: i.deal.tricks_won[0] + i.deal.tricks_won[1] == 1)
    assert after_trick.deal.trick_number == 1  # one trick completed: the current one is trick 1
    second = await m.play_until(lambda i: i.match.deal_number == 1)
    assert second.deal.trick_number == 0
    ended = [e for e in m.events if e.HasField("deal_ended")]
    started = [e for e in m.events if e.HasField("deal_started")]
    assert ended[0].deal_number == 0 and ended[0].deal_ended.result.deal_number == 0
    assert started[0].deal_number == 1
    assert [d.deal_number for d in second.match.deals] == [0]
    assert {e.deal_number for e in second.deal.history} == {1}  # the current deal's events
    record = await stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id=m.id))
    assert [d.deal_number for d in record.deals] == [0, 1]
    assert record.actions[0].deal_number == 0 and record.actions[-1].deal_number in (0, 1)
    assert comment_above("common.proto", "Event.int64 version").count("0 in DealView.history")
    assert {e.version for e in second.deal.history} == {0}


# --- DealStarted.hand_sizes ----------------------------------------------------------------------


@pytest.mark.parametrize("variant", MULTI_PLAYER)
async def test_deal_started_carries_every_seats_hand_size(stub: game_pb2_grpc.GameServiceStub, variant: str) -> None:
    """Three and four seats: DealStarted.hand_sizes has one entry per seat, the cards each hand
    holds right after the deal event (0 for a seat sitting the deal out), as DealView shows them
    before anybody has played."""
    m = await Match.create(stub, variant, seed=5)
    first = await m.to_act()
    started = first.deal.history[0].deal_started
    spec = find_variant(variant)
    assert len(started.hand_sizes) == spec.num_players == first.num_seats
    assert list(started.hand_sizes) == list(first.deal.hand_sizes)
    assert 0 < sum(started.hand_sizes) <= len(spec.deck)
    for seat in range(spec.num_players):
        assert started.hand_sizes[seat] == 0 or seat in first.deal.seats


@pytest.mark.parametrize("variant", TWO_PLAYER)
async def test_deal_started_carries_the_hand_sizes(stub: game_pb2_grpc.GameServiceStub, variant: str) -> None:
    assert "right after the deal" in comment_above("common.proto", "DealStarted.repeated int32 hand_sizes")
    m = await Match.create(stub, variant, seed=5)
    first = await m.to_act()
    size = find_variant(variant).hand_size
    assert list(first.deal.hand_sizes) == [size, size]  # nobody has played yet
    (deal,) = first.deal.history
    assert list(deal.deal_started.hand_sizes) == [size, size]
    stream = stub.StreamMatch(game_pb2.StreamMatchRequest(match_id=m.id, seat=1, from_version=0),
                              metadata=auth(m.tokens[1]))
    snapshot = await stream.read()
    stream.cancel()
    assert list(snapshot.events[0].deal_started.hand_sizes) == [size, size]
    # the next deal's DealStarted, as SubmitAction returns it
    second = await m.play_until(lambda i: i.match.deal_number == 1)
    if not second.match.over:
        (started,) = [e for e in m.events if e.HasField("deal_started")]
        assert list(started.deal_started.hand_sizes) == [size, size] == list(second.deal.history[0].deal_started.hand_sizes)


# --- PHASE_EXCHANGE_ON_CLOSE: the non-closer acts ----------------------------------------------------


async def test_exchange_on_close_is_the_non_closers_turn(stub: game_pb2_grpc.GameServiceStub) -> None:
    doc = comment_above("common.proto", "Phase.PHASE_EXCHANGE_ON_CLOSE")
    assert "non-closer" in doc and "to_act" in doc
    m = await Match.create(stub, "snaps-original66", seed=2, options={"exchange_on_opponent_close": "true"})
    info = await m.play_until(lambda i: "close" in [a.text for a in i.legal_actions] and i.deal.talon_size >= 4)
    closer = info.seat
    res = await m.act(info, "close")
    after = res.information_set
    assert after.deal.phase == common_pb2.PHASE_EXCHANGE_ON_CLOSE
    assert after.deal.closed_by == closer
    assert after.deal.to_act == 1 - closer  # the non-closer
    assert after.legal_actions == []  # the closer's own view: nothing to do
    other = await m.infoset(1 - closer)
    assert {a.text for a in other.legal_actions} <= {"exchange", "pass"} and "pass" in {a.text for a in other.legal_actions}
    res = await m.act(other, "pass")
    assert res.information_set.deal.phase == common_pb2.PHASE_LEAD
    assert (await m.infoset(closer)).deal.to_act == closer


# --- unknown variant: INVALID_ARGUMENT ---------------------------------------------------------------


async def test_unknown_variant_is_invalid_argument(stub: game_pb2_grpc.GameServiceStub, rt: Runtime) -> None:
    header = " ".join(line.removeprefix("//").strip() for line in (PROTO / "game.proto").read_text().splitlines()
                      if line.startswith("//"))
    not_found = re.search(r"NOT_FOUND \(([^)]*)\)", header)
    invalid = re.search(r"INVALID_ARGUMENT \(([^)]*)\)", header)
    assert not_found and "variant" not in not_found.group(1)
    assert invalid and "unknown variant" in invalid.group(1)
    req = game_pb2.CreateMatchRequest(variant="no-such-game", seats=[game_pb2.SeatSpec(name="a"), game_pb2.SeatSpec(name="b")])
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await stub.CreateMatch(req)
    assert ei.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    body = json.dumps({"variant": "no-such-game", "seats": [{"name": "a"}, {"name": "b"}]}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{rt.http_port}/v1/matches", data=body, method="POST",
                                     headers={"content-type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as hi:  # in a thread: the gateway runs on this loop
        await asyncio.to_thread(urllib.request.urlopen, request, timeout=10)
    assert hi.value.code == 400
    assert json.loads(hi.value.read())["code"] == "INVALID_ARGUMENT"
    # an unknown match, by contrast, is NOT_FOUND
    with pytest.raises(grpc.aio.AioRpcError) as ei:
        await stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id="nosuchmatch0"))
    assert ei.value.code() == grpc.StatusCode.NOT_FOUND


# --- two-player teams [0, 1] ----------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["bauernschnapsen", "snapszer-hu-4p", "talonschnapsen"])
async def test_team_games_report_their_teams(stub: game_pb2_grpc.GameServiceStub, variant: str) -> None:
    """BS-SEAT-1, HU4-SEAT-1: partners sit opposite (teams [0, 1, 0, 1]); talonschnapsen has no
    fixed teams (each seat its own, TS-INH-1). Summary, seats and information sets agree."""
    m = await Match.create(stub, variant)
    team = list(find_variant(variant).team_of_seat)
    assert team == ([0, 1, 0, 1] if variant != "talonschnapsen" else [0, 1, 2])
    assert list(m.created.summary.team_of_seat) == team
    assert [s.team for s in m.created.summary.seats] == team
    assert list((await m.to_act()).team_of_seat) == team


@pytest.mark.parametrize("variant", TWO_PLAYER)
async def test_two_player_seats_are_teams_0_and_1(stub: game_pb2_grpc.GameServiceStub, variant: str) -> None:
    for proto, decl in [("common.proto", "InformationSet.repeated int32 team_of_seat"),
                        ("game.proto", "MatchSummary.repeated int32 team_of_seat")]:
        assert "[0, 1]" in comment_above(proto, decl), decl
    assert "team = seat" in comment_above("game.proto", "SeatInfo.int32 team")
    m = await Match.create(stub, variant)
    assert list(m.created.summary.team_of_seat) == [0, 1]
    assert [(s.seat, s.team) for s in m.created.summary.seats] == [(0, 0), (1, 1)]
    for seat in (0, 1):
        assert list((await m.infoset(seat)).team_of_seat) == [0, 1]
    record = await stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id=m.id))
    assert list(record.team_of_seat) == [0, 1] and [s.team for s in record.seats] == [0, 1]
