"""``bummerl.v1.LadderService`` over gRPC (and, through the gateway, REST): each handler decodes,
calls :class:`bummerl.ladder.service.LadderService`, encodes. Errors are mapped in one place
(:func:`bummerl.api.errors.map_errors`)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio

from bummerl.api import codec
from bummerl.api.errors import map_errors
from bummerl.api.metadata import bearer_token, peer_host
from bummerl.core.limits import RateLimiter
from bummerl.ladder.service import LadderService
from bummerl.ladder.spec import LadderSpec
from bummerl.store.connection import raise_if_cancelled
from bummerl.v1 import ladder_pb2, ladder_pb2_grpc

log = logging.getLogger(__name__)

_LADDER_FIELDS = frozenset(ladder_pb2.Ladder.DESCRIPTOR.fields_by_name)


def _ladder_pb(d: dict[str, Any]) -> ladder_pb2.Ladder:
    return codec.dict_to_pb({k: v for k, v in d.items() if k in _LADDER_FIELDS}, ladder_pb2.Ladder)


class LadderServicer(ladder_pb2_grpc.LadderServiceServicer):
    """The ladder RPCs. Admin calls read the admin token, StreamAssignments the bot token, from
    ``authorization: Bearer <token>``. ``auth_limiter``: counts failed authentications per peer
    (:func:`bummerl.api.errors.map_errors`); None = not counted."""

    def __init__(self, ladders: LadderService, auth_limiter: RateLimiter | None = None) -> None:
        self.ladders = ladders
        self.auth_limiter = auth_limiter

    @map_errors
    async def RegisterBot(self, request: ladder_pb2.RegisterBotRequest, context: grpc.aio.ServicerContext) -> ladder_pb2.RegisterBotResponse:
        out = await self.ladders.register_bot(request.name, request.description, bearer_token(context))
        return ladder_pb2.RegisterBotResponse(**out)

    @map_errors
    async def StreamAssignments(self, request: ladder_pb2.StreamAssignmentsRequest, context: grpc.aio.ServicerContext) -> AsyncIterator[ladder_pb2.Assignment]:
        bot_id = request.bot_id or (bearer_token(context) or "").split(".", 1)[0]
        bot = await self.ladders.authenticate_bot(bot_id, bearer_token(context))
        raise_if_cancelled()  # the client cancelled while the bot was read (redis-py may not say so)
        # the stream is open before any assignment: say so, and as whom (bummerl bot run prints it)
        try:
            await context.send_initial_metadata((("bummerl-bot-name", bot["name"]), ("bummerl-bot-id", bot["bot_id"])))
        except (grpc.aio.UsageError, grpc.aio.AbortError):
            raise  # a bug of ours (metadata sent twice), not the client's doing
        except Exception as e:  # noqa: BLE001 - grpc's ExecuteBatchError (private): the call is gone
            # the only way sending the initial metadata fails: the client cancelled (or hung up)
            # before the server got to it, which is normal; nothing was taken yet, nothing to answer
            log.debug("StreamAssignments of bot %s: the client left before the stream opened (%s)",
                      bot["bot_id"], type(e).__name__)
            return
        async for a in self.ladders.assignments(bot_id, bearer_token(context), request.client):
            yield codec.dict_to_pb(a, ladder_pb2.Assignment)

    @map_errors
    async def CreateLadder(self, request: ladder_pb2.CreateLadderRequest,
                           context: grpc.aio.ServicerContext[Any, Any]) -> ladder_pb2.Ladder:
        spec = LadderSpec.from_request(codec.pb_to_dict(request))
        return _ladder_pb(await self.ladders.create_ladder(spec, bearer_token(context)))

    @map_errors
    async def GetPairings(self, request: ladder_pb2.GetPairingsRequest,
                          context: grpc.aio.ServicerContext[Any, Any]) -> ladder_pb2.Pairings:
        return codec.dict_to_pb(await self.ladders.pairings(request.ladder_id), ladder_pb2.Pairings)

    @map_errors
    async def CreateChallenge(self, request: ladder_pb2.CreateChallengeRequest,
                              context: grpc.aio.ServicerContext[Any, Any]) -> ladder_pb2.Challenge:
        req = codec.pb_to_dict(request)
        req["rated"] = not req.pop("unrated", False)
        return codec.dict_to_pb(await self.ladders.create_challenge(bearer_token(context), req), ladder_pb2.Challenge)

    @map_errors
    async def AnswerChallenge(self, request: ladder_pb2.AnswerChallengeRequest,
                              context: grpc.aio.ServicerContext[Any, Any]) -> ladder_pb2.Challenge:
        ch = await self.ladders.answer_challenge(bearer_token(context), request.challenge_id, request.accept,
                                                 request.reason)
        return codec.dict_to_pb(ch, ladder_pb2.Challenge)

    @map_errors
    async def GetChallenge(self, request: ladder_pb2.GetChallengeRequest,
                           context: grpc.aio.ServicerContext[Any, Any]) -> ladder_pb2.Challenge:
        return codec.dict_to_pb(await self.ladders.challenge(request.challenge_id), ladder_pb2.Challenge)

    @map_errors
    async def ListChallenges(self, request: ladder_pb2.ListChallengesRequest,
                             context: grpc.aio.ServicerContext[Any, Any]) -> ladder_pb2.ListChallengesResponse:
        got = await self.ladders.list_challenges(request.bot_id, request.state)
        return codec.dict_to_pb({"challenges": got}, ladder_pb2.ListChallengesResponse)

    @map_errors
    async def PublishBotVersion(self, request: ladder_pb2.PublishBotVersionRequest,
                                context: grpc.aio.ServicerContext[Any, Any]) -> ladder_pb2.Bot:
        bot = await self.ladders.publish_version(request.bot_id, request.version, request.note, bearer_token(context))
        return codec.dict_to_pb(bot, ladder_pb2.Bot)

    @map_errors
    async def GetLadder(self, request: ladder_pb2.GetLadderRequest, context: grpc.aio.ServicerContext) -> ladder_pb2.Ladder:
        return _ladder_pb(await self.ladders.ladder(request.ladder_id))

    @map_errors
    async def ListLadders(self, request: ladder_pb2.ListLaddersRequest, context: grpc.aio.ServicerContext) -> ladder_pb2.ListLaddersResponse:
        return ladder_pb2.ListLaddersResponse(ladders=[_ladder_pb(x) for x in await self.ladders.list_ladders()])

    @map_errors
    async def GetLeaderboard(self, request: ladder_pb2.GetLeaderboardRequest, context: grpc.aio.ServicerContext) -> ladder_pb2.Leaderboard:
        return codec.dict_to_pb(await self.ladders.leaderboard(request.ladder_id, request.pooled),
                                ladder_pb2.Leaderboard)

    @map_errors
    async def StreamLadder(self, request: ladder_pb2.StreamLadderRequest, context: grpc.aio.ServicerContext) -> AsyncIterator[ladder_pb2.LadderEvent]:
        async for ev in self.ladders.stream_ladder(request.ladder_id, peer_host(context)):
            yield codec.dict_to_pb(ev, ladder_pb2.LadderEvent)

    @map_errors
    async def ListLadderMatches(self, request: ladder_pb2.ListLadderMatchesRequest, context: grpc.aio.ServicerContext) -> ladder_pb2.ListLadderMatchesResponse:
        return codec.dict_to_pb({"results": await self.ladders.results(request.ladder_id)},
                                ladder_pb2.ListLadderMatchesResponse)

    @map_errors
    async def StopLadder(self, request: ladder_pb2.StopLadderRequest, context: grpc.aio.ServicerContext) -> ladder_pb2.Ladder:
        return _ladder_pb(await self.ladders.stop_ladder(request.ladder_id, bearer_token(context)))

    @map_errors
    async def ListBots(self, request: ladder_pb2.ListBotsRequest, context: grpc.aio.ServicerContext) -> ladder_pb2.ListBotsResponse:
        return codec.dict_to_pb({"bots": await self.ladders.list_bots()}, ladder_pb2.ListBotsResponse)

    @map_errors
    async def RevokeBot(self, request: ladder_pb2.BotRequest, context: grpc.aio.ServicerContext) -> ladder_pb2.Bot:
        return codec.dict_to_pb(await self.ladders.revoke_bot(request.bot_id, bearer_token(context)), ladder_pb2.Bot)

    @map_errors
    async def RotateBotToken(self, request: ladder_pb2.BotRequest, context: grpc.aio.ServicerContext) -> ladder_pb2.RegisterBotResponse:
        return ladder_pb2.RegisterBotResponse(**await self.ladders.rotate_bot_token(request.bot_id, bearer_token(context)))

    @map_errors
    async def DeleteBot(self, request: ladder_pb2.BotRequest, context: grpc.aio.ServicerContext) -> ladder_pb2.Bot:
        return codec.dict_to_pb(await self.ladders.delete_bot(request.bot_id, bearer_token(context)), ladder_pb2.Bot)

    @map_errors
    async def PauseLadder(self, request: ladder_pb2.StopLadderRequest, context: grpc.aio.ServicerContext) -> ladder_pb2.Ladder:
        return _ladder_pb(await self.ladders.pause_ladder(request.ladder_id, bearer_token(context)))

    @map_errors
    async def ResumeLadder(self, request: ladder_pb2.StopLadderRequest, context: grpc.aio.ServicerContext) -> ladder_pb2.Ladder:
        return _ladder_pb(await self.ladders.resume_ladder(request.ladder_id, bearer_token(context)))

    @map_errors
    async def ListLadderGames(self, request: ladder_pb2.ListLadderGamesRequest, context: grpc.aio.ServicerContext) -> ladder_pb2.ListLadderGamesResponse:
        return codec.dict_to_pb({"games": await self.ladders.games(request.ladder_id, request.state)},
                                ladder_pb2.ListLadderGamesResponse)
