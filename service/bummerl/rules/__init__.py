"""The pure rules engine of the Schnapsen family (docs/RULES.md). Standard library only: no I/O, no
clock, no global random; deterministic from a seed or an explicit deck order.

Quick tour::

    >>> from bummerl.rules import new_match, legal_actions, apply, action_to_string, information_set
    >>> m = new_match("schnapsen-at", seed=7)
    >>> acts = legal_actions(m)
    >>> m2 = apply(m, acts[0])          # returns a new state; m is unchanged
    >>> len(m.actions), len(m2.actions)
    (0, 1)
    >>> information_set(m2, 0)["variant"]
    'schnapsen-at'

Errors: :class:`InvalidActionError` (malformed), :class:`IllegalActionError` (forbidden now),
:class:`InvalidOptionError` (bad table option), :class:`UnknownVariantError`; all ``ValueError``.

The engine is a stack whose imports only point down (tests/rules/test_purity.py)::

    base/      cards, actions, tricks, errors, views, events      (stdlib only)
    table/     options, behaviour tables, VariantSpec/Rules, outcomes and end reasons, protocols
    deals/     talon (the two-player deal), outcomes, contract, contract_at, contract_hu
    match/     state (MatchState), plans, snapshot, infoset
    variants/  one module per variant (importing the package registers them)
    __init__   this facade; beside it, public too: search (what search bots need beyond the facade)
               and worlds (worlds consistent with an information set: sample_world, PublicDeal,
               ContractSampler; worlds_talon and worlds_contract hold their two samplers)
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence

from . import (
    search,  # noqa: E402,I001  (the searches' names: imports the levels above)
    variants,  # noqa: E402,I001  (the top of the stack: importing it fills the variant registry)
    worlds,  # noqa: E402,I001  (worlds consistent with an information set: sample_world, PublicDeal)
)
from .base import actions, cards, views
from .base.actions import action_struct, action_to_string, parse_action, parse_struct, public_action_string
from .base.errors import (
    IllegalActionError,
    InvalidActionError,
    InvalidOptionError,
    MatchOverError,
    RulesError,
    UnknownVariantError,
)
from .base.events import event_view
from .deals.talon import DealState, TalonDeal, public_known_cards
from .match.infoset import (
    events_between,
    history_views,
    information_set,
    initial_events,
    match_result,
    public_view,
)
from .match.state import MatchState
from .table.options import OptionSpec
from .table.outcome import DealEnd, DealOutcome, DealResult, MatchEnd
from .table.variant import Rules, VariantSpec, configure_cached, find_variant, list_variants
from .worlds import sample_world

__all__ = [
    "DealEnd", "DealOutcome", "DealResult", "DealState", "IllegalActionError", "InvalidActionError", "InvalidOptionError",
    "MatchEnd", "MatchOverError", "MatchState", "OptionSpec", "Rules", "RulesError", "TalonDeal", "UnknownVariantError",
    "VariantSpec", "action_struct", "action_to_string", "actions", "apply", "cards", "configure_cached", "event_view",
    "events_between", "find_variant", "history_views", "information_set", "initial_events", "legal_actions",
    "list_variants", "match_result", "new_match", "parse_action", "parse_struct", "public_action_string",
    "public_known_cards", "public_view", "restore", "sample_world", "search", "variants", "views", "worlds",
]


def new_match(
    variant: str,
    options: Mapping[str, object] | None = None,
    seed: int | None = None,
    decks: Sequence[Sequence[int]] = (),
    first_dealer: int | None = None,
) -> MatchState:
    """A new match of ``variant`` (id or alias) with table ``options`` (values or wire strings).

    ``seed`` None draws a secret 63-bit seed (live play); give a seed or explicit ``decks`` (card
    ids, top first, one per deal) for tests, replays and duplicate deals. Raises
    UnknownVariantError / InvalidOptionError.
    """
    rules = find_variant(variant).configure(options)
    if seed is None:
        seed = secrets.randbits(63)
    return MatchState(rules, seed, [list(d) for d in decks], first_dealer)


def legal_actions(state: MatchState) -> list[int]:
    """Legal action ids of the seat to act (empty once the match is over)."""
    return state.legal_actions()


def apply(state: MatchState, action: int | str) -> MatchState:
    """A new state after ``action`` (id or text form); ``state`` is never changed.

    Raises InvalidActionError (malformed), IllegalActionError (not legal now), MatchOverError.
    """
    a = parse_action(action) if isinstance(action, str) else actions.check_id(action)
    nxt = state.copy()
    nxt.apply(a)
    return nxt


def restore(data: Mapping[str, object]) -> MatchState:
    """A match from stored snapshot data (:meth:`MatchState.snapshot`), also data written by an
    older engine: the snapshot when its layout tag is this engine's, else a replay of its log
    (:func:`bummerl.rules.match.snapshot.restore`). Raises IllegalActionError if the log does not
    replay, KeyError if there is no log."""
    return MatchState.restore(dict(data))
