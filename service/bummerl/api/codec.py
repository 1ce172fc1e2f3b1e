"""Engine dicts <-> ``bummerl.v1`` protobuf messages (pure functions, no I/O).

What a seat sees (information sets, events, results, legal actions) the engine already gives in the
messages' own shape: :mod:`bummerl.rules.base.views` has one ``TypedDict`` per message of
``proto/bummerl/v1/common.proto``, keyed by the proto field names, nested as the proto nests them
(an event's kind is its ``Event.kind`` oneof key, the own tricks the ``own_tricks`` sub-dict), enum
values by their proto names (``"PHASE_LEAD"``). So this module renames nothing: one generic,
strict walk (:func:`dict_to_pb`) fills any message from such a dict, and :func:`pb_to_dict` gives
it back. The one difference from proto3 JSON (:func:`to_json_dict`, what the REST gateway and the
Python SDK hand out): int64 fields are ints in the engine's dicts and decimal strings in JSON.

Every dict -> message function is strict: a key the message does not have, a wrong type (a bool for
an int, an int for a bool, a str for a list...), an unknown enum name, or a dict that sets no or two
members of a oneof (an ``Event`` without a kind) raises :class:`CodecError`, which the service maps
to INTERNAL, so engine/proto mismatches fail loudly. ``None`` means "unset" for any field.

Enum names: the seat's view takes the proto names only. The other dicts the service encodes with
:func:`dict_to_pb` (match summaries and records, ladders, their requests through :func:`pb_to_dict`)
keep the short form (``"match"`` for ``TIME_CONTROL_SCOPE_MATCH``, ``"NORMAL"``, ``"round_robin"``)
by default (``short_enums=True``); those are not part of what a seat sees. Option values (``options``
maps, ``OptionInfo`` default/allowed) are strings; bools and ints are converted (``True`` ->
``"true"``, ``7`` -> ``"7"``).

:func:`information_set_to_pb` is the service's hot path (issue 8): a fast path builds the message
from constructor arguments and merges the parts that repeat from call to call as memoized bytes
(history events, finished deals' results, legal actions, the options map); it gives the very bytes
of the generic walk (:func:`information_set_to_pb_generic`, tested for every seat of every variant)
and falls back to it for anything it does not cover, so errors are worded in one place.
"""

from __future__ import annotations

import functools
import itertools
import marshal
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeGuard, TypeVar, cast

from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from bummerl.v1 import common_pb2

M = TypeVar("M", bound=Message)


class CodecError(ValueError):
    """A dict does not fit the protobuf message (unknown key, wrong type, unknown enum value).
    Raised for internal mismatches: the service maps it to INTERNAL."""


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
#: Field types whose values protobuf itself checks as strictly as :func:`_scalar` (an int field
#: refuses bool, float and str; a string field refuses everything but str): set without our check.
_STRICT_TYPES = frozenset({FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64,
                           FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT32,
                           FieldDescriptor.TYPE_SINT64})


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


def _enum_number(enum: Any, value: Any, path: str, short: bool) -> int:
    """The number of an enum value given by its proto name (``"PHASE_LEAD"``), its number, or with
    ``short`` also its short name in any case (``"lead"``, ``"NORMAL"``; ``""`` = UNSPECIFIED)."""
    if isinstance(value, bool):
        raise CodecError(f"{path}: expected a {enum.name} name, got a bool")
    if isinstance(value, int):
        if value not in enum.values_by_number:
            raise CodecError(f"{path}: {value} is not a {enum.name} value")
        return value
    if not isinstance(value, str):
        raise CodecError(f"{path}: expected a {enum.name} name, got {type(value).__name__}")
    got = enum.values_by_name.get(value)
    if got is None and short:
        got = enum.values_by_name.get(_enum_prefix(enum) + (value.upper() if value else "UNSPECIFIED"))
    if got is None:
        raise CodecError(f"{path}: unknown {enum.name} {value!r}")
    return int(got.number)


def _enum_str(enum: Any, number: int, short: bool) -> Any:
    value = enum.values_by_number.get(number)
    if value is None:  # an enum value from a newer peer (json_format gives the number too)
        return number
    if not short:
        return str(value.name)
    return "" if number == 0 else str(value.name).removeprefix(_enum_prefix(enum)).lower()


def _is_map(field: Any) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _scalar(field: Any, value: Any, path: str, short: bool) -> Any:
    if field.type == FieldDescriptor.TYPE_ENUM:
        return _enum_number(field.enum_type, value, path, short)
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


def _oneof(field: Any) -> str | None:
    """The name of the oneof ``field`` belongs to; None for none or the synthetic oneof of a proto3
    ``optional`` field (named ``_`` + the field's name, its only member)."""
    o = field.containing_oneof
    if o is None or (len(o.fields) == 1 and o.name == "_" + field.name):
        return None
    return str(o.name)


def _real_oneofs(descriptor: Any) -> frozenset[str]:
    return frozenset(o.name for o in descriptor.oneofs if not (len(o.fields) == 1 and o.name == "_" + o.fields[0].name))


def _is_list(value: Any) -> TypeGuard[list[Any] | tuple[Any, ...]]:
    return isinstance(value, list | tuple)


_PLANS: dict[Any, tuple[dict[str, tuple[Any, int, str | None]], frozenset[str]]] = {}
_MAP, _REPEATED_MSG, _REPEATED_SCALAR, _MESSAGE, _SCALAR, _STRICT_SCALAR, _STRICT_REPEATED = range(7)


def _plan(descriptor: Any) -> tuple[dict[str, tuple[Any, int, str | None]], frozenset[str]]:
    """Per message type: field name -> (field descriptor, how to fill it, its oneof or None), and
    the message's oneofs; computed once."""
    got = _PLANS.get(descriptor)
    if got is None:
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
            plan[name] = (field, kind, _oneof(field))
        got = _PLANS[descriptor] = (plan, _real_oneofs(descriptor))
    return got


def _fill(msg: Message, d: Any, path: str, short: bool) -> None:
    if not isinstance(d, Mapping):
        raise CodecError(f"{path}: expected a dict for {msg.DESCRIPTOR.name}, got {type(d).__name__}")
    plan, all_oneofs = _plan(msg.DESCRIPTOR)
    oneofs: set[str] = set()
    for key, value in d.items():
        entry = plan.get(key)
        if entry is None:
            raise CodecError(f"{path}: unknown key {key!r} for {msg.DESCRIPTOR.full_name}")
        if value is None:
            continue
        field, kind, oneof = entry
        if oneof is not None:
            if oneof in oneofs:
                raise CodecError(f"{path}: two members of the oneof {oneof!r} of {msg.DESCRIPTOR.full_name}")
            oneofs.add(oneof)
        try:
            if kind == _STRICT_SCALAR:
                setattr(msg, key, value)
            elif kind == _STRICT_REPEATED:
                if not _is_list(value):
                    raise CodecError(f"expected a list, got {type(value).__name__}")
                getattr(msg, key).extend(value)
            elif kind == _SCALAR:
                setattr(msg, key, _scalar(field, value, "", short))
            elif kind == _REPEATED_MSG:
                if not _is_list(value):
                    raise CodecError(f"expected a list, got {type(value).__name__}")
                add = getattr(msg, key).add
                for i, item in enumerate(value):
                    _fill(add(), item, f"[{i}]", short)
            elif kind == _REPEATED_SCALAR:
                if not _is_list(value):
                    raise CodecError(f"expected a list, got {type(value).__name__}")
                getattr(msg, key).extend([_scalar(field, item, f"[{i}]", short) for i, item in enumerate(value)])
            elif kind == _MESSAGE:
                sub = getattr(msg, key)
                sub.SetInParent()
                _fill(sub, value, "", short)
            else:
                _fill_map(getattr(msg, key), field, value, "", short)
        except CodecError as exc:
            raise CodecError(f"{path}.{key}{'' if str(exc).startswith(('[', '.', ':')) else ': '}{exc}") from None
        except (TypeError, ValueError) as exc:  # range errors from protobuf itself
            raise CodecError(f"{path}.{key}: {exc}") from exc
    if len(oneofs) < len(all_oneofs):
        missing = sorted(all_oneofs - oneofs)
        raise CodecError(f"{path}: no member of the oneof {missing[0]!r} of {msg.DESCRIPTOR.full_name} "
                         f"(one of: {', '.join(f.name for f in msg.DESCRIPTOR.oneofs_by_name[missing[0]].fields)})")


def _fill_map(container: Any, field: Any, value: Any, path: str, short: bool) -> None:
    if not isinstance(value, Mapping):
        raise CodecError(f"{path}: expected a dict, got {type(value).__name__}")
    key_field = field.message_type.fields_by_name["key"]
    value_field = field.message_type.fields_by_name["value"]
    for k, v in value.items():
        kk = _scalar(key_field, k, f"{path} key", short)
        if value_field.message_type is not None:
            _fill(container[kk], v, f"{path}[{k!r}]", short)
        elif value_field.type == FieldDescriptor.TYPE_STRING:
            container[kk] = option_value_str(v)
        else:
            container[kk] = _scalar(value_field, v, f"{path}[{k!r}]", short)


def dict_to_pb(d: Mapping[str, Any], message: type[M] | M, *, short_enums: bool = True) -> M:
    """Fill ``message`` (a class -> new instance, or an instance, filled in place) from a dict whose
    keys are the proto field names. Enum fields take the proto names (and, with ``short_enums``,
    the short lowercase names of the dicts outside the seat's view); string map values accept
    bool/int (-> "true"/"7"). Raises :class:`CodecError` on any mismatch."""
    msg = message() if isinstance(message, type) else message
    _fill(msg, d, msg.DESCRIPTOR.name, short_enums)
    return msg


def _value_to_py(field: Any, value: Any, short: bool) -> Any:
    if field.message_type is not None:
        return pb_to_dict(value, short_enums=short)
    if field.type == FieldDescriptor.TYPE_ENUM:
        return _enum_str(field.enum_type, value, short)
    return value


def pb_to_dict(msg: Message, *, short_enums: bool = True) -> dict[str, Any]:
    """A message as a dict with proto field names: every field, defaults included; unset message
    fields and unset ``optional``/oneof fields omitted; int64 as int; enums by proto name, or with
    ``short_enums`` by their short name in lower case (``""`` for UNSPECIFIED)."""
    out: dict[str, Any] = {}
    field: Any
    for field in msg.DESCRIPTOR.fields:
        value = getattr(msg, field.name)
        if _is_map(field):
            vf = field.message_type.fields_by_name["value"]
            out[field.name] = {k: _value_to_py(vf, v, short_enums) for k, v in value.items()}
        elif field.is_repeated:
            out[field.name] = [_value_to_py(field, v, short_enums) for v in value]
        elif field.has_presence and not msg.HasField(field.name):
            continue
        else:
            out[field.name] = _value_to_py(field, value, short_enums)
    return out


def to_json_dict(msg: Message) -> dict[str, Any]:
    """The proto3 JSON form used by the REST gateway and the Python SDK (``json_format``): proto
    field names, every field printed, enums by proto name (``"PHASE_LEAD"``), int64/uint64 as
    decimal strings: the engine's view dict, but for the int64 strings."""
    return json_format.MessageToDict(
        msg, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


# ---------------------------------------------------------------------------------------------
# What a seat sees (bummerl.rules.base.views): one converter per message, proto enum names only


def event_to_pb(d: Mapping[str, Any]) -> common_pb2.Event:
    """An ``Event`` dict ``{"version", "deal_number", "<kind>": {...}}`` as ``Event``. Raises
    :class:`CodecError` for an unknown key, or no or two kinds. Built by the direct builder of
    :func:`information_set_to_pb` (the same bytes as :func:`dict_to_pb`, tested), the generic
    walk for anything it does not cover."""
    return cast(common_pb2.Event, _encode_item(common_pb2.Event, d))


def event_to_dict(event: common_pb2.Event) -> dict[str, Any]:
    """``Event`` -> its dict (the inverse of :func:`event_to_pb`)."""
    return pb_to_dict(event, short_enums=False)


def deal_result_to_pb(d: Mapping[str, Any]) -> common_pb2.DealResult:
    """A ``DealResult`` dict (:class:`bummerl.rules.base.views.DealResult`) -> ``DealResult``."""
    return dict_to_pb(d, common_pb2.DealResult, short_enums=False)


def match_result_to_pb(d: Mapping[str, Any]) -> common_pb2.MatchResult:
    """A ``MatchResult`` dict (:class:`bummerl.rules.base.views.MatchResult`) -> ``MatchResult``."""
    return dict_to_pb(d, common_pb2.MatchResult, short_enums=False)


def information_set_to_pb(d: Mapping[str, Any], history_memo: dict[int, Any] | None = None) -> common_pb2.InformationSet:
    """An ``InformationSet`` dict (:class:`bummerl.rules.base.views.InformationSet`, docs/RULES.md §14)
    -> ``InformationSet``. Raises :class:`CodecError` on a mismatch anywhere in the tree.

    Fast path (same bytes as :func:`information_set_to_pb_generic`, tested): the message is built
    by its constructor from the dict (the checks protobuf makes less strictly than the generic
    walk are made here), and the parts that repeat from call to call are encoded once and merged
    in as bytes: the ``options`` map (once per table) and each item of a repeated message field
    but the clocks (each history event, finished deal's result, legal action, trick card,
    marriage, bid: once per distinct dict, :func:`_memo_fragment`). It is derived from the
    descriptors, so a new field or event kind needs no code here. Anything it does not cover
    re-runs the generic walk, which raises the precise :class:`CodecError`.

    ``history_memo``: an empty dict the caller keeps across calls whose ``deal.history`` items are
    the same dict objects (the service's history views: one dict per entry for every seat and
    version of a deal, never changed). Those items are then found by identity, without the
    memo's key of their value (~1 us each); the caller must not change an item while the dict
    holds it, and drops the dict when the items go (the service: with each new deal)."""
    try:
        return _information_set_fast(d, history_memo)
    except CodecError:
        return information_set_to_pb_generic(d)


def information_set_to_pb_generic(d: Mapping[str, Any]) -> common_pb2.InformationSet:
    """:func:`information_set_to_pb` through the generic per-field walk only (no memo of events,
    results or legal actions): the reference the fast path is tested against, and the path that
    words its errors. Raises :class:`CodecError` like it."""
    if not isinstance(d, Mapping):
        raise CodecError(f"InformationSet: expected a dict, got {type(d).__name__}")
    options = d.get("options")
    msg = dict_to_pb({k: v for k, v in d.items() if k != "options"}, common_pb2.InformationSet, short_enums=False)
    if options is not None:  # the way the fast path adds it, so that the map serializes alike
        msg.MergeFromString(_map_fragment((), common_pb2.InformationSet, "options", options))
    return msg


def information_set_to_dict(info: common_pb2.InformationSet) -> dict[str, Any]:
    """``InformationSet`` -> its dict (the inverse of :func:`information_set_to_pb`)."""
    return pb_to_dict(info, short_enums=False)


# Memo of encoded sub-messages --------------------------------------------------------------------
#
# A history event, a finished deal's result or a legal action is the same dict on many calls (every
# later call of the deal or match, for every seat). Each distinct dict is encoded once, by the
# generic walk, and kept as the bytes of an ``InformationSet`` that holds only it at its place
# (e.g. ``deal { history [ <event> ] }``); serialized messages concatenate like merges, so the
# joined fragments parse into the repeated fields in order. The key is the dict's ``marshal``
# serialization, which is exact: it tells ``True`` from ``1``, ``1.0`` from ``1``, a tuple from a
# list and a str from bytes, and refuses any type but the built-in ones themselves (an Enum member,
# a subclass, an object), so a dict hits the memo only if an equal one with the same value types
# was encoded before; one that ``marshal`` refuses is not memoized and takes the generic walk.

_MEMO: dict[tuple[tuple[bytes, ...], bytes], bytes] = {}
_MEMO_MAX = 1 << 16
"""Fragments kept (each ~10-60 bytes plus its key). When it is full the oldest quarter is dropped
(:func:`_evict_oldest`), not the whole memo: emptying it made every information set re-encode
all its fragments at once, a burst of slow calls that set the service's p99 at half load
(cluster of 8-30 ms calls every few seconds; `bummerl bench floor`)."""


def _evict_oldest(memo: dict[Any, Any], keep: int) -> None:
    """Drop the oldest entries of ``memo`` (insertion order) until ``keep`` remain: one pass for
    many inserts, so the entries in use now stay."""
    for key in list(itertools.islice(memo, len(memo) - keep)):
        del memo[key]


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _tag(field: Any) -> bytes:
    """The tag of a length-delimited field (a message, a map entry)."""
    return _varint(field.number << 3 | 2)


def _wrap(inner: bytes, tags: tuple[bytes, ...]) -> bytes:
    """``inner`` (a serialized message) as a length-delimited field in each of ``tags`` (field
    tags, innermost first)."""
    for tag in tags:
        inner = tag + _varint(len(inner)) + inner
    return inner


def _memo_fragment(tags: tuple[bytes, ...], item: Any, encode: Callable[[Any], Message]) -> bytes:
    """The serialized ``encode(item)`` wrapped in ``tags`` (:func:`_wrap`), from the memo when an
    equal ``item`` of the same types (same ``tags``) was encoded before. Raises CodecError from
    ``encode`` (never memoized)."""
    try:
        key = (tags, marshal.dumps(item, 2))  # version 2: no back-references, so equal values give equal bytes
    except ValueError:  # not only built-in types
        return _wrap(encode(item).SerializeToString(), tags)
    got = _MEMO.get(key)
    if got is None:
        got = _wrap(encode(item).SerializeToString(), tags)
        if len(_MEMO) >= _MEMO_MAX:
            _evict_oldest(_MEMO, _MEMO_MAX * 3 // 4)
        _MEMO[key] = got
    return got


_MAPS: dict[tuple[Any, str, bytes], bytes] = {}
_MAPS_MAX = 512


def _map_fragment(tags: tuple[bytes, ...], owner: Any, name: str, value: Any) -> bytes:
    """An ``owner`` message (a class) holding only its map field ``name`` = ``value`` (entries in
    key order), serialized and wrapped in ``tags`` (the owner's place in the information set,
    innermost first); cached per distinct map (a table's options), keyed exactly like the memo.
    Raises CodecError like :func:`dict_to_pb` (errors are not cached)."""
    key: Any = None
    if type(value) is dict:
        try:
            value = dict(sorted(value.items()))
            key = (owner, name, marshal.dumps(value, 2))
        except (TypeError, ValueError):  # keys that do not sort, values not only of built-in types
            key = None
    inner = _MAPS.get(key) if key is not None else None
    if inner is None:
        msg: Message = dict_to_pb({name: value}, owner, short_enums=False)
        inner = msg.SerializeToString()
        if key is not None:
            if len(_MAPS) >= _MAPS_MAX:
                _MAPS.clear()
            _MAPS[key] = inner
    return _wrap(inner, tags)


# Direct builder ----------------------------------------------------------------------------------
#
# Builds a message with one constructor call from nested kwargs dicts instead of the per-field
# walk, by a plan derived from the descriptors (:func:`_fast_plan`). Protobuf's constructor checks
# int and str fields and enum names as strictly as the generic walk; the checks it makes less
# strictly are made here (a bool field takes an int, a repeated field a str as a list of
# characters, an enum field an unknown number), and a field of any other kind (a oneof member, a
# repeated enum, a float...) sends the whole information set to the generic walk, as does a key it
# does not know or anything protobuf refuses.

_D_SCALAR, _D_LIST, _D_BOOL, _D_ENUM, _D_MESSAGE, _D_MESSAGES, _D_MEMO, _D_MAP, _D_SLOW, _D_ONEOF = range(10)
_DIRECT_REPEATED = frozenset({"bummerl.v1.InformationSet.clocks"})
"""Repeated message fields built directly, not memoized: their items change on every call."""
_HISTORY = "bummerl.v1.DealView.history"
"""The repeated field whose items may also be memoized by identity (``history_memo`` of
:func:`information_set_to_pb`): the service shares one dict per history entry across the seats
and versions of a deal and never changes it."""
_HISTORY_MEMO_MAX = 1024
"""Entries a ``history_memo`` may hold before it is emptied (a deal has at most ~60 history
entries; the service starts a new memo with each deal)."""


class _Fallback(CodecError):
    """The direct builder does not cover this dict: take the generic walk."""


_FAST_PLANS: dict[Any, dict[str, tuple[int, Any]]] = {}
_FAST_ONEOFS: dict[Any, frozenset[str]] = {}
"""Per message type with oneofs: their names (the generic walk needs a member of each)."""


def _fast_plan(descriptor: Any) -> dict[str, tuple[int, Any]]:
    """Per message type: field name -> (how the direct builder takes it, what it needs for that)."""
    plan = _FAST_PLANS.get(descriptor)
    if plan is not None:
        return plan
    plan = {}
    for name, field in descriptor.fields_by_name.items():
        how: tuple[int, Any]
        sub = field.message_type
        if _is_map(field):
            how = (_D_MAP, message_factory.GetMessageClass(descriptor))
        elif field.is_repeated and sub is not None:
            direct = field.full_name in _DIRECT_REPEATED
            how = ((_D_MESSAGES, sub) if direct
                   else (_D_MEMO, (_tag(field), functools.partial(_encode_item, message_factory.GetMessageClass(sub)),
                                   field.full_name == _HISTORY, sub)))
        elif sub is not None:
            how = (_D_MESSAGE, (sub, _tag(field)))
        elif field.type in _STRICT_TYPES:
            how = (_D_LIST if field.is_repeated else _D_SCALAR, None)
        elif field.is_repeated:
            how = (_D_SLOW, None)
        elif field.type == FieldDescriptor.TYPE_BOOL:
            how = (_D_BOOL, None)
        elif field.type == FieldDescriptor.TYPE_ENUM:
            how = (_D_ENUM, None)
        else:
            how = (_D_SLOW, None)
        oneof = _oneof(field)
        plan[name] = how if oneof is None else (_D_ONEOF, (how, oneof))
    oneofs = _real_oneofs(descriptor)
    if oneofs:
        _FAST_ONEOFS[descriptor] = oneofs
    _FAST_PLANS[descriptor] = plan
    return plan


def _encode_item(cls: type[Message], item: Any) -> Message:
    """``item`` (a dict) as a ``cls`` message, full enum names: the direct builder, or the generic
    walk for whatever it does not cover (which raises the precise CodecError)."""
    try:
        return cls(**_direct(item, cls.DESCRIPTOR, (), None))
    except (CodecError, TypeError, ValueError):
        return dict_to_pb(item, cls, short_enums=False)


def _direct(d: Any, descriptor: Any, tags: tuple[bytes, ...], parts: list[bytes] | None,
            history_memo: dict[int, Any] | None = None) -> dict[str, Any]:
    """Constructor kwargs for the message dict ``d``; the memoized items and maps go to ``parts``,
    wrapped in ``tags`` (this message's place in the information set, innermost first). Raises
    _Fallback for anything not covered (``parts`` None: no place to put fragments).
    ``history_memo``: see :func:`information_set_to_pb`."""
    if type(d) is not dict:
        raise _Fallback("not a dict")
    plan = _fast_plan(descriptor)
    out: dict[str, Any] = {}
    members: set[str] | None = None  # the oneofs set so far
    for k, v in d.items():
        if v is None:
            continue
        how = plan.get(k)
        if how is None:
            raise _Fallback(k)
        kind, extra = how
        if kind == _D_ONEOF:
            if members is None:
                members = set()
            elif extra[1] in members:
                raise _Fallback("two members of a oneof")
            members.add(extra[1])
            kind, extra = extra[0]
        if kind == _D_SCALAR:
            out[k] = v
        elif kind == _D_LIST:
            if type(v) is not list and type(v) is not tuple:
                raise _Fallback("not a list")
            out[k] = v
        elif kind == _D_MEMO:
            if type(v) is not list and type(v) is not tuple:
                raise _Fallback(k)
            if parts is None:  # inside an item that is itself memoized: built in place
                out[k] = [_direct(x, extra[3], (), None) for x in v]
                continue
            inner = (extra[0], *tags)
            encode = extra[1]
            if history_memo is None or not extra[2]:
                for item in v:
                    parts.append(_memo_fragment(inner, item, encode))
                continue
            if len(history_memo) > _HISTORY_MEMO_MAX:
                history_memo.clear()
            for item in v:  # by identity: the entry holds the item, so its id is not reused meanwhile
                got = history_memo.get(id(item))
                if got is None or got[0] is not item or got[1] != inner:
                    got = history_memo[id(item)] = (item, inner, _memo_fragment(inner, item, encode))
                parts.append(got[2])
        elif kind == _D_MESSAGE:
            out[k] = _direct(v, extra[0], (extra[1], *tags), parts, history_memo)
        elif kind == _D_BOOL:
            if type(v) is not bool:
                raise _Fallback("not a bool")
            out[k] = v
        elif kind == _D_ENUM:
            if type(v) is not str:  # a name (protobuf checks it); a number takes the generic walk
                raise _Fallback("not an enum name")
            out[k] = v
        elif kind == _D_MESSAGES:
            if type(v) is not list and type(v) is not tuple:
                raise _Fallback("not a list")
            out[k] = [_direct(x, extra, (), None) for x in v]
        elif kind == _D_MAP:
            if parts is None:
                raise _Fallback(k)
            parts.append(_map_fragment(tags, extra, k, v))
        else:
            raise _Fallback(k)
    required = _FAST_ONEOFS.get(descriptor)
    if required is not None and (members is None or len(members) < len(required)):
        raise _Fallback("a oneof without a member")
    return out


def _information_set_fast(d: Mapping[str, Any], history_memo: dict[int, Any] | None = None) -> common_pb2.InformationSet:
    """The direct builder plus the memoized fragments; raises CodecError (_Fallback) for anything it
    does not cover, and the caller takes the generic walk."""
    parts: list[bytes] = []
    kwargs = _direct(d, common_pb2.InformationSet.DESCRIPTOR, (), parts, history_memo)
    try:
        msg = common_pb2.InformationSet(**kwargs)
    except (TypeError, ValueError) as exc:
        raise _Fallback(str(exc)) from None
    if parts:
        msg.MergeFromString(b"".join(parts))
    return msg


# ---------------------------------------------------------------------------------------------
# Variants (the catalogue, not a seat's view: the variant dict keeps its own option keys)


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
