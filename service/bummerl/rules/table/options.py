"""Table options (docs/RULES.md §0.3, §13.2): :class:`OptionSpec`, one frozen :class:`Catalogue`
per deal skeleton, composed from shared parts, and the helpers a variant module uses to give its
defaults and rule ids (:meth:`Catalogue.option`, :func:`inherit`).

Catalogues (each a mapping name -> :class:`OptionSpec`; a variant names its own in
:attr:`~bummerl.rules.table.variant.VariantSpec.catalogue`)::

    TALON           DEAL + TALON_DEAL + MATCH + SETS        schnapsen-at, original66, santase, obican, hu-2p
    TALON_ROTATION  DEAL + TALON_DEAL + MATCH + ROTATION    stockschnapsen, snapszer-hu-3p-rotation
    AT_CONTRACT     DEAL + MATCH + CONTRACT + AT_CONTRACT    bauernschnapsen, talonschnapsen
    HU_CONTRACT     DEAL + MATCH + CONTRACT + HU_CONTRACT    snapszer-hu-3p-sopron, snapszer-hu-4p

:func:`all_options` is their union. Nothing here changes after import.

Level 1 of the engine stack (:mod:`bummerl.rules.table`): imports only :mod:`bummerl.rules.base`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
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


# --------------------------------------------------------------------------- the shared parts
# Each part is a tuple of options; a catalogue is the parts its deal skeleton plays with. Every
# option is defined once, here: the parts share the objects, so a name means the same option (type,
# allowed values, catalogue default) at every table that has it.

#: Options of every deal (the talon deal's and the contract deals'): dealing, marriages,
#: declarations and the end of a deal (§1.5-§1.8).
DEAL_OPTIONS: tuple[OptionSpec, ...] = (
    _i("deal_mapping_version", "Canonical deal mapping of SRV-1 (only version 1 exists).", (1,)),
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
    _b("may_view_own_tricks", "A player may look at his own won tricks (own won cards and points in his information set)."),
)

#: Options of the two-player trick-and-draw deal only (§1.5-§1.7): the 9's value, the trump
#: exchange, closing, marriages around the talon, drawn deals.
TALON_DEAL_OPTIONS: tuple[OptionSpec, ...] = (
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
    _b("draw_carry_point", "A deal drawn with both players over 65 carries 1 game point to the next deal's winner."),
)

#: Options of every match: who deals next, and the target.
MATCH_OPTIONS: tuple[OptionSpec, ...] = (
    _e("dealer_rotation", ("alternate", "winner_deals", "loser_deals", "clockwise"), "Who deals the next deal."),
    _i("match_target", "Game points that win the match (or one Bummerl / set).", lo=1, hi=1000),
)

#: The two-player match formats: Bummerls (AT-MATCH-2) or sets (HU2-MATCH-1).
SETS_OPTIONS: tuple[OptionSpec, ...] = (
    _i("bummerls_to_win", "Bummerls that win the match.", lo=1, hi=100),
    _i("schneider_bummerl_value", "Bummerls counted for a Bummerl won with the loser at 0 game points.", lo=1, hi=10),
    _e("match_format", ("sets", "points"), "Two won sevens (sets) or a fixed target of game points (points)."),
    _i("set_target", "Game points that win a set.", lo=1, hi=1000),
    _i("sets_to_win", "Sets that win the match.", lo=1, hi=100),
)

#: The three-player rotation of two-player deals (§7 Stockschnapsen, §8 the Hungarian rotation).
ROTATION_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "rotation", "enum", "cyclic", ("cyclic", "loser_sits_out", "winner_stays"),
        "Who sits out the next deal: fixed clockwise cycle, or the loser of the deal (the winner stays).",
    ),
    OptionSpec(
        "pair_dealer", "enum", "first_listed", ("first_listed", "alternate_per_pair"),
        "Who deals within a pairing of the rotation: its first-listed player, or alternately each time the pair meets.",
    ),
)

#: Options of the contract skeleton shared by the games of §9-§12 (§1.8); ``void_must_trump`` and
#: ``must_head_over_partner`` are read by its trick play (OPEN-GEN-3).
CONTRACT_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("must_head_over_partner", "bool", True, (),
               "A follower must head the trick (or over-trump) even when his partner's card is winning it (OPEN-GEN-3)."),
    OptionSpec("void_must_trump", "enum", "always", ("always", "only_if_winning"),
               "A player void in the suit led must trump even if his trump cannot win (always), or only if it wins "
               "(only_if_winning) (OPEN-GEN-3)."),
    OptionSpec("max_kontra_level", "int", 1, (0, 1, 2, 3, 4),
               "Highest multiplier call: 0 none, 1 Kontra x2, 2 Rekontra x4, 3 Subkontra x8, 4 Mordkontra x16."),
    OptionSpec("trump_must_be_held", "bool", True, (),
               "The trump namer must name a suit of which he holds a card (OPEN-BS-3, OPEN-HU3S-7)."),
    OptionSpec("talon_discards_count_for", "enum", "declarer", ("declarer", "owner", "nobody", "defenders"),
               "Whose trick points the laid-away cards add to (OPEN-TS-2, OPEN-HU3S-1)."),
    OptionSpec("defender_contract_first_lead", "enum", "hivo", ("hivo", "announcer"),
               "Who leads the first trick of a fogadó player's contract (OPEN-HU3S-4)."),
    OptionSpec("auto_end_decided_contract", "bool", True, (),
               "A fixed-value contract ends as soon as its result is certain, instead of being played out (SRV-3, "
               "OPEN-GEN-4 d)."),
)

#: Options of the Austrian contract deals only (§9.7, §10).
AT_CONTRACT_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("auction_pass_is_final", "bool", True, (),
               "A player who passed ('weiter') may not call later in the same auction (OPEN-BS-1)."),
    OptionSpec("play_out_certain_contracts", "bool", False, (),
               "Farbenring and Herrenschnapser are played out instead of being settled at once (OPEN-BS-4)."),
    OptionSpec("enable_bettler", "bool", True, (), "The Bettler may be called (OPEN-BS-11)."),
    OptionSpec("enable_zehnerloch", "bool", True, (), "The Zehnerloch may be called (OPEN-BS-11)."),
)

#: Options of the Hungarian contract deals only (§11, §12).
HU_CONTRACT_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("trump_always_hearts", "bool", False, (), "Hearts (piros) is always trump; nobody names it.",
               ("OPEN-HU3S-7", "OPEN-HU4-1")),
    OptionSpec("four_jacks_ends_deal", "bool", True, (),
               "4 alsó ends the deal at once (else the 13 are credited and the deal is played).", ("OPEN-HU3S-6",)),
    OptionSpec("kilences_partner_tricks_allowed", "bool", True, (),
               "In kilences, tricks won by the announcer's partner do not defeat it.", ("OPEN-HU4-3",)),
)


class Catalogue(Mapping[str, OptionSpec]):
    """The frozen option catalogue of one deal skeleton (docs/RULES.md §13.2): option name ->
    :class:`OptionSpec`, in the order of its parts. Built once from shared parts
    (``Catalogue("talon", DEAL_OPTIONS, TALON_DEAL_OPTIONS, ...)``); it cannot be changed after.

    A :class:`~bummerl.rules.table.variant.VariantSpec` names its skeleton's catalogue: its options
    come from it (:meth:`option`), and its configured ``Rules`` has exactly the catalogue's
    options as attributes (an option the variant does not list keeps the catalogue default).
    Two catalogues are equal when they have the same name and options.
    """

    __slots__ = ("name", "_specs")

    name: str
    _specs: MappingProxyType[str, OptionSpec]

    def __init__(self, name: str, *parts: tuple[OptionSpec, ...]) -> None:
        """Raises ValueError if two parts define one name differently."""
        specs: dict[str, OptionSpec] = {}
        for part in parts:
            for o in part:
                if specs.get(o.name, o) != o:
                    raise ValueError(f"catalogue {name!r}: option {o.name!r} is defined twice, differently")
                specs[o.name] = o
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "_specs", MappingProxyType(specs))

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError(f"catalogue {self.name!r} is frozen")

    def __getitem__(self, name: str) -> OptionSpec:
        return self._specs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Catalogue) and other.name == self.name and dict(other._specs) == dict(self._specs)

    def __hash__(self) -> int:
        return hash((self.name, tuple(self._specs.values())))

    def __repr__(self) -> str:
        return f"<Catalogue {self.name!r}: {len(self._specs)} options>"

    def __reduce__(self) -> tuple[type[Catalogue], tuple[str, tuple[OptionSpec, ...]]]:
        """Pickles (a spec or table sent to a worker process) rebuild it from its options."""
        return (Catalogue, (self.name, tuple(self._specs.values())))

    def spec(self, name: str) -> OptionSpec:
        """The option ``name``; raises :class:`InvalidOptionError` naming it if this catalogue
        has no such option."""
        try:
            return self._specs[name]
        except KeyError:
            raise InvalidOptionError(
                name, f"not an option of the {self.name!r} catalogue; known: {', '.join(sorted(self._specs))}"
            ) from None

    def option(self, name: str, default: OptionValue, *rule_ids: str,
               allowed: tuple[OptionValue, ...] | None = None) -> OptionSpec:
        """This catalogue's option ``name`` with a variant's ``default`` and the rule ids it
        affects (``TALON.option("nine_value", 0, "OPEN-O66-1")``), optionally narrowing its
        ``allowed`` values. Raises :class:`InvalidOptionError` for a name outside the catalogue
        or a bad default (a programming error: it fails when the variant module is imported)."""
        spec = replace(self.spec(name), default=default, rule_ids=rule_ids)
        if allowed is not None:
            spec = replace(spec, allowed=allowed)
        spec.parse(default)
        return spec


#: The two-player trick-and-draw games (§2-§6): a talon deal, Bummerls or sets.
TALON = Catalogue("talon", DEAL_OPTIONS, TALON_DEAL_OPTIONS, MATCH_OPTIONS, SETS_OPTIONS)
#: Two-player talon deals in a three-player rotation (§7 Stockschnapsen, §8): no Bummerls or sets.
TALON_ROTATION = Catalogue("talon-rotation", DEAL_OPTIONS, TALON_DEAL_OPTIONS, MATCH_OPTIONS, ROTATION_OPTIONS)
#: The Austrian contract deals (§9 Bauernschnapsen, §10 Talonschnapsen).
AT_CONTRACT = Catalogue("at-contract", DEAL_OPTIONS, MATCH_OPTIONS, CONTRACT_OPTIONS, AT_CONTRACT_OPTIONS)
#: The Hungarian contract deals (§11 the soproni game, §12 four players).
HU_CONTRACT = Catalogue("hu-contract", DEAL_OPTIONS, MATCH_OPTIONS, CONTRACT_OPTIONS, HU_CONTRACT_OPTIONS)
#: Every catalogue, by name.
CATALOGUES: Mapping[str, Catalogue] = MappingProxyType({c.name: c for c in (TALON, TALON_ROTATION, AT_CONTRACT, HU_CONTRACT)})
_ALL = Catalogue("all", *(tuple(c.values()) for c in CATALOGUES.values()))


def all_options() -> Catalogue:
    """The union of every catalogue (one spec per name: the catalogues share their definitions),
    for tools that list the options of all variants at once (the OpenSpiel game's parameters)."""
    return _ALL


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

