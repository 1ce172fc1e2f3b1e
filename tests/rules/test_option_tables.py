"""Option behaviour tables (:mod:`bummerl.rules.table.behaviour`, RULES.md §0.3 and §13.2: options are
per-table settings fixed before the match starts).

Every value an option may take has a row in its table, and a value without a row fails when the
variant is configured (InvalidOptionError naming the option), never later in the middle of a
deal. The scenario tests in the variant modules check what each row does.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bummerl.rules import InvalidOptionError, OptionSpec, Rules, VariantSpec, find_variant, list_variants
from bummerl.rules.deals import contract as CT
from bummerl.rules.match import plans as P
from bummerl.rules.table import behaviour as B
from bummerl.rules.table.options import all_options, inherit
from bummerl.rules.variants.snapszer_hu2 import MATCH_FORMATS

#: Each table with the OPEN item / rules that define its values.
TABLED = {
    "false_declaration_penalty": "OPEN-AT-6",
    "failed_close_three_if": "OPEN-SAN-3",
    "close_score_basis": "OPEN-AT-4",
    "close_timing": "OPEN-AT-3",
    "closed_deal_end": "OPEN-OBI-5",
    "last_trick_win_points": "OPEN-AT-5",
    "undeclared_66_at_end": "OPEN-AT-5",
    "dealer_rotation": "OPEN-AT-8",
}
TABLES = {**B.TABLES, "match_format": MATCH_FORMATS, **P.TABLES, **CT.TABLES}
VARIANTS = [s.id for s in list_variants()]
#: Every option of every variant (the union of the catalogues).
CATALOGUE = all_options()


def with_option(variant: str, name: str, allowed: tuple[str, ...]) -> VariantSpec:
    """``variant`` whose option ``name`` also allows the values ``allowed`` (as a variant author
    might add them to the catalogue before teaching the engine what they mean)."""
    spec = find_variant(variant)
    base = spec.option_spec(name)
    opts = tuple(o for o in spec.options if o.name != name) + (
        spec.catalogue.option(name, base.default, *base.rule_ids, allowed=(*base.allowed, *allowed)),
    )
    return replace(spec, id=f"{variant}-test", options=opts)


def test_every_enum_option_the_engine_reads_has_a_table() -> None:
    """§13.2: the tables cover exactly the catalogue's values of every enum option with behaviour."""
    assert set(B.TABLES) == set(TABLED)
    for name, table in TABLES.items():
        assert CATALOGUE[name].type == "enum"
        assert set(table) == set(CATALOGUE[name].allowed), name
    untabled = {n for n, o in CATALOGUE.items() if o.type == "enum"} - set(TABLES)
    assert not untabled, f"enum options without a behaviour table: {untabled}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_allowed_value_of_every_variant_configures(variant: str) -> None:
    """§13.2: every value a variant offers for a tabled option configures (no configure-time
    failure for a legitimate table) and gets its own row."""
    spec = find_variant(variant)
    for o in spec.options:
        if o.name in TABLES:
            for v in o.allowed:
                r = spec.configure({o.name: v})
                assert getattr(r, o.name) == v
    r = spec.configure()
    if spec.talon is None:  # a contract game: its deals read their options themselves
        assert r.behaviour is B.NO_BEHAVIOUR
    else:
        assert r.behaviour == B.resolve({n: getattr(r, n) for n in spec.catalogue})


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", sorted(TABLED), ids=lambda n: f"{TABLED[n]}-{n}")
def test_unknown_value_fails_at_configure_not_at_play(variant: str, name: str) -> None:
    """OPEN-AT-3..8, OPEN-SAN-3, OPEN-OBI-5 (the options of ``TABLED``): a value the engine has no
    row for raises InvalidOptionError naming the option when the table is configured, even if
    the variant's option spec lets it through; before, the string if-chains fell through to
    their last case (e.g. an unknown penalty scored like ``two_or_three``, an unknown
    ``failed_close_three_if`` like ``never``, an unknown rotation like ``loser_deals``)."""
    spec = with_option(variant, name, ("surprise",)) if name in {o.name for o in find_variant(variant).options} else None
    if spec is not None:
        assert spec.option_spec(name).parse("surprise") == "surprise"  # the spec accepts it
        with pytest.raises(InvalidOptionError) as e:
            spec.configure({name: "surprise"})
        assert e.value.option == name and "surprise" in str(e.value) and "not implemented" in str(e.value)
    # the same through Rules directly (no option spec in the way), for every option of the catalogue
    good = find_variant(variant).configure()
    with pytest.raises(InvalidOptionError) as e:
        Rules(good.spec, {**good.options, name: "surprise"})
    assert e.value.option == name


def test_OPEN_HU2_1_unknown_match_format_fails_at_configure() -> None:
    """OPEN-HU2-1, HU2-MATCH-1: ``match_format`` picks the set/points formula by table."""
    spec = with_option("snapszer-hu-2p", "match_format", ("best_of_five",))
    with pytest.raises(InvalidOptionError) as e:
        spec.configure({"match_format": "best_of_five"})
    assert e.value.option == "match_format"
    assert spec.configure({"match_format": "points"}).set_goal == 33
    assert spec.configure().set_goal == 7


def test_unknown_value_error_lists_the_implemented_values() -> None:
    with pytest.raises(InvalidOptionError, match="implemented: reject, flat2, two_or_three, max3, remaining_possible"):
        B.pick("false_declaration_penalty", "half", B.FALSE_DECLARATION_PENALTY)
    with pytest.raises(InvalidOptionError):
        B.pick("close_timing", ["unhashable"], B.CLOSE_TIMING)


def test_option_type_without_parser_fails_when_defined() -> None:
    """§0.3: an option spec of a type the engine cannot parse (before: treated as an enum)."""
    with pytest.raises(InvalidOptionError) as e:
        OptionSpec("ratio", "float", 0.5)  # type: ignore[arg-type]
    assert e.value.option == "ratio"
    assert OptionSpec("x", "enum", "a", ("a", "b")).parse("b") == "b"


# --------------------------------------------------------------------------- the rows themselves
@pytest.mark.parametrize("dealer, winner, rotation, expected", [
    (0, 1, "alternate", 1), (1, 1, "alternate", 0), (0, -1, "alternate", 1),
    (0, 1, "clockwise", 1),
    (0, 1, "winner_deals", 1), (1, 0, "winner_deals", 0), (1, -1, "winner_deals", 1),
    (0, 1, "loser_deals", 0), (1, 1, "loser_deals", 0), (0, -1, "loser_deals", 0),
])
def test_OPEN_AT_8_OPEN_O66_3_dealer_rotation_rows(dealer: int, winner: int, rotation: str, expected: int) -> None:
    """AT-DEAL-2 / OPEN-AT-8 (alternate), OPEN-O66-3 / SAN-DEAL-2 (winner deals, the same dealer
    after a drawn deal), ``loser_deals``; ``clockwise`` is ``alternate`` with two seats."""
    assert B.DEALER_ROTATION[rotation](dealer, winner) == expected


def test_OPEN_OBI_4_reject_has_no_penalty_row() -> None:
    """OBI-DECL-1 / OPEN-OBI-4: under ``reject`` a false declaration is never scored."""
    assert B.FALSE_DECLARATION_PENALTY["reject"] is None
    assert find_variant("snaps-obican").configure().behaviour.penalty is None
    assert find_variant("snaps-obican").configure({"false_declaration_penalty": "flat2"}).behaviour.penalty is not None


@pytest.mark.parametrize("pattern", [(3, "X", 2), (3, 0, 2), (3, "T", "T", 2), (3, True, 2)])
def test_SRV_1_a_bad_deal_pattern_fails_when_the_variant_is_defined(pattern: tuple[object, ...]) -> None:
    import dataclasses

    spec = find_variant("schnapsen-at")
    with pytest.raises(ValueError, match="deal_pattern"):
        dataclasses.replace(spec, deal_pattern=pattern)


def test_derive_inherit_keeps_the_parent_option_and_adds_rule_ids() -> None:
    """``derive(options={name: inherit(ids, default=...)})``: type, values and the parent's rule
    ids stay, the child's ids are appended once, a new default is validated; a bad default fails
    at derive time (InvalidOptionError naming the option), an unknown name with KeyError."""
    parent = find_variant("schnapsen-at")
    base = parent.option_spec("exchange_min_talon")
    child = parent.derive(id="x-test", options={"exchange_min_talon": inherit("X-1", base.rule_ids[0], default=4)})
    got = child.option_spec("exchange_min_talon")
    assert got.rule_ids == (*base.rule_ids, "X-1")
    assert (got.default, got.allowed, got.type) == (4, base.allowed, base.type)
    assert [o.name for o in child.options] == [o.name for o in parent.options]
    with pytest.raises(InvalidOptionError, match="exchange_min_talon"):
        parent.derive(id="x-test", options={"exchange_min_talon": inherit(default=5)})
    with pytest.raises(KeyError):
        parent.derive(id="x-test", options={"no_such_option": inherit("X-1")})
