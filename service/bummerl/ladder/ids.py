"""What a ladder call accepts as a name or an id (issue 38): ladder and bot ids of 1 to
:data:`MAX_ID` ASCII letters and digits (:func:`check_id`, INVALID_ARGUMENT otherwise, never an
INTERNAL from the store's key check), bot names (:data:`_NAME_RE`) and ladder names
(:data:`MAX_LADDER_NAME`)."""

from __future__ import annotations

import re

from bummerl.core.errors import InvalidArgumentError

__all__ = ["MAX_ID", "MAX_LADDER_NAME", "_NAME_RE", "_is_id", "check_id"]

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,63}$")


MAX_ID = 200
"""Longest ladder or bot id a call may name, in characters (the ids the server makes are 17 long;
a key of the store takes ids of at most 200)."""


def _is_id(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_ID and value.isascii() and value.isalnum()


def check_id(field: str, value: str) -> str:
    """``value`` if it is a well-formed ladder or bot id (1 to :data:`MAX_ID` ASCII letters and
    digits), else InvalidArgumentError naming ``field`` and the limit. An id that is well formed
    but unknown is the caller's NotFoundError."""
    if not _is_id(value):
        got = "empty" if not value else f"{len(value)} characters" if len(value) > MAX_ID else f"{value[:40]!r}"
        raise InvalidArgumentError(f"{field} must be 1 to {MAX_ID} letters and digits (a-z, A-Z, 0-9), got {got}")
    return value


MAX_LADDER_NAME = 100
"""Longest ladder name, in characters (printable, no control characters)."""
