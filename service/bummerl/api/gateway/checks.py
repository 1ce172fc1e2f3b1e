"""What a client sends, checked against the fields of the request message before protobuf parses
it, so that a bad value gets a :class:`BadRequest` in the API's terms that names the field and the
type expected: :func:`_parse_scalar` (a path segment or query value as a field's value),
:func:`_check_json` (a JSON body, field by field), :func:`_json_error_text` (protobuf's own JSON
parse errors reworded)."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from bummerl.api import errors


class BadRequest(ValueError):
    """A request the gateway cannot turn into the RPC's message (-> 400 INVALID_ARGUMENT)."""


_F = FieldDescriptor
_INT_KINDS = {
    _F.TYPE_INT32: ("int32", -2**31, 2**31 - 1), _F.TYPE_SINT32: ("int32", -2**31, 2**31 - 1),
    _F.TYPE_SFIXED32: ("int32", -2**31, 2**31 - 1), _F.TYPE_UINT32: ("uint32", 0, 2**32 - 1),
    _F.TYPE_FIXED32: ("uint32", 0, 2**32 - 1), _F.TYPE_INT64: ("int64", -2**63, 2**63 - 1),
    _F.TYPE_SINT64: ("int64", -2**63, 2**63 - 1), _F.TYPE_SFIXED64: ("int64", -2**63, 2**63 - 1),
    _F.TYPE_UINT64: ("uint64", 0, 2**64 - 1), _F.TYPE_FIXED64: ("uint64", 0, 2**64 - 1),
}


def _parse_scalar(field: Any, text: str, path: str) -> Any:
    """``text`` (a path segment or query value) as the value of ``field``; BadRequest names
    ``path`` and the type expected, e.g. ``seat must be an integer (int32), got 'x'``."""
    t = field.type
    if t == _F.TYPE_STRING:
        return text
    if t == _F.TYPE_BOOL:
        if text.lower() in ("true", "1"):
            return True
        if text.lower() in ("false", "0"):
            return False
        raise BadRequest(f"{path} must be true or false, got {text!r}")
    if t in (_F.TYPE_FLOAT, _F.TYPE_DOUBLE):
        try:
            return float(text)
        except ValueError:
            raise BadRequest(f"{path} must be a number, got {text!r}") from None
    if t == _F.TYPE_ENUM:
        value = field.enum_type.values_by_name.get(text)
        if value is not None:
            return value.number
        if field.enum_type.values_by_number.get(_int_or_none(text)) is not None:
            return int(text)
        names = ", ".join(v.name for v in field.enum_type.values)
        raise BadRequest(f"{path} must be one of {names}, got {text!r}")
    if t == _F.TYPE_BYTES:
        try:
            return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except ValueError:
            raise BadRequest(f"{path} must be URL-safe base64, got {text!r}") from None
    if t == _F.TYPE_MESSAGE:
        raise BadRequest(f"{path} is a message field: it cannot be set from the path or query")
    return _in_int_range(t, _int_or_none(text), path, repr(text))


def _in_int_range(t: int, n: int | None, where: str, shown: str) -> int:
    """``n`` if it is an integer in the range of the protobuf integer type ``t``; else BadRequest
    naming ``where`` and the type (``shown``: the value as the client sent it)."""
    kind, lo, hi = _INT_KINDS[t]
    if n is None:
        raise BadRequest(f"{where} must be an integer ({kind}), got {shown}")
    if not lo <= n <= hi:
        raise BadRequest(f"{where} must be an integer in {lo}..{hi} ({kind}), got {n}")
    return n


def _int_or_none(text: str) -> int | None:
    """``text`` as a decimal integer (an optional sign, digits only), else None."""
    body = text[1:] if text[:1] in "+-" else text
    return int(text) if body.isascii() and body.isdigit() else None


_UNKNOWN_FIELD = re.compile(r'(?:Failed to parse (?P<outer>\w+) field: )?Message type "(?:[\w.]+\.)?(?P<type>\w+)" has no '
                            r'field named "(?P<field>[^"]*)" at "(?P<at>[^"]*)"\.\s*Available Fields\(except '
                            r'extensions\): "\[(?P<fields>[^\]]*)\]"')


def _shown(v: Any) -> str:
    """A JSON value in a message, short."""
    return errors.clip(json.dumps(v, ensure_ascii=False), 40)


def _json_kind(v: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(v), "a number")


def _check_json(data: Any, descriptor: Any, path: str = "") -> None:
    """Check JSON ``data`` against the request message ``descriptor`` before protobuf parses it, so
    that a value of the wrong type gets a :class:`BadRequest` in the API's terms that names its
    field and the type expected (``expected_version must be an integer (int64), got 'abc'``;
    protobuf's own errors quote Python: "invalid literal for int() with base 10", "expected string
    or bytes-like object"). Unknown fields are left to protobuf (:func:`_json_error_text`);
    well-known types (``google.protobuf.*``) are not looked into."""
    if not isinstance(data, dict):
        return
    by_name = {**{f.json_name: f for f in descriptor.fields}, **{f.name: f for f in descriptor.fields}}
    oneofs: dict[str, str] = {}
    for key, value in data.items():
        f = by_name.get(key)
        if f is None or value is None:
            continue
        where = f"{path}.{f.name}" if path else f.name
        if f.containing_oneof is not None:
            other = oneofs.setdefault(f.containing_oneof.name, f.name)
            if other != f.name:
                raise BadRequest(f"{path + ': ' if path else ''}set one of {other} and {f.name}, not both")
        entry = f.message_type
        if entry is not None and entry.GetOptions().map_entry:
            if not isinstance(value, dict):
                raise BadRequest(f"{where} must be an object (string keys), got {_json_kind(value)}: {_shown(value)}")
            vf = entry.fields_by_name["value"]
            for k, v in value.items():
                if vf.type == vf.TYPE_STRING and not isinstance(v, str):  # a table option given as a number
                    raise BadRequest(f"{where}: the value of {k!r} must be a JSON string (e.g. \"5\", not 5), "
                                     f"got {errors.clip(json.dumps(v), 40)}")
                _check_value(vf, v, f"{where}[{k!r}]")
        elif f.is_repeated:
            if not isinstance(value, list):
                raise BadRequest(f"{where} must be an array, got {_json_kind(value)}: {_shown(value)}")
            for i, v in enumerate(value):
                _check_value(f, v, f"{where}[{i}]")
        else:
            _check_value(f, value, where)


def _check_value(f: Any, v: Any, where: str) -> None:
    """One JSON value of field ``f`` (an element, for a repeated field); see :func:`_check_json`."""
    t = f.type
    if v is None:
        return
    if t == _F.TYPE_MESSAGE or t == _F.TYPE_GROUP:
        m = f.message_type
        if m.full_name.startswith("google.protobuf."):
            return
        if not isinstance(v, dict):
            known = ", ".join(x.name for x in m.fields)
            raise BadRequest(f"{where}: expected a {m.name} object with the fields {known}, e.g. "
                             f"{{\"{m.fields[0].name}\": ...}}, not {v!r}" if isinstance(v, str) else
                             f"{where}: expected a {m.name} object with the fields {known}, not {_json_kind(v)}: "
                             f"{_shown(v)}")
        _check_json(v, m, where)
    elif t == _F.TYPE_STRING:
        if not isinstance(v, str):
            raise BadRequest(f"{where} must be a string, got {_json_kind(v)}: {_shown(v)}")
    elif t == _F.TYPE_BOOL:
        if not isinstance(v, bool):
            raise BadRequest(f"{where} must be true or false, got {_shown(v)}")
    elif t in (_F.TYPE_FLOAT, _F.TYPE_DOUBLE):
        if isinstance(v, bool) or not isinstance(v, int | float | str):
            raise BadRequest(f"{where} must be a number, got {_json_kind(v)}: {_shown(v)}")
        if isinstance(v, str):
            try:
                float(v)
            except ValueError:
                raise BadRequest(f"{where} must be a number, got {_shown(v)}") from None
    elif t == _F.TYPE_ENUM:
        names = [x.name for x in f.enum_type.values]
        if not ((isinstance(v, str) and v in names)
                or (isinstance(v, int) and not isinstance(v, bool) and v in f.enum_type.values_by_number)):
            raise BadRequest(f"{where} must be one of {', '.join(names)}, got {_shown(v)}")
    elif t == _F.TYPE_BYTES:
        if not isinstance(v, str):
            raise BadRequest(f"{where} must be a base64 string, got {_json_kind(v)}: {_shown(v)}")
    elif t in _INT_KINDS:
        n: int | None = None
        if isinstance(v, int) and not isinstance(v, bool):
            n = v
        elif isinstance(v, float) and v.is_integer():
            n = int(v)
        elif isinstance(v, str):
            n = _int_or_none(v.strip())
        _in_int_range(t, n, where, _shown(v))


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _json_error_text(text: str) -> str:
    """A protobuf JSON parse error in the API's own terms: field names in snake_case as the docs
    and the JSON answers write them (protobuf's message lists camelCase names), a string where an
    object was expected said so; anything else as protobuf wrote it (a map value that is not a
    string is caught before, by :func:`_check_json`)."""
    m = _UNKNOWN_FIELD.search(text)
    if m:
        known = ", ".join(_snake(f.strip(" '")) for f in m["fields"].split(",") if f.strip(" '"))
        where = m["at"].split(".", 1)[1] if "." in m["at"] else ""
        if m["outer"] and where.endswith("]"):  # a repeated message field given as strings, e.g. "seats": ["a"]
            return (f"{where}: expected a {m['type']} object with the fields {known}, e.g. {{\"{known.split(', ')[0]}\": "
                    f"...}}, not {m['field']!r}")
        return f"unknown field {m['field']!r}{' in ' + where if where else ''} ({m['type']}); its fields: {known}"
    return text
