"""Reading request metadata (gRPC metadata or the gateway's HTTP headers) in handlers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bummerl.core.errors import UnauthenticatedError

AUTHORIZATION = "authorization"


def metadata_values(metadata: Iterable[tuple[str, Any]] | None, key: str) -> list[str]:
    """Every value of ``key`` (case-insensitive) in ``metadata`` pairs, in order.

    >>> metadata_values([("authorization", "Bearer abc"), ("x", "y")], "Authorization")
    ['Bearer abc']
    """
    key = key.lower()
    return [v.decode() if isinstance(v, bytes) else str(v) for k, v in metadata or () if k.lower() == key]


def bearer_token(context: Any) -> str | None:
    """The token of an ``authorization: Bearer <token>`` entry in ``context.invocation_metadata()``,
    or None when absent or not a Bearer credential. Works for ``grpc.aio`` and gateway contexts.
    Never log the result. Raises UnauthenticatedError (401 over REST) for more than one
    ``authorization`` entry, and when the value is not printable ASCII: every token the server issues is, and a REST header that is not UTF-8
    arrives with surrogate escapes that no hash accepts.

    >>> class Ctx:
    ...     def invocation_metadata(self):
    ...         return (("authorization", "Bearer s3cret"),)
    >>> bearer_token(Ctx())
    's3cret'
    """
    entries = metadata_values(context.invocation_metadata(), AUTHORIZATION)
    if not entries:
        return None
    if len(entries) > 1:  # which one counts would be a guess: refuse (one token names one caller)
        raise UnauthenticatedError(f"{len(entries)} authorization headers; send one: Bearer <token>")
    value = entries[0]
    if not (value.isascii() and value.isprintable()):
        raise UnauthenticatedError("the authorization header is not printable ASCII; send Bearer <token>")
    scheme, _, token = value.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return None
    return token


def peer_host(context: Any) -> str:
    """The caller's address without the port (``ipv4:1.2.3.4:5678`` -> ``ipv4:1.2.3.4``,
    ``ipv6:[::1]:5678`` -> ``ipv6:[::1]``), for per-peer rate limits; "" when the context has none.
    Works for ``grpc.aio`` and gateway contexts.

    >>> class Ctx:
    ...     def peer(self):
    ...         return "ipv6:[::1]:40312"
    >>> peer_host(Ctx())
    'ipv6:[::1]'
    """
    peer = getattr(context, "peer", None)
    text = str(peer() if callable(peer) else "")
    return text.rsplit(":", 1)[0] if text.count(":") > 1 else text
