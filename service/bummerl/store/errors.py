"""Errors raised by the Redis store.

All of them derive from :class:`StoreError` and carry no transport codes; the
API layer maps them (suggested: ``MatchNotFoundError`` -> NOT_FOUND,
``VersionConflictError`` -> ABORTED, ``MatchExistsError`` -> ALREADY_EXISTS,
plain ``StoreError`` -> INTERNAL/UNAVAILABLE).  Connection problems surface
as ``redis.exceptions.RedisError`` subclasses, unwrapped.
"""

from __future__ import annotations


class StoreError(Exception):
    """Base class of every store error (also raised for a corrupt match)."""


class MatchNotFoundError(StoreError):
    """No match with this id is stored.

    Attributes:
        match_id: the id that was looked up.
    """

    def __init__(self, match_id: str) -> None:
        super().__init__(f"match {match_id!r} not found")
        self.match_id = match_id


class MatchExistsError(StoreError):
    """``create`` was called with an id that is already taken.

    Attributes:
        match_id: the id that is taken.
    """

    def __init__(self, match_id: str) -> None:
        super().__init__(f"match {match_id!r} already exists")
        self.match_id = match_id


class VersionConflictError(StoreError):
    """A commit's ``expected_version`` is not the stored version (stale or lost race).

    Nothing was written.

    Attributes:
        match_id: the match.
        expected_version: the version the caller based its change on.
        current_version: the version stored now; reload and retry from it.
    """

    def __init__(self, match_id: str, expected_version: int, current_version: int) -> None:
        super().__init__(
            f"match {match_id!r}: expected version {expected_version}, current is {current_version}"
        )
        self.match_id = match_id
        self.expected_version = expected_version
        self.current_version = current_version


class LayoutError(StoreError):
    """Redis holds data in a key layout this code does not serve (layout 1 from before the
    sharded layout, or another shard count than the one configured): run ``bummerl migrate``
    (:mod:`bummerl.store.migrate`) with every server stopped. Nothing was written."""


class ReplicationTimeoutError(StoreError):
    """``durability = replicated``: the commit was applied on the primary but no replica
    confirmed it within ``replica_wait_ms`` (``WAIT 1``). The commit stands unless the primary
    fails before a replica copies it; the API answers UNAVAILABLE and a retry of the action meets
    the new version (``VersionConflictError``), so it is never applied twice.

    Attributes:
        match_id: the match.
        version: the version that was committed.
    """

    def __init__(self, match_id: str, version: int) -> None:
        super().__init__(f"match {match_id!r}: version {version} committed but no replica confirmed it in time")
        self.match_id = match_id
        self.version = version
