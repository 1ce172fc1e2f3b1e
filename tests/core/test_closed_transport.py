"""A Redis connection closed under a command during a failover: uvloop raises ``RuntimeError("unable
to perform operation on <TCPTransport closed=True ...>; the handler is closed")``, which redis-py
passes on as it is. The API answers it UNAVAILABLE (retryable) as the docs promise, not INTERNAL."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import grpc
import pytest
import uvloop
from redis.exceptions import ConnectionError as RedisConnectionError

from bummerl.api.errors import ClosedTransportError, map_errors, status_of
from bummerl.store import MatchStore
from bummerl.store.redis_store import is_closed_transport


def _closed_transport_error() -> RuntimeError:
    """The very error uvloop raises for a write on a closed TCP transport."""

    async def provoke() -> RuntimeError:
        server = await asyncio.start_server(lambda _r, _w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.transport.abort()
        await asyncio.sleep(0)
        try:
            writer.transport.write(b"PING\r\n")
        except RuntimeError as e:
            return e
        finally:
            server.close()
        raise AssertionError("uvloop wrote on a closed transport")

    return uvloop.run(provoke())


CLOSED = _closed_transport_error()


def test_uvloop_closed_transport_is_unavailable(caplog: pytest.LogCaptureFixture) -> None:
    assert "handler is closed" in str(CLOSED) and is_closed_transport(CLOSED)
    assert isinstance(CLOSED, ClosedTransportError)
    with caplog.at_level(logging.ERROR, logger="bummerl.api.errors"):
        status = status_of(CLOSED)
    assert (status.code, status.http_status, status.reason) == (grpc.StatusCode.UNAVAILABLE, 503, "UNAVAILABLE")
    assert "TCPTransport" not in status.details
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]  # no traceback logged as unhandled


@pytest.mark.parametrize("exc", [RuntimeError("boom"), RuntimeError("the handler"), ValueError("handler is closed")])
def test_other_errors_stay_internal(exc: Exception) -> None:
    assert not isinstance(exc, ClosedTransportError)
    assert status_of(exc).code == grpc.StatusCode.INTERNAL


class _Context:
    def __init__(self) -> None:
        self.aborted: tuple[Any, ...] | None = None

    async def abort(self, code: grpc.StatusCode, details: str, trailing: Any = ()) -> None:
        self.aborted = (code, details)
        raise grpc.aio.AbortError()


async def test_a_handler_that_meets_it_aborts_unavailable() -> None:
    class Servicer:
        @map_errors
        async def SubmitAction(self, request: Any, context: Any) -> Any:
            raise CLOSED

    ctx = _Context()
    with pytest.raises(grpc.aio.AbortError):
        await Servicer().SubmitAction(None, ctx)
    assert ctx.aborted is not None and ctx.aborted[0] == grpc.StatusCode.UNAVAILABLE


class _ClosedPipeline:
    def execute_command(self, *_args: Any) -> None:
        pass

    async def execute(self, raise_on_error: bool = True) -> list[Any]:
        raise CLOSED


async def test_the_store_turns_it_into_a_connection_error(tstore: MatchStore, match_id: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A durable commit's pipeline (and the wait of a duplicate answer) that meets it raises
    redis-py's ConnectionError, which every caller already treats as retryable."""
    if tstore.cluster:
        pytest.skip("the single node's pipeline")
    replicated = MatchStore(tstore.client, layout=tstore.layout, durability="replicated", replica_wait_ms=10)
    monkeypatch.setattr(tstore.client, "pipeline", lambda **_kw: _ClosedPipeline())
    try:
        with pytest.raises(RedisConnectionError) as info:
            await replicated.wait_replicated(match_id, 2)
        assert info.value.__cause__ is CLOSED
        assert status_of(info.value).code == grpc.StatusCode.UNAVAILABLE
    finally:
        await replicated.aclose()
