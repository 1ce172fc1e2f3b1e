"""The handler's side of a REST call: :class:`GatewayContext`, the subset of
``grpc.aio.ServicerContext`` the gateway passes to the servicers' handlers; :class:`GatewayAbort`,
what its ``abort()`` raises; :func:`_status_from`, the :class:`bummerl.api.errors.Status` of what a
handler raised (an abort with the context's trailing metadata and reason, else
:func:`bummerl.api.errors.status_of`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import grpc
import grpc.aio

from bummerl.api import errors


class GatewayAbort(grpc.aio.AbortError):  # type: ignore[misc]
    """Raised by :meth:`GatewayContext.abort`; a ``grpc.aio.AbortError`` so that handler code and
    :func:`bummerl.api.errors.map_errors` treat it exactly like a gRPC abort."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


class GatewayContext:
    """The subset of ``grpc.aio.ServicerContext`` a handler may use under the gateway.

    ``invocation_metadata()`` holds the HTTP request headers (names lowercased). ``abort()`` raises
    :class:`GatewayAbort`; ``set_code``/``set_details``/``set_trailing_metadata`` are honoured.
    """

    is_gateway = True
    """Marks a gateway context (errors go in the JSON body, not in ``grpc-status-details-bin``)."""

    def __init__(self, metadata: tuple[tuple[str, str], ...], peer: str) -> None:
        self._metadata = metadata
        self._peer = peer
        self._code: grpc.StatusCode | None = None
        self._details: str | None = None
        self._trailing: tuple[tuple[str, str], ...] = ()
        self._initial: tuple[tuple[str, str], ...] = ()
        self._cancelled = False
        self.reason = ""
        """Machine-readable reason of the error the handler aborted with (set by map_errors)."""

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: Iterable[tuple[str, Any]] = ()
    ) -> None:
        if code == grpc.StatusCode.OK:
            raise ValueError("abort() needs a non-OK status code")
        self._code, self._details = code, details
        if trailing_metadata:
            self.set_trailing_metadata(trailing_metadata)
        raise GatewayAbort(code, details)

    def set_code(self, code: grpc.StatusCode) -> None:
        self._code = code

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def set_details(self, details: str) -> None:
        self._details = details

    def details(self) -> str | None:
        return self._details

    def set_trailing_metadata(self, trailing_metadata: Iterable[tuple[str, Any]]) -> None:
        self._trailing = tuple((str(k), str(v)) for k, v in trailing_metadata)

    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._trailing

    async def send_initial_metadata(self, initial_metadata: Iterable[tuple[str, Any]]) -> None:
        self._initial = tuple((str(k), str(v)) for k, v in initial_metadata)

    def time_remaining(self) -> float | None:
        return None

    def cancelled(self) -> bool:
        return self._cancelled

    def done(self) -> bool:
        return self._cancelled

    def auth_context(self) -> dict[str, list[bytes]]:
        return {}


def _status_from(exc: BaseException, context: GatewayContext) -> errors.Status:
    if isinstance(exc, GatewayAbort):
        return errors.Status(exc.code, exc.details, context.trailing_metadata(), reason=context.reason)
    if isinstance(exc, grpc.aio.AbortError):  # pragma: no cover - only a real grpc context raises it
        return errors.Status(grpc.StatusCode.UNKNOWN, "aborted")
    return errors.status_of(exc)
