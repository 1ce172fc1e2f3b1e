"""One frozen option catalogue per deal skeleton (issue 23, docs/RULES.md §13.2).

Each variant names its skeleton's catalogue (``VariantSpec.catalogue``); its options come from it
and its configured ``Rules`` carries exactly the catalogue's options as attributes, so a
two-player table has no attribute of the three- and four-player games and the other way round.
Nothing adds options at import: the catalogues are the same whatever was imported first. The
option lists of ListVariants are pinned (tests/rules/data/variant_options.json, written by the
engine before the catalogues were split).
"""

from __future__ import annotations

import ast
import json
import pickle
from dataclasses import replace
from pathlib import Path

import pytest

from bummerl.rules import InvalidOptionError, OptionSpec, find_variant, list_variants
from bummerl.rules.table import behaviour as B
from bummerl.rules.table import options as O

VARIANTS = [s.id for s in list_variants()]
PINNED = json.loads((Path(__file__).parent / "data" / "variant_options.json").read_text())["variants"]
#: Which catalogue each variant plays with (its deal skeleton; the rotation of two-player deals
#: adds the options of the rotation plan and has no Bummerls or sets).
EXPECTED = {
    "schnapsen-at": O.TALON, "snaps-original66": O.TALON, "santase": O.TALON, "snaps-obican": O.TALON,
    "snapszer-hu-2p": O.TALON,
    "stockschnapsen": O.TALON_ROTATION, "snapszer-hu-3p-rotation": O.TALON_ROTATION,
    "bauernschnapsen": O.AT_CONTRACT, "talonschnapsen": O.AT_CONTRACT,
    "snapszer-hu-3p-sopron": O.HU_CONTRACT, "snapszer-hu-4p": O.HU_CONTRACT,
}


def test_every_variant_names_its_skeletons_catalogue() -> None:
    assert set(EXPECTED) == set(VARIANTS)
    for vid, cat in EXPECTED.items():
        assert find_variant(vid).catalogue is cat, vid


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_option_lists_of_list_variants_are_unchanged(variant: str) -> None:
    """§13.2: names, order, types, defaults, allowed values, descriptions and rule ids of every
    variant's options are those of the engine before the split."""
    assert [o.to_dict() for o in find_variant(variant).options] == PINNED[variant]


@pytest.mark.parametrize("variant", VARIANTS)
def test_rules_carry_exactly_the_catalogue(variant: str) -> None:
    """A table's attributes are its catalogue's options: its own values, the catalogue default for
    an option the variant does not list; an option of another catalogue is no attribute."""
    spec = find_variant(variant)
    r = spec.configure()
    own = {o.name: o.default for o in spec.options}
    for name, o in spec.catalogue.items():
        assert getattr(r, name) == own.get(name, o.default), name
    for name in set(O.all_options()) - set(spec.catalogue):
        assert not hasattr(r, name), f"{variant} has the foreign option {name}"
    assert r.options == own


def test_a_two_player_table_has_no_option_of_the_multi_player_games() -> None:
    r = find_variant("schnapsen-at").configure()
    for name in ("max_kontra_level", "rotation", "pair_dealer", "trump_always_hearts", "enable_bettler"):
        assert not hasattr(r, name)
    c = find_variant("bauernschnapsen").configure()
    for name in ("close_min_talon", "exchange_min_talon", "nine_value", "sets_to_win", "rotation"):
        assert not hasattr(c, name)
    assert c.behaviour is B.NO_BEHAVIOUR and find_variant("stockschnapsen").configure().behaviour is not B.NO_BEHAVIOUR


def test_catalogues_are_frozen() -> None:
    for cat in O.CATALOGUES.values():
        with pytest.raises(TypeError):
            cat["x"] = cat["match_target"]  # type: ignore[index]
        with pytest.raises(AttributeError):
            cat.name = "other"  # type: ignore[misc]
        with pytest.raises(TypeError):
            cat._specs["x"] = cat["match_target"]  # type: ignore[index]
    with pytest.raises(TypeError):
        O.CATALOGUES["x"] = O.TALON  # type: ignore[index]
    assert not hasattr(O, "add_options") and not hasattr(O, "CATALOGUE")


def test_parts_are_shared_and_the_union_is_consistent() -> None:
    """One definition per option name: every catalogue that has an option has the same spec, and
    :func:`all_options` holds each once."""
    union = O.all_options()
    for cat in O.CATALOGUES.values():
        for name, o in cat.items():
            assert union[name] is o, (cat.name, name)
    assert set(union) == set().union(*(set(c) for c in O.CATALOGUES.values()))
    with pytest.raises(ValueError, match="defined twice"):
        O.Catalogue("x", (OptionSpec("a", "bool", False),), (OptionSpec("a", "bool", True),))


def test_no_module_of_the_engine_mutates_a_catalogue() -> None:
    """No ``add_options``-like call remains: nothing in ``rules/`` assigns into a catalogue, so the
    catalogues do not depend on which module was imported first (they are frozen, too)."""
    rules_dir = Path(O.__file__).parents[1]
    for f in rules_dir.rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id != "add_options", f
            if isinstance(node, ast.Assign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                        assert t.value.id not in ("CATALOGUE", "TALON", "TALON_ROTATION", "AT_CONTRACT",
                                                  "HU_CONTRACT"), f


def test_an_option_outside_the_catalogue_fails_clearly() -> None:
    """A variant listing an option of another skeleton fails when it is defined (ValueError); a
    Catalogue.option of another skeleton's name, and Rules given one, raise InvalidOptionError
    naming it; configure keeps its message (the variant's known options)."""
    at = find_variant("schnapsen-at")
    with pytest.raises(InvalidOptionError) as e:
        O.TALON.option("max_kontra_level", 1)
    assert e.value.option == "max_kontra_level" and "'talon' catalogue" in str(e.value)
    with pytest.raises(ValueError, match="not in its catalogue 'talon'"):
        replace(at, options=at.options + (O.AT_CONTRACT.option("max_kontra_level", 1),))
    with pytest.raises(InvalidOptionError) as e:
        at.configure({"max_kontra_level": 2})
    assert e.value.option == "max_kontra_level" and "unknown option for variant 'schnapsen-at'; known:" in str(e.value)


def test_catalogues_and_specs_pickle() -> None:
    for cat in O.CATALOGUES.values():
        assert pickle.loads(pickle.dumps(cat)) == cat
    spec = find_variant("stockschnapsen")
    assert pickle.loads(pickle.dumps(spec.catalogue)) == spec.catalogue
    assert hash(pickle.loads(pickle.dumps(O.TALON))) == hash(O.TALON)
