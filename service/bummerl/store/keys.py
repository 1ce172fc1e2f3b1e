"""Redis key schema of Bummerl (layout 2: sharded, Redis Cluster ready).

Every key the service writes starts with ``bm:``.  On Redis Cluster a Lua script may only touch
keys of one hash slot, and the commit script writes the match together with the deadlines, the
set of running matches and the commit feed.  So matches are spread over ``S`` **shards** (``S``
fixed per deployment, stored in :data:`LAYOUT_KEY`), and every key of shard ``k`` carries the
hash tag ``{<tag><k>}`` (``tag`` is ``s`` in a deployment): the match keys *and* the shard's
deadlines, active set and the processes' inboxes live in one slot, on one node.  A match's shard is a pure function
of its id, :meth:`KeyLayout.shard_of` (CRC-32 of the UTF-8 id, modulo ``S``), so any id works and
every process finds every match.  A single Redis/Valkey runs ``S = 1`` (one shard); a cluster spreads ``S`` slots (default :data:`CLUSTER_SHARDS`) over its masters.

Shard keys (``p`` = ``bm:{s<k>}:``)
-----------------------------------
``p m:<match_id>:state`` -- HASH, the current state of one match:

    ``version``      decimal integer, 1 after ``create``, +1 per commit.
    ``state``        opaque bytes: the serialized match state at ``version``
                     (a cache; the event stream / action log is the truth).
    ``m:<name>``     one field per top-level metadata key ``<name>``; the value
                     is the UTF-8 JSON encoding of that key's value, e.g.
                     ``m:variant`` -> ``"schnapsen-at"``, ``m:seat_tokens`` ->
                     ``{"0": "<sha256 hex>", ...}`` (seat tokens are only ever
                     stored hashed), ``m:ladder`` -> ``"l-42"``.
                     The store hands these back as one ``meta`` dict.  Meta is
                     kept one JSON document per key, not one JSON blob, so that
                     the commit script merges updates with a plain HSET and
                     never decodes/re-encodes JSON in Lua (cjson would turn
                     ``[]`` into ``{}`` and round floats and big integers).

``p m:<match_id>:events`` -- STREAM, the public events of the match.  Entry
ids are ``<version>-<i>``: the i-th event (0, 1, 2, ...) appended by the
commit that produced ``version`` (``create`` writes version 1).  So a reader
that has seen version ``v`` resumes with ``XRANGE key (v+1)-0 +`` or
``XREAD ... <v>-18446744073709551615``.  Each entry has a single field
``e`` holding the opaque event payload (bytes).  The stream is not trimmed.

``p m:<match_id>:followers`` -- SORTED SET, the processes that follow the match
(:meth:`KeyLayout.followers_key`).
``p deadlines`` -- SORTED SET of the shard's turn deadlines (:meth:`KeyLayout.deadlines_key`).
``p active`` -- SET of the shard's matches not yet over (:meth:`KeyLayout.active_key`).
``p inbox:<process>`` -- STREAM, the commits of the matches one process follows (:meth:`KeyLayout.inbox_key`).
``p feed`` -- (until 2026-11-29) a STREAM of every commit of the shard, read by every process; no
longer written (:meth:`KeyLayout.feed_key`).

Other keys
----------
``bm:layout`` (:data:`LAYOUT_KEY`) -- HASH ``version`` (:data:`LAYOUT_VERSION`) and ``shards``.
Anything else (ladders, bot registrations, rate limits...) lives under ``bm:<something>`` where
``<something>`` does not start with ``{``; build them with :func:`aux_key`.  The keys that one Lua
script touches together carry one hash tag: a ladder's keys ``bm:ladder:{<id>}:...``
(:func:`ladder_key`), a bot's queue and its once-markers ``bm:botq:{<bot>}...`` (:func:`botq_key`).
``MatchStore.set_json``/``get_json`` only accept such keys.

Layout 1 (before 2026-11) named match keys ``bm:{<match_id>}:state``/``:events`` and kept one
``bm:deadlines``, ``bm:active`` and ``bm:feed`` (and untagged ladder and bot-queue keys);
``bummerl migrate`` (:mod:`bummerl.store.migrate`) moves such data to layout 2.
"""

from __future__ import annotations

import zlib

PREFIX = "bm:"
"""Prefix of every key Bummerl writes."""

FIELD_VERSION = b"version"
"""State-hash field: the match version (decimal ASCII)."""
FIELD_STATE = b"state"
"""State-hash field: the serialized state blob."""
META_PREFIX = b"m:"
"""State-hash field prefix: ``m:<name>`` holds the JSON of meta key ``<name>``."""
EVENT_FIELD = b"e"
"""Stream entry field holding the event payload."""
NO_EVENT = b""
"""The payload of a version that made no public event (e.g. one card of a lay-away, TS-TAL-1,
HU3S-TAL-1): every commit appends at least one stream entry, so that every stream learns of
every version; every reader of events skips it (the streams of ``core.matches``, the
spectators' ``core.spectate``)."""
MAX_SEQ = 2**64 - 1
"""Largest sequence part of a stream id: ``<v>-MAX_SEQ`` is the last id of version v."""


LAYOUT_KEY = "bm:layout"
"""HASH ``version`` -> :data:`LAYOUT_VERSION`, ``shards`` -> S: written once by the first process
on an empty database (:func:`bummerl.store.redis_store.MatchStore.connect`), read by every other."""

LAYOUT_VERSION = 2
"""The key layout this code writes (1: one global deadlines/active/feed, match keys tagged by id)."""

MAX_SHARDS = 16384
"""The most shards a deployment may have (one per Redis Cluster hash slot): the range of
``bummerl serve --shards`` (``Settings.shards``) and ``bummerl migrate --shards`` is 1..this."""

CLUSTER_SHARDS = 16
"""Default number of shards on Redis Cluster (a single node uses 1): the shards' slots are what the
cluster spreads over its masters, so S should be a few times the number of masters you expect."""

INBOX_MAXLEN = 10_000
"""Approximate length each process's inbox is trimmed to (``XADD MAXLEN ~``): a hub that falls further
behind than this misses notifications, and its waiters read their match's stream on timeout."""


class KeyLayout:
    """Where the keys of a match and of its shard are (layout 2, see the module docstring).

    Args:
        shards: S >= 1, the number of shards (fixed per deployment: a match's shard is
            ``crc32(id) % S``; changing S moves matches, see ``bummerl migrate --shards``).
        tag: the prefix of the shards' hash tags, ``{<tag><k>}``; ``"s"`` in a deployment, a
            unique string in tests that want keys of their own. Letters, digits, ``-`` and ``_``.

    Raises ``ValueError`` for S < 1 or a bad tag.
    """

    __slots__ = ("_prefixes", "shards", "tag")

    def __init__(self, shards: int = 1, tag: str = "s") -> None:
        if isinstance(shards, bool) or not isinstance(shards, int) or shards < 1:
            raise ValueError(f"shards must be an int >= 1, got {shards!r}")
        if not tag or not all(c.isalnum() or c in "-_" for c in tag):
            raise ValueError(f"shard tag must be letters, digits, '-' or '_', got {tag!r}")
        self.shards = shards
        self.tag = tag
        self._prefixes = tuple(f"{PREFIX}{{{tag}{k}}}:" for k in range(shards))

    def __repr__(self) -> str:
        return f"KeyLayout(shards={self.shards}, tag={self.tag!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KeyLayout) and (self.shards, self.tag) == (other.shards, other.tag)

    def __hash__(self) -> int:
        return hash((self.shards, self.tag))

    def shard_of(self, match_id: str) -> int:
        """The shard of a match: ``crc32(utf-8 id) % S`` (0 when S = 1). Raises ``ValueError`` on a bad id."""
        check_match_id(match_id)
        return 0 if self.shards == 1 else zlib.crc32(match_id.encode("utf-8")) % self.shards

    def shard_prefix(self, shard: int) -> str:
        """``bm:{<tag><shard>}:``, the start of every key of that shard."""
        return self._prefixes[shard]

    def state_key(self, match_id: str) -> str:
        """``bm:{s<k>}:m:<match_id>:state``, the match's state hash (raises ``ValueError`` on a bad id)."""
        return f"{self._prefixes[self.shard_of(match_id)]}m:{match_id}:state"

    def events_key(self, match_id: str) -> str:
        """``bm:{s<k>}:m:<match_id>:events``, the match's event stream (raises ``ValueError`` on a bad id)."""
        return f"{self._prefixes[self.shard_of(match_id)]}m:{match_id}:events"

    def match_keys(self, match_id: str) -> tuple[str, str]:
        """``(state_key, events_key)`` of a match, the first KEYS of the Lua scripts."""
        prefix = self._prefixes[self.shard_of(match_id)]
        return f"{prefix}m:{match_id}:state", f"{prefix}m:{match_id}:events"

    def deadlines_key(self, shard: int) -> str:
        """``bm:{s<k>}:deadlines``: SORTED SET of the shard's turn deadlines, member = match id, score =
        the instant (ms since the epoch) the seat to act loses on time or the match counts as
        abandoned. Written by the create/commit scripts with the match, claimed by reapers."""
        return self._prefixes[shard] + "deadlines"

    def active_key(self, shard: int) -> str:
        """``bm:{s<k>}:active``: SET of the shard's matches created and not yet over (added by
        ``create.lua``, removed by the ``commit.lua`` call that ends the match)."""
        return self._prefixes[shard] + "active"

    def feed_key(self, shard: int) -> str:
        """``bm:{s<k>}:feed``: the shard's former commit feed (every commit, read by every process),
        written by servers before 2026-11-29 and by none since (each process has an inbox,
        :meth:`inbox_key`); named here so that ``bummerl migrate`` and tests can delete it."""
        return self._prefixes[shard] + "feed"

    def followers_key(self, match_id: str) -> str:
        """``bm:{s<k>}:m:<match_id>:followers``: SORTED SET, member = the inbox key
        (:meth:`inbox_key`) of a process whose ``StreamHub`` follows the match, score = until when
        (ms since the epoch, the Redis server's clock). Written by ``follow.lua`` (its time to live
        is the registration's); ``commit.lua`` appends each commit to every inbox whose
        registration has not run out and removes the others."""
        return f"{self._prefixes[self.shard_of(match_id)]}m:{match_id}:followers"

    def inbox_key(self, shard: int, process: str) -> str:
        """``bm:{s<k>}:inbox:<process>``: STREAM, one entry per commit of a match of the shard that
        the process follows: fields ``m`` (match id), ``v`` (the new version) and ``0``, ``1``,
        ... (the event payloads, :data:`NO_EVENT` when the commit made no public event); an entry
        without ``m`` opens the stream. Trimmed to about :data:`INBOX_MAXLEN` entries and expiring
        a while after the process's last registration: a notification inbox, not the record.
        ``process``: letters and digits (the hub's random id). Raises ``ValueError`` otherwise."""
        if not process.isalnum():
            raise ValueError(f"process id must be letters and digits, got {process!r}")
        return f"{self._prefixes[shard]}inbox:{process}"

    def shard_keys(self, match_id: str) -> tuple[str, str, str, str, str]:
        """``(state, events, deadlines, active, followers)`` of a match: the KEYS of ``commit.lua``."""
        k = self.shard_of(match_id)
        prefix = self._prefixes[k]
        return (f"{prefix}m:{match_id}:state", f"{prefix}m:{match_id}:events", prefix + "deadlines",
                prefix + "active", f"{prefix}m:{match_id}:followers")


def check_match_id(match_id: str) -> str:
    """Return ``match_id`` if it is usable in a key, else raise ``ValueError``.

    A match id must be a non-empty ``str`` without ``{``, ``}`` (they would
    break the hash tag) or whitespace/control characters, at most 200 chars.
    """
    if type(match_id) is str and match_id.isalnum() and len(match_id) <= 200:
        return match_id  # the server's own ids (letters and digits): valid, without the scan below
    if not isinstance(match_id, str) or not match_id:
        raise ValueError("match id must be a non-empty string")
    if len(match_id) > 200:
        raise ValueError("match id longer than 200 characters")
    if "{" in match_id or "}" in match_id or any(c.isspace() or not c.isprintable() for c in match_id):
        raise ValueError(f"match id {match_id!r} contains a brace, whitespace or control character")
    return match_id


def aux_key(*parts: str) -> str:
    """A non-match key ``bm:<part>:<part>...``, e.g. ``aux_key("ladders", "running")`` -> ``bm:ladders:running``.

    Raises ``ValueError`` if there are no parts, a part is empty, or the first
    part starts with ``{`` (that namespace belongs to matches).
    """
    if not parts or any(not p for p in parts):
        raise ValueError("aux_key needs one or more non-empty parts")
    if parts[0].startswith("{"):
        raise ValueError("keys starting with 'bm:{' are reserved for matches")
    return PREFIX + ":".join(parts)


def ladder_key(ladder_id: str, *parts: str) -> str:
    """A key of one ladder, ``bm:ladder:{<ladder_id>}`` or ``bm:ladder:{<ladder_id>}:<part>...``: all
    keys of a ladder share its hash tag, so the ladder's Lua scripts (claim, start, finish) may
    touch them together on Redis Cluster. Raises ``ValueError`` on an id with braces or spaces."""
    check_match_id(ladder_id)
    return ":".join((f"{PREFIX}ladder:{{{ladder_id}}}", *parts))


def botq_key(bot_id: str, *parts: str) -> str:
    """``bm:botq:{<bot_id>}``, the stream of a connected bot's assignments, or one of its keys
    ``bm:botq:{<bot_id>}:<part>...`` (e.g. the once-marker of an assignment, written by
    ``assign.lua`` with the queue). Raises ``ValueError`` on an id with braces or spaces."""
    check_match_id(bot_id)
    return ":".join((f"{PREFIX}botq:{{{bot_id}}}", *parts))


def check_aux_key(key: str) -> str:
    """Return ``key`` if it is a non-match Bummerl key (``bm:`` but not ``bm:{``), else raise ``ValueError``."""
    if not key.startswith(PREFIX) or len(key) == len(PREFIX):
        raise ValueError(f"key {key!r} does not start with {PREFIX!r}")
    if key.startswith(PREFIX + "{"):
        raise ValueError(f"key {key!r} is a shard key; use MatchStore's match methods")
    return key


def stream_id_pair(stream_id: bytes | str) -> tuple[int, int]:
    """A stream id as a comparable pair: ``b"12-3"`` -> ``(12, 3)`` (``b"12"`` -> ``(12, 0)``)."""
    if isinstance(stream_id, bytes):
        stream_id = stream_id.decode("ascii")
    first, _, seq = stream_id.partition("-")
    return int(first), int(seq or 0)


def version_of_stream_id(stream_id: bytes | str) -> int:
    """The version part of a match stream's id: ``b"12-3"`` -> ``12``."""
    return stream_id_pair(stream_id)[0]
