"""Domain errors -> gRPC status (one table), over a real grpc.aio server and directly."""

from __future__ import annotations

import logging

import grpc
import grpc.aio
import pytest
import redis.exceptions

from bummerl.api import errors
from bummerl.api.errors import (
    CURRENT_VERSION_KEY,
    IllegalActionError,
    InvalidActionError,
    InvalidArgumentError,
    InvalidOptionError,
    MatchExistsError,
    MatchNotFoundError,
    MatchOverError,
    NotFoundError,
    PermissionDeniedError,
    StaleVersionError,
    UnauthenticatedError,
    UnknownVariantError,
    VersionConflictError,
    map_errors,
    status_of,
)
from bummerl.config import Settings
from bummerl.v1 import game_pb2, game_pb2_grpc

CASES = [
    (NotFoundError("no match m1"), grpc.StatusCode.NOT_FOUND, 404),
    (InvalidArgumentError("bad option"), grpc.StatusCode.INVALID_ARGUMENT, 400),
    (InvalidActionError("play XY"), grpc.StatusCode.INVALID_ARGUMENT, 400),
    (InvalidOptionError("target", "must be 1..33"), grpc.StatusCode.INVALID_ARGUMENT, 400),
    (UnknownVariantError("no variant 'schnopsn'"), grpc.StatusCode.INVALID_ARGUMENT, 400),
    (IllegalActionError("not your turn"), grpc.StatusCode.FAILED_PRECONDITION, 409),
    (MatchOverError("match is over"), grpc.StatusCode.FAILED_PRECONDITION, 409),
    (StaleVersionError(7), grpc.StatusCode.ABORTED, 409),
    (VersionConflictError("m1", 3, 7), grpc.StatusCode.ABORTED, 409),
    (MatchNotFoundError("m1"), grpc.StatusCode.NOT_FOUND, 404),
    (MatchExistsError("m1"), grpc.StatusCode.ALREADY_EXISTS, 409),
    (UnauthenticatedError("missing token"), grpc.StatusCode.UNAUTHENTICATED, 401),
    (PermissionDeniedError("not your seat"), grpc.StatusCode.PERMISSION_DENIED, 403),
]

SECRET = "db password is hunter2"


@pytest.mark.parametrize(("exc", "code", "http"), CASES, ids=lambda c: type(c).__name__)
def test_domain_error_maps_to_status(exc, code, http) -> None:
    status = status_of(exc)
    assert status.code == code
    assert status.http_status == http
    assert status.details == str(exc)


def test_errors_are_the_raising_layers_own_classes() -> None:
    """One class per error: the table must match what core, rules and store actually raise."""
    from bummerl.core import errors as core_errors
    from bummerl.rules.base import errors as rules_errors

    assert NotFoundError is core_errors.NotFoundError and MatchOverError is core_errors.MatchOverError
    assert StaleVersionError is core_errors.StaleVersionError
    assert IllegalActionError is rules_errors.IllegalActionError
    assert InvalidActionError is rules_errors.InvalidActionError
    # the engine's own MatchOverError is an IllegalActionError: FAILED_PRECONDITION as well
    assert status_of(rules_errors.MatchOverError("over")).code == grpc.StatusCode.FAILED_PRECONDITION


@pytest.mark.parametrize("exc", [StaleVersionError(42), VersionConflictError("m1", 40, 42)])
def test_aborted_carries_the_current_version(exc) -> None:
    status = status_of(exc)
    assert "42" in status.details
    assert status.trailing_metadata == ((CURRENT_VERSION_KEY, "42"),)


@pytest.mark.parametrize("exc", [redis.exceptions.ConnectionError(SECRET), redis.exceptions.TimeoutError(SECRET)])
def test_redis_outage_is_unavailable_without_details(exc) -> None:
    status = status_of(exc)
    assert status.code == grpc.StatusCode.UNAVAILABLE and status.http_status == 503
    assert SECRET not in status.details


@pytest.mark.parametrize("exc", [RuntimeError(SECRET), ValueError(SECRET), KeyError(SECRET)])
def test_unknown_exception_is_internal_without_its_text(exc, caplog) -> None:
    with caplog.at_level(logging.ERROR, logger="bummerl.api.errors"):
        status = status_of(exc)
    assert status.code == grpc.StatusCode.INTERNAL and status.http_status == 500
    assert SECRET not in status.details and status.details.startswith("internal error")
    ref = status.details.split("ref ")[1].rstrip(")")
    logged = [r for r in caplog.records if r.exc_info and r.exc_info[1] is exc]
    assert logged and ref in logged[0].getMessage()  # logged with the same ref, not sent


class _Raising(game_pb2_grpc.GameServiceServicer):
    """Raises the exception named by the request's match_id."""

    def __init__(self) -> None:
        self.by_name = {type(e).__name__: e for e, _, _ in CASES} | {"RuntimeError": RuntimeError(SECRET)}

    @map_errors
    async def GetMatchRecord(self, request, context):
        raise self.by_name[request.match_id]

    @map_errors
    async def StreamMatch(self, request, context):
        yield game_pb2.MatchUpdate(version=1)
        raise self.by_name[request.match_id]

    @map_errors
    async def Resign(self, request, context):
        await context.abort(grpc.StatusCode.OUT_OF_RANGE, "handler's own abort")


@pytest.fixture
async def stub():
    from bummerl.api.server import build_server

    server, port = await build_server(_Raising(), Settings.from_env({}, host="127.0.0.1", port=0))
    await server.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield game_pb2_grpc.GameServiceStub(channel)
    await server.stop(None)


async def test_decorator_over_grpc(stub) -> None:
    for exc, code, _ in CASES:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id=type(exc).__name__))
        assert info.value.code() == code
        assert info.value.details() == str(exc)
        if isinstance(exc, StaleVersionError):
            assert (CURRENT_VERSION_KEY, "7") in tuple(info.value.trailing_metadata())


async def test_decorator_hides_unknown_errors_over_grpc(stub) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id="RuntimeError"))
    assert info.value.code() == grpc.StatusCode.INTERNAL
    assert SECRET not in info.value.details()


async def test_decorator_on_streams_and_own_aborts(stub) -> None:
    call = stub.StreamMatch(game_pb2.StreamMatchRequest(match_id="StaleVersionError"))
    first = await call.read()
    assert first.version == 1
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call.read()
    assert info.value.code() == grpc.StatusCode.ABORTED
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.Resign(game_pb2.ResignRequest(match_id="m"))
    assert info.value.code() == grpc.StatusCode.OUT_OF_RANGE


def test_map_errors_needs_async() -> None:
    with pytest.raises(TypeError):
        map_errors(lambda self, request, context: None)


def test_every_table_code_has_an_http_status() -> None:
    for _, code, _reason in errors.STATUS_TABLE:
        assert code in errors.HTTP_STATUS


def test_no_table_entry_is_shadowed_by_an_earlier_base_class() -> None:
    """The first isinstance match wins: a subclass listed after its base would never get its own
    code and reason (e.g. NOT_YOUR_TURN under ILLEGAL_ACTION)."""
    table = errors.STATUS_TABLE
    for i, (earlier, _, _) in enumerate(table):
        for later, _, reason in table[i + 1:]:
            assert not (issubclass(later, earlier) and later is not earlier), (later.__name__, reason)
