"""The parameters of the OpenSpiel game ``"bummerl"`` (:mod:`bummerl.envs.openspiel` describes
them): the game's name, the variants, one parameter per table option with its unset value, the
defaults, :func:`game_facts` (the engine's rules, mode and deal limit of a parameter set) and
:func:`openspiel_params` (the parameters of a table whose options are wire strings). Engine-level:
imports neither pyspiel nor numpy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bummerl.rules import InvalidOptionError, Rules, find_variant, list_variants
from bummerl.rules.table.options import all_options

__all__ = ["DEFAULT_PARAMS", "GAME_NAME", "OPTIONS", "UNSET", "VARIANTS", "game_facts", "openspiel_params"]

GAME_NAME = "bummerl"
#: Variant ids.
VARIANTS: tuple[str, ...] = tuple(s.id for s in list_variants())
#: Every option of every variant (the union of the catalogues), one game parameter each.
OPTIONS = all_options()
#: Unset option (the variant's default): ``""`` for an enum option, ``-1`` for an int or bool one.
UNSET: dict[str, Any] = {name: ("" if o.type == "enum" else -1) for name, o in sorted(OPTIONS.items())}
#: Every game parameter with its default (``pyspiel.GameType.parameter_specification``).
DEFAULT_PARAMS: dict[str, Any] = {"variant": "schnapsen-at", "mode": "match", "max_deals": 0, "deal": "shuffle",
                                  "seed": -1, **UNSET}
_OWN = ("variant", "mode", "max_deals", "deal", "seed")


def game_facts(params: Mapping[str, Any]) -> tuple[Rules, str, int]:
    """``(rules, mode, max_deals)`` of the game parameters; raises UnknownVariantError,
    InvalidOptionError or ValueError (``mode``, ``max_deals``, ``deal``)."""
    if str(params.get("deal", "shuffle")) not in ("shuffle", "sampled"):
        raise ValueError(f"deal must be 'shuffle' or 'sampled', not {params.get('deal')!r}")
    spec = find_variant(str(params.get("variant", "schnapsen-at")))
    options: dict[str, object] = {}
    for k, v in params.items():
        if k in _OWN or v == UNSET.get(k, object()):
            continue
        if k in OPTIONS and OPTIONS[k].type == "bool" and isinstance(v, int) and not isinstance(v, bool):
            if v not in (0, 1):
                raise InvalidOptionError(k, f"expected 0 (false), 1 (true) or -1 (the variant's default), got {v}")
            v = bool(v)
        options[k] = v
    rules = spec.configure(options)
    mode = str(params.get("mode", "match"))
    if mode not in ("match", "deal"):
        raise ValueError(f"mode must be 'match' or 'deal', not {mode!r}")
    max_deals = int(params.get("max_deals", 0))
    if max_deals < 0:
        raise ValueError("max_deals must be >= 0")
    return rules, mode, max_deals


def openspiel_params(variant: str, options: Mapping[str, str], mode: str = "match") -> dict[str, Any]:
    """The game parameters of a table whose options are wire strings (an information set's
    ``options``): enum options stay strings, int options become ints, bool options 0 / 1."""
    out: dict[str, Any] = {"variant": variant, "mode": mode}
    for k, v in options.items():
        o = OPTIONS[k]
        out[k] = str(v) if o.type == "enum" else int(bool(o.parse(v))) if o.type == "bool" else int(v)
    return out
