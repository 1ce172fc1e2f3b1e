"""Engine dicts <-> ``bummerl.v1`` protobuf messages (pure functions, no I/O).

The rules engine and the use cases speak plain dicts; the proto mirrors them field by field, with
four conventions (see ``proto/bummerl/v1/common.proto``):

* Enum fields take the engine's lowercase strings: ``"lead"`` <-> ``PHASE_LEAD``,
  ``"exhausted"`` <-> ``TALON_STATE_EXHAUSTED``, ``"up"`` <-> ``SCORE_DIRECTION_UP``; ``""`` is
  the UNSPECIFIED value.
* Events: the dict's ``"type"`` picks the ``Event.kind`` oneof member (:data:`EVENT_KINDS`), the
  other keys are that member's fields; ``"version"`` and ``"deal_number"`` go to the ``Event``.
  ``deal_end`` / ``match_end`` take ``{"result": {...}}`` or the result's keys inline.
* The deal's ``own_trick_points``, ``own_won_cards``, ``own_deal_points`` (present only where the
  variant lets a player look at his tricks, docs/RULES.md §14.2) become the ``OwnTricks own_tricks``
  sub-message, which stays unset otherwise.
* Option values (``options`` maps, ``OptionInfo`` default/allowed) are strings; bools and ints
  are converted (``True`` -> ``"true"``, ``7`` -> ``"7"``).
* Facts the engine's event dicts leave out are filled in on the way to the wire, where the
  caller knows them: ``DealStarted.hand_sizes`` (the variant's hand size for every seat,
  :func:`deal_hand_sizes`), and in an information set the ``deal_number`` of the history events
  (the current deal's). A value the dict already has is kept.

Every dict -> message function is strict: a key the message does not have, a wrong type or an
unknown enum/event name raises :class:`CodecError`, so engine/proto mismatches fail loudly in
tests. ``None`` means "unset" for any field. The message -> dict functions give the engine shape
back (all fields, defaults included; unset message/optional fields omitted), so
``information_set_to_dict(information_set_to_pb(d)) == d`` for a complete ``d``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeGuard, TypeVar

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from bummerl.rules import UnknownVariantError, find_variant
from bummerl.v1 import common_pb2

M = TypeVar("M", bound=Message)


class CodecError(ValueError):
    """A dict does not fit the protobuf message (unknown key, wrong type, unknown enum value).
    Raised for internal mismatches: the service maps it to INTERNAL."""


#: Engine event ``"type"`` -> ``Event.kind`` oneof field.
EVENT_KINDS: dict[str, str] = {
    "deal": "deal_started",
    "exchange": "trump_exchanged",
    "close": "talon_closed",
    "pass": "passed",
    "marriage": "marriage_announced",
    "play": "card_played",
    "trick": "trick_completed",
    "draw": "card_drawn",
    "declare": "declared",
    "deal_end": "deal_ended",
    "match_end": "match_ended",
    "resign": "resigned",
    "timeout": "timeout",
    "bid": "bid",
    "contract": "contract",
    "trump": "trump_named",
    "discard": "cards_laid_away",
    "take": "cards_taken_up",
    "show": "cards_shown",
}
_EVENT_TYPES = {kind: type_ for type_, kind in EVENT_KINDS.items()}
_EVENT_COMMON = ("version", "deal_number")
_RESULT_EVENTS = ("deal_end", "match_end")

#: Flat deal keys of the engine -> fields of ``OwnTricks`` (docs/RULES.md §14.2, OBI-PLAY-1).
OWN_TRICKS_KEYS: dict[str, str] = {
    "own_trick_points": "trick_points",
    "own_won_cards": "won_cards",
    "own_deal_points": "deal_points",
}
#: ``OptionInfo`` keys of the engine's variant dict -> proto fields.
OPTION_KEYS: dict[str, str] = {"default": "default_value", "allowed": "allowed_values"}

_INT_TYPES = frozenset(
    {
        FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED32,
        FieldDescriptor.TYPE_SFIXED64,
    }
)
_FLOAT_TYPES = frozenset({FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE})


# ---------------------------------------------------------------------------------------------
# Generic strict walker


def option_value_str(value: Any) -> str:
    """An option value as its wire string: ``True`` -> ``"true"``, ``7`` -> ``"7"``, str unchanged."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    raise CodecError(f"option value must be bool, int, float or str, got {type(value).__name__}")


def _enum_prefix(enum: Any) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"


def _enum_number(enum: Any, value: Any, path: str) -> int:
    if isinstance(value, bool):
        raise CodecError(f"{path}: expected a {enum.name} name, got a bool")
    if isinstance(value, int):
        if value not in enum.values_by_number:
            raise CodecError(f"{path}: {value} is not a {enum.name} value")
        return value
    if not isinstance(value, str):
        raise CodecError(f"{path}: expected a {enum.name} name, got {type(value).__name__}")
    name = _enum_prefix(enum) + (value.upper() if value else "UNSPECIFIED")
    if name not in enum.values_by_name:
        raise CodecError(f"{path}: unknown {enum.name} {value!r}")
    return int(enum.values_by_name[name].number)


def _enum_str(enum: Any, number: int) -> str:
    if number == 0:
        return ""
    value = enum.values_by_number.get(number)
    if value is None:  # an enum value from a newer peer
        return str(number)
    return str(value.name).removeprefix(_enum_prefix(enum)).lower()


def _is_map(field: Any) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _scalar(field: Any, value: Any, path: str) -> Any:
    if field.type == FieldDescriptor.TYPE_ENUM:
        return _enum_number(field.enum_type, value, path)
    if field.type in _INT_TYPES:
        if isinstance(value, bool) or not isinstance(value, int):
            raise CodecError(f"{path}: expected an int, got {type(value).__name__}")
    elif field.type in _FLOAT_TYPES:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise CodecError(f"{path}: expected a number, got {type(value).__name__}")
    elif field.type == FieldDescriptor.TYPE_BOOL:
        if not isinstance(value, bool):
            raise CodecError(f"{path}: expected a bool, got {type(value).__name__}")
    elif field.type == FieldDescriptor.TYPE_STRING:
        if not isinstance(value, str):
            raise CodecError(f"{path}: expected a str, got {type(value).__name__}")
    elif field.type == FieldDescriptor.TYPE_BYTES and not isinstance(value, bytes):
        raise CodecError(f"{path}: expected bytes, got {type(value).__name__}")
    return value


def _is_list(value: Any) -> TypeGuard[list[Any] | tuple[Any, ...]]:
    return isinstance(value, list | tuple)


_PLANS: dict[Any, dict[str, tuple[Any, int]]] = {}
_MAP, _REPEATED_MSG, _REPEATED_SCALAR, _MESSAGE, _SCALAR, _STRICT_SCALAR, _STRICT_REPEATED = range(7)
#: Field types whose values protobuf itself checks as strictly as :func:`_scalar` (an int field
#: refuses bool, float and str; a string field refuses everything but str): set without our check.
_STRICT_TYPES = frozenset({FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64,
                           FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32,
                           FieldDescriptor.TYPE_SINT64})


def _plan(descriptor: Any) -> dict[str, tuple[Any, int]]:
    """Per message type: field name -> (field descriptor, how to fill it); computed once."""
    plan = _PLANS.get(descriptor)
    if plan is None:
        plan = {}
        for name, field in descriptor.fields_by_name.items():
            if _is_map(field):
                kind = _MAP
            elif field.is_repeated:
                kind = (_REPEATED_MSG if field.message_type is not None
                        else _STRICT_REPEATED if field.type in _STRICT_TYPES else _REPEATED_SCALAR)
            else:
                kind = (_MESSAGE if field.message_type is not None
                        else _STRICT_SCALAR if field.type in _STRICT_TYPES else _SCALAR)
            plan[name] = (field, kind)
        _PLANS[descriptor] = plan
    return plan


def _fill(msg: Message, d: Any, path: str) -> None:
    if not isinstance(d, Mapping):
        raise CodecError(f"{path}: expected a dict for {msg.DESCRIPTOR.name}, got {type(d).__name__}")
    plan = _plan(msg.DESCRIPTOR)
    for key, value in d.items():
        entry = plan.get(key)
        if entry is None:
            raise CodecError(f"{path}: unknown key {key!r} for {msg.DESCRIPTOR.full_name}")
        if value is None:
            continue
        field, kind = entry
        try:
            if kind == _STRICT_SCALAR:
                setattr(msg, key, value)
            elif kind == _STRICT_REPEATED:
                if not _is_list(value):
                    raise CodecError(f"expected a list, got {type(value).__name__}")
                getattr(msg, key).extend(value)
            elif kind == _SCALAR:
                setattr(msg, key, _scalar(field, value, ""))
            elif kind == _REPEATED_MSG:
                if not _is_list(value):
                    raise CodecError(f"expected a list, got {type(value).__name__}")
                add = getattr(msg, key).add
                for i, item in enumerate(value):
                    _fill(add(), item, f"[{i}]")
            elif kind == _REPEATED_SCALAR:
                if not _is_list(value):
                    raise CodecError(f"expected a list, got {type(value).__name__}")
                getattr(msg, key).extend([_scalar(field, item, f"[{i}]") for i, item in enumerate(value)])
            elif kind == _MESSAGE:
                sub = getattr(msg, key)
                sub.SetInParent()
                _fill(sub, value, "")
            else:
                _fill_map(getattr(msg, key), field, value, "")
        except CodecError as exc:
            raise CodecError(f"{path}.{key}{'' if str(exc).startswith(('[', '.', ':')) else ': '}{exc}") from None
        except (TypeError, ValueError) as exc:  # range errors from protobuf itself
            raise CodecError(f"{path}.{key}: {exc}") from exc


def _fill_map(container: Any, field: Any, value: Any, path: str) -> None:
    if not isinstance(value, Mapping):
        raise CodecError(f"{path}: expected a dict, got {type(value).__name__}")
    key_field = field.message_type.fields_by_name["key"]
    value_field = field.message_type.fields_by_name["value"]
    for k, v in value.items():
        kk = _scalar(key_field, k, f"{path} key")
        if value_field.message_type is not None:
            _fill(container[kk], v, f"{path}[{k!r}]")
        elif value_field.type == FieldDescriptor.TYPE_STRING:
            container[kk] = option_value_str(v)
        else:
            container[kk] = _scalar(value_field, v, f"{path}[{k!r}]")


def dict_to_pb(d: Mapping[str, Any], message: type[M] | M) -> M:
    """Fill ``message`` (a class -> new instance, or an instance, filled in place) from a dict whose
    keys are the proto field names. Enum fields take lowercase names (module docstring); string
    map values accept bool/int (-> "true"/"7"). Raises :class:`CodecError` on any mismatch."""
    msg = message() if isinstance(message, type) else message
    _fill(msg, d, msg.DESCRIPTOR.name)
    return msg


def _value_to_py(field: Any, value: Any) -> Any:
    if field.message_type is not None:
        return pb_to_dict(value)
    if field.type == FieldDescriptor.TYPE_ENUM:
        return _enum_str(field.enum_type, value)
    return value


def pb_to_dict(msg: Message) -> dict[str, Any]:
    """A message as a dict with proto field names: every field, defaults included; unset message
    fields and unset ``optional``/oneof fields omitted; enums as lowercase names; int64 as int."""
    out: dict[str, Any] = {}
    field: Any
    for field in msg.DESCRIPTOR.fields:
        value = getattr(msg, field.name)
        if _is_map(field):
            vf = field.message_type.fields_by_name["value"]
            out[field.name] = {k: _value_to_py(vf, v) for k, v in value.items()}
        elif field.is_repeated:
            out[field.name] = [_value_to_py(field, v) for v in value]
        elif field.has_presence and not msg.HasField(field.name):
            continue
        else:
            out[field.name] = _value_to_py(field, value)
    return out


def to_json_dict(msg: Message) -> dict[str, Any]:
    """The proto3 JSON form used by the REST gateway (``json_format``): proto field names, every
    field printed, enums by full name (``"PHASE_LEAD"``), int64/uint64 as decimal strings."""
    return json_format.MessageToDict(
        msg, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


# ---------------------------------------------------------------------------------------------
# Events


def _event_shape(d: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(d, Mapping):
        raise CodecError(f"Event: expected a dict, got {type(d).__name__}")
    rest = dict(d)
    type_ = rest.pop("type", None)
    kind = EVENT_KINDS.get(type_) if isinstance(type_, str) else None
    if kind is None:
        raise CodecError(f"Event: unknown or missing type {type_!r} (known: {', '.join(sorted(EVENT_KINDS))})")
    shape = {k: rest.pop(k) for k in _EVENT_COMMON if k in rest}
    if type_ in _RESULT_EVENTS and "result" not in rest:
        if type_ == "deal_end" and "deal_number" in shape:
            rest["deal_number"] = shape["deal_number"]  # a DealResult field as well
        rest = {"result": rest}
    shape[kind] = rest
    return shape


def deal_hand_sizes(variant: str, num_seats: int = 2) -> list[int] | None:
    """Cards in every hand right after a deal of ``variant`` (id or alias): the hand size of its
    deal pattern for each of ``num_seats`` seats, e.g. ``[5, 5]`` for schnapsen-at; None for an
    unknown variant."""
    try:
        spec = find_variant(variant)
    except UnknownVariantError:
        return None
    return [spec.hand_size] * num_seats


def _with_hand_sizes(d: Mapping[str, Any], hand_sizes: list[int] | None) -> Mapping[str, Any]:
    if hand_sizes and isinstance(d, Mapping) and d.get("type") == "deal" and not d.get("hand_sizes"):
        return {**d, "hand_sizes": list(hand_sizes)}
    return d


def event_to_pb(d: Mapping[str, Any], hand_sizes: list[int] | None = None) -> common_pb2.Event:
    """An engine event dict ``{"type": "play", "seat": 0, "card": "AH", "version"?, "deal_number"?}``
    as ``Event``; a ``deal`` event without ``hand_sizes`` gets ``hand_sizes`` (see
    :func:`deal_hand_sizes`). Raises :class:`CodecError` for an unknown type or key."""
    return dict_to_pb(_event_shape(_with_hand_sizes(d, hand_sizes)), common_pb2.Event)


def event_to_dict(event: common_pb2.Event) -> dict[str, Any]:
    """``Event`` -> engine dict ``{"type", "version", "deal_number", **fields}`` (deal_end and
    match_end as ``{"result": {...}}``). Raises :class:`CodecError` if no kind is set."""
    kind = event.WhichOneof("kind")
    if kind is None:
        raise CodecError("Event: no kind set")
    out: dict[str, Any] = {"type": _EVENT_TYPES[kind], "version": event.version, "deal_number": event.deal_number}
    out.update(pb_to_dict(getattr(event, kind)))
    return out


# ---------------------------------------------------------------------------------------------
# Results


def deal_result_to_pb(d: Mapping[str, Any]) -> common_pb2.DealResult:
    """``{"deal_number", "winner" (-1 = drawn), "game_points": [per seat], "reason", "deal_points",
    "tricks_won", "schwarz", "deal_schneider", "carried_points"}`` -> ``DealResult``."""
    return dict_to_pb(d, common_pb2.DealResult)


def match_result_to_pb(d: Mapping[str, Any]) -> common_pb2.MatchResult:
    """``{"winner", "game_points", "sets_won", "match_schneider", "reason"}`` -> ``MatchResult``."""
    return dict_to_pb(d, common_pb2.MatchResult)


# ---------------------------------------------------------------------------------------------
# Information sets


def _information_set_shape(d: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(d, Mapping):
        raise CodecError(f"InformationSet: expected a dict, got {type(d).__name__}")
    shape = dict(d)
    deal = shape.get("deal")
    if isinstance(deal, Mapping):
        deal = dict(deal)
        own = {pb: deal.pop(key) for key, pb in OWN_TRICKS_KEYS.items() if key in deal}
        if own:
            if "own_tricks" in deal:
                raise CodecError("InformationSet.deal: both own_tricks and own_* keys")
            deal["own_tricks"] = own
        history = deal.get("history")
        if _is_list(history):
            variant, seats = shape.get("variant"), shape.get("num_seats")
            sizes = deal_hand_sizes(variant, seats) if isinstance(variant, str) and isinstance(seats, int) else None
            match = shape.get("match")
            number = match.get("deal_number") if isinstance(match, Mapping) else None
            deal["history"] = [_event_shape(_in_deal(_with_hand_sizes(e, sizes), number)) for e in history]
        shape["deal"] = deal
    return shape


def _in_deal(d: Mapping[str, Any], deal_number: Any) -> Mapping[str, Any]:
    if isinstance(deal_number, int) and isinstance(d, Mapping) and "deal_number" not in d:
        return {**d, "deal_number": deal_number}
    return d


def information_set_to_pb(d: Mapping[str, Any]) -> common_pb2.InformationSet:
    """The engine's information-set dict (docs/RULES.md §14; shape in the module docstring of
    ``proto/bummerl/v1/common.proto`` / this module) -> ``InformationSet``.
    Raises :class:`CodecError` on an unknown key anywhere in the tree.

    Fast path (same bytes as :func:`information_set_to_pb_generic`, tested): the parts that
    repeat from call to call are encoded once and merged in as bytes: the ``options`` map (once
    per table, :func:`_options_bytes`), and each history event, finished deal's result and legal
    action (once per distinct dict, :func:`_memo_fragment`, whatever its event type or fields,
    so a new event kind needs no code here). Any mismatch re-runs the generic path, which raises
    the precise :class:`CodecError`."""
    try:
        return _information_set_fast(d)
    except CodecError:
        return information_set_to_pb_generic(d)


def information_set_to_pb_generic(d: Mapping[str, Any]) -> common_pb2.InformationSet:
    """:func:`information_set_to_pb` through the generic per-field walk only (no memo of events,
    results or legal actions): the reference the fast path is tested against, and the path that
    words its errors. Raises :class:`CodecError` like it."""
    shape = _information_set_shape(d)
    options = shape.pop("options", None)
    msg = dict_to_pb(shape, common_pb2.InformationSet)
    if options is not None:
        _merge_options(msg, options)
    return msg


def _merge_options(msg: common_pb2.InformationSet, options: Any) -> None:
    key: Any = None
    if isinstance(options, Mapping):
        try:
            key = tuple(sorted(options.items()))
            hash(key)
        except TypeError:
            key = None
    if key is not None:
        msg.MergeFromString(_options_bytes(key))
    else:  # unhashable or not a dict: the generic path (and its errors)
        msg.MergeFrom(dict_to_pb({"options": options}, common_pb2.InformationSet))


# Memo of encoded sub-messages --------------------------------------------------------------------
#
# A history event, a finished deal's result or a legal action is the same dict on many calls (every
# later call of the deal or match, for both seats). Each distinct dict is encoded once, by the
# generic walk, and kept as the bytes of an ``InformationSet`` that holds only it at its place
# (e.g. ``deal { history [ <event> ] }``); serialized messages concatenate like merges, so the
# joined fragments parse into the repeated fields in order. Keys are exact (:func:`_key`): they tell
# ``True`` from ``1``, ``1.0`` from ``1`` and a tuple from a list or a dict, so a dict hits the memo
# only if an equal one with the same value types was encoded before; a value of any other type (an
# Enum member, an object, ...) is not memoized and takes the generic walk with its checks.

_MEMO: dict[Any, bytes] = {}
_MEMO_MAX = 1 << 16
"""Fragments kept (each ~10-60 bytes plus its key); the memo is emptied when it is full."""
_DICT, _LIST = object(), object()
_SCALARS = frozenset({str, int, bool, float, type(None)})
_STR = frozenset({str})


class _Unkeyable(Exception):  # noqa: N818 - internal signal, never escapes this module
    """A value :func:`_key` does not key (encode it without the memo)."""


def _key(v: Any) -> Any:
    """A hashable key equal only for values of the same shape, with equal values of the same exact
    types (so ``True`` != ``1``, ``1.0`` != ``1``, a tuple != a list): dicts with str keys,
    lists/tuples, str, int, bool, float, None. Raises _Unkeyable for anything else."""
    t = type(v)
    if t is dict:
        if not _STR.issuperset(map(type, v)):
            raise _Unkeyable
        vals = tuple(v.values())
        keys: tuple[Any, ...] = tuple(v)
    elif t is list or t is tuple:
        vals = tuple(v)
        keys = ()
    elif t in _SCALARS:
        return t, v
    else:
        raise _Unkeyable
    types = tuple(map(type, vals))
    if not _SCALARS.issuperset(types):
        vals = tuple([x if type(x) in _SCALARS else _key(x) for x in vals])
    return t, keys, vals, types


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _wrap(inner: bytes, tags: tuple[int, ...]) -> bytes:
    """``inner`` (a serialized message) as a length-delimited field in each of ``tags`` (field
    tag bytes, innermost first)."""
    for tag in tags:
        inner = bytes((tag,)) + _varint(len(inner)) + inner
    return inner


def _memo_fragment(tags: tuple[int, ...], context: Any, item: Any, encode: Callable[[Any], Message]) -> bytes:
    """The serialized ``encode(item)`` wrapped in ``tags`` (:func:`_wrap`), from the memo when an
    equal ``item`` (:func:`_key`; same ``tags`` and ``context``) was encoded before. Raises
    CodecError from ``encode`` (never memoized)."""
    key: Any = None
    if type(item) is dict:
        types = tuple(map(type, item.values()))
        if _SCALARS.issuperset(types):
            # a flat dict (most events): its keys can only be field names (str), so they need no type
            key = (tags, context, tuple(item.items()), types)
    if key is None:
        try:
            key = (tags, context, _key(item))
        except _Unkeyable:
            return _wrap(encode(item).SerializeToString(), tags)
    got = _MEMO.get(key)
    if got is None:
        got = _wrap(encode(item).SerializeToString(), tags)
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        _MEMO[key] = got
    return got


# Direct builder ----------------------------------------------------------------------------------
#
# The fixed part of an information set (top-level scalars, MatchView, DealView, clocks, time control)
# is built with one message constructor from kwargs dicts instead of the per-field walk. It knows the
# fields below and nothing else: a key it does not know (a field added for 3-4 player games, say),
# a value of a type it does not check, or anything protobuf refuses sends the whole information set
# to the generic walk, which then encodes it or raises the precise CodecError. The checks protobuf
# does not make as strictly as the generic walk (bool fields take ints; a repeated field takes a
# str as a list of characters; enums are our lowercase names) are made here.

_S, _R, _B = "scalar", "repeated", "bool"  # int/str fields (protobuf checks them), list of those, bool


class _Fallback(CodecError):
    """The direct builder does not cover this dict: take the generic walk."""


def _enum_names(enum: Any) -> dict[str, int]:
    prefix = _enum_prefix(enum)
    return {("" if v.number == 0 else v.name.removeprefix(prefix).lower()): v.number for v in enum.values}


_PHASES = _enum_names(common_pb2.Phase.DESCRIPTOR)
_TALON_STATES = _enum_names(common_pb2.TalonState.DESCRIPTOR)
_DIRECTIONS = _enum_names(common_pb2.ScoreDirection.DESCRIPTOR)
_SCOPES = _enum_names(common_pb2.TimeControlScope.DESCRIPTOR)

_TOP_FIELDS: dict[str, Any] = {"match_id": _S, "version": _S, "variant": _S, "seat": _S, "num_seats": _S,
                               "team_of_seat": _R}
_MATCH_FIELDS: dict[str, Any] = {
    "game_points": _R, "target": _S, "direction": _DIRECTIONS, "sets_won": _R, "set_target": _S,
    "sets_to_win": _S, "carried_points": _S, "deal_number": _S, "dealer": _S, "over": _B, "winner": _S,
    "placements": _R, "playoff": _B,
}
_DEAL_FIELDS: dict[str, Any] = {
    "phase": _PHASES, "to_act": _S, "leader": _S, "trump_suit": _S, "trump_card": _S, "talon_size": _S,
    "talon_state": _TALON_STATES, "closed_by": _S, "trick_number": _S, "hand": _R, "hand_sizes": _R,
    "tricks_won": _R, "seats": _R, "laid_away": _R,
}
_OWN_FIELDS: dict[str, Any] = {"own_trick_points": _S, "own_won_cards": _R, "own_deal_points": _S}
_CLOCK_FIELDS: dict[str, Any] = {"seat": _S, "remaining_ms": _S, "running": _B, "move_remaining_ms": _S}
_TC_FIELDS: dict[str, Any] = {"base_ms": _S, "increment_ms": _S, "move_cap_ms": _S, "lag_compensation_ms": _S,
                              "scope": _SCOPES}

_HISTORY_TAGS = (0x72, 0x4A)  # DealView.history = 14, InformationSet.deal = 9
_CURRENT_TRICK_TAGS = (0x6A, 0x4A)  # DealView.current_trick = 13
_MARRIAGES_TAGS = (0x7A, 0x4A)  # DealView.marriages = 15
_DEALS_TAGS = (0x62, 0x42)  # MatchView.deals = 12, InformationSet.match = 8
_LEGAL_TAGS = (0x52,)  # InformationSet.legal_actions = 10


def _direct_value(kind: Any, v: Any) -> Any:
    """``v`` for a field of ``kind`` as a constructor takes it; raises _Fallback where protobuf's own
    check would be looser than the generic walk's."""
    if kind is _S:
        return v
    if kind is _R:
        if type(v) is not list and type(v) is not tuple:
            raise _Fallback("not a list")
        return v
    if kind is _B:
        if type(v) is not bool:
            raise _Fallback("not a bool")
        return v
    if type(v) is not str or v not in kind:  # an enum: our lowercase names only
        raise _Fallback("not an enum name")
    return kind[v]


def _direct_fields(d: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """Constructor kwargs of a flat message dict whose every key is in ``fields``."""
    if type(d) is not dict:
        raise _Fallback("not a dict")
    out = {}
    for k, v in d.items():
        if v is not None:
            kind = fields.get(k)
            if kind is None:
                raise _Fallback(k)
            out[k] = _direct_value(kind, v)
    return out


@functools.lru_cache(maxsize=64)
def _hand_sizes(variant: str, num_seats: int) -> tuple[list[int] | None, tuple[int, ...] | None]:
    sizes = deal_hand_sizes(variant, num_seats)
    return sizes, tuple(sizes) if sizes else None


def _fragments(items: Any, tags: tuple[int, ...], context: Any, encode: Callable[[Any], Message],
               parts: list[bytes]) -> None:
    if type(items) is not list and type(items) is not tuple:
        raise _Fallback("not a list")
    for item in items:
        parts.append(_memo_fragment(tags, context, item, encode))


def _information_set_fast(d: Mapping[str, Any]) -> common_pb2.InformationSet:
    """The direct builder plus the memoized fragments; raises CodecError (_Fallback) for anything it
    does not cover, and the caller takes the generic walk."""
    if type(d) is not dict:
        raise _Fallback("not a dict")
    kwargs: dict[str, Any] = {}
    parts: list[bytes] = []
    options = deal = None
    number: Any = None
    for k, v in d.items():
        if v is None:
            continue
        kind = _TOP_FIELDS.get(k)
        if kind is not None:
            kwargs[k] = _direct_value(kind, v)
        elif k == "options":
            options = v
        elif k == "deal":
            deal = v
        elif k == "match":
            if type(v) is not dict:
                raise _Fallback("match")
            rest = {key: x for key, x in v.items() if key != "deals"}
            kwargs["match"] = _direct_fields(rest, _MATCH_FIELDS)
            number = v.get("deal_number")
            if v.get("deals") is not None:
                _fragments(v["deals"], _DEALS_TAGS, None, _encode_deal_result, parts)
        elif k == "legal_actions":
            _fragments(v, _LEGAL_TAGS, None, _encode_legal_action, parts)
        elif k == "clocks":
            if type(v) is not list and type(v) is not tuple:
                raise _Fallback("clocks")
            kwargs["clocks"] = [_direct_fields(c, _CLOCK_FIELDS) for c in v]
        elif k == "time_control":
            kwargs["time_control"] = _direct_fields(v, _TC_FIELDS)
        else:
            raise _Fallback(k)
    if deal is not None:
        if type(deal) is not dict:
            raise _Fallback("deal")
        fields: dict[str, Any] = {}
        own: dict[str, Any] = {}
        for k, v in deal.items():
            if v is None:
                continue
            kind = _DEAL_FIELDS.get(k)
            if kind is not None:
                fields[k] = _direct_value(kind, v)
            elif k == "history":
                variant, seats = d.get("variant"), d.get("num_seats")
                sizes, sizes_key = (_hand_sizes(variant, seats) if type(variant) is str and type(seats) is int
                                    else (None, None))
                num = number if type(number) is int else None
                _fragments(v, _HISTORY_TAGS, (sizes_key, num), functools.partial(_encode_history_event, sizes, num),
                           parts)
            elif k == "current_trick":
                _fragments(v, _CURRENT_TRICK_TAGS, None, _encode_trick_card, parts)
            elif k == "marriages":
                _fragments(v, _MARRIAGES_TAGS, None, _encode_marriage, parts)
            elif k in _OWN_FIELDS:
                own[OWN_TRICKS_KEYS[k]] = _direct_value(_OWN_FIELDS[k], v)
            else:
                raise _Fallback(k)
        if own:
            fields["own_tricks"] = own
        kwargs["deal"] = fields
    try:
        msg = common_pb2.InformationSet(**kwargs)
    except (TypeError, ValueError) as exc:
        raise _Fallback(str(exc)) from None
    if parts:
        msg.MergeFromString(b"".join(parts))
    if options is not None:
        _merge_options(msg, options)
    return msg


def _encode_trick_card(c: Any) -> Message:
    return dict_to_pb(c, common_pb2.TrickCard)


def _encode_marriage(m: Any) -> Message:
    return dict_to_pb(m, common_pb2.MarriageView)


def _encode_deal_result(r: Any) -> Message:
    return dict_to_pb(r, common_pb2.DealResult)


def _encode_legal_action(a: Any) -> Message:
    return dict_to_pb(a, common_pb2.LegalAction)


def _encode_history_event(sizes: list[int] | None, number: Any, e: Any) -> Message:
    return dict_to_pb(_event_shape(_in_deal(_with_hand_sizes(e, sizes), number)), common_pb2.Event)


@functools.lru_cache(maxsize=512)
def _options_bytes(items: tuple[tuple[Any, Any], ...]) -> bytes:
    """The serialized ``InformationSet`` holding only ``options`` = ``dict(items)``, cached per
    table. Raises CodecError like :func:`dict_to_pb` (errors are not cached)."""
    return dict_to_pb({"options": dict(items)}, common_pb2.InformationSet).SerializeToString()


def information_set_to_dict(info: common_pb2.InformationSet) -> dict[str, Any]:
    """``InformationSet`` -> the engine's dict shape (own tricks flattened back to ``own_*`` keys,
    history events with ``"type"``)."""
    out = pb_to_dict(info)
    deal = out.get("deal")
    if deal is not None:
        own = deal.pop("own_tricks", None)
        if own is not None:
            deal.update({key: own[pb] for key, pb in OWN_TRICKS_KEYS.items()})
        deal["history"] = [event_to_dict(e) for e in info.deal.history]
    return out


# ---------------------------------------------------------------------------------------------
# Variants


def variant_info_to_pb(d: Mapping[str, Any]) -> common_pb2.VariantInfo:
    """The engine's variant dict ``{"id", "aliases", "name", "num_players", "description",
    "section", "deck": [{"id", "code", "suit", "rank", "points", "local_names": {lang: name}}],
    "options": [{"name", "type", "default", "allowed", "description", "rule_ids"}]}`` ->
    ``VariantInfo``; option defaults/allowed values become strings."""
    if not isinstance(d, Mapping):
        raise CodecError(f"VariantInfo: expected a dict, got {type(d).__name__}")
    shape = dict(d)
    options = shape.get("options")
    if _is_list(options):
        converted = []
        for i, opt in enumerate(options):
            if not isinstance(opt, Mapping):
                raise CodecError(f"VariantInfo.options[{i}]: expected a dict, got {type(opt).__name__}")
            o = {OPTION_KEYS.get(k, k): v for k, v in opt.items()}
            if o.get("default_value") is not None:
                o["default_value"] = option_value_str(o["default_value"])
            if _is_list(o.get("allowed_values")):
                o["allowed_values"] = [option_value_str(v) for v in o["allowed_values"]]
            converted.append(o)
        shape["options"] = converted
    return dict_to_pb(shape, common_pb2.VariantInfo)


def variant_info_to_dict(info: common_pb2.VariantInfo) -> dict[str, Any]:
    """``VariantInfo`` -> the engine's variant dict shape (option values stay strings)."""
    out = pb_to_dict(info)
    inverse = {pb: key for key, pb in OPTION_KEYS.items()}
    out["options"] = [{inverse.get(k, k): v for k, v in opt.items()} for opt in out["options"]]
    return out
