"""Variants as data: :class:`VariantSpec` (declarative facts + option specs + small hooks), the
configured :class:`Rules` of one table, and the registry with aliases (:func:`find_variant`,
OPEN-GEN-1); the options themselves are in :mod:`bummerl.rules.table.options`.

A variant module in :mod:`bummerl.rules.variants` builds one ``VariantSpec`` and calls
:func:`register`; the registry is filled when :mod:`bummerl.rules` (the facade) is imported, which
imports every built-in variant. The shared engine reads only ``Rules`` attributes: there is no
``if variant == ...`` anywhere in the engine.

Level 1 of the engine stack (:mod:`bummerl.rules.table`): imports only :mod:`bummerl.rules.base`
and this level.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..base import actions as A
from ..base import cards as K
from ..base.errors import InvalidOptionError, UnknownVariantError
from .behaviour import Behaviour, resolve, validate
from .facts import TalonFacts
from .options import Catalogue, Inherited, OptionSpec, OptionValue
from .outcome import DealOutcome

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
    played_out: Callable[[TalonFacts], DealOutcome]
    closer_false_declaration_is_failed_close: bool


@dataclass(frozen=True)
class VariantSpec:
    """Declarative facts of one variant (docs/RULES.md section ``section``) plus its hooks.

    Deal pattern (SRV-1): each int is a batch dealt to every player in turn, non-dealer first;
    ``"T"`` turns up the trump card (the next undealt card); contract deals deal themselves and
    leave it empty. ``talon`` holds the trick-and-draw facts (two-player deals, also of the
    rotation games); contract games have none. ``deal_class`` builds a deal (the two-player
    :class:`~bummerl.rules.deals.talon.TalonDeal` or a contract deal class of
    :mod:`bummerl.rules.deals`); ``plan`` decides pairings, credits and the end of the match
    (a :class:`~bummerl.rules.table.protocols.MatchPlan` of :mod:`bummerl.rules.match.plans`).
    Both are set by the variant module (the levels above this one).
    ``teams``: team id per seat (``()`` = each seat its own team). ``action_kinds``: the action
    kinds this variant offers (:data:`bummerl.rules.base.actions.KINDS`).
    ``catalogue``: the option catalogue of the variant's deal skeleton
    (:mod:`bummerl.rules.table.options`: ``TALON``, ``TALON_ROTATION``, ``AT_CONTRACT``,
    ``HU_CONTRACT``); ``options`` are taken from it (its :meth:`~Catalogue.option`), in the order
    the variant lists them (ListVariants), and a configured :class:`Rules` has exactly its options
    as attributes.
    """

    id: str
    name: str
    section: str
    rule_prefix: str
    description: str
    ranks: int
    options: tuple[OptionSpec, ...]
    catalogue: Catalogue
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
        an entry it cannot read, and that every option is one of its catalogue's, of the same type.
        Raises ValueError."""
        bad = [b for b in self.deal_pattern if not (b == "T" or (isinstance(b, int) and not isinstance(b, bool) and b > 0))]
        if bad or list(self.deal_pattern).count("T") > 1:
            raise ValueError(f"variant {self.id}: deal_pattern entries are positive batch sizes and at most one "
                             f"'T', got {list(self.deal_pattern)}")
        foreign = [o.name for o in self.options
                   if o.name not in self.catalogue or self.catalogue[o.name].type != o.type]
        if foreign:
            raise ValueError(f"variant {self.id}: options {foreign} are not in its catalogue {self.catalogue.name!r}")

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
        """JSON shape for ListVariants (id, aliases, name, players, deck with local names, options,
        ``card_language``: the key of the local names the variant's players use)."""
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
            "card_language": self.local_names,
        }


def _no_talon(d: TalonFacts) -> DealOutcome:
    raise TypeError("this variant has no two-player trick-and-draw deal")


#: ``Rules.talon`` of a contract game: reading it is a programming error.
_NO_TALON = TalonRules(-1, 0, _no_talon, False)


class Rules:
    """One table's configured variant: the spec, the option values, and derived hot-path facts.

    Every option of the variant's catalogue (``spec.catalogue``) is also an attribute
    (``rules.close_min_talon``): the table's value, or the catalogue default for an option the
    variant does not list (e.g. ``dealer_rotation`` in Stockschnapsen). An option of another
    catalogue is no attribute (a contract table has no ``close_min_talon``). ``options`` holds the
    variant's own options only. ``behaviour`` holds what the engine does for each enum option
    value (:mod:`bummerl.rules.table.behaviour`), looked up here so that a value without a
    behaviour fails at configure time (:data:`~bummerl.rules.table.behaviour.NO_BEHAVIOUR` for a
    contract game, whose deals read their options themselves). Immutable by convention.
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
        """Raises :class:`InvalidOptionError` naming an option that is not in the variant's
        catalogue, or an enum option whose value the engine does not implement
        (:func:`bummerl.rules.table.behaviour.resolve`)."""
        self.spec = spec
        self.options = dict(options)
        catalogue = spec.catalogue
        for name in options:
            catalogue.spec(name)
        values = {name: options.get(name, o.default) for name, o in catalogue.items()}
        for name, value in values.items():
            setattr(self, name, value)
        self.behaviour = resolve(values) if spec.talon is not None else validate(values)
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
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    try:
        return _REGISTRY[key]
    except KeyError:
        known = ", ".join(v.id + (f" (or {', '.join(v.aliases)})" if v.aliases else "")
                          for v in sorted(_REGISTRY.values(), key=lambda v: v.id))
        what = f"unknown variant {name!r}" if name else "variant is required"
        raise UnknownVariantError(f"{what}; known: {known}") from None


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
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]
