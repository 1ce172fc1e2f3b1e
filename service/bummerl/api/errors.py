"""The one table that maps domain errors to gRPC and HTTP status, and the handler decorator.

The domain errors live where they are raised and carry no transport codes: the use cases'
(:mod:`bummerl.core.errors`), the engine's (:mod:`bummerl.rules.base.errors`) and the store's
(:mod:`bummerl.store.errors`); they are re-exported here. Handlers are wrapped with
:func:`map_errors`, which turns an exception into ``context.abort(code, details, trailing_metadata)``
by the first matching row of :data:`STATUS_TABLE` (``isinstance`` checks, so subclasses map
like their base). Anything not in the table becomes ``INTERNAL`` with a generic message; the
exception itself is only logged, never sent.

=====================  ===================  ====
exception              gRPC status          HTTP
=====================  ===================  ====
StaleVersionError      ABORTED              409
VersionConflictError   ABORTED              409
NotFoundError          NOT_FOUND            404
MatchNotFoundError     NOT_FOUND            404
MatchExistsError       ALREADY_EXISTS       409
UnknownVariantArgumentError INVALID_ARGUMENT 400  (reason UNKNOWN_VARIANT; an InvalidArgumentError)
InvalidOptionArgumentError  INVALID_ARGUMENT 400  (reason INVALID_OPTION; an InvalidArgumentError)
InvalidArgumentError   INVALID_ARGUMENT     400
InvalidActionError     INVALID_ARGUMENT     400
InvalidOptionError     INVALID_ARGUMENT     400
UnknownVariantError    INVALID_ARGUMENT     400
IllegalActionError     FAILED_PRECONDITION  409  (includes the engine's MatchOverError)
MatchOverError         FAILED_PRECONDITION  409
TimeoutLostError       FAILED_PRECONDITION  409  (the action came after the seat's deadline)
ReplayNotAvailableError FAILED_PRECONDITION 409  (the replay of a running match)
UnauthenticatedError   UNAUTHENTICATED      401
PermissionDeniedError  PERMISSION_DENIED    403
ResourceExhaustedError RESOURCE_EXHAUSTED   429  (rate limit, streams per seat; retry-after-ms metadata)
ReplicationTimeoutError UNAVAILABLE         503  (durability=replicated: no replica confirmed the commit in time)
redis ConnectionError  UNAVAILABLE          503  (generic message: retry; also Redis Cluster's failover errors)
redis TimeoutError     UNAVAILABLE          503  (generic message: retry)
ClosedTransportError   UNAVAILABLE          503  (uvloop's RuntimeError "... the handler is closed": a Redis
                                                  connection closed under a command, e.g. in a failover)
anything else          INTERNAL             500
=====================  ===================  ====

ABORTED errors also put the current version into the trailing metadata key
:data:`CURRENT_VERSION_KEY` (``bummerl-current-version``).
"""

from __future__ import annotations

import functools
import inspect
import logging
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
import grpc.aio
import redis.exceptions
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from bummerl.api.metadata import peer_host
from bummerl.core.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    InvalidOptionArgumentError,
    MatchOverError,
    NotFoundError,
    NotYourTurnError,
    PermissionDeniedError,
    ReplayNotAvailableError,
    ResourceExhaustedError,
    ServiceError,
    StaleVersionError,
    TimeoutLostError,
    UnauthenticatedError,
    UnknownVariantArgumentError,
)
from bummerl.rules.base.errors import (
    IllegalActionError,
    InvalidActionError,
    InvalidOptionError,
    UnknownVariantError,
)
from bummerl.rules.base.errors import MatchOverError as RulesMatchOverError
from bummerl.store.errors import (
    MatchExistsError,
    MatchNotFoundError,
    ReplicationTimeoutError,
    VersionConflictError,
)
from bummerl.store.redis_store import is_closed_transport

__all__ = [
    "CURRENT_VERSION_KEY", "RETRY_AFTER_KEY", "HTTP_STATUS", "STATUS_TABLE", "IllegalActionError", "InvalidActionError",
    "InvalidArgumentError", "InvalidOptionError", "MatchExistsError", "MatchNotFoundError", "MatchOverError",
    "NotFoundError", "PermissionDeniedError", "ServiceError", "StaleVersionError", "Status",
    "UnauthenticatedError", "UnknownVariantError", "VersionConflictError", "abort_with", "grpc_code_name",
    "map_errors", "status_of",
]

log = logging.getLogger(__name__)


class _ClosedTransportMeta(type):
    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, BaseException) and is_closed_transport(obj)


class ClosedTransportError(RuntimeError, metaclass=_ClosedTransportMeta):
    """Not raised: the row of :data:`STATUS_TABLE` for the ``RuntimeError`` that uvloop raises for
    an operation on a closed transport (``unable to perform operation on <TCPTransport
    closed=True ...>; the handler is closed``), which redis-py passes on as it is when a Redis node
    goes away under a connection (a failover). ``isinstance(exc, ClosedTransportError)`` is true
    for exactly those (:func:`bummerl.store.redis_store.is_closed_transport`): a connection
    problem, answered UNAVAILABLE (retryable) like redis-py's ConnectionError, not INTERNAL."""

#: Trailing metadata key (gRPC) / response header (REST) carrying the match's current version
#: when a request is rejected as stale (ABORTED).
CURRENT_VERSION_KEY = "bummerl-current-version"

#: Trailing metadata key (gRPC) / response header (REST) with the milliseconds after which a
#: request rejected as RESOURCE_EXHAUSTED may be retried.
RETRY_AFTER_KEY = "bummerl-retry-after-ms"

#: The one mapping of domain exceptions to the gRPC status and the machine-readable reason
#: (``google.rpc.ErrorInfo.reason``, and ``reason`` of the REST error body); the first
#: isinstance match wins, so subclasses come before their bases.
STATUS_TABLE: tuple[tuple[type[BaseException], grpc.StatusCode, str], ...] = (
    (StaleVersionError, grpc.StatusCode.ABORTED, "STALE_VERSION"),
    (VersionConflictError, grpc.StatusCode.ABORTED, "STALE_VERSION"),
    (NotFoundError, grpc.StatusCode.NOT_FOUND, "NOT_FOUND"),
    (MatchNotFoundError, grpc.StatusCode.NOT_FOUND, "NOT_FOUND"),
    (MatchExistsError, grpc.StatusCode.ALREADY_EXISTS, "ALREADY_EXISTS"),
    (UnknownVariantArgumentError, grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_VARIANT"),  # an InvalidArgumentError
    (InvalidOptionArgumentError, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_OPTION"),  # an InvalidArgumentError
    (InvalidArgumentError, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT"),
    (InvalidActionError, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ACTION"),
    (InvalidOptionError, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_OPTION"),
    (UnknownVariantError, grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_VARIANT"),
    (NotYourTurnError, grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"),  # an IllegalActionError
    (RulesMatchOverError, grpc.StatusCode.FAILED_PRECONDITION, "MATCH_OVER"),  # an IllegalActionError
    (IllegalActionError, grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL_ACTION"),
    (MatchOverError, grpc.StatusCode.FAILED_PRECONDITION, "MATCH_OVER"),
    (TimeoutLostError, grpc.StatusCode.FAILED_PRECONDITION, "TIMEOUT"),
    (FailedPreconditionError, grpc.StatusCode.FAILED_PRECONDITION, "FAILED_PRECONDITION"),
    (ReplayNotAvailableError, grpc.StatusCode.FAILED_PRECONDITION, "REPLAY_NOT_AVAILABLE"),
    (UnauthenticatedError, grpc.StatusCode.UNAUTHENTICATED, "UNAUTHENTICATED"),
    (PermissionDeniedError, grpc.StatusCode.PERMISSION_DENIED, "PERMISSION_DENIED"),
    (ResourceExhaustedError, grpc.StatusCode.RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED"),
    (ReplicationTimeoutError, grpc.StatusCode.UNAVAILABLE, "NOT_REPLICATED"),
    (redis.exceptions.ConnectionError, grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE"),
    (redis.exceptions.TimeoutError, grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE"),
    (ClosedTransportError, grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE"),
    # Redis Cluster while a failover or a slot migration is under way: retry
    (redis.exceptions.ClusterError, grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE"),
    (redis.exceptions.TryAgainError, grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE"),
    (redis.exceptions.ReadOnlyError, grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE"),
    (redis.exceptions.AskError, grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE"),
    (redis.exceptions.RedisClusterException, grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE"),
)

#: gRPC status -> HTTP status of the REST gateway (grpc-gateway's table, except that
#: FAILED_PRECONDITION is 409 here: the request was well formed but conflicts with the match).
HTTP_STATUS: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.OK: 200,
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
    grpc.StatusCode.UNAUTHENTICATED: 401,
}

INTERNAL_MESSAGE = "internal error"
UNAVAILABLE_MESSAGE = "storage temporarily unavailable, retry"


ERROR_DOMAIN = "bummerl.v1"
"""``google.rpc.ErrorInfo.domain`` of every error the service sends."""

MAX_DETAILS = 1000
"""Longest error message sent, characters (longer ones are clipped: echoed input stays small)."""

def clip(text: str, limit: int = 120) -> str:
    """``text`` cut to ``limit`` characters with a note of how much was cut (echoed input).

    >>> clip("x" * 200, 10)
    'xxxxxxxxxx... (190 more characters)'
    """
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit} more characters)"


@dataclass(frozen=True)
class Status:
    """A gRPC status to send: code, details (safe for the caller), trailing metadata pairs, and
    the machine-readable ``reason`` with its ``info`` (``google.rpc.ErrorInfo``)."""

    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, str], ...] = ()
    reason: str = ""
    info: tuple[tuple[str, str], ...] = ()

    def rich_metadata(self) -> tuple[tuple[str, Any], ...]:
        """The trailing metadata of the standard rich error model: a ``google.rpc.Status`` with one
        ``ErrorInfo`` in ``grpc-status-details-bin`` (built by grpcio-status; clients read it
        with ``grpc_status.rpc_status.from_call``)."""
        detail = any_pb2.Any()
        detail.Pack(error_details_pb2.ErrorInfo(reason=self.reason or self.code.name, domain=ERROR_DOMAIN,
                                                metadata=dict(self.info)))
        rich = status_pb2.Status(code=self.code.value[0], message=self.details, details=[detail])
        return tuple(rpc_status.to_status(rich).trailing_metadata)

    @property
    def http_status(self) -> int:
        """The HTTP status code of :data:`HTTP_STATUS` (500 for an unmapped code)."""
        return HTTP_STATUS.get(self.code, 500)


def status_of(exc: BaseException) -> Status:
    """The :class:`Status` for a raised exception by :data:`STATUS_TABLE`.

    Unknown exceptions give ``INTERNAL`` with the message ``"internal error (ref <hex>)"``;
    the exception and the same ref are logged with the traceback. Redis connection/timeout
    errors give ``UNAVAILABLE`` with a generic message.
    """
    for cls, code, reason in STATUS_TABLE:
        if isinstance(exc, cls):
            if code == grpc.StatusCode.UNAVAILABLE:  # infrastructure: log, do not describe
                log.warning("storage unavailable: %s", type(exc).__name__)
                return Status(code, UNAVAILABLE_MESSAGE, reason=reason)
            trailing: tuple[tuple[str, str], ...] = ()
            current = getattr(exc, "current_version", None)
            if code == grpc.StatusCode.ABORTED and current is not None:
                trailing = ((CURRENT_VERSION_KEY, str(current)),)
            retry = getattr(exc, "retry_after_ms", None)
            if code == grpc.StatusCode.RESOURCE_EXHAUSTED and retry is not None:
                trailing = ((RETRY_AFTER_KEY, str(retry)),)
            info = tuple((k.removeprefix("bummerl-").replace("-", "_"), v) for k, v in trailing)
            return Status(code, clip(str(exc) or code.name.lower(), MAX_DETAILS), trailing, reason, info)
    ref = secrets.token_hex(4)
    log.error("unhandled %s (ref %s)", type(exc).__name__, ref, exc_info=exc)
    return Status(grpc.StatusCode.INTERNAL, f"{INTERNAL_MESSAGE} (ref {ref})", reason="INTERNAL",
                  info=(("ref", ref),))


def reason_of(status: Status) -> str:
    """The machine-readable reason of a status (its code's name when it has none)."""
    return status.reason or status.code.name


def grpc_code_name(code: grpc.StatusCode) -> str:
    """``grpc.StatusCode.NOT_FOUND`` -> ``"NOT_FOUND"`` (the JSON error code of the gateway)."""
    return str(code.name)


async def abort_with(context: Any, exc: BaseException) -> None:
    """Abort the RPC on ``context`` (a ``grpc.aio.ServicerContext`` or the gateway's context)
    with the status of ``exc``. Always raises (``grpc.aio.AbortError`` or the gateway's subclass)."""
    status = status_of(exc)
    trailing = status.trailing_metadata
    if hasattr(context, "is_gateway"):  # REST: the reason goes in the JSON error body
        context.reason = status.reason
    else:  # gRPC: the google.rpc.Status with its ErrorInfo in grpc-status-details-bin
        trailing = (*trailing, *status.rich_metadata())
    await context.abort(status.code, status.details, trailing)
    raise AssertionError("context.abort returned")  # pragma: no cover


F = TypeVar("F", bound=Callable[..., Any])


async def _counted_auth_failure(servicer: Any, context: Any, exc: Exception) -> Exception:
    """``exc``, or a ResourceExhaustedError when ``exc`` is a failed authentication and the peer
    is past the ``auth`` limit of ``servicer.auth_limiter`` (see :func:`map_errors`). When Redis
    cannot count it, the authentication error itself is answered."""
    limiter = getattr(servicer, "auth_limiter", None)
    if limiter is None or not isinstance(exc, UnauthenticatedError | PermissionDeniedError):
        return exc
    try:
        await limiter.check("auth", peer_host(context))
    except ResourceExhaustedError as over:
        return over
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
        pass
    return exc


def map_errors(fn: F) -> F:
    """Decorator for ``grpc.aio`` handler methods ``(self, request, context)``: coroutine
    functions (unary responses) and async generator functions (streamed responses).

    Domain exceptions abort the RPC with their status (:func:`status_of`); an abort the handler
    made itself (``grpc.aio.AbortError``) and cancellation pass through untouched.

    Failed authentication (UnauthenticatedError, PermissionDeniedError: a missing or wrong seat,
    bot or admin token, another seat's token) is counted per peer address when the servicer has
    an ``auth_limiter`` (:class:`bummerl.core.limits.RateLimiter` with an ``auth`` limit): past
    the limit the call is answered RESOURCE_EXHAUSTED with ``bummerl-retry-after-ms`` instead.
    Calls with a valid token are never refused by it, so bots behind one address keep playing
    while another of them sends wrong tokens.
    """
    if inspect.isasyncgenfunction(fn):

        @functools.wraps(fn)
        async def stream_wrapper(self: Any, request: Any, context: Any) -> AsyncIterator[Any]:
            try:
                async for item in fn(self, request, context):
                    yield item
            except grpc.aio.AbortError:
                raise
            except Exception as exc:  # the one place that maps every error
                await abort_with(context, await _counted_auth_failure(self, context, exc))

        return stream_wrapper  # type: ignore[return-value]

    if not inspect.iscoroutinefunction(fn):
        raise TypeError(f"map_errors needs an async def or async generator, got {fn!r}")

    @functools.wraps(fn)
    async def unary_wrapper(self: Any, request: Any, context: Any) -> Any:
        try:
            return await fn(self, request, context)
        except grpc.aio.AbortError:
            raise
        except Exception as exc:
            await abort_with(context, await _counted_auth_failure(self, context, exc))

    return unary_wrapper  # type: ignore[return-value]

