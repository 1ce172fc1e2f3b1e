"""``bummerl.v1.GameService`` over gRPC (and, through the gateway, REST): each handler decodes
the request, calls :class:`bummerl.core.MatchService`, encodes the answer. Errors are mapped in
one place (:func:`bummerl.api.errors.map_errors`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any, cast

import grpc.aio

from bummerl import metrics
from bummerl.api import codec
from bummerl.api.errors import RETRY_AFTER_KEY, map_errors
from bummerl.api.gateway.transcode import SharedMessage
from bummerl.api.metadata import bearer_token, peer_host
from bummerl.core import MatchService, Update
from bummerl.core.analysis_store import Analyses
from bummerl.core.errors import InvalidArgumentError, PermissionDeniedError
from bummerl.core.house import HouseBots
from bummerl.core.limits import RateLimiter
from bummerl.core.spectate import Spectators, WatchFrame, new_watch
from bummerl.v1 import common_pb2, game_pb2, game_pb2_grpc


def _encoded(d: Any, encode: Callable[[Any], Any], memo: dict[int, Any] | None) -> Any:
    """``encode(d)``, once per dict object of a version: the core hands the same information set
    and events to the SubmitAction answer and to the streams of the match at that version, with
    that version's ``memo`` (:attr:`bummerl.core.Update.memo`, dropped with the version, so the
    encodings live no longer than the dicts they encode), and never changes them. Keyed by
    identity; the entry holds ``d``, so its id is not reused while cached. ``memo`` None:
    encoded for this caller only."""
    if memo is None:
        return encode(d)
    got = memo.get(id(d))
    if got is not None and got[0] is d:
        return got[1]
    pb = encode(d)
    memo[id(d)] = (d, pb)
    return pb


def update_message(u: Update) -> game_pb2.MatchUpdate:
    """The ``MatchUpdate`` that StreamMatch and Play send for ``u``: its events and information set
    encoded once per version (:func:`_encoded`, ``u.memo``; the deal's history by identity,
    ``u.history_memo``)."""
    return game_pb2.MatchUpdate(**_update_fields(u))


def _update_fields(u: Update) -> dict[str, Any]:
    hm = u.history_memo
    return {
        "version": u.version,
        "events": [_encoded(e, codec.event_to_pb, u.memo) for e in u.events],
        "information_set": _encoded(u.information_set, lambda d: codec.information_set_to_pb(d, hm), u.memo),
    }


def _summary_pb(d: Any) -> game_pb2.MatchSummary:
    return codec.dict_to_pb(d, game_pb2.MatchSummary)


def _watch_update(f: WatchFrame) -> game_pb2.WatchUpdate:
    """The message of a frame, built once for every spectator that gets the same frame (same
    ``since`` and ``version``: :attr:`WatchFrame.memo`), its parts once per version; each build
    counts in ``bummerl_watch_encodes_total{format="pb"}``."""
    key = ("update", f.since, f.version, f.summary["version"])
    got = f.memo.get(key) if f.memo is not None else None
    if got is None:
        got = game_pb2.WatchUpdate(
            version=f.version, events=[_encoded(e, codec.event_to_pb, f.memo) for e in f.events],
            public_view=_encoded(f.public_view, lambda d: codec.information_set_to_pb(d, f.history_memo), f.memo),
            summary=_encoded(f.summary, _summary_pb, f.memo),
        )
        metrics.watch_encoded("pb")
        if f.memo is not None:
            f.memo[key] = got
    return got


def shared_watch_update(f: WatchFrame) -> SharedMessage:
    """The frame's message for the REST gateway (:class:`bummerl.api.gateway.SharedMessage`):
    one object per frame like :func:`_watch_update`, so its JSON is rendered once per framing for
    every spectator that gets the frame over REST."""
    key = ("rest", f.since, f.version, f.summary["version"])
    got = f.memo.get(key) if f.memo is not None else None
    if got is None:
        got = SharedMessage(_watch_update(f))
        if f.memo is not None:
            f.memo[key] = got
    return cast(SharedMessage, got)


class GameServicer(game_pb2_grpc.GameServiceServicer):
    """The game RPCs. Seat calls read ``authorization: Bearer <seat token>`` from metadata;
    spectator calls (WatchMatch, GetMatchReplay) a watch, seat or admin token where the match asks
    for one (:mod:`bummerl.core.spectate`). ``auth_limiter``: counts failed authentications per
    peer (:func:`bummerl.api.errors.map_errors`); None = not counted."""

    def __init__(self, service: MatchService, auth_limiter: RateLimiter | None = None,
                 spectators: Spectators | None = None, house: HouseBots | None = None,
                 ladders: Any = None, play_connected_bots: bool = False) -> None:
        self.service = service
        self.ladders = ladders
        """The :class:`~bummerl.ladder.service.LadderService` that seats ``bot:<name>`` when
        ``play_connected_bots``."""
        self.play_connected_bots = play_connected_bots
        self.auth_limiter = auth_limiter
        self.spectators = spectators or Spectators(service)
        self.house = house
        """Plays ``house:<bot>`` seats (:mod:`bummerl.core.house`); None = such names are plain names."""

    @map_errors
    async def ListVariants(self, request: game_pb2.ListVariantsRequest, context: grpc.aio.ServicerContext) -> game_pb2.ListVariantsResponse:
        return game_pb2.ListVariantsResponse(variants=[codec.variant_info_to_pb(v) for v in self.service.list_variants()])

    @map_errors
    async def CreateMatch(self, request: game_pb2.CreateMatchRequest, context: grpc.aio.ServicerContext) -> game_pb2.CreateMatchResponse:
        seed = request.seed if request.HasField("seed") else None
        watch_meta, watch_token = new_watch(request.watch.access, request.watch.delay_moves)
        names = [s.name for s in request.seats]
        house = self.house.plan(names) if self.house is not None else {}
        bots = await self._connected_seats(names)
        hashes = [bots[i]["token_hash"] if i in bots else "" for i in range(len(names))] if bots else []
        created = await self.service.create_match(
            request.variant, dict(request.options), names, seed,
            time_control=codec.pb_to_dict(request.time_control) if request.HasField("time_control") else None,
            timeout_policy=request.timeout_policy or None,
            idle_limit_ms=request.idle_limit_ms if request.HasField("idle_limit_ms") else None,
            admin_token=bearer_token(context),
            caller=peer_host(context),
            watch_meta=watch_meta,
            seat_bot_hashes=hashes,
        )
        if house and self.house is not None:
            await self.house.start(created.match_id, house, created.tokens)
        if bots and self.ladders is not None:
            await self.ladders.assign_seats(created.match_id, created.summary["variant"], bots)
        await self.spectators.remember(created.match_id)
        return game_pb2.CreateMatchResponse(
            match_id=created.match_id,  # a house seat's token stays with the server
            seat_tokens=[game_pb2.SeatToken(seat=i, token="" if i in house or i in bots else t)
                         for i, t in enumerate(created.tokens)],
            summary=codec.dict_to_pb(created.summary, game_pb2.MatchSummary),
            watch_token=watch_token,
        )

    async def _connected_seats(self, names: list[str]) -> dict[int, dict[str, Any]]:
        if not any(n.startswith("bot:") for n in names):
            return {}
        if not self.play_connected_bots or self.ladders is None:
            raise PermissionDeniedError("this server does not seat connected bots in new matches (a seat named "
                                        "bot:<name>; the admin enables it with BUMMERL_PLAY_CONNECTED_BOTS)")
        return dict(await self.ladders.connected_seats(names))

    @map_errors
    async def GetInformationSet(self, request: game_pb2.GetInformationSetRequest, context: grpc.aio.ServicerContext) -> common_pb2.InformationSet:
        u = await self.service.current(request.match_id, request.seat, bearer_token(context))
        info: common_pb2.InformationSet = _update_fields(u)["information_set"]
        return info

    @map_errors
    async def SubmitAction(self, request: game_pb2.SubmitActionRequest, context: grpc.aio.ServicerContext) -> game_pb2.SubmitActionResponse:
        which = request.WhichOneof("action")
        if which is None:
            raise InvalidArgumentError("set action_id or action_text")
        action = request.action_id if which == "action_id" else request.action_text
        u = await self.service.submit_action(
            request.match_id, request.seat, bearer_token(context), request.expected_version, action
        )
        return game_pb2.SubmitActionResponse(duplicate=u.duplicate, **_update_fields(u))

    @map_errors
    async def StreamMatch(self, request: game_pb2.StreamMatchRequest, context: grpc.aio.ServicerContext) -> AsyncIterator[game_pb2.MatchUpdate]:
        async for u in self.service.stream(request.match_id, request.seat, bearer_token(context), request.from_version):
            yield update_message(u)

    @map_errors
    async def Play(self, request_iterator: AsyncIterator[game_pb2.PlayRequest], context: grpc.aio.ServicerContext) -> AsyncIterator[game_pb2.MatchUpdate]:
        """StreamMatch and SubmitAction on one call: the first request names the match and seat,
        every later one is an action; the updates (the snapshot, then one per version, the
        seat's own commits included) go out as StreamMatch sends them. A refused action ends the
        call with its status."""
        token = bearer_token(context)
        first = await anext(aiter(request_iterator), None)
        if first is None:
            raise InvalidArgumentError("Play: the first request names match_id and seat (and from_version); none came")
        if first.WhichOneof("action") is not None:
            raise InvalidArgumentError("Play: the first request names the match and seat only; send the action in a "
                                       "later request, with the expected_version of the update it answers")
        match_id, seat = first.match_id, first.seat
        out: asyncio.Queue[Update | BaseException | None] = asyncio.Queue()  # None: the match ended

        async def actions() -> None:
            try:
                async for req in request_iterator:
                    which = req.WhichOneof("action")
                    if which is None:
                        raise InvalidArgumentError("a Play request after the first carries action_id or action_text")
                    if (req.match_id and req.match_id != match_id) or (req.seat and req.seat != seat):
                        raise InvalidArgumentError(f"a Play call plays one seat: match {match_id!r}, seat {seat} "
                                                   f"(named by its first request); this request names match "
                                                   f"{req.match_id or match_id!r}, seat {req.seat or seat}")
                    action = req.action_id if which == "action_id" else req.action_text
                    await self.service.submit_action(match_id, seat, token, req.expected_version, action)
            except BaseException as e:  # noqa: BLE001 - ends the call with the action's status
                # a CancelledError too: when it is not this call's own end, the call must not wait
                # for an update that will never come (it ends UNAVAILABLE, which clients retry)
                out.put_nowait(e)
                if isinstance(e, asyncio.CancelledError):
                    raise

        async def updates() -> None:
            try:
                async for u in self.service.stream(match_id, seat, token, first.from_version):
                    out.put_nowait(u)
                out.put_nowait(None)
            except BaseException as e:  # noqa: BLE001 - ends the call with the stream's status (see actions)
                out.put_nowait(e)
                if isinstance(e, asyncio.CancelledError):
                    raise

        tasks = [asyncio.create_task(actions()), asyncio.create_task(updates())]
        try:
            while (item := await out.get()) is not None:
                if isinstance(item, asyncio.CancelledError):  # a task of this call died, the call did not end
                    await context.abort(grpc.StatusCode.UNAVAILABLE, "this call's update stream ended unexpectedly; "
                                                                     "call Play again (from_version resumes it)")
                if isinstance(item, BaseException):
                    raise item
                yield update_message(item)
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    @map_errors
    async def Resign(self, request: game_pb2.ResignRequest, context: grpc.aio.ServicerContext) -> game_pb2.ResignResponse:
        u = await self.service.resign(request.match_id, request.seat, bearer_token(context), request.reason)
        result = next(e["match_ended"]["result"] for e in u.events if "match_ended" in e)
        return game_pb2.ResignResponse(version=u.version, match_result=codec.match_result_to_pb(result))

    @map_errors
    async def GetMatchRecord(self, request: game_pb2.GetMatchRecordRequest, context: grpc.aio.ServicerContext) -> game_pb2.MatchRecord:
        return codec.dict_to_pb(await self.spectators.record(request.match_id, bearer_token(context)),
                                game_pb2.MatchRecord)

    @map_errors
    async def WatchMatch(self, request: game_pb2.WatchMatchRequest,
                         context: grpc.aio.ServicerContext) -> AsyncIterator[game_pb2.WatchUpdate | SharedMessage]:
        """The spectator stream (:meth:`bummerl.core.spectate.Spectators.watch`), counted per
        client address (the gRPC peer or the REST client). Every spectator of a frame gets the
        same message object (over REST the same rendered JSON). RESOURCE_EXHAUSTED (REST 429,
        ``bummerl-retry-after-ms`` and ``Retry-After``) for the caps and when the server sheds
        spectators to keep its seats fast."""
        rest = hasattr(context, "is_gateway")
        async for f in self.spectators.watch(request.match_id, bearer_token(context), request.from_version,
                                             peer=peer_host(context)):
            yield shared_watch_update(f) if rest else _watch_update(f)

    @map_errors
    async def GetMatchReplay(self, request: game_pb2.GetMatchReplayRequest, context: grpc.aio.ServicerContext) -> game_pb2.MatchReplay:
        replay = await self.spectators.replay(request.match_id, bearer_token(context), request.seat_views)
        return codec.dict_to_pb(replay, game_pb2.MatchReplay)

    @map_errors
    async def GetMatchAnalysis(self, request: game_pb2.GetMatchAnalysisRequest,
                               context: grpc.aio.ServicerContext) -> game_pb2.MatchAnalysis:
        """The post-game analysis (:meth:`bummerl.core.analysis_store.Analyses.get`): state "done",
        or "pending" with ``retry_after_ms`` and the ``bummerl-retry-after-ms`` metadata (a REST
        header) while one server computes it. Gated like GetMatchReplay."""
        got = await Analyses.of(self.spectators).get(request.match_id, bearer_token(context))
        if got["state"] == "pending":
            context.set_trailing_metadata(((RETRY_AFTER_KEY, str(got["retry_after_ms"])),))
        return codec.dict_to_pb(got, game_pb2.MatchAnalysis)

    @map_errors
    async def ListMatches(self, request: game_pb2.ListMatchesRequest, context: grpc.aio.ServicerContext) -> game_pb2.ListMatchesResponse:
        return codec.dict_to_pb(await self.spectators.list_matches(request.limit), game_pb2.ListMatchesResponse)
