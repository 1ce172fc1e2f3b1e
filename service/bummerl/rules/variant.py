"""Variants as data: :class:`VariantSpec` (declarative facts + option specs + small hooks),
the option catalogue of docs/RULES.md §13.2, the configured :class:`Rules` of one table, and the
registry with aliases (:func:`find_variant`, OPEN-GEN-1).

A variant module in :mod:`bummerl.rules.variants` builds one ``VariantSpec`` and calls
:func:`register`. The shared engine reads only ``Rules`` attributes: there is no
``if variant == ...`` anywhere in the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from . import actions as A
from . import cards as K
from .behaviour import Behaviour, resolve
from .errors import InvalidOptionError, UnknownVariantError

if TYPE_CHECKING:
    from .deal import DealOutcome
    from .state import DealState

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


MatchFormat = Callable[["Rules"], tuple[int, int, int]]


def default_match_format(r: Rules) -> tuple[int, int, int]:
    """(set_target, sets_to_win, schneider_set_value): one "set" of ``match_target`` game points,
    or several Bummerls when the variant has ``bummerls_to_win`` (AT-MATCH-2)."""
    return (
        int(r.options["match_target"]),
        int(r.options.get("bummerls_to_win", 1)),
        int(r.options.get("schneider_bummerl_value", 1)),
    )


@dataclass(frozen=True)
class TalonRules:
    """The facts of a two-player trick-and-draw deal (§1.5-§1.7) that are not options:
    ``exchange_rank`` (the low trump's rank, DEF-TAL-4), ``last_trick_bonus`` (O66-END-1),
    ``played_out`` (who wins a deal whose talon ran out without a declaration) and whether a
    closer's false declaration is a failed close (AT-DECL-3) or a plain false declaration
    (HU2-DECL-2)."""

    exchange_rank: int
    last_trick_bonus: int
    played_out: Callable[[DealState], DealOutcome]
    closer_false_declaration_is_failed_close: bool


@dataclass(frozen=True)
class VariantSpec:
    """Declarative facts of one variant (docs/RULES.md section ``section``) plus its hooks.

    Deal pattern (SRV-1): each int is a batch dealt to every player in turn, non-dealer first;
    ``"T"`` turns up the trump card (the next undealt card); contract deals deal themselves and
    leave it empty. ``talon`` holds the trick-and-draw facts (two-player deals, also of the
    rotation games); contract games have none. ``deal_class`` builds a deal (default: the
    two-player :class:`~bummerl.rules.state.DealState`); ``plan`` decides pairings, credits and
    the end of the match (:mod:`bummerl.rules.plan`; default: the two-player Bummerl).
    ``teams``: team id per seat (``()`` = each seat its own team). ``action_kinds``: the action
    kinds this variant offers (:data:`bummerl.rules.actions.KINDS`).
    """

    id: str
    name: str
    section: str
    rule_prefix: str
    description: str
    ranks: int
    options: tuple[OptionSpec, ...]
    deal_pattern: tuple[int | str, ...] = ()
    talon: TalonRules | None = None
    direction: str = "up"
    aliases: tuple[str, ...] = ()
    num_players: int = 2
    teams: tuple[int, ...] = ()
    local_names: str = "en"
    match_format: MatchFormat = default_match_format
    action_kinds: frozenset[str] = A.TALON_KINDS
    deal_class: Any = None
    plan: Any = None

    def __post_init__(self) -> None:
        """Check the deal pattern when the variant is defined (SRV-1), so that dealing never meets
        an entry it cannot read. Raises ValueError."""
        bad = [b for b in self.deal_pattern if not (b == "T" or (isinstance(b, int) and not isinstance(b, bool) and b > 0))]
        if bad or list(self.deal_pattern).count("T") > 1:
            raise ValueError(f"variant {self.id}: deal_pattern entries are positive batch sizes and at most one "
                             f"'T', got {list(self.deal_pattern)}")

    def derive(self, **changes: Any) -> VariantSpec:
        """A variant that inherits this one's rules (STK-INH-1, HU3R-INH-1, TS-INH-1): the same
        spec with ``changes``; an ``options`` change given as a dict updates this variant's
        option defaults by name (``{"match_target": 7}``), keeps an option citing more rule ids
        when given :func:`inherit` (``inherit("OBI-EXCH-1", default=9)``), adds or replaces an
        option given as an :class:`OptionSpec`, and removes one mapped to None (a rule the child
        does not inherit, e.g. AT-MATCH-2's Bummerls in Stockschnapsen). Options keep the parent's
        order; new ones follow. Raises KeyError for an unknown name, InvalidOptionError for a bad
        default."""
        opts = changes.pop("options", None)
        if isinstance(opts, dict):
            merged = {o.name: o for o in self.options}
            for name, value in opts.items():
                if value is None:
                    del merged[name]
                elif isinstance(value, OptionSpec):
                    merged[name] = value
                elif isinstance(value, Inherited):
                    spec = merged[name]
                    ids = spec.rule_ids + tuple(i for i in value.rule_ids if i not in spec.rule_ids)
                    default = spec.default if value.default is None else spec.parse(value.default)
                    merged[name] = replace(spec, rule_ids=ids, default=default)
                else:
                    spec = merged[name]
                    spec.parse(value)
                    merged[name] = replace(spec, default=value)
            changes["options"] = tuple(merged.values())
        elif opts is not None:
            changes["options"] = opts
        return replace(self, **changes)

    @property
    def team_of_seat(self) -> tuple[int, ...]:
        """Team id per seat: :attr:`teams`, or each seat its own team."""
        return self.teams or tuple(range(self.num_players))

    @property
    def hand_size(self) -> int:
        """Cards dealt to each player, from the deal pattern (e.g. (3, "T", 2) -> 5)."""
        return sum(b for b in self.deal_pattern if isinstance(b, int))

    @property
    def deck(self) -> tuple[int, ...]:
        return K.deck_cards(self.ranks)

    def option_spec(self, name: str) -> OptionSpec:
        for o in self.options:
            if o.name == name:
                return o
        raise InvalidOptionError(name, f"unknown option for variant {self.id!r}; known: {', '.join(sorted(o.name for o in self.options))}")

    def configure(self, options: Mapping[str, object] | None = None) -> Rules:
        """The :class:`Rules` of a table: defaults overridden by ``options`` (values or wire strings).

        Raises :class:`InvalidOptionError` naming an unknown option or a bad value.
        """
        values: dict[str, OptionValue] = {o.name: o.default for o in self.options}
        for name, value in (options or {}).items():
            values[name] = self.option_spec(name).parse(value)
        return Rules(self, values)

    def to_dict(self) -> dict[str, Any]:
        """JSON shape for ListVariants (id, aliases, name, players, deck with local names, options)."""
        langs = ("en", "de", "hu", "hr", "bg")
        return {
            "id": self.id,
            "aliases": list(self.aliases),
            "name": self.name,
            "num_players": self.num_players,
            "description": self.description,
            "section": self.section,
            "deck": [
                {
                    "id": c,
                    "code": K.card_code(c),
                    "suit": K.SUITS[c // 6],
                    "rank": K.RANKS[c % 6],
                    "points": K.RANK_POINTS[c % 6],
                    "local_names": {lang: K.local_name(c, lang) for lang in langs},
                }
                for c in self.deck
            ],
            "options": [o.to_dict() for o in self.options],
        }


def _no_talon(d: DealState) -> DealOutcome:
    raise TypeError("this variant has no two-player trick-and-draw deal")


#: ``Rules.talon`` of a contract game: reading it is a programming error.
_NO_TALON = TalonRules(-1, 0, _no_talon, False)


class Rules:
    """One table's configured variant: the spec, the option values, and derived hot-path facts.

    Every option value is also an attribute (``rules.close_min_talon``). ``behaviour`` holds what
    the engine does for each enum option value (:mod:`bummerl.rules.behaviour`), looked up here
    so that a value without a behaviour fails at configure time. Immutable by convention.
    """

    spec: VariantSpec
    options: dict[str, OptionValue]
    behaviour: Behaviour
    talon: TalonRules
    deck: tuple[int, ...]
    points: tuple[int, ...]
    set_goal: int
    sets_goal: int
    set_schneider_value: int
    deal_mapping_version: int
    nine_value: int
    exchange_min_talon: int
    exchange_before_first_trick: bool
    exchange_requires_won_trick: bool
    exchange_on_opponent_close: bool
    close_min_talon: int
    close_before_first_trick: bool
    close_timing: str
    close_score_basis: str
    failed_close_three_if: str
    non_closer_may_declare: bool
    closed_deal_end: str
    marriage_first_lead_allowed: bool
    marriage_counts_after_first_trick: bool
    marriage_after_talon_closed: bool
    marriages_per_lead: int
    declare_on_marriage: bool
    auto_declare: bool
    false_declaration_penalty: str
    undeclared_66_at_end: str
    last_trick_win_points: str
    schneider_threshold: int
    schneider_threshold_includes_marriages: bool
    draw_carry_point: bool
    may_view_own_tricks: bool
    dealer_rotation: str
    match_target: int
    bummerls_to_win: int
    schneider_bummerl_value: int
    match_format: str
    set_target: int
    sets_to_win: int

    def __init__(self, spec: VariantSpec, options: dict[str, OptionValue]) -> None:
        """Raises :class:`InvalidOptionError` if an enum option has a value the engine does not
        implement (:func:`bummerl.rules.behaviour.resolve`)."""
        self.spec = spec
        self.options = dict(options)
        values = {o.name: options.get(o.name, o.default) for o in CATALOGUE.values()}
        values.update(options)
        for name, value in values.items():
            setattr(self, name, value)
        self.behaviour = resolve(values)
        self.deck = spec.deck
        self.talon = spec.talon or _NO_TALON
        nine = int(options.get("nine_value", 0))
        self.points = tuple(
            (nine if c % 6 == K.NINE else K.RANK_POINTS[c % 6]) for c in range(K.NUM_CARDS)
        )
        self.set_goal, self.sets_goal, self.set_schneider_value = spec.match_format(self)

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.options.items() if v != self.spec.option_spec(k).default}
        return f"find_variant({self.spec.id!r}).configure({changed!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and other.spec.id == self.spec.id and other.options == self.options

    def __hash__(self) -> int:
        return hash((self.spec.id, tuple(sorted(self.options.items()))))


_REGISTRY: dict[str, VariantSpec] = {}
_ALIASES: dict[str, str] = {}


def register(spec: VariantSpec) -> VariantSpec:
    """Add a variant to the registry (idempotent for the same id)."""
    _REGISTRY[spec.id] = spec
    for a in spec.aliases:
        _ALIASES[a] = spec.id
    return spec


def find_variant(name: str) -> VariantSpec:
    """The variant with this id or alias (``"sixty-six"`` -> ``snaps-original66``, OPEN-GEN-1).

    Raises :class:`UnknownVariantError` listing the known ids, each with its aliases, e.g.
    ``snaps-original66 (or sixty-six, ...)``.
    """
    from . import variants  # noqa: F401  (registers the built-in variants)

    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    try:
        return _REGISTRY[key]
    except KeyError:
        known = ", ".join(v.id + (f" (or {', '.join(v.aliases)})" if v.aliases else "")
                          for v in sorted(_REGISTRY.values(), key=lambda v: v.id))
        raise UnknownVariantError(f"unknown variant {name!r}; known: {known}") from None


_CONFIGURED: dict[tuple[str, tuple[tuple[str, OptionValue], ...]], Rules] = {}


def configure_cached(variant: str, options: Mapping[str, object]) -> Rules:
    """``find_variant(variant).configure(options)``, memoised (Rules are immutable); at most a
    few thousand distinct tables are kept."""
    key = (variant, tuple(sorted((k, v) for k, v in options.items() if isinstance(v, bool | int | str))))
    rules = _CONFIGURED.get(key)
    if rules is None:
        rules = find_variant(variant).configure(options)
        if len(_CONFIGURED) < 4096:
            _CONFIGURED[key] = rules
    return rules


def list_variants() -> list[VariantSpec]:
    """Every registered variant, by id."""
    from . import variants  # noqa: F401

    return [_REGISTRY[k] for k in sorted(_REGISTRY)]
