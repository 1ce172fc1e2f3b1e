"""Table options (docs/RULES.md §0.3, §13.2): :class:`OptionSpec`, the catalogue of the
two-player trick-and-draw games (:data:`CATALOGUE`, which the contract games extend with
:func:`add_options`), and the helpers a variant module uses to give its defaults and rule ids
(:func:`option`, :func:`inherit`).

Level 1 of the engine stack (:mod:`bummerl.rules.table`): imports only :mod:`bummerl.rules.base`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..base.errors import InvalidOptionError

OptionValue = bool | int | str


@dataclass(frozen=True)
class OptionSpec:
    """One table option (docs/RULES.md §0.3, §13.2): fixed per table before the match starts.

    ``type`` is ``"bool"``, ``"int"`` or ``"enum"``; ``allowed`` lists the permitted values of an
    enum or a discrete int (empty for a free int within ``minimum..maximum``); ``rule_ids`` names
    the OPEN item and the rules the option changes.
    """

    name: str
    type: str
    default: OptionValue
    allowed: tuple[OptionValue, ...] = ()
    description: str = ""
    rule_ids: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def __post_init__(self) -> None:
        if self.type not in _PARSERS:
            raise InvalidOptionError(self.name, f"unknown option type {self.type!r}; known: {', '.join(_PARSERS)}")

    def parse(self, value: object) -> OptionValue:
        """Validate ``value`` (a Python value or its wire string, e.g. ``"true"``, ``"4"``).

        Returns the typed value; raises :class:`InvalidOptionError` naming the option.
        """
        return _PARSERS[self.type](self, value)

    def to_dict(self) -> dict[str, Any]:
        """JSON shape used by ListVariants: name, type, default, allowed, description, rule_ids."""
        allowed: list[OptionValue] = list(self.allowed) if self.type != "bool" else [False, True]
        return {
            "name": self.name,
            "type": self.type,
            "default": self.default,
            "allowed": allowed,
            "description": self.description,
            "rule_ids": list(self.rule_ids),
            "minimum": self.minimum,
            "maximum": self.maximum,
        }


def _parse_bool(o: OptionSpec, value: object) -> OptionValue:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "1", "yes", "on"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("false", "0", "no", "off"):
        return False
    raise InvalidOptionError(o.name, f"expected a bool (true/false), got {value!r}")


def _parse_int(o: OptionSpec, value: object) -> OptionValue:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InvalidOptionError(o.name, f"expected an integer, got {value!r}")
    try:
        v = int(value)
    except ValueError:
        raise InvalidOptionError(o.name, f"expected an integer, got {value!r}") from None
    if o.allowed and v not in o.allowed:
        raise InvalidOptionError(o.name, f"{v} is not one of {', '.join(map(str, o.allowed))}")
    if o.minimum is not None and v < o.minimum:
        raise InvalidOptionError(o.name, f"{v} is below the minimum {o.minimum}")
    if o.maximum is not None and v > o.maximum:
        raise InvalidOptionError(o.name, f"{v} is above the maximum {o.maximum}")
    return v


def _parse_enum(o: OptionSpec, value: object) -> OptionValue:
    if not isinstance(value, str) or value not in o.allowed:
        raise InvalidOptionError(o.name, f"{value} is not one of {', '.join(map(str, o.allowed))}")
    return value


#: Option types (``OptionSpec.type``) and their parsers; an OptionSpec of another type fails
#: when it is defined.
_PARSERS: dict[str, Callable[[OptionSpec, object], OptionValue]] = {
    "bool": _parse_bool,
    "int": _parse_int,
    "enum": _parse_enum,
}


def _b(name: str, desc: str) -> OptionSpec:
    return OptionSpec(name, "bool", False, (), desc)


def _e(name: str, allowed: tuple[str, ...], desc: str) -> OptionSpec:
    return OptionSpec(name, "enum", allowed[0], allowed, desc)


def _i(name: str, desc: str, allowed: tuple[int, ...] = (), lo: int | None = None, hi: int | None = None) -> OptionSpec:
    return OptionSpec(name, "int", allowed[0] if allowed else (lo or 0), allowed, desc, (), lo, hi)


#: The option catalogue (docs/RULES.md §13.2) for the two-player trick-and-draw games. Defaults and
#: rule ids are set per variant with :func:`option`.
CATALOGUE: dict[str, OptionSpec] = {
    o.name: o
    for o in (
        _i("deal_mapping_version", "Canonical deal mapping of SRV-1 (only version 1 exists).", (1,)),
        _i("nine_value", "Card points of a 9.", (0, 2)),
        _i("exchange_min_talon", "Smallest talon size (trump card included) at which the trump exchange is allowed.", (2, 4, 6)),
        _b("exchange_before_first_trick", "The non-dealer may exchange at his first lead, before trick 1."),
        _b("exchange_requires_won_trick", "Only a player who has won a trick may exchange."),
        _b("exchange_on_opponent_close", "When the leader closes, the opponent may exchange his low trump at once."),
        _i("close_min_talon", "Smallest talon size (trump card included) at which closing is allowed.", (2, 4, 6)),
        _b("close_before_first_trick", "The non-dealer may close at his first lead, before trick 1."),
        _e("close_timing", ("after_draw", "before_or_after_draw"), "Whether the trick winner may also close before drawing."),
        _e("close_score_basis", ("at_close", "at_end"), "Opponent state that scores a successful close: frozen at closing, or at the end."),
        _e(
            "failed_close_three_if",
            ("never", "opponent_no_trick_at_close", "opponent_no_trick_at_end", "either_no_trick_at_close", "always"),
            "When a failed close gives the opponent 3 game points instead of 2.",
        ),
        _b("non_closer_may_declare", "After a close the non-closer may declare 66 (a correct declaration = failed close)."),
        _e("closed_deal_end", ("closer_threshold", "last_trick"), "Closed deal whose hands run out: closer >= 66 decides, or the last trick."),
        _b("marriage_first_lead_allowed", "A marriage may be announced at the first lead of the deal."),
        _b("marriage_counts_after_first_trick", "Marriage points count only once the announcer has won a trick."),
        _b("marriage_after_talon_closed", "Marriages may be announced after the talon is exhausted or closed."),
        _i("marriages_per_lead", "Marriages that may be announced in one lead turn.", (1, 2)),
        _b("declare_on_marriage", "A leader whose marriage lifts him to 66 may declare without leading a card."),
        _b("auto_declare", "The server declares 66 for a player as soon as he may and has 66."),
        _e(
            "false_declaration_penalty",
            ("reject", "flat2", "two_or_three", "max3", "remaining_possible"),
            "Sanction for declaring 66 without 66 deal points (reject = the declaration is illegal).",
        ),
        _e("undeclared_66_at_end", ("last_trick_wins", "holder_wins"), "Exhausted deal without declaration: last-trick winner wins, or an undeclared 66 does."),
        _e("last_trick_win_points", ("fixed1", "by_table"), "Game points of a deal won by the last trick."),
        _i("schneider_threshold", "Loser's deal points below which the winner scores 2 game points.", lo=1, hi=66),
        _b("schneider_threshold_includes_marriages", "The loser's counted marriages count toward the Schneider threshold."),
        _b("draw_carry_point", "A deal drawn with both players over 65 carries 1 game point to the next deal's winner."),
        _b("may_view_own_tricks", "A player may look at his own won tricks (own won cards and points in his information set)."),
        _e("dealer_rotation", ("alternate", "winner_deals", "loser_deals", "clockwise"), "Who deals the next deal."),
        _i("match_target", "Game points that win the match (or one Bummerl / set).", lo=1, hi=1000),
        _i("bummerls_to_win", "Bummerls that win the match.", lo=1, hi=100),
        _i("schneider_bummerl_value", "Bummerls counted for a Bummerl won with the loser at 0 game points.", lo=1, hi=10),
        _e("match_format", ("sets", "points"), "Two won sevens (sets) or a fixed target of game points (points)."),
        _i("set_target", "Game points that win a set.", lo=1, hi=1000),
        _i("sets_to_win", "Sets that win the match.", lo=1, hi=100),
    )
}


def add_options(*specs: OptionSpec) -> None:
    """Add options of the three- and four-player games to :data:`CATALOGUE` (at import of their
    module, before any table is configured). Every configured :class:`Rules` then has each as an
    attribute. Several games may add the same option (e.g. ``max_kontra_level`` of §9-§12): a
    second definition of the same type merges into the first (its ``allowed`` values are added,
    the first one's default, description and bounds stay); a name that exists with another type
    raises ValueError."""
    for o in specs:
        old = CATALOGUE.get(o.name)
        if old is not None and old != o:
            if old.type != o.type:
                raise ValueError(f"option {o.name!r} is already defined with type {old.type!r}")
            extra = tuple(v for v in o.allowed if v not in old.allowed)
            if extra and old.allowed:
                CATALOGUE[o.name] = replace(old, allowed=old.allowed + extra)
            continue
        CATALOGUE[o.name] = o


@dataclass(frozen=True)
class Inherited:
    """An option :meth:`VariantSpec.derive` keeps from the parent variant: its type, allowed
    values and rule ids stay, ``rule_ids`` are appended (the child's rules that restate it, e.g.
    OBI-INH-1), and ``default`` replaces the parent's default unless None. Made by :func:`inherit`."""

    rule_ids: tuple[str, ...] = ()
    default: OptionValue | None = None


def inherit(*rule_ids: str, default: OptionValue | None = None) -> Inherited:
    """Keep the parent's option in :meth:`VariantSpec.derive`, also citing ``rule_ids``
    (``inherit("OBI-EXCH-1")``), optionally with a new ``default``."""
    return Inherited(rule_ids, default)


def option(name: str, default: OptionValue, *rule_ids: str, allowed: tuple[OptionValue, ...] | None = None) -> OptionSpec:
    """A catalogue option with this variant's default and the rule ids it affects."""
    base = CATALOGUE[name]
    spec = replace(base, default=default, rule_ids=rule_ids)
    if allowed is not None:
        spec = replace(spec, allowed=allowed)
    spec.parse(default)  # a bad default is a programming error: fail at import
    return spec
