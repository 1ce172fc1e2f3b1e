"""Who may act for a seat, and who is the admin (docs/DESIGN.md §3).

The server never stores a token, only its SHA-256 hex (:func:`hash_token`): each seat's in the
match meta (``seat_tokens``), the bot token of a ladder seat's bot (``seat_bots``), the admin
token's in the process. Every comparison is constant-time (``hmac.compare_digest``). Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

from .errors import InvalidArgumentError, PermissionDeniedError, UnauthenticatedError


def hash_token(token: str) -> str:
    """SHA-256 hex of a seat token: the only form the server stores (tokens never hit logs)."""
    return hashlib.sha256(token.encode()).hexdigest()


def is_admin(admin_hash: str | None, token: str | None) -> bool:
    """True when the server has an admin token (``admin_hash``, its :func:`hash_token`) and
    ``token`` is it (no admin token configured: nobody is)."""
    return bool(admin_hash and token and hmac.compare_digest(hash_token(token), admin_hash))


def check_admin(admin_hash: str | None, token: str | None) -> None:
    """Raise PermissionDeniedError unless ``token`` is the admin token (no-op when the server
    has none configured: ``admin_hash`` None)."""
    if admin_hash is None:
        return
    if not token:
        raise PermissionDeniedError("this call needs the admin token (authorization: Bearer <admin token>)")
    if not hmac.compare_digest(hash_token(token), admin_hash):
        raise PermissionDeniedError("the token is not the admin token")


def authorize_seat(meta: Mapping[str, Any], seat: int, token: str | None, admin_hash: str | None) -> None:
    """Pass if ``token`` is the seat's token (meta ``seat_tokens``) or the bot token of the bot
    seated there (meta ``seat_bots``); InvalidArgumentError for a seat not at the table,
    UnauthenticatedError for a missing or unknown token, PermissionDeniedError for a valid token
    that does not act for this seat (another seat's, the admin token)."""
    hashes = meta["seat_tokens"]
    if not 0 <= seat < len(hashes):
        raise InvalidArgumentError(f"seat {seat} is not at this table (0..{len(hashes) - 1})")
    if not token:
        raise UnauthenticatedError("missing seat token (authorization: Bearer <token>)")
    h = hash_token(token)
    if hmac.compare_digest(h, hashes[seat]):
        return
    bots = meta.get("seat_bots") or ()
    if seat < len(bots) and hmac.compare_digest(h, bots[seat]):
        return  # the bot token of the bot assigned to this seat (ladders)
    if any(hmac.compare_digest(h, x) for x in [*hashes, *bots]):
        raise PermissionDeniedError(f"this token belongs to another seat, not seat {seat}")
    if admin_hash is not None and hmac.compare_digest(h, admin_hash):
        raise PermissionDeniedError("the admin token does not act for a seat: use the seat's token")
    raise UnauthenticatedError("invalid seat token")
