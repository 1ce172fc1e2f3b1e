"""The served JSON of a protobuf message (what the SDK, the stdio bridge and the bot harness hand a
bot): proto3 JSON with the ``.proto``'s field names, every field present (an action's ``"id": 0``
too), int64 fields as decimal strings, enums by name, and keys in the order of the ``.proto`` at
every level (docs/ENGINE_PROTOCOL.md, "key order"). One module, so that a bot sees one shape
whether it plays on a server or in :mod:`bummerl.bots.harness`.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

__all__ = ["to_dict"]


def to_dict(msg: Message) -> dict[str, Any]:
    """A response message as a dict with proto field names and every field present, keys in the
    order of the ``.proto`` at every level (``json_format`` puts fields at their default value,
    e.g. an action's ``"id": 0``, after the others; a bot that reads the JSON as text, as the stdio
    bridge passes it on, sees one order)."""
    d = json_format.MessageToDict(msg, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
    return _in_field_order(d, msg.DESCRIPTOR)


_PLAN: dict[str, list[tuple[str, int, Any]]] = {}


def _plan(descriptor: Any) -> list[tuple[str, int, Any]]:
    """Per field of ``descriptor``, in order: ``(name, how, nested)``; ``how`` 0 = as is, 1 = a
    message, 2 = a repeated message, 3 = a map of messages (``nested``: that message's descriptor)."""
    plan = _PLAN.get(descriptor.full_name)
    if plan is None:
        plan = []
        for f in descriptor.fields:
            m, how = f.message_type, 0
            if m is not None and m.GetOptions().map_entry:
                m = m.fields_by_name["value"].message_type
                how = 3
            elif m is not None:
                how = 2 if _repeated(f) else 1
            if m is None or m.full_name.startswith("google.protobuf."):  # scalars, well-known types
                how, m = 0, None
            plan.append((f.name, how, m))
        _PLAN[descriptor.full_name] = plan
    return plan


def _repeated(f: Any) -> bool:
    """Whether field ``f`` is repeated (``is_repeated`` from protobuf 6, ``label`` before it)."""
    return bool(f.is_repeated) if hasattr(f, "is_repeated") else bool(f.label == 3)  # LABEL_REPEATED


def _in_field_order(d: dict[str, Any], descriptor: Any) -> dict[str, Any]:
    """``d`` (``MessageToDict`` of a ``descriptor`` message) with its keys, and those of every
    nested message, in field order; well-known types (``google.protobuf.*``) are left as they are."""
    out: dict[str, Any] = {}
    for name, how, m in _plan(descriptor):
        if name not in d:
            continue
        v = d[name]
        if how == 1:
            v = _in_field_order(v, m)
        elif how == 2:
            v = [_in_field_order(x, m) for x in v]
        elif how == 3:
            v = {k: _in_field_order(x, m) for k, x in v.items()}
        out[name] = v
    if len(out) != len(d):  # keys the descriptor does not name (none today): kept, after the fields
        out.update((k, v) for k, v in d.items() if k not in out)
    return out
