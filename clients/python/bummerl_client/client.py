"""gRPC clients of ``bummerl.v1.GameService``: :class:`AsyncClient` (grpc.aio) and :class:`Client`
(blocking). Responses are plain dicts (``json_format.MessageToDict`` with proto field names and
every field present), the same JSON the REST gateway serves.

Errors: every RPC error is raised as :class:`BummerlError` with ``code`` (a ``grpc.StatusCode``),
``details`` and, for ABORTED (stale ``expected_version``), ``current_version``.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import grpc
import grpc.aio
from google.protobuf import json_format
from google.protobuf.message import Message

from bummerl.v1 import common_pb2, game_pb2, game_pb2_grpc, ladder_pb2, ladder_pb2_grpc


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bummerl")
    except PackageNotFoundError:
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
        from google.rpc import error_details_pb2
        from grpc_status import rpc_status

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


def to_dict(msg: Message) -> dict[str, Any]:
    """A response message as a dict with proto field names and every field present, keys in the
    order of the ``.proto`` at every level (``json_format`` puts fields at their default value,
    e.g. an action's ``"id": 0``, after the others; a bot that reads the JSON as text, as the stdio
    bridge passes it on, sees one order)."""
    d = json_format.MessageToDict(msg, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
    return _in_field_order(d, msg.DESCRIPTOR)


_PLAN: dict[str, list[tuple[str, int, Any]]] = {}


def _plan(descriptor: Any) -> list[tuple[str, int, Any]]:
    """Per field of ``descriptor``, in order: ``(name, how, nested)``; ``how`` 0 = as is, 1 = a
    message, 2 = a repeated message, 3 = a map of messages (``nested``: that message's descriptor)."""
    plan = _PLAN.get(descriptor.full_name)
    if plan is None:
        plan = []
        for f in descriptor.fields:
            m, how = f.message_type, 0
            if m is not None and m.GetOptions().map_entry:
                m = m.fields_by_name["value"].message_type
                how = 3
            elif m is not None:
                how = 2 if _repeated(f) else 1
            if m is None or m.full_name.startswith("google.protobuf."):  # scalars, well-known types
                how, m = 0, None
            plan.append((f.name, how, m))
        _PLAN[descriptor.full_name] = plan
    return plan


def _repeated(f: Any) -> bool:
    """Whether field ``f`` is repeated (``is_repeated`` from protobuf 6, ``label`` before it)."""
    return bool(f.is_repeated) if hasattr(f, "is_repeated") else bool(f.label == 3)  # LABEL_REPEATED


def _in_field_order(d: dict[str, Any], descriptor: Any) -> dict[str, Any]:
    """``d`` (``MessageToDict`` of a ``descriptor`` message) with its keys, and those of every
    nested message, in field order; well-known types (``google.protobuf.*``) are left as they are."""
    out: dict[str, Any] = {}
    for name, how, m in _plan(descriptor):
        if name not in d:
            continue
        v = d[name]
        if how == 1:
            v = _in_field_order(v, m)
        elif how == 2:
            v = [_in_field_order(x, m) for x in v]
        elif how == 3:
            v = {k: _in_field_order(x, m) for k, x in v.items()}
        out[name] = v
    if len(out) != len(d):  # keys the descriptor does not name (none today): kept, after the fields
        out.update((k, v) for k, v in d.items() if k not in out)
    return out


@dataclass(frozen=True)
class CreatedMatch:
    """``match_id`` and one secret seat token per seat (index = seat)."""

    match_id: str
    tokens: list[str]
    summary: dict[str, Any]


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
    return CreatedMatch(resp.match_id, tokens, to_dict(resp.summary))


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


async def _streamed(call: Any) -> AsyncIterator[dict[str, Any]]:
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

    All methods raise :class:`BummerlError` on an RPC error. Versions are ints; times are ms.
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
        await self.channel.close()

    async def wait_ready(self, timeout_s: float = 10.0) -> None:
        """Wait until the channel is connected (raises asyncio.TimeoutError)."""
        await asyncio.wait_for(self.channel.channel_ready(), timeout_s)

    async def list_variants(self) -> list[dict[str, Any]]:
        try:
            return to_dict(await self.stub.ListVariants(game_pb2.ListVariantsRequest()))["variants"]  # type: ignore[no-any-return]
        except grpc.RpcError as e:
            raise _convert(e) from None

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

    async def information_set(self, match_id: str, seat: int, token: str) -> dict[str, Any]:
        try:
            req = game_pb2.GetInformationSetRequest(match_id=match_id, seat=seat)
            return to_dict(await self.stub.GetInformationSet(req, metadata=_auth(token)))
        except grpc.RpcError as e:
            raise _convert(e) from None

    async def submit_action(self, match_id: str, seat: int, token: str, expected_version: int, action: int | str) -> dict[str, Any]:
        """Submit an action id or text; returns ``{"version", "information_set", "events", "duplicate"}``."""
        try:
            req = _submit_request(match_id, seat, expected_version, action)
            return to_dict(await self.stub.SubmitAction(req, metadata=_auth(token)))
        except grpc.RpcError as e:
            raise _convert(e) from None

    async def stream(self, match_id: str, seat: int, token: str, from_version: int = 0) -> AsyncIterator[dict[str, Any]]:
        """Updates ``{"version", "events", "information_set"}``; the first is a full snapshot."""
        async for upd in _streamed(self.stub.StreamMatch(
                game_pb2.StreamMatchRequest(match_id=match_id, seat=seat, from_version=from_version), metadata=_auth(token))):
            yield upd

    def play(self, match_id: str, seat: int, token: str, from_version: int = 0) -> PlayCall:
        """One ``Play`` call for the seat (``async with`` it): iterate it for the updates (as
        :meth:`stream`) and :meth:`PlayCall.send` the actions on it: no unary call per action.
        A refused action ends the iteration with BummerlError; call again with ``from_version``."""
        return PlayCall(self, match_id, seat, token, from_version)

    async def resign(self, match_id: str, seat: int, token: str, reason: str = "") -> dict[str, Any]:
        """Resign the seat; ``reason``: "" (plain), "illegal", "disconnect" or "timeout" (a bot fault)."""
        try:
            req = game_pb2.ResignRequest(match_id=match_id, seat=seat, reason=reason)
            return to_dict(await self.stub.Resign(req, metadata=_auth(token)))
        except grpc.RpcError as e:
            raise _convert(e) from None

    async def match_record(self, match_id: str, token: str | None = None) -> dict[str, Any]:
        """The match record (docs/ACCESS.md): hidden cards only once ``revealed`` (the match, and a
        ladder game's duplicate set, over), or at any time with the admin ``token``."""
        try:
            return to_dict(await self.stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id=match_id),
                                                          metadata=_auth(token)))
        except grpc.RpcError as e:
            raise _convert(e) from None


    async def watch(self, match_id: str, token: str | None = None, from_version: int = 0) -> AsyncIterator[dict[str, Any]]:
        """Spectator updates ``{"version", "events", "public_view", "summary"}`` (WatchMatch): the
        public view (an information set of seat -1, no hidden card) at each version, to the end of
        the match. ``token``: the watch, a seat or the admin token when the match asks for one."""
        async for upd in _streamed(self.stub.WatchMatch(
                game_pb2.WatchMatchRequest(match_id=match_id, from_version=from_version), metadata=_auth(token))):
            yield upd

    async def match_replay(self, match_id: str, token: str | None = None, seat_views: bool = False) -> dict[str, Any]:
        """The full replay of a finished match ``{"record", "steps"}`` (GetMatchReplay): every version
        with every hand, the talon and, with ``seat_views``, each seat's information set.
        FAILED_PRECONDITION while the match runs."""
        try:
            req = game_pb2.GetMatchReplayRequest(match_id=match_id, seat_views=seat_views)
            return to_dict(await self.stub.GetMatchReplay(req, metadata=_auth(token)))
        except grpc.RpcError as e:
            raise _convert(e) from None

    # ------------------------------------------------------------------ ladders (LadderService)
    async def _ladder_call(self, method: str, req: Message, token: str | None = None) -> dict[str, Any]:
        try:
            return to_dict(await getattr(self.ladder_stub, method)(req, metadata=_auth(token)))
        except grpc.RpcError as e:
            raise _convert(e) from None

    async def register_bot(self, name: str, description: str = "", admin_token: str | None = None) -> dict[str, Any]:
        """``{"bot_id", "bot_token", "name"}``; the bot token is shown only here."""
        return await self._ladder_call("RegisterBot", ladder_pb2.RegisterBotRequest(name=name, description=description),
                                       admin_token)

    async def assignments(self, bot_id: str, bot_token: str, client: str = "",
                          on_connected: Callable[[str], None] | None = None) -> AsyncIterator[dict[str, Any]]:
        """The bot's assignments ``{"match_id", "seat", "variant", "ladder_id"}``: the running ones
        first, then new ones as they come. Endless; raises BummerlError when the stream fails.
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
                yield to_dict(a)
        except grpc.RpcError as e:
            raise _convert(e) from None
        finally:
            call.cancel()

    async def create_ladder(self, admin_token: str | None = None, **fields: Any) -> dict[str, Any]:
        """Create a ladder; ``fields`` are CreateLadderRequest's (``name``, ``variant``, ``bot_ids``,
        ``format`` ("LADDER_FORMAT_ROUND_ROBIN"...), ``rounds``, ``duplicate_deals``, ``deals_per_game``,
        ``time_control`` (dict, ms), ``timeout_policy``, ``sprt`` (dict), ``concurrency``, ``seed``)."""
        req = json_format.ParseDict(fields, ladder_pb2.CreateLadderRequest())
        return await self._ladder_call("CreateLadder", req, admin_token)

    async def ladder(self, ladder_id: str) -> dict[str, Any]:
        return await self._ladder_call("GetLadder", ladder_pb2.GetLadderRequest(ladder_id=ladder_id))

    async def leaderboard(self, ladder_id: str, pooled: bool = False) -> dict[str, Any]:
        """The ladder's leaderboard; ``pooled``: over every ladder of its rating pool (variant,
        options, time control, deals per game)."""
        return await self._ladder_call("GetLeaderboard",
                                       ladder_pb2.GetLeaderboardRequest(ladder_id=ladder_id, pooled=pooled))

    async def ladder_matches(self, ladder_id: str) -> list[dict[str, Any]]:
        got = await self._ladder_call("ListLadderMatches", ladder_pb2.ListLadderMatchesRequest(ladder_id=ladder_id))
        return list(got["results"])

    async def stream_ladder(self, ladder_id: str) -> AsyncIterator[dict[str, Any]]:
        """Progress events of a ladder from its creation; ends after ``finished``."""
        async for ev in _streamed(self.ladder_stub.StreamLadder(ladder_pb2.StreamLadderRequest(ladder_id=ladder_id))):
            yield ev

    async def list_ladders(self) -> list[dict[str, Any]]:
        return list((await self._ladder_call("ListLadders", ladder_pb2.ListLaddersRequest()))["ladders"])

    async def ladder_games(self, ladder_id: str, state: str = "") -> list[dict[str, Any]]:
        """The ladder's games ``{"game", "pair", "leg", "bots", "state", "match_id"}``; ``state``:
        ``planned``, ``running``, ``finished`` or "" (all)."""
        got = await self._ladder_call("ListLadderGames", ladder_pb2.ListLadderGamesRequest(ladder_id=ladder_id,
                                                                                        state=state))
        return list(got["games"])

    async def stop_ladder(self, ladder_id: str, admin_token: str | None = None) -> dict[str, Any]:
        """Stop a ladder (admin): running games end as abandoned, nothing new starts."""
        return await self._ladder_call("StopLadder", ladder_pb2.StopLadderRequest(ladder_id=ladder_id), admin_token)

    async def pause_ladder(self, ladder_id: str, admin_token: str | None = None) -> dict[str, Any]:
        return await self._ladder_call("PauseLadder", ladder_pb2.StopLadderRequest(ladder_id=ladder_id), admin_token)

    async def resume_ladder(self, ladder_id: str, admin_token: str | None = None) -> dict[str, Any]:
        return await self._ladder_call("ResumeLadder", ladder_pb2.StopLadderRequest(ladder_id=ladder_id), admin_token)

    async def list_bots(self) -> list[dict[str, Any]]:
        """Every registered bot with its presence (``connected``, ``connected_since_ms``, ``client``)."""
        return list((await self._ladder_call("ListBots", ladder_pb2.ListBotsRequest()))["bots"])

    async def revoke_bot(self, bot_id: str, admin_token: str | None = None) -> dict[str, Any]:
        return await self._ladder_call("RevokeBot", ladder_pb2.BotRequest(bot_id=bot_id), admin_token)

    async def rotate_bot_token(self, bot_id: str, admin_token: str | None = None) -> dict[str, Any]:
        """``{"bot_id", "bot_token", "name"}``: the new token, shown once."""
        return await self._ladder_call("RotateBotToken", ladder_pb2.BotRequest(bot_id=bot_id), admin_token)

    async def delete_bot(self, bot_id: str, admin_token: str | None = None) -> dict[str, Any]:
        return await self._ladder_call("DeleteBot", ladder_pb2.BotRequest(bot_id=bot_id), admin_token)


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

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._updates()

    async def _updates(self) -> AsyncIterator[dict[str, Any]]:
        try:
            if not self._started:
                self._started = True
                await self._call.write(self._first)
            async for upd in self._call:
                yield to_dict(upd)
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
    """Blocking client with the methods of :class:`AsyncClient` (one implementation of each call
    and of the error mapping): every call runs on the :class:`AsyncClient` on an event loop in a
    background thread of this client (as python-chess's ``SimpleEngine`` wraps its async engine),
    and its streams (``stream``, ``assignments``, ``stream_ladder``) are plain iterators. Close it
    (``with Client(...) as c:``) to stop the thread."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="bummerl-client", daemon=True)
        self._thread.start()

        async def make() -> AsyncClient:
            return AsyncClient(target)

        self.aio: AsyncClient = self._run(make())
        """The :class:`AsyncClient` the calls run on (on this client's loop)."""

    def _run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def _iterate(self, agen: AsyncIterator[Any]) -> Iterator[Any]:
        try:
            while True:
                try:
                    yield self._run(agen.__anext__())
                except StopAsyncIteration:
                    return
        finally:
            aclose = getattr(agen, "aclose", None)
            if aclose is not None and self._loop.is_running():
                self._run(aclose())

    if TYPE_CHECKING:  # the calls are AsyncClient's, made blocking below
        def __getattr__(self, name: str) -> Any: ...

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._loop.is_running():
            self._run(self.aio.close())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)
            self._loop.close()


def _blocking(name: str, fn: Any) -> Any:
    if inspect.isasyncgenfunction(fn):
        @functools.wraps(fn)
        def stream(self: Client, *args: Any, **kwargs: Any) -> Iterator[Any]:
            return self._iterate(getattr(self.aio, name)(*args, **kwargs))
        return stream

    @functools.wraps(fn)
    def call(self: Client, *args: Any, **kwargs: Any) -> Any:
        return self._run(getattr(self.aio, name)(*args, **kwargs))
    return call


for _name, _fn in list(vars(AsyncClient).items()):
    if not _name.startswith("_") and _name not in ("close", "wait_ready") and (
            inspect.iscoroutinefunction(_fn) or inspect.isasyncgenfunction(_fn)):
        setattr(Client, _name, _blocking(_name, _fn))
Client.wait_ready = _blocking("wait_ready", AsyncClient.wait_ready)  # type: ignore[attr-defined]
