"""Redis key schema of Bummerl.

Every key the service writes starts with ``bm:``.  The keys of one match share
the hash tag ``{<match_id>}`` so that they live in one slot on Redis Cluster
and a single Lua script may touch all of them.

Match keys
----------
``bm:{<match_id>}:state`` -- HASH, the current state of one match:

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

``bm:{<match_id>}:events`` -- STREAM, the public events of the match.  Entry
ids are ``<version>-<i>``: the i-th event (0, 1, 2, ...) appended by the
commit that produced ``version`` (``create`` writes version 1).  So a reader
that has seen version ``v`` resumes with ``XRANGE key (v+1)-0 +`` or
``XREAD ... <v>-18446744073709551615``.  Each entry has a single field
``e`` holding the opaque event payload (bytes).  The stream is not trimmed.

Other keys
----------
Anything else (ladders, bot registrations, deadlines...) lives under
``bm:<something>`` where ``<something>`` does not start with ``{``; build them
with :func:`aux_key`.  ``MatchStore.set_json``/``get_json`` only accept such keys.
"""

from __future__ import annotations

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
every version; readers of events skip it (:func:`public_payloads`)."""
MAX_SEQ = 2**64 - 1
"""Largest sequence part of a stream id: ``<v>-MAX_SEQ`` is the last id of version v."""


DEADLINES_KEY = "bm:deadlines"
"""SORTED SET of turn deadlines: member = match id, score = the instant (ms since the epoch)
the seat to act loses on time or the match counts as abandoned. Written by the create/commit
scripts together with the match, claimed by reapers (``claim.lua``). Not hash-tagged: a Redis
Cluster deployment needs these scripts to run where this key and the match live (one node)."""


FEED_KEY = "bm:feed"
"""STREAM of every commit (each has at least one payload, :data:`NO_EVENT` when it made no public event), over all matches: fields ``m`` (match id), ``v``
(the new version) and ``0``, ``1``, ... (the event payloads, as in the match's own stream). Written
by ``commit.lua`` in the same script as the match; each process's ``StreamHub`` blocks on this one
key to learn of new events of any match. Trimmed to about :data:`FEED_MAXLEN` entries: it is a
notification feed, the match streams stay the record. Not hash-tagged (as :data:`DEADLINES_KEY`)."""

FEED_MAXLEN = 10_000
"""Approximate length :data:`FEED_KEY` is trimmed to (``XADD MAXLEN ~``): a hub that falls further
behind than this misses notifications, and its waiters read their match's stream on timeout."""


ACTIVE_KEY = "bm:active"
"""SET of the ids of matches created and not yet over, cluster-wide (``bummerl_active_matches``).
Added by ``create.lua``, removed by the ``commit.lua`` call that ends the match."""


def check_match_id(match_id: str) -> str:
    """Return ``match_id`` if it is usable in a key, else raise ``ValueError``.

    A match id must be a non-empty ``str`` without ``{``, ``}`` (they would
    break the hash tag) or whitespace/control characters, at most 200 chars.
    """
    if not isinstance(match_id, str) or not match_id:
        raise ValueError("match id must be a non-empty string")
    if len(match_id) > 200:
        raise ValueError("match id longer than 200 characters")
    if "{" in match_id or "}" in match_id or any(c.isspace() or not c.isprintable() for c in match_id):
        raise ValueError(f"match id {match_id!r} contains a brace, whitespace or control character")
    return match_id


def state_key(match_id: str) -> str:
    """``bm:{<match_id>}:state``, the match's state hash (raises ``ValueError`` on a bad id)."""
    return f"{PREFIX}{{{check_match_id(match_id)}}}:state"


def events_key(match_id: str) -> str:
    """``bm:{<match_id>}:events``, the match's event stream (raises ``ValueError`` on a bad id)."""
    return f"{PREFIX}{{{check_match_id(match_id)}}}:events"


def match_keys(match_id: str) -> tuple[str, str]:
    """``(state_key, events_key)`` of a match, the KEYS order of the Lua scripts."""
    return state_key(match_id), events_key(match_id)


def aux_key(*parts: str) -> str:
    """A non-match key ``bm:<part>:<part>...``, e.g. ``aux_key("ladder", "l1")`` -> ``bm:ladder:l1``.

    Raises ``ValueError`` if there are no parts, a part is empty, or the first
    part starts with ``{`` (that namespace belongs to matches).
    """
    if not parts or any(not p for p in parts):
        raise ValueError("aux_key needs one or more non-empty parts")
    if parts[0].startswith("{"):
        raise ValueError("keys starting with 'bm:{' are reserved for matches")
    return PREFIX + ":".join(parts)


def check_aux_key(key: str) -> str:
    """Return ``key`` if it is a non-match Bummerl key (``bm:`` but not ``bm:{``), else raise ``ValueError``."""
    if not key.startswith(PREFIX) or len(key) == len(PREFIX):
        raise ValueError(f"key {key!r} does not start with {PREFIX!r}")
    if key.startswith(PREFIX + "{"):
        raise ValueError(f"key {key!r} is a match key; use MatchStore's match methods")
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
