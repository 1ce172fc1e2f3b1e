"""gRPC clients of ``bummerl.v1.GameService`` and ``LadderService``: :class:`AsyncClient`
(grpc.aio) and :class:`Client` (blocking, the same calls). Responses are plain dicts, the proto3
JSON of the response message (:func:`bummerl.wire.to_dict`: proto field names, every field
present, int64 fields as decimal strings, enums by name), the same JSON the REST gateway serves;
their types are the ``TypedDict`` s of :mod:`bummerl_client.payloads` (``InformationSet``,
``MatchUpdate``, ``MatchRecord``...).

Errors: every RPC error is raised as :class:`BummerlError` with ``code`` (a ``grpc.StatusCode``),
``details`` and, for ABORTED (stale ``expected_version``), ``current_version``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, Callable, Coroutine, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any, TypeVar, cast

import grpc
import grpc.aio
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from bummerl.v1 import common_pb2, game_pb2, game_pb2_grpc, ladder_pb2, ladder_pb2_grpc
from bummerl.wire import to_dict

from .payloads import (
    InformationSet,
    MatchAnalysis,
    MatchRecord,
    MatchReplay,
    MatchSummary,
    MatchUpdate,
    ResignResponse,
    SubmitActionResponse,
    VariantInfo,
    WatchUpdate,
)
from .payloads_ladder import (
    Assignment,
    Bot,
    Challenge,
    Ladder,
    LadderEvent,
    LadderGame,
    LadderResult,
    Leaderboard,
    Pairings,
    RegisteredBot,
)

_T = TypeVar("_T")


def _version() -> str:
    try:
        return metadata.version("bummerl")
    except metadata.PackageNotFoundError:
        return "dev"


_VERSION = _version()

CURRENT_VERSION_KEY = "bummerl-current-version"


class BummerlError(Exception):
    """An RPC failed: ``code`` (grpc.StatusCode), ``details``; ``current_version`` on ABORTED;
    ``reason``: the server's machine-readable reason (``google.rpc.ErrorInfo.reason``, e.g.
    ``ILLEGAL_ACTION``, ``STALE_VERSION``, ``UNKNOWN_VARIANT``, ``INVALID_OPTION``: the table in
    docs/CLIENTS.md), "" when the error carries none (e.g. a connection failure)."""

    def __init__(self, code: grpc.StatusCode, details: str, current_version: int | None = None,
                 reason: str = "") -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details
        self.current_version = current_version
        self.reason = reason


def _reason(e: grpc.RpcError) -> str:
    """The ErrorInfo reason of the ``google.rpc.Status`` in ``grpc-status-details-bin``, or ""."""
    try:
        st = rpc_status.from_call(e)
        for detail in st.details if st is not None else ():
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                return str(info.reason)
    except Exception:  # noqa: BLE001 - the details are optional
        pass
    return ""


def _convert(e: grpc.RpcError) -> BummerlError:
    code = e.code() if hasattr(e, "code") else grpc.StatusCode.UNKNOWN
    details = e.details() if hasattr(e, "details") else str(e)
    current = None
    try:
        for k, v in e.trailing_metadata() or ():
            if k == CURRENT_VERSION_KEY:
                current = int(v)
    except Exception:  # noqa: BLE001 - metadata is optional
        pass
    return BummerlError(code, details or "", current, _reason(e))


@dataclass(frozen=True)
class CreatedMatch:
    """``match_id``, one secret seat token per seat (index = seat) and the match's public
    ``summary``."""

    match_id: str
    tokens: list[str]
    summary: MatchSummary


def _auth(token: str | None) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")] if token else []


def _create_request(variant: str, options: Mapping[str, object] | None, seats: Sequence[str], seed: int | None,
                    time_control: Mapping[str, Any] | None = None, timeout_policy: str | None = None,
                    idle_limit_ms: int | None = None) -> Message:
    opts = {k: (("true" if v else "false") if isinstance(v, bool) else str(v)) for k, v in (options or {}).items()}
    req = game_pb2.CreateMatchRequest(variant=variant, options=opts, seats=[game_pb2.SeatSpec(name=n) for n in seats],
                                      timeout_policy=timeout_policy or "")
    if seed is not None:
        req.seed = seed
    if time_control:
        tc = dict(time_control)
        scope = str(tc.pop("scope", "") or "")
        req.time_control.CopyFrom(common_pb2.TimeControl(**tc, scope=f"TIME_CONTROL_SCOPE_{(scope or 'unspecified').upper()}"))
    if idle_limit_ms is not None:
        req.idle_limit_ms = idle_limit_ms
    return cast(Message, req)


def _created(resp: Any) -> CreatedMatch:
    tokens = [t.token for t in sorted(resp.seat_tokens, key=lambda t: t.seat)]
    return CreatedMatch(resp.match_id, tokens, cast(MatchSummary, to_dict(resp.summary)))


def _submit_request(match_id: str, seat: int, expected_version: int, action: int | str) -> Message:
    req = game_pb2.SubmitActionRequest(match_id=match_id, seat=seat, expected_version=expected_version)
    if isinstance(action, str):
        req.action_text = action
    else:
        req.action_id = int(action)
    return cast(Message, req)


# ----------------------------------------------------------------- the low-level call API
# For tools that call the stubs themselves and keep the protobuf messages (load tests, the
# benches of ``bummerl_bench``): the very metadata, requests and error conversion every
# :class:`AsyncClient` call uses, without its dict conversion. ``AsyncClient(...).stub`` is the
# ``GameService`` stub to call them on.


def auth_metadata(token: str | None) -> list[tuple[str, str]]:
    """gRPC call metadata that presents a seat, bot or admin ``token``
    (``[("authorization", "Bearer <token>")]``; empty for None)."""
    return _auth(token)


def error_from_rpc(e: grpc.RpcError) -> BummerlError:
    """The :class:`BummerlError` an :class:`AsyncClient` call raises for the RPC error ``e``
    (``code``, ``details``, ``current_version`` from the trailing metadata on ABORTED)."""
    return _convert(e)


def create_match_request(variant: str, options: Mapping[str, object] | None = None, seats: Sequence[str] = ("seat0", "seat1"),
                         seed: int | None = None, time_control: Mapping[str, Any] | None = None,
                         timeout_policy: str | None = None, idle_limit_ms: int | None = None) -> Message:
    """The ``CreateMatchRequest`` of :meth:`AsyncClient.create_match` with the same arguments
    (option values as wire strings, ``time_control`` as a dict with a lower-case ``scope``)."""
    return _create_request(variant, options, seats, seed, time_control, timeout_policy, idle_limit_ms)


def submit_action_request(match_id: str, seat: int, expected_version: int, action: int | str) -> Message:
    """The ``SubmitActionRequest`` of :meth:`AsyncClient.submit_action`: ``action`` an id or its
    text form (``"play QH"``)."""
    return _submit_request(match_id, seat, expected_version, action)


async def _streamed(call: Any) -> AsyncGenerator[dict[str, Any], None]:
    """The messages of a server-streaming call as dicts; RPC errors as BummerlError; the call is
    cancelled when the caller stops early."""
    try:
        async for msg in call:
            yield to_dict(msg)
    except grpc.RpcError as e:
        raise _convert(e) from None
    finally:
        call.cancel()


class AsyncClient:
    """Async client. ``AsyncClient("localhost:50051")``; use as ``async with`` or call :meth:`close`.

    All methods raise :class:`BummerlError` on an RPC error. Versions are ints in the arguments
    and decimal strings in the answers (``int(info["version"])``); times are ms. The answers are
    the dicts typed in :mod:`bummerl_client.payloads`.
    """

    def __init__(self, target: str, channel: grpc.aio.Channel | None = None) -> None:
        self.target = target
        self.channel = channel or grpc.aio.insecure_channel(target)
        # the generated gRPC stubs are untyped (grpcio-tools writes no annotations for them)
        self.stub = game_pb2_grpc.GameServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self.ladder_stub = ladder_pb2_grpc.LadderServiceStub(self.channel)  # type: ignore[no-untyped-call]

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the channel."""
        await self.channel.close()

    async def wait_ready(self, timeout_s: float = 10.0) -> None:
        """Wait until the channel is connected (raises asyncio.TimeoutError)."""
        await asyncio.wait_for(self.channel.channel_ready(), timeout_s)

    async def _call(self, rpc: Any, req: Message, token: str | None = None) -> dict[str, Any]:
        """The answer of the unary ``rpc`` (a stub's method) to ``req`` as a dict."""
        try:
            return to_dict(await rpc(req, metadata=_auth(token)))
        except grpc.RpcError as e:
            raise _convert(e) from None

    async def list_variants(self) -> list[VariantInfo]:
        """The registered variants with their decks and options."""
        got = await self._call(self.stub.ListVariants, game_pb2.ListVariantsRequest())
        return cast(list[VariantInfo], got["variants"])

    async def create_match(
        self, variant: str, options: Mapping[str, object] | None = None, seats: Sequence[str] = ("seat0", "seat1"),
        seed: int | None = None, *, time_control: Mapping[str, Any] | None = None, timeout_policy: str | None = None,
        idle_limit_ms: int | None = None, admin_token: str | None = None,
    ) -> CreatedMatch:
        """Create a match. ``time_control``: ``{"base_ms", "increment_ms", "move_cap_ms",
        "lag_compensation_ms", "scope": "match" | "deal"}`` (milliseconds; e.g.
        ``TimeControl.parse("5+0.1").to_dict()``); ``timeout_policy``: ``forfeit-match`` (server
        default), ``forfeit-deal`` or ``default-move``; ``idle_limit_ms``: None = server default;
        ``admin_token``: needed when the server has one (PERMISSION_DENIED otherwise)."""
        req = _create_request(variant, options, seats, seed, time_control, timeout_policy, idle_limit_ms)
        try:
            return _created(await self.stub.CreateMatch(req, metadata=_auth(admin_token)))
        except grpc.RpcError as e:
            raise _convert(e) from None

    async def information_set(self, match_id: str, seat: int, token: str) -> InformationSet:
        """The seat's information set at the current version (``version`` a decimal string)."""
        req = game_pb2.GetInformationSetRequest(match_id=match_id, seat=seat)
        return cast(InformationSet, await self._call(self.stub.GetInformationSet, req, token))

    async def submit_action(self, match_id: str, seat: int, token: str, expected_version: int,
                            action: int | str) -> SubmitActionResponse:
        """Submit an action id or text; returns ``{"version", "information_set", "events", "duplicate"}``."""
        req = _submit_request(match_id, seat, expected_version, action)
        return cast(SubmitActionResponse, await self._call(self.stub.SubmitAction, req, token))

    async def stream(self, match_id: str, seat: int, token: str,
                     from_version: int = 0) -> AsyncGenerator[MatchUpdate, None]:
        """Updates ``{"version", "events", "information_set"}``; the first is a full snapshot."""
        async for upd in _streamed(self.stub.StreamMatch(
                game_pb2.StreamMatchRequest(match_id=match_id, seat=seat, from_version=from_version), metadata=_auth(token))):
            yield cast(MatchUpdate, upd)

    def play(self, match_id: str, seat: int, token: str, from_version: int = 0) -> PlayCall:
        """One ``Play`` call for the seat (``async with`` it): iterate it for the updates (as
        :meth:`stream`) and :meth:`PlayCall.send` the actions on it: no unary call per action.
        A refused action ends the iteration with BummerlError; call again with ``from_version``."""
        return PlayCall(self, match_id, seat, token, from_version)

    async def resign(self, match_id: str, seat: int, token: str, reason: str = "") -> ResignResponse:
        """Resign the seat; ``reason``: "" (plain), "illegal", "disconnect" or "timeout" (a bot
        fault). Returns ``{"version", "match_result"}``."""
        req = game_pb2.ResignRequest(match_id=match_id, seat=seat, reason=reason)
        return cast(ResignResponse, await self._call(self.stub.Resign, req, token))

    async def match_record(self, match_id: str, token: str | None = None) -> MatchRecord:
        """The match record (docs/ACCESS.md): hidden cards only once ``revealed`` (the match, and a
        ladder game's duplicate set, over), or at any time with the admin ``token``."""
        req = game_pb2.GetMatchRecordRequest(match_id=match_id)
        return cast(MatchRecord, await self._call(self.stub.GetMatchRecord, req, token))

    async def watch(self, match_id: str, token: str | None = None,
                    from_version: int = 0) -> AsyncGenerator[WatchUpdate, None]:
        """Spectator updates ``{"version", "events", "public_view", "summary"}`` (WatchMatch): the
        public view (an information set of seat -1, no hidden card) at each version, to the end of
        the match. ``token``: the watch, a seat or the admin token when the match asks for one."""
        async for upd in _streamed(self.stub.WatchMatch(
                game_pb2.WatchMatchRequest(match_id=match_id, from_version=from_version), metadata=_auth(token))):
            yield cast(WatchUpdate, upd)

    async def match_replay(self, match_id: str, token: str | None = None, seat_views: bool = False) -> MatchReplay:
        """The full replay of a finished match ``{"record", "steps"}`` (GetMatchReplay): every version
        with every hand, the talon and, with ``seat_views``, each seat's information set.
        FAILED_PRECONDITION while the match runs."""
        req = game_pb2.GetMatchReplayRequest(match_id=match_id, seat_views=seat_views)
        return cast(MatchReplay, await self._call(self.stub.GetMatchReplay, req, token))

    async def analysis(self, match_id: str, token: str | None = None) -> MatchAnalysis:
        """Where each seat lost its points (GetMatchAnalysis): ``state`` "done" with every decision's
        values (expected game points) and loss and a summary per seat, or "pending" while the server
        computes it (ask again after ``retry_after_ms``). FAILED_PRECONDITION as :meth:`match_replay`."""
        req = game_pb2.GetMatchAnalysisRequest(match_id=match_id)
        return cast(MatchAnalysis, await self._call(self.stub.GetMatchAnalysis, req, token))

    # ------------------------------------------------------------------ ladders (LadderService)
    async def register_bot(self, name: str, description: str = "", admin_token: str | None = None) -> RegisteredBot:
        """``{"bot_id", "bot_token", "name"}``; the bot token is shown only here."""
        req = ladder_pb2.RegisterBotRequest(name=name, description=description)
        return cast(RegisteredBot, await self._call(self.ladder_stub.RegisterBot, req, admin_token))

    async def assignments(self, bot_id: str, bot_token: str, client: str = "",
                          on_connected: Callable[[str], None] | None = None) -> AsyncGenerator[Assignment, None]:
        """The bot's assignments ``{"match_id", "seat", "variant", "ladder_id"}``: the running ones
        first, then new ones as they come; a challenge to answer comes as ``{"challenge": {...}}``
        (``match_id`` ""; :meth:`answer_challenge`). Endless; raises BummerlError when the stream fails.
        ``client``: what to tell the server about the client and engine (shown in ListBots);
        default ``bummerl_client/<version>``. ``on_connected(bot name)`` is called once the server
        has accepted the stream (before any assignment)."""
        call = self.ladder_stub.StreamAssignments(
            ladder_pb2.StreamAssignmentsRequest(bot_id=bot_id, client=client or f"bummerl_client/{_VERSION}"),
            metadata=_auth(bot_token))
        try:
            if on_connected is not None:
                md = dict(await call.initial_metadata() or ())
                if "bummerl-bot-name" in md:  # the server accepted the stream (a failed call has none)
                    on_connected(str(md["bummerl-bot-name"]))
            async for a in call:
                yield cast(Assignment, to_dict(a))
        except grpc.RpcError as e:
            raise _convert(e) from None
        finally:
            call.cancel()

    async def create_ladder(self, admin_token: str | None = None, **fields: Any) -> Ladder:
        """Create a ladder; ``fields`` are CreateLadderRequest's (``name``, ``variant``, ``bot_ids``,
        ``format`` ("LADDER_FORMAT_ROUND_ROBIN"...), ``rounds``, ``duplicate_deals``, ``deals_per_game``,
        ``time_control`` (dict, ms), ``timeout_policy``, ``sprt`` (dict), ``concurrency``, ``seed``;
        Swiss and knockout: ``pairs_per_meeting``, ``seeding``)."""
        req = json_format.ParseDict(fields, ladder_pb2.CreateLadderRequest())
        return cast(Ladder, await self._call(self.ladder_stub.CreateLadder, req, admin_token))

    async def ladder(self, ladder_id: str) -> Ladder:
        """The ladder: its settings, ``status`` and progress (``matches_played`` of ``matches_total``)."""
        return cast(Ladder, await self._call(self.ladder_stub.GetLadder, ladder_pb2.GetLadderRequest(ladder_id=ladder_id)))

    async def leaderboard(self, ladder_id: str, pooled: bool = False) -> Leaderboard:
        """The ladder's leaderboard; ``pooled``: over every ladder of its rating pool (variant,
        options, time control, deals per game)."""
        req = ladder_pb2.GetLeaderboardRequest(ladder_id=ladder_id, pooled=pooled)
        return cast(Leaderboard, await self._call(self.ladder_stub.GetLeaderboard, req))

    async def ladder_matches(self, ladder_id: str) -> list[LadderResult]:
        """The finished games of the ladder, in the order they ended."""
        req = ladder_pb2.ListLadderMatchesRequest(ladder_id=ladder_id)
        return cast(list[LadderResult], list((await self._call(self.ladder_stub.ListLadderMatches, req))["results"]))

    async def stream_ladder(self, ladder_id: str) -> AsyncGenerator[LadderEvent, None]:
        """Progress events of a ladder from its creation; ends after ``finished``."""
        async for ev in _streamed(self.ladder_stub.StreamLadder(ladder_pb2.StreamLadderRequest(ladder_id=ladder_id))):
            yield cast(LadderEvent, ev)

    async def list_ladders(self) -> list[Ladder]:
        """Every ladder of the server."""
        got = await self._call(self.ladder_stub.ListLadders, ladder_pb2.ListLaddersRequest())
        return cast(list[Ladder], list(got["ladders"]))

    async def pairings(self, ladder_id: str) -> Pairings:
        """A Swiss ladder's standings (points, Buchholz, Sonneborn-Berger, direct encounter) and
        rounds, or a knockout's bracket; empty lists for other formats."""
        req = ladder_pb2.GetPairingsRequest(ladder_id=ladder_id)
        return cast(Pairings, await self._call(self.ladder_stub.GetPairings, req))

    async def challenge(self, bot_token: str, challenged: str, variant: str = "schnapsen-at", pairs: int = 1,
                        deals_per_game: int = 0, time_control: Mapping[str, Any] | None = None,
                        timeout_policy: str = "", options: Mapping[str, str] | None = None,
                        rated: bool = True) -> Challenge:
        """Challenge ``challenged`` (a registered bot's name or id, or ``house:greedy``) as the bot
        of ``bot_token``: ``pairs`` duplicate pairs of a two-player ``variant``, games of
        ``deals_per_game`` deals (0 = whole matches), a ``time_control`` (ms dict) and policy.
        The answer is the challenge, ``pending`` until the other bot answers (a house bot
        accepts at once: ``accepted`` with its ``ladder_id``). RESOURCE_EXHAUSTED past the
        server's hourly cap."""
        req = ladder_pb2.CreateChallengeRequest(challenged=challenged, variant=variant, pairs=pairs,
                                                deals_per_game=deals_per_game, timeout_policy=timeout_policy,
                                                options=dict(options or {}), unrated=not rated)
        if time_control:
            json_format.ParseDict(dict(time_control), req.time_control)
        return cast(Challenge, await self._call(self.ladder_stub.CreateChallenge, req, bot_token))

    async def answer_challenge(self, bot_token: str, challenge_id: str, accept: bool, reason: str = "") -> Challenge:
        """Accept, or decline with ``reason`` ("generic", "later", "too_fast", "too_slow",
        "time_control", "variant", "rated", "casual", "no_bots"), a challenge to the bot of
        ``bot_token``. FAILED_PRECONDITION once it expired or was answered."""
        req = ladder_pb2.AnswerChallengeRequest(challenge_id=challenge_id, accept=accept, reason=reason)
        return cast(Challenge, await self._call(self.ladder_stub.AnswerChallenge, req, bot_token))

    async def get_challenge(self, challenge_id: str) -> Challenge:
        """One challenge, its state read now (an unanswered one past its time is ``expired``)."""
        req = ladder_pb2.GetChallengeRequest(challenge_id=challenge_id)
        return cast(Challenge, await self._call(self.ladder_stub.GetChallenge, req))

    async def challenges(self, bot_id: str = "", state: str = "") -> list[Challenge]:
        """The newest challenges first, of ``bot_id`` (either side) and in ``state`` when given."""
        req = ladder_pb2.ListChallengesRequest(bot_id=bot_id, state=state)
        return cast(list[Challenge], list((await self._call(self.ladder_stub.ListChallenges, req))["challenges"]))

    async def publish_version(self, bot_id: str, version: str, note: str = "", token: str | None = None) -> Bot:
        """Publish ``version`` of a bot with its bot token or the admin ``token``: its ladder games
        from now on are recorded (and rated) under it. FAILED_PRECONDITION for a label it had."""
        req = ladder_pb2.PublishBotVersionRequest(bot_id=bot_id, version=version, note=note)
        return cast(Bot, await self._call(self.ladder_stub.PublishBotVersion, req, token))

    async def ladder_games(self, ladder_id: str, state: str = "") -> list[LadderGame]:
        """The ladder's games ``{"game", "pair", "leg", "bots", "state", "match_id"}``; ``state``:
        ``planned``, ``running``, ``finished`` or "" (all)."""
        req = ladder_pb2.ListLadderGamesRequest(ladder_id=ladder_id, state=state)
        return cast(list[LadderGame], list((await self._call(self.ladder_stub.ListLadderGames, req))["games"]))

    async def stop_ladder(self, ladder_id: str, admin_token: str | None = None) -> Ladder:
        """Stop a ladder (admin): running games end as abandoned, nothing new starts."""
        req = ladder_pb2.StopLadderRequest(ladder_id=ladder_id)
        return cast(Ladder, await self._call(self.ladder_stub.StopLadder, req, admin_token))

    async def pause_ladder(self, ladder_id: str, admin_token: str | None = None) -> Ladder:
        """Pause a ladder (admin): no new game starts; running games finish and count."""
        req = ladder_pb2.StopLadderRequest(ladder_id=ladder_id)
        return cast(Ladder, await self._call(self.ladder_stub.PauseLadder, req, admin_token))

    async def resume_ladder(self, ladder_id: str, admin_token: str | None = None) -> Ladder:
        """Resume a paused ladder (admin)."""
        req = ladder_pb2.StopLadderRequest(ladder_id=ladder_id)
        return cast(Ladder, await self._call(self.ladder_stub.ResumeLadder, req, admin_token))

    async def list_bots(self) -> list[Bot]:
        """Every registered bot with its presence (``connected``, ``connected_since_ms``, ``client``)."""
        return cast(list[Bot], list((await self._call(self.ladder_stub.ListBots, ladder_pb2.ListBotsRequest()))["bots"]))

    async def revoke_bot(self, bot_id: str, admin_token: str | None = None) -> Bot:
        """Revoke the bot's token (admin) until :meth:`rotate_bot_token` issues a new one."""
        return cast(Bot, await self._call(self.ladder_stub.RevokeBot, ladder_pb2.BotRequest(bot_id=bot_id), admin_token))

    async def rotate_bot_token(self, bot_id: str, admin_token: str | None = None) -> RegisteredBot:
        """``{"bot_id", "bot_token", "name"}``: the new token, shown once."""
        req = ladder_pb2.BotRequest(bot_id=bot_id)
        return cast(RegisteredBot, await self._call(self.ladder_stub.RotateBotToken, req, admin_token))

    async def delete_bot(self, bot_id: str, admin_token: str | None = None) -> Bot:
        """Delete the bot (admin): its token stops working, its name is free again."""
        return cast(Bot, await self._call(self.ladder_stub.DeleteBot, ladder_pb2.BotRequest(bot_id=bot_id), admin_token))


class PlayCall:
    """A seat's ``Play`` call (:meth:`AsyncClient.play`): updates in, actions out."""

    def __init__(self, client: AsyncClient, match_id: str, seat: int, token: str, from_version: int) -> None:
        self._call = client.stub.Play(metadata=_auth(token))
        self._first = game_pb2.PlayRequest(match_id=match_id, seat=seat, from_version=from_version)
        self._started = False

    async def __aenter__(self) -> PlayCall:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._call.cancel()

    def __aiter__(self) -> AsyncGenerator[MatchUpdate, None]:
        return self._updates()

    async def _updates(self) -> AsyncGenerator[MatchUpdate, None]:
        try:
            if not self._started:
                self._started = True
                await self._call.write(self._first)
            async for upd in self._call:
                yield cast(MatchUpdate, to_dict(upd))
        except grpc.RpcError as e:
            raise _convert(e) from None

    async def send(self, expected_version: int, action: int | str) -> None:
        """The seat's action at ``expected_version`` (an id or a text); its update comes on the
        call. Raises BummerlError when the call has ended."""
        req = game_pb2.PlayRequest(expected_version=expected_version)
        if isinstance(action, str):
            req.action_text = action
        else:
            req.action_id = int(action)
        try:
            await self._call.write(req)
        except (grpc.RpcError, asyncio.InvalidStateError) as e:
            raise _convert(e) if isinstance(e, grpc.RpcError) else BummerlError(grpc.StatusCode.CANCELLED, str(e)) \
                from None


class Client:
    """Blocking client with the calls of :class:`AsyncClient` and their answers (one
    implementation of each call and of the error mapping): every call runs on the
    :class:`AsyncClient` on an event loop in a background thread of this client (as python-chess's
    ``SimpleEngine`` wraps its async engine), and its streams (``stream``, ``watch``,
    ``assignments``, ``stream_ladder``) are plain iterators that cancel their call when left.
    Close it (``with Client(...) as c:``) to stop the thread."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="bummerl-client", daemon=True)
        self._thread.start()

        async def make() -> AsyncClient:  # the channel is made on the loop it runs on
            return AsyncClient(target)

        self.aio: AsyncClient = self._run(make())
        """The :class:`AsyncClient` the calls run on (on this client's loop)."""

    def _run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def _iterate(self, agen: AsyncGenerator[_T, None]) -> Iterator[_T]:
        try:
            while True:
                try:
                    yield self._run(agen.__anext__())
                except StopAsyncIteration:
                    return
        finally:
            if self._loop.is_running():
                self._run(agen.aclose())

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Blocking :meth:`AsyncClient.close` (the channel), then stop the client's thread."""
        if self._loop.is_running():
            self._run(self.aio.close())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)
            self._loop.close()

    def wait_ready(self, timeout_s: float = 10.0) -> None:
        """Blocking :meth:`AsyncClient.wait_ready`."""
        self._run(self.aio.wait_ready(timeout_s))

    def list_variants(self) -> list[VariantInfo]:
        """Blocking :meth:`AsyncClient.list_variants`."""
        return self._run(self.aio.list_variants())

    def create_match(
        self, variant: str, options: Mapping[str, object] | None = None, seats: Sequence[str] = ("seat0", "seat1"),
        seed: int | None = None, *, time_control: Mapping[str, Any] | None = None, timeout_policy: str | None = None,
        idle_limit_ms: int | None = None, admin_token: str | None = None,
    ) -> CreatedMatch:
        """Blocking :meth:`AsyncClient.create_match`."""
        return self._run(self.aio.create_match(variant, options, seats, seed, time_control=time_control,
                                               timeout_policy=timeout_policy, idle_limit_ms=idle_limit_ms,
                                               admin_token=admin_token))

    def information_set(self, match_id: str, seat: int, token: str) -> InformationSet:
        """Blocking :meth:`AsyncClient.information_set`."""
        return self._run(self.aio.information_set(match_id, seat, token))

    def submit_action(self, match_id: str, seat: int, token: str, expected_version: int,
                      action: int | str) -> SubmitActionResponse:
        """Blocking :meth:`AsyncClient.submit_action`."""
        return self._run(self.aio.submit_action(match_id, seat, token, expected_version, action))

    def stream(self, match_id: str, seat: int, token: str, from_version: int = 0) -> Iterator[MatchUpdate]:
        """Blocking :meth:`AsyncClient.stream`: an iterator."""
        return self._iterate(self.aio.stream(match_id, seat, token, from_version))

    def resign(self, match_id: str, seat: int, token: str, reason: str = "") -> ResignResponse:
        """Blocking :meth:`AsyncClient.resign`."""
        return self._run(self.aio.resign(match_id, seat, token, reason))

    def match_record(self, match_id: str, token: str | None = None) -> MatchRecord:
        """Blocking :meth:`AsyncClient.match_record`."""
        return self._run(self.aio.match_record(match_id, token))

    def watch(self, match_id: str, token: str | None = None, from_version: int = 0) -> Iterator[WatchUpdate]:
        """Blocking :meth:`AsyncClient.watch`: an iterator."""
        return self._iterate(self.aio.watch(match_id, token, from_version))

    def match_replay(self, match_id: str, token: str | None = None, seat_views: bool = False) -> MatchReplay:
        """Blocking :meth:`AsyncClient.match_replay`."""
        return self._run(self.aio.match_replay(match_id, token, seat_views))

    def analysis(self, match_id: str, token: str | None = None) -> MatchAnalysis:
        """Blocking :meth:`AsyncClient.analysis`."""
        return self._run(self.aio.analysis(match_id, token))

    def register_bot(self, name: str, description: str = "", admin_token: str | None = None) -> RegisteredBot:
        """Blocking :meth:`AsyncClient.register_bot`."""
        return self._run(self.aio.register_bot(name, description, admin_token))

    def assignments(self, bot_id: str, bot_token: str, client: str = "",
                    on_connected: Callable[[str], None] | None = None) -> Iterator[Assignment]:
        """Blocking :meth:`AsyncClient.assignments`: an iterator (``on_connected`` is called on
        the client's thread)."""
        return self._iterate(self.aio.assignments(bot_id, bot_token, client, on_connected))

    def create_ladder(self, admin_token: str | None = None, **fields: Any) -> Ladder:
        """Blocking :meth:`AsyncClient.create_ladder`."""
        return self._run(self.aio.create_ladder(admin_token, **fields))

    def ladder(self, ladder_id: str) -> Ladder:
        """Blocking :meth:`AsyncClient.ladder`."""
        return self._run(self.aio.ladder(ladder_id))

    def leaderboard(self, ladder_id: str, pooled: bool = False) -> Leaderboard:
        """Blocking :meth:`AsyncClient.leaderboard`."""
        return self._run(self.aio.leaderboard(ladder_id, pooled))

    def ladder_matches(self, ladder_id: str) -> list[LadderResult]:
        """Blocking :meth:`AsyncClient.ladder_matches`."""
        return self._run(self.aio.ladder_matches(ladder_id))

    def stream_ladder(self, ladder_id: str) -> Iterator[LadderEvent]:
        """Blocking :meth:`AsyncClient.stream_ladder`: an iterator."""
        return self._iterate(self.aio.stream_ladder(ladder_id))

    def list_ladders(self) -> list[Ladder]:
        """Blocking :meth:`AsyncClient.list_ladders`."""
        return self._run(self.aio.list_ladders())

    def pairings(self, ladder_id: str) -> Pairings:
        """Blocking :meth:`AsyncClient.pairings`."""
        return self._run(self.aio.pairings(ladder_id))

    def challenge(self, bot_token: str, challenged: str, variant: str = "schnapsen-at", pairs: int = 1,
                  deals_per_game: int = 0, time_control: Mapping[str, Any] | None = None,
                  timeout_policy: str = "", options: Mapping[str, str] | None = None,
                  rated: bool = True) -> Challenge:
        """Blocking :meth:`AsyncClient.challenge`."""
        return self._run(self.aio.challenge(bot_token, challenged, variant, pairs, deals_per_game, time_control,
                                            timeout_policy, options, rated))

    def answer_challenge(self, bot_token: str, challenge_id: str, accept: bool, reason: str = "") -> Challenge:
        """Blocking :meth:`AsyncClient.answer_challenge`."""
        return self._run(self.aio.answer_challenge(bot_token, challenge_id, accept, reason))

    def get_challenge(self, challenge_id: str) -> Challenge:
        """Blocking :meth:`AsyncClient.get_challenge`."""
        return self._run(self.aio.get_challenge(challenge_id))

    def challenges(self, bot_id: str = "", state: str = "") -> list[Challenge]:
        """Blocking :meth:`AsyncClient.challenges`."""
        return self._run(self.aio.challenges(bot_id, state))

    def publish_version(self, bot_id: str, version: str, note: str = "", token: str | None = None) -> Bot:
        """Blocking :meth:`AsyncClient.publish_version`."""
        return self._run(self.aio.publish_version(bot_id, version, note, token))

    def ladder_games(self, ladder_id: str, state: str = "") -> list[LadderGame]:
        """Blocking :meth:`AsyncClient.ladder_games`."""
        return self._run(self.aio.ladder_games(ladder_id, state))

    def stop_ladder(self, ladder_id: str, admin_token: str | None = None) -> Ladder:
        """Blocking :meth:`AsyncClient.stop_ladder`."""
        return self._run(self.aio.stop_ladder(ladder_id, admin_token))

    def pause_ladder(self, ladder_id: str, admin_token: str | None = None) -> Ladder:
        """Blocking :meth:`AsyncClient.pause_ladder`."""
        return self._run(self.aio.pause_ladder(ladder_id, admin_token))

    def resume_ladder(self, ladder_id: str, admin_token: str | None = None) -> Ladder:
        """Blocking :meth:`AsyncClient.resume_ladder`."""
        return self._run(self.aio.resume_ladder(ladder_id, admin_token))

    def list_bots(self) -> list[Bot]:
        """Blocking :meth:`AsyncClient.list_bots`."""
        return self._run(self.aio.list_bots())

    def revoke_bot(self, bot_id: str, admin_token: str | None = None) -> Bot:
        """Blocking :meth:`AsyncClient.revoke_bot`."""
        return self._run(self.aio.revoke_bot(bot_id, admin_token))

    def rotate_bot_token(self, bot_id: str, admin_token: str | None = None) -> RegisteredBot:
        """Blocking :meth:`AsyncClient.rotate_bot_token`."""
        return self._run(self.aio.rotate_bot_token(bot_id, admin_token))

    def delete_bot(self, bot_id: str, admin_token: str | None = None) -> Bot:
        """Blocking :meth:`AsyncClient.delete_bot`."""
        return self._run(self.aio.delete_bot(bot_id, admin_token))
