"""Domain errors of the service use cases. They carry no transport codes: the API layer maps
them in one table (:mod:`bummerl.api.errors`). Messages are safe to show to the caller."""

from __future__ import annotations

from bummerl.rules import IllegalActionError, InvalidOptionError, UnknownVariantError


class ServiceError(Exception):
    """Base of the service's domain errors."""


class NotFoundError(ServiceError, LookupError):
    """An unknown match, ladder or bot. -> NOT_FOUND. (An unknown variant or a seat outside the
    table is a malformed request: :class:`InvalidArgumentError` / the engine's errors.)"""


class InvalidArgumentError(ServiceError, ValueError):
    """A malformed request: unknown variant or option, bad value, wrong seat count, a seat outside
    the table. -> INVALID_ARGUMENT."""


class UnknownVariantArgumentError(InvalidArgumentError):
    """A request names no known variant (the engine's UnknownVariantError, as a request error).
    -> INVALID_ARGUMENT, reason UNKNOWN_VARIANT."""


class InvalidOptionArgumentError(InvalidArgumentError):
    """A request's table option is unknown or out of range (the engine's InvalidOptionError, as a
    request error). -> INVALID_ARGUMENT, reason INVALID_OPTION."""


def table_error(e: Exception) -> InvalidArgumentError:
    """The request error for the engine's error ``e`` about a variant or its options (its message
    kept): :class:`UnknownVariantArgumentError`, :class:`InvalidOptionArgumentError`, else a plain
    :class:`InvalidArgumentError` (e.g. a bad time control)."""
    msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)  # a KeyError's str() is quoted
    if isinstance(e, UnknownVariantError):
        return UnknownVariantArgumentError(msg)
    if isinstance(e, InvalidOptionError):
        return InvalidOptionArgumentError(msg)
    return InvalidArgumentError(msg)


class UnauthenticatedError(ServiceError):
    """No token, or a token that matches no seat of the match. -> UNAUTHENTICATED."""


class PermissionDeniedError(ServiceError):
    """A valid token of this match used for another seat. -> PERMISSION_DENIED."""


class MatchOverError(ServiceError):
    """An action or resignation on a match that has ended. -> FAILED_PRECONDITION."""


class FailedPreconditionError(ServiceError):
    """The object is not in the state the call needs (e.g. resuming a ladder that is not paused).
    -> FAILED_PRECONDITION."""


class StaleVersionError(ServiceError):
    """``expected_version`` is not the current version (and not a retry of the action applied
    there). -> ABORTED, with the current version in the details and trailing metadata.

    >>> StaleVersionError(7)
    StaleVersionError(current_version=7)
    """

    def __init__(self, current_version: int, message: str | None = None) -> None:
        self.current_version = int(current_version)
        super().__init__(message or f"stale expected_version: the current version is {self.current_version}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(current_version={self.current_version})"


class NotYourTurnError(IllegalActionError):
    """An action or resignation-free move by a seat that is not to act. -> FAILED_PRECONDITION
    (an :class:`~bummerl.rules.IllegalActionError`, so callers catching that still catch it)."""


class ReplayNotAvailableError(ServiceError):
    """The full replay of a match asked for before it may be served (the match runs, or a ladder
    game's duplicate set is not over: :meth:`bummerl.core.spectate.Spectators.replay_allowed`; a
    ladder game is not watched live before then either). ->
    FAILED_PRECONDITION."""


class TimeoutLostError(ServiceError):
    """An action that arrived after the seat's deadline (docs/DESIGN.md §5): the server applied the
    match's timeout policy instead (by this call or by the reaper), never both. ->
    FAILED_PRECONDITION."""


class ResourceExhaustedError(ServiceError):
    """A per-caller limit was hit (rate limit, open streams per seat). -> RESOURCE_EXHAUSTED, with
    ``retry_after_ms`` (milliseconds until a retry may succeed; 0 = when something is closed)."""

    def __init__(self, message: str, retry_after_ms: int = 0) -> None:
        self.retry_after_ms = int(retry_after_ms)
        super().__init__(message)
