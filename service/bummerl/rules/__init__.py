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
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence

from . import actions, cards, views
from .actions import action_struct, action_to_string, parse_action, parse_struct, public_action_string
from .deal import DealOutcome
from .errors import (
    IllegalActionError,
    InvalidActionError,
    InvalidOptionError,
    MatchOverError,
    RulesError,
    UnknownVariantError,
)
from .events import event_view
from .infoset import (
    events_between,
    history_views,
    information_set,
    initial_events,
    match_result,
    public_known_cards,
)
from .public import public_view
from .state import DealResult, DealState, MatchState
from .variant import OptionSpec, Rules, VariantSpec, find_variant, list_variants

__all__ = [
    "DealOutcome", "DealResult", "DealState", "IllegalActionError", "InvalidActionError", "InvalidOptionError",
    "MatchOverError", "MatchState", "OptionSpec", "Rules", "RulesError", "UnknownVariantError", "VariantSpec",
    "action_struct", "action_to_string", "public_action_string", "actions", "apply", "cards", "event_view", "events_between",
    "find_variant", "history_views", "information_set", "initial_events", "legal_actions", "list_variants", "match_result", "new_match",
    "parse_action", "parse_struct", "public_known_cards", "public_view", "views",
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
