"""Domain errors of the service and the one table that maps them to gRPC and HTTP status.

The use cases raise the exceptions defined or re-exported here (the rules engine's
``IllegalActionError``, ``InvalidActionError``, ``MatchOverError``, ``InvalidOptionError``,
``UnknownVariantError``); they carry no transport codes. Handlers are wrapped with
:func:`map_errors`, which turns an exception into ``context.abort(code, details, trailing_metadata)``
by the first matching row of :data:`STATUS_TABLE` (``isinstance`` checks, so subclasses map
like their base). Anything not in the table becomes ``INTERNAL`` with a generic message; the
exception itself is only logged, never sent.

====================  ===================  ====
exception             gRPC status          HTTP
====================  ===================  ====
StaleVersionError     ABORTED              409
NotFoundError         NOT_FOUND            404
InvalidArgumentError  INVALID_ARGUMENT     400
InvalidActionError    INVALID_ARGUMENT     400
InvalidOptionError    INVALID_ARGUMENT     400
UnknownVariantError   INVALID_ARGUMENT     400
IllegalActionError    FAILED_PRECONDITION  409
MatchOverError        FAILED_PRECONDITION  409
UnauthenticatedError  UNAUTHENTICATED      401
PermissionDeniedError PERMISSION_DENIED    403
anything else         INTERNAL             500
====================  ===================  ====

``StaleVersionError`` also puts the current version into the trailing metadata key
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

log = logging.getLogger(__name__)

#: Trailing metadata key (gRPC) / response header (REST) carrying the match's current version
#: when a request is rejected as stale (ABORTED).
CURRENT_VERSION_KEY = "bummerl-current-version"


class ServiceError(Exception):
    """Base of the service's domain errors. The message is safe to show to the caller."""


class NotFoundError(ServiceError, LookupError):
    """An unknown match, seat, variant, ladder or bot. -> NOT_FOUND / 404."""


class InvalidArgumentError(ServiceError, ValueError):
    """A malformed request: bad option value, wrong seat count, bad path parameter.
    -> INVALID_ARGUMENT / 400."""


class UnauthenticatedError(ServiceError):
    """No token, or a token that matches no seat/bot/admin. -> UNAUTHENTICATED / 401."""


class PermissionDeniedError(ServiceError):
    """A valid token used for something it does not allow (another seat, an admin call).
    -> PERMISSION_DENIED / 403."""


class StaleVersionError(ServiceError):
    """``expected_version`` is not the match's current version (and the request is not a retry
    of the action applied there). -> ABORTED / 409, current version in the details and in the
    trailing metadata ``bummerl-current-version``.

    >>> StaleVersionError(7)
    StaleVersionError(current_version=7)
    """

    def __init__(self, current_version: int, message: str | None = None) -> None:
        self.current_version = int(current_version)
        super().__init__(message or f"stale expected_version: the current version is {self.current_version}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(current_version={self.current_version})"


def _rules_error(name: str, base: type[Exception] = ValueError) -> type[Exception]:
    """The rules engine's error class ``name`` from ``bummerl.rules.errors``, or a local stand-in
    subclassing ``base`` (so that this module works before/without the engine)."""
    try:
        from bummerl.rules import errors as rules_errors
    except ImportError:
        rules_errors = None  # type: ignore[assignment]
    cls = getattr(rules_errors, name, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        return cls
    return type(name, (base,), {"__module__": __name__, "__doc__": f"Stand-in for bummerl.rules.errors.{name}."})


# The engine's errors (DESIGN.md §2: all ValueError, no transport codes), re-exported here so that
# the table below is complete and use cases import every domain error from one place.

#: A legal-looking action the state forbids (not your turn, revoke, closing not allowed).
#: -> FAILED_PRECONDITION / 409, nothing changes.
IllegalActionError = _rules_error("IllegalActionError")
#: A malformed action (unknown id, unparsable text). -> INVALID_ARGUMENT / 400.
InvalidActionError = _rules_error("InvalidActionError")
#: An action or resignation on a match that has ended (the engine's class, an IllegalActionError).
#: -> FAILED_PRECONDITION / 409.
MatchOverError = _rules_error("MatchOverError", ServiceError)
#: A table option the variant does not have, or a value outside its allowed set. -> INVALID_ARGUMENT / 400.
InvalidOptionError = _rules_error("InvalidOptionError")
#: No variant has this id or alias. -> INVALID_ARGUMENT / 400 (a bad CreateMatch argument).
UnknownVariantError = _rules_error("UnknownVariantError")

#: The one mapping of domain exceptions to gRPC status; the first isinstance match wins.
STATUS_TABLE: tuple[tuple[type[BaseException], grpc.StatusCode], ...] = (
    (StaleVersionError, grpc.StatusCode.ABORTED),
    (NotFoundError, grpc.StatusCode.NOT_FOUND),
    (InvalidArgumentError, grpc.StatusCode.INVALID_ARGUMENT),
    (InvalidActionError, grpc.StatusCode.INVALID_ARGUMENT),
    (InvalidOptionError, grpc.StatusCode.INVALID_ARGUMENT),
    (UnknownVariantError, grpc.StatusCode.INVALID_ARGUMENT),
    (IllegalActionError, grpc.StatusCode.FAILED_PRECONDITION),
    (MatchOverError, grpc.StatusCode.FAILED_PRECONDITION),
    (UnauthenticatedError, grpc.StatusCode.UNAUTHENTICATED),
    (PermissionDeniedError, grpc.StatusCode.PERMISSION_DENIED),
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


@dataclass(frozen=True)
class Status:
    """A gRPC status to send: code, details (safe for the caller) and trailing metadata pairs."""

    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, str], ...] = ()

    @property
    def http_status(self) -> int:
        """The HTTP status code of :data:`HTTP_STATUS` (500 for an unmapped code)."""
        return HTTP_STATUS.get(self.code, 500)


def status_of(exc: BaseException) -> Status:
    """The :class:`Status` for a raised exception by :data:`STATUS_TABLE`.

    Unknown exceptions give ``INTERNAL`` with the message ``"internal error (ref <hex>)"``;
    the exception and the same ref are logged with the traceback.
    """
    for cls, code in STATUS_TABLE:
        if isinstance(exc, cls):
            trailing: tuple[tuple[str, str], ...] = ()
            if isinstance(exc, StaleVersionError):
                trailing = ((CURRENT_VERSION_KEY, str(exc.current_version)),)
            return Status(code, str(exc) or code.name.lower(), trailing)
    ref = secrets.token_hex(4)
    log.error("unhandled %s (ref %s)", type(exc).__name__, ref, exc_info=exc)
    return Status(grpc.StatusCode.INTERNAL, f"{INTERNAL_MESSAGE} (ref {ref})")


def grpc_code_name(code: grpc.StatusCode) -> str:
    """``grpc.StatusCode.NOT_FOUND`` -> ``"NOT_FOUND"`` (the JSON error code of the gateway)."""
    return str(code.name)


async def abort_with(context: Any, exc: BaseException) -> None:
    """Abort the RPC on ``context`` (a ``grpc.aio.ServicerContext`` or the gateway's context)
    with the status of ``exc``. Always raises (``grpc.aio.AbortError`` or the gateway's subclass)."""
    status = status_of(exc)
    await context.abort(status.code, status.details, status.trailing_metadata)
    raise AssertionError("context.abort returned")  # pragma: no cover


F = TypeVar("F", bound=Callable[..., Any])


def map_errors(fn: F) -> F:
    """Decorator for ``grpc.aio`` handler methods ``(self, request, context)``: coroutine
    functions (unary responses) and async generator functions (streamed responses).

    Domain exceptions abort the RPC with their status (:func:`status_of`); an abort the handler
    made itself (``grpc.aio.AbortError``) and cancellation pass through untouched.
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
                await abort_with(context, exc)

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
            await abort_with(context, exc)

    return unary_wrapper  # type: ignore[return-value]

