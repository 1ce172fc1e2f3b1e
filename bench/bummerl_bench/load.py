"""The load generators of the service benchmarks: random players driving a server over raw gRPC
stubs (:class:`_RawGrpcCalls`), the SDK's dict calls (:class:`_DictCalls`) or REST (:class:`_RestCalls`),
polling (:func:`_service_load`) or on the event stream (:func:`_stream_load`), and
:func:`latency_figures` (p50/p99 in ms)."""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections.abc import AsyncIterator
from typing import Any

from bummerl.rules import TalonDeal, actions

DECLARE = actions.DECLARE
OVER = TalonDeal.OVER


class _RestCalls:
    """The three calls of the service bench over the REST/JSON gateway (aiohttp client), with the
    same dict shapes as :class:`bummerl_client.AsyncClient`; errors raise ``BummerlError``."""

    def __init__(self, base_url: str) -> None:
        import aiohttp

        self.base = base_url.rstrip("/")
        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))

    async def _call(self, method: str, path: str, token: str | None = None, body: Any = None) -> dict[str, Any]:
        import grpc

        from bummerl_client import BummerlError

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with self.session.request(method, self.base + path, json=body, headers=headers) as resp:
            out: dict[str, Any] = await resp.json()
            if resp.status != 200:
                raise BummerlError(grpc.StatusCode[out.get("code", "UNKNOWN")], out.get("message", ""))
            return out

    async def create_match(self, variant: str, seed: int | None = None) -> Any:
        from bummerl_client.client import CreatedMatch

        out = await self._call("POST", "/v1/matches", body={"variant": variant, "seed": seed})
        tokens = [t["token"] for t in sorted(out["seat_tokens"], key=lambda t: t["seat"])]
        return CreatedMatch(out["match_id"], tokens, out["summary"])

    async def information_set(self, match_id: str, seat: int, token: str) -> dict[str, Any]:
        return await self._call("GET", f"/v1/matches/{match_id}/seats/{seat}/information-set", token)

    async def submit_action(self, match_id: str, seat: int, token: str, expected_version: int,
                            action: int) -> dict[str, Any]:
        return await self._call("POST", f"/v1/matches/{match_id}/seats/{seat}/actions", token,
                                {"expected_version": str(expected_version), "action_id": action})

    async def close(self) -> None:
        await self.session.close()


def latency_figures(lat: list[float], seconds: float) -> dict[str, Any]:
    """Call latencies (seconds) over a run of ``seconds`` -> ``{"submit_calls", "seconds",
    "actions_per_s", "p50_ms", "p99_ms"}`` (ms; None without calls)."""
    lat = sorted(lat)
    n = len(lat)
    return {"submit_calls": n, "seconds": round(seconds, 3), "actions_per_s": round(n / seconds, 1),
            "p50_ms": round(statistics.median(lat) * 1000, 3) if n else None,
            "p99_ms": round(lat[min(n - 1, int(n * 0.99))] * 1000, 3) if n else None}


class _RawGrpcCalls:
    """The service bench's calls on the SDK's stub and request builders, but the information set
    stays a protobuf message (no dict conversion), so the load client costs the shared cores as
    little as the floor's client does and the figure measures the server. Errors raise
    ``BummerlError`` (the SDK's conversion)."""

    def __init__(self, target: str) -> None:
        import grpc

        from bummerl_client import AsyncClient

        self.client = AsyncClient(target, grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]))

    @staticmethod
    async def _call(rpc: Any, req: Any, token: str | None = None) -> Any:
        import grpc

        from bummerl_client import auth_metadata, error_from_rpc

        try:
            return await rpc(req, metadata=auth_metadata(token))
        except grpc.RpcError as e:
            raise error_from_rpc(e) from None

    async def create_match(self, variant: str, seed: int | None = None) -> tuple[str, list[str]]:
        from bummerl_client import create_match_request

        req = create_match_request(variant, None, ("seat0", "seat1"), seed)  # as AsyncClient.create_match
        out = await self._call(self.client.stub.CreateMatch, req)
        return out.match_id, [t.token for t in sorted(out.seat_tokens, key=lambda t: t.seat)]

    async def information_set(self, match_id: str, seat: int, token: str) -> Any:
        from bummerl.v1 import game_pb2

        req = game_pb2.GetInformationSetRequest(match_id=match_id, seat=seat)
        return await self._call(self.client.stub.GetInformationSet, req, token)

    async def submit(self, match_id: str, seat: int, token: str, version: int, action: int) -> Any:
        from bummerl_client import submit_action_request

        req = submit_action_request(match_id, seat, version, action)
        return (await self._call(self.client.stub.SubmitAction, req, token)).information_set

    async def stream(self, match_id: str, seat: int, token: str) -> Any:
        """The seat's StreamMatch updates (``MatchUpdate`` messages)."""
        import grpc

        from bummerl.v1 import game_pb2
        from bummerl_client import auth_metadata, error_from_rpc

        call = self.client.stub.StreamMatch(game_pb2.StreamMatchRequest(match_id=match_id, seat=seat),
                                            metadata=auth_metadata(token))
        try:
            async for upd in call:
                yield upd.information_set
        except grpc.RpcError as e:
            raise error_from_rpc(e) from None
        finally:
            call.cancel()

    def play(self, match_id: str, seat: int, token: str) -> Any:
        """The seat's ``Play`` call (raw): write its first request, then read ``MatchUpdate``s and
        write actions on it."""
        from bummerl_client import auth_metadata

        return self.client.stub.Play(metadata=auth_metadata(token))

    @staticmethod
    def fields(info: Any) -> tuple[int, bool, int, list[int]]:
        """(version, match over, seat to act, legal action ids) of an information set."""
        return info.version, info.match.over, info.deal.to_act, [a.id for a in info.legal_actions]

    async def close(self) -> None:
        await self.client.close()


class _DictCalls:
    """The same calls through a dict-speaking client (the SDK's ``AsyncClient`` or
    :class:`_RestCalls`): what a Python bot pays for its JSON-shaped information sets."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def create_match(self, variant: str, seed: int | None = None) -> tuple[str, list[str]]:
        cm = await self.client.create_match(variant, seed=seed)
        return cm.match_id, list(cm.tokens)

    async def information_set(self, match_id: str, seat: int, token: str) -> Any:
        return await self.client.information_set(match_id, seat, token)

    async def submit(self, match_id: str, seat: int, token: str, version: int, action: int) -> Any:
        return (await self.client.submit_action(match_id, seat, token, version, action))["information_set"]

    @staticmethod
    def fields(info: Any) -> tuple[int, bool, int, list[int]]:
        return (int(info["version"]), bool(info["match"]["over"]), int(info["deal"]["to_act"]),
                [a["id"] for a in info["legal_actions"]])

    async def close(self) -> None:
        await self.client.close()


async def _service_load(target: str, matches: int, seconds: float, variant: str,
                        rest_url: str | None = None, rate: float | None = None, channels: int = 1,
                        sdk: bool = False) -> dict[str, Any]:
    """``matches`` players for ``seconds``; ``rate`` (SubmitAction/s over all players) paces an
    open-loop load instead of calling as fast as answers come (latency below saturation);
    ``channels``: gRPC connections the players are spread over (one per server worker or more:
    with SO_REUSEPORT the kernel assigns each connection, not each call, to a worker).
    The gRPC client keeps responses as protobuf messages (:class:`_RawGrpcCalls`) unless ``sdk``
    (then the SDK's ``AsyncClient``, which turns every response into a dict). Besides the
    SubmitAction figures the result has ``calls_per_s``: every RPC the players made per second."""
    from bummerl_client import AsyncClient, BummerlError

    pool: list[Any]
    if rest_url:
        pool = [_DictCalls(_RestCalls(rest_url))]
    elif sdk:
        pool = [_DictCalls(AsyncClient(target)) for _ in range(channels)]
    else:
        pool = [_RawGrpcCalls(target) for _ in range(channels)]
    lat: list[float] = []
    stop_at = time.perf_counter() + seconds
    errors = 0
    calls = 0  # every RPC the players make (CreateMatch, GetInformationSet, SubmitAction)
    try:
        async with AsyncClient(target) as probe:
            await probe.wait_ready(20)

        async def player(i: int) -> None:
            """Create matches and play both seats at random; the information set of the seat to
            act comes from the SubmitAction answer, or one GetInformationSet when the turn passes."""
            nonlocal errors, calls
            c = pool[i % len(pool)]
            fields = c.fields
            rng = random.Random(i)
            period = matches / rate if rate else 0.0
            next_at = time.perf_counter() + rng.random() * period
            while time.perf_counter() < stop_at:
                match_id, tokens = await c.create_match(variant, seed=i)
                seat = fields(await c.information_set(match_id, 0, tokens[0]))[2]
                version, over, _, legal = fields(await c.information_set(match_id, seat, tokens[seat]))
                calls += 3
                while time.perf_counter() < stop_at and not over:
                    a = rng.choice(legal)
                    if period:
                        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
                        next_at += period
                    t = time.perf_counter()
                    try:
                        info = await c.submit(match_id, seat, tokens[seat], version, a)
                    except BummerlError:
                        errors += 1
                        break
                    lat.append(time.perf_counter() - t)
                    calls += 1
                    version, over, nxt, legal = fields(info)
                    if nxt >= 0 and nxt != seat:
                        seat = nxt
                        calls += 1
                        version, over, _, legal = fields(await c.information_set(match_id, seat, tokens[seat]))

        t0 = time.perf_counter()
        await asyncio.gather(*(player(i) for i in range(matches)))
        dt = time.perf_counter() - t0
    finally:
        for c in pool:
            await c.close()
    return {"matches": matches, "variant": variant, "api": "rest" if rest_url else "grpc-sdk" if sdk else "grpc",
            "rate": rate, "errors": errors, "calls_per_s": round(calls / dt, 1), **latency_figures(lat, dt)}


async def _stream_load(target: str, matches: int, seconds: float, variant: str, channels: int = 1,
                       sdk: bool = False, play: bool = False) -> dict[str, Any]:
    """The realistic load: ``matches`` matches at a time, each seat played by a random player that
    follows its StreamMatch as real bots do (no GetInformationSet); when a match ends another
    starts, until ``seconds`` have passed. Times every SubmitAction. The players keep updates as
    protobuf messages (:class:`_RawGrpcCalls`) unless ``sdk``: then each seat is the SDK's runner
    (``bummerl_client.play_seat`` with the ``random`` bot, dict updates). ``play``: each seat
    plays on one ``Play`` call (updates in, actions out on the same call; the latency is then
    from writing the action to reading its update)."""
    import grpc

    from bummerl.bots import make_bot
    from bummerl_client import AsyncClient, play_seat
    from bummerl_client.client import PlayCall

    lat: list[float] = []
    errors = 0
    error_kinds: dict[str, int] = {}  # "<exception>: <message>" -> count, for the report
    calls = 0  # every unary RPC (CreateMatch, SubmitAction); stream messages are not counted

    class TimedPlay(PlayCall):
        """The SDK runner's Play call, timed from an action's write to its update."""

        sent: tuple[float, int] | None = None

        async def send(self, expected_version: int, action: int | str) -> None:
            nonlocal calls
            self.sent = (time.perf_counter(), expected_version)
            calls += 1
            await super().send(expected_version, action)

        async def _updates(self) -> AsyncIterator[dict[str, Any]]:
            async for upd in super()._updates():
                if self.sent is not None and int(upd["version"]) > self.sent[1]:
                    lat.append(time.perf_counter() - self.sent[0])
                    self.sent = None
                yield upd

    class Timed(AsyncClient):
        async def submit_action(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            t = time.perf_counter()
            out = await super().submit_action(*args, **kwargs)
            lat.append(time.perf_counter() - t)
            return out

        def play(self, match_id: str, seat: int, token: str, from_version: int = 0) -> PlayCall:
            return TimedPlay(self, match_id, seat, token, from_version)

    pool: list[Any]
    if sdk:
        pool = [Timed(target, grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]))
                for _ in range(channels)]
    else:
        pool = [_RawGrpcCalls(target) for _ in range(channels)]

    async def play_player(c: _RawGrpcCalls, match_id: str, seat: int, token: str, rng: random.Random) -> None:
        """The seat on one Play call: act on each update that gives it the turn."""
        from bummerl.v1 import game_pb2

        nonlocal calls
        call = c.play(match_id, seat, token)
        try:
            await call.write(game_pb2.PlayRequest(match_id=match_id, seat=seat))
            sent_at, sent = 0.0, -1
            async for upd in call:
                version, over, to_act, legal = c.fields(upd.information_set)
                if sent >= 0 and version > sent:
                    lat.append(time.perf_counter() - sent_at)
                    sent = -1
                if over:
                    return
                if to_act == seat and legal:
                    sent_at, sent = time.perf_counter(), version
                    await call.write(game_pb2.PlayRequest(expected_version=version, action_id=rng.choice(legal)))
                    calls += 1
        finally:
            call.cancel()

    async def seat_player(c: _RawGrpcCalls, match_id: str, seat: int, token: str, rng: random.Random) -> None:
        """Follow the seat's stream; act (at random) on each update that gives it the turn."""
        nonlocal calls
        acted_at = -1
        async for info in c.stream(match_id, seat, token):
            version, over, to_act, legal = c.fields(info)
            if over:
                return
            if to_act == seat and legal and version > acted_at:
                t = time.perf_counter()
                await c.submit(match_id, seat, token, version, rng.choice(legal))
                lat.append(time.perf_counter() - t)
                calls += 1
                acted_at = version

    stop_at = time.perf_counter() + seconds
    try:
        async with AsyncClient(target) as probe:
            await probe.wait_ready(20)

        async def table(i: int) -> None:
            nonlocal errors, calls
            c = pool[i % len(pool)]
            rng = random.Random(i)
            n = 0
            while time.perf_counter() < stop_at:
                try:
                    if sdk:
                        m = await c.create_match(variant, seed=i * 1000 + n)
                        await asyncio.gather(*(play_seat(c, m.match_id, s, m.tokens[s], make_bot("random", i + s))
                                               for s in (0, 1)))
                    else:
                        match_id, tokens = await c.create_match(variant, seed=i * 1000 + n)
                        calls += 1
                        player = play_player if play else seat_player
                        await asyncio.gather(*(player(c, match_id, s, tokens[s], rng) for s in (0, 1)))
                except Exception as e:  # noqa: BLE001 - counted, the table goes on
                    if time.perf_counter() >= stop_at:
                        return  # the run's end cancelled the table's calls: not the server's error
                    errors += 1
                    kind = f"{type(e).__name__}: {e}"[:120]
                    error_kinds[kind] = error_kinds.get(kind, 0) + 1
                n += 1

        t0 = time.perf_counter()
        tasks = [asyncio.create_task(table(i)) for i in range(matches)]
        await asyncio.sleep(seconds)
        dt = time.perf_counter() - t0
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        for c in pool:
            await c.close()
    out = {"matches": matches, "variant": variant,
           "api": "grpc-stream-sdk" if sdk else "grpc-play" if play else "grpc-stream",
           "errors": errors, **latency_figures(lat, dt)}
    if error_kinds:
        out["error_kinds"] = error_kinds
    if not sdk:
        out["calls_per_s"] = round(calls / dt, 1)
    return out
