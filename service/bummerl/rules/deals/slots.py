"""The snapshot helpers every deal class shares: a deal's ``to_snapshot`` is its slots as JSON-ready
data, and ``from_snapshot`` sets them back (docs/DESIGN.md §9: a stored snapshot with a version and a
replay fallback, :mod:`bummerl.rules.match.snapshot`)."""

from __future__ import annotations

from typing import Any

from ..table.variant import Rules


def event_tuple(e: list[Any] | tuple[Any, ...]) -> tuple[Any, ...]:
    """A history entry read back from JSON: nested lists (a trick's cards) become tuples."""
    return tuple(tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v for v in e)


def slots_to_dict(obj: Any, slots: tuple[str, ...]) -> dict[str, Any]:
    """The ``to_snapshot`` of a deal class: every slot but ``rules`` (JSON-ready by construction)."""
    return {n: getattr(obj, n) for n in slots if n != "rules"}


def slots_from_dict(cls: Any, rules: Rules, slots: tuple[str, ...], data: dict[str, Any]) -> Any:
    """The common half of a deal class's ``from_snapshot``: a ``cls`` object with every slot of
    ``data`` set, ``rules`` attached, ``seats`` and the history read back as tuples. The caller
    converts its own nested fields. Raises KeyError for a missing slot (foreign data)."""
    d = cls.__new__(cls)
    for n in slots:
        if n != "rules":
            setattr(d, n, data[n])
    d.rules = rules
    d.seats = tuple(data["seats"])
    d.history = [event_tuple(e) for e in data["history"]]
    return d
