"""Deals anyone can verify: the deck commitment a match publishes at creation, and the check of a
finished match's record against it (``bummerl verify RECORD.json``).

At creation the server draws a secret 128-bit ``salt`` and publishes
``deck_commitment = SHA-256("bummerl-deck-v1:<seed>:<suit_perm>:<salt>")`` (hex; ``suit_perm`` the
suit relabelling of a duplicate leg as digits, e.g. ``"1032"``, empty for none) in the match summary
and in the first event (``deal_started`` of deal 0). The seed fixes every deck of the match
(SRV-4; the relabelling then renames the suits), so the commitment binds the server to all of them
before the first card is played. The record reveals ``seed``, ``deck_salt`` and ``suit_perm`` only
once the match (and, for a ladder game, its whole duplicate set) is over.

:func:`verify_record` recomputes the commitment, rebuilds the decks from the revealed seed with the
rules engine, replays every recorded action and compares each deal's deck order, each deal result
and the match result with the record; every action's text, version and deal against the replay, and
the counts of seats, deals and actions. Pure: no I/O.

The commitment does **not** include the match id (``matches.py`` hashes seed, relabelling and salt
only), so a record alone cannot prove which match it is of: a whole record of another match, its
``match_id`` replaced, hashes to that other match's commitment. What binds a record to a match is
the commitment published at creation: :func:`verify_record` takes it (``commitment``, the CLI's
``--commitment``) and the match id asked for (``match_id``), and the CLI prints the record's
commitment so that it can be compared with the published one.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from typing import Any

from bummerl.rules import (
    IllegalActionError,
    InvalidActionError,
    MatchEnd,
    MatchOverError,
    MatchState,
    action_to_string,
    find_variant,
    match_result,
)
from bummerl.rules.base.cards import card_code

from .log import RESIGN_REASONS, OutcomeAction, OutcomeKind

COMMITMENT_PREFIX = "bummerl-deck-v1"
"""Domain tag of the commitment text (a new scheme gets a new tag)."""

CONCESSIONS: dict[str, dict[str, MatchEnd]] = {
    OutcomeAction.RESIGN: {kind: end for end, kind in RESIGN_REASONS.values()},
    OutcomeAction.FORFEIT_MATCH: {OutcomeKind.TIMEOUT: MatchEnd.TIMEOUT},
    OutcomeAction.ABANDON: {OutcomeKind.ABANDONED: MatchEnd.ABANDONED},
}
"""Recorded service outcome (``action_text``) -> record kind -> the match end reason it set
(:data:`bummerl.core.log.RESIGN_REASONS`, the timeout policies): ``{"resign": {"RESIGN": "resigned",
"ILLEGAL": "illegal", "DISCONNECT": "disconnect", "TIMEOUT": "timeout"}, "forfeit-match": {"TIMEOUT":
"timeout"}, "abandon": {"ABANDONED": "abandoned"}}``."""


OUTCOME_KINDS: tuple[str, ...] = ("UNSPECIFIED", *(k.value for k in OutcomeKind))
"""The record's ``kind`` by its number in ``bummerl.v1.OutcomeKind`` (``common.proto``):
``("UNSPECIFIED", "NORMAL", "TIMEOUT", "RESIGN", "ILLEGAL", "DISCONNECT", "ABANDONED")``."""


def outcome_kind(kind: Any) -> str:
    """A record action's ``kind`` in the short form of the stored log (``"ILLEGAL"``), from any
    spelling a record may carry: the stored ``"ILLEGAL"``, the API's enum name
    ``"OUTCOME_KIND_ILLEGAL"`` (``GetMatchRecord``, ``ladder export``) or its number (4)."""
    if isinstance(kind, int) and not isinstance(kind, bool):
        return OUTCOME_KINDS[kind] if 0 <= kind < len(OUTCOME_KINDS) else str(kind)
    text = str(kind or "")
    return text.removeprefix("OUTCOME_KIND_")


class VerificationError(ValueError):
    """A record that does not check out; the message names the first mismatch."""


def deck_commitment(seed: int, suit_perm: Sequence[int], salt: str) -> str:
    """SHA-256 hex of ``"bummerl-deck-v1:<seed>:<suit_perm digits>:<salt>"``. ``seed``: 0..2**63-1;
    ``salt``: the hex string the record reveals."""
    perm = "".join(str(int(s)) for s in suit_perm)
    return hashlib.sha256(f"{COMMITMENT_PREFIX}:{int(seed)}:{perm}:{salt}".encode()).hexdigest()


def verify_record(rec: Mapping[str, Any], match_id: str | None = None,
                  commitment: str | None = None) -> dict[str, Any]:
    """Check a finished match's record (the ``MatchRecord`` JSON of ``GetMatchRecord`` or
    ``ladder export``; int64 fields may be strings). ``match_id``: the match the record must be
    of; ``commitment``: the deck commitment that match published at creation (the only tie of a
    record to its match: the commitment does not hash the id). Returns ``{"match_id",
    "commitment", "deals", "actions", "winner"}`` when everything matches; raises
    :class:`VerificationError` naming the first mismatch: another match id, not over / hidden cards
    not revealed yet, commitment (recomputed, and the published one), the seats, deck order of a
    deal, an action the rules refuse, made by the wrong seat, with another text, version or deal
    than the replay's, a deal result, more or fewer deals than the replay, the final version, the
    match result."""
    mid = rec.get("match_id", "?")
    if match_id is not None and str(mid) != match_id:
        raise VerificationError(f"match {match_id}: the record is of match {mid}")
    if not rec.get("over"):
        raise VerificationError(f"match {mid}: the record is of a running match (nothing to verify yet)")
    if "seed" not in rec or not rec.get("deck_salt"):
        raise VerificationError(f"match {mid}: the record does not reveal the seed and salt (its duplicate set "
                                f"may still be running)")
    seed, salt = int(rec["seed"]), str(rec["deck_salt"])
    perm = [int(s) for s in rec.get("suit_perm") or ()]
    want = rec.get("deck_commitment", "")
    got = deck_commitment(seed, perm, salt)
    if not hmac.compare_digest(got, str(want)):
        raise VerificationError(f"match {mid}: commitment mismatch: the revealed seed and salt hash to {got}, "
                                f"the record says {want or '(none)'}")
    if commitment is not None and not hmac.compare_digest(got, commitment.strip().lower()):
        raise VerificationError(f"match {mid}: commitment mismatch: the record's is {got}, the match published "
                                f"{commitment.strip()}")
    try:
        rules = find_variant(str(rec["variant"])).configure({k: str(v) for k, v in (rec.get("options") or {}).items()})
    except ValueError as e:
        raise VerificationError(f"match {mid}: {e}") from None
    m = MatchState(rules, seed, max_deals=int(rec.get("max_deals") or 0), suit_perm=tuple(perm))
    _check_seats(rec, rules.spec.num_players, list(rules.spec.team_of_seat), mid)
    listed = list(rec.get("deals") or ())
    deals = {int(d.get("deal_number") or 0): d for d in listed}
    if len(deals) != len(listed):
        raise VerificationError(f"match {mid}: the record lists a deal twice")
    acts = list(rec.get("actions") or ())
    for i, act in enumerate(acts):
        _replay_one(m, act, i, mid)
    for n in range(m.deal_number + 1):
        d = deals.get(n)
        if d is None:
            raise VerificationError(f"match {mid}: deal {n} is missing from the record")
        deck = [card_code(c) for c in m.deck_for(n)]
        if list(d.get("deck_order") or ()) != deck:
            raise VerificationError(f"match {mid}: deal {n}: the recorded deck order is not the deck of the "
                                    f"revealed seed")
        if n < len(m.results) and not _same(d.get("result"), m.results[n].to_dict()):
            raise VerificationError(f"match {mid}: deal {n}: the recorded result differs from the replay "
                                    f"({_diff(d.get('result'), m.results[n].to_dict())})")
    if len(deals) != m.deal_number + 1:
        raise VerificationError(f"match {mid}: the record lists {len(deals)} deals, the replay {m.deal_number + 1}")
    if not m.over:
        raise VerificationError(f"match {mid}: the recorded actions do not end the match")
    if "version" in rec and int(rec["version"]) != len(acts) + 1:
        raise VerificationError(f"match {mid}: the record says version {rec['version']}, its {len(acts)} actions "
                                f"make version {len(acts) + 1}")
    res = match_result(m)
    if not _same(rec.get("match_result"), res):
        raise VerificationError(f"match {mid}: the recorded match result differs from the replay "
                                f"({_diff(rec.get('match_result'), res)})")
    return {"match_id": mid, "commitment": got, "deals": m.deal_number + 1, "actions": len(acts),
            "winner": res["winner"]}


def _check_seats(rec: Mapping[str, Any], n: int, teams: list[int], mid: str) -> None:
    """The record's seats: as many as the variant has, numbered 0..n-1 in order, each in its team."""
    seats = list(rec.get("seats") or ())
    if len(seats) != n:
        raise VerificationError(f"match {mid}: the record lists {len(seats)} seats, the variant has {n}")
    for i, s in enumerate(seats):
        if int(s.get("seat") or 0) != i or ("team" in s and int(s["team"] or 0) != teams[i]):
            raise VerificationError(f"match {mid}: seat {i} of the record is {dict(s)!r}")
    if "team_of_seat" in rec and [int(t) for t in rec["team_of_seat"] or ()] != teams:
        raise VerificationError(f"match {mid}: the record's teams {rec['team_of_seat']} are not the variant's {teams}")


def _replay_one(m: MatchState, act: Mapping[str, Any], i: int, mid: str) -> None:
    seat = int(act.get("seat") or 0)
    aid = int(act.get("action_id", -1))
    text = str(act.get("action_text", ""))
    where = f"match {mid}: action {i + 1} (version {act.get('version')}, seat {seat}, {text!r})"
    if int(act.get("version") or 0) != i + 2:  # the match is version 1; its n-th action makes n + 1
        raise VerificationError(f"{where}: the replay's version {i + 2}")
    if "deal_number" in act and not m.over and int(act["deal_number"] or 0) != m.deal_number:
        raise VerificationError(f"{where}: recorded in deal {act['deal_number']}, the replay is in deal {m.deal_number}")
    try:
        if aid >= 0:
            if m.over:
                raise VerificationError(f"{where}: played after the end of the match")
            if m.to_act != seat:
                raise VerificationError(f"{where}: seat {m.to_act} was to act")
            if outcome_kind(act.get("kind")) not in ("", "UNSPECIFIED", OutcomeKind.NORMAL):
                raise VerificationError(f"{where}: kind {act.get('kind')!r} for an action of the seat")
            if text != action_to_string(aid):
                raise VerificationError(f"{where}: action id {aid} is {action_to_string(aid)!r}, not the recorded text")
            m.apply(aid)
        elif text == OutcomeAction.FORFEIT_DEAL:
            m.forfeit_deal(seat)
        elif text in CONCESSIONS:
            reason = CONCESSIONS[text].get(outcome_kind(act.get("kind")))
            if reason is None:
                raise VerificationError(f"{where}: unknown kind {act.get('kind')!r} for {text!r}")
            m.concede(seat, reason)
        else:
            raise VerificationError(f"{where}: neither an action id nor a service outcome")
    except (IllegalActionError, InvalidActionError, MatchOverError) as e:
        raise VerificationError(f"{where}: the rules refuse it: {e}") from None


def _norm(x: Any) -> Any:
    """JSON as a record may carry it (proto3 JSON: int64 as strings, default values left out)."""
    if isinstance(x, Mapping):
        return {k: _norm(v) for k, v in x.items() if v not in (0, "", False, [], None, "0")}
    if isinstance(x, list | tuple):
        return [_norm(v) for v in x]
    if isinstance(x, str) and x.lstrip("-").isdigit():
        return int(x)
    return x


def _same(a: Any, b: Any) -> bool:
    return bool(_norm(a or {}) == _norm(b or {}))


def _diff(a: Any, b: Any) -> str:
    na, nb = _norm(a or {}), _norm(b or {})
    keys = sorted(k for k in set(na) | set(nb) if na.get(k) != nb.get(k))
    return ", ".join(f"{k}: recorded {_shown(a, k)!r}, replayed {_shown(b, k)!r}" for k in keys[:3])


def _shown(d: Any, key: str) -> Any:
    """``d[key]`` as a record means it: a proto3 JSON record leaves a default value out (winner 0,
    an empty list), so a missing key is shown as 0, not None."""
    v = (d or {}).get(key)
    return 0 if v is None else _norm(v)
