"""Every Bummerl variant as an OpenSpiel game: ``pyspiel.load_game("bummerl", {"variant": ...})``.

Importing this module registers the Python game ``"bummerl"`` with ``pyspiel.register_game``
(needs ``open-spiel``: ``pip install 'bummerl[learning]'``)::

    import pyspiel
    import bummerl.envs.openspiel  # noqa: F401  (registers "bummerl")
    game = pyspiel.load_game("bummerl", {"variant": "snapszer-hu-2p", "mode": "deal"})

Parameters:

* ``variant`` (string): a variant id or alias (docs/RULES.md; default ``schnapsen-at``);
* ``mode`` (string): ``match`` (default: one Bummerl to the variant's target, every deal
  shuffled by chance nodes) or ``deal`` (one deal is the game);
* ``max_deals`` (int): 0 (none) or a deal limit (SRV-5: the higher total wins after that many
  deals), which bounds a match;
* ``deal`` (string): ``shuffle`` (default: explicit chance nodes, below) or ``sampled`` (no chance
  node: each new state draws its first dealer, its first deck (uniform, SRV-1 / SRV-4) and an
  engine seed for any later deal from ``seed``'s RNG; OpenSpiel's ``SAMPLED_STOCHASTIC``, faster for playouts; such
  states cannot be serialised or pickled by OpenSpiel, which asks a sampled game for an RNG
  state its Python games cannot give);
* ``seed`` (int): the seed of the sampled deals, -1 (default) = a secret one;
* every table option of docs/RULES.md §13.2 by name: an enum option as a string
  (``close_timing="after_draw"``, ``""`` = the variant's default), an int option as an int
  (``match_target=3``) and a bool option as an int (1 true, 0 false); -1 (their default) keeps
  the variant's default. (OpenSpiel re-reads a game's parameters from its string form, where
  ``"3"`` and ``"true"`` become an int and a bool, so options cannot be strings as on the wire,
  and a bool parameter would have no "unset" value.) A bad value raises the engine's
  ``InvalidOptionError`` naming it; an option the variant does not have is refused the same way.

Game facts: sequential, imperfect information, explicit stochastic (``deal=shuffle``). Chance
nodes: the first dealer (one outcome per seat, uniform, SRV-4), then every deal's deck order card
by card (top first, uniform over the cards left, SRV-1; outcome = card id). Actions are the engine's ids
(:mod:`bummerl.rules.base.actions`); ``num_distinct_actions`` covers the variant's action kinds (41
for the two-player trick-and-draw games, 89 with bidding, trump naming, laying away and kontra);
``action_to_string`` gives the text form (``"play QH"``, ``"marriage KH"``, ``"bid gang"``).

Returns are game points, at the end (terminal reward model). With two sides (two seats, or the
two partnerships of four seats) the game is zero-sum: a seat's return = the game points its side
was credited minus the other side's. With three seats it is general-sum: a seat's return = the
game points credited to it (docs/RULES.md §13.1 scoring tables, STK-SCORE-1 included). ``mode =
deal`` counts the first deal only; ``match`` every deal of the match (play-off deals are
credited nothing). Utility range: :func:`bummerl.envs.common.max_deal_points` per deal; in
``match`` mode ``(2 * sets - 1) * (target + that)``.

Observations (:mod:`bummerl.envs.encoding`: every piece with its shape) are built only from
``information_set(state, seat)``, the dict the server sends that seat, so a tensor never holds a
card the seat may not see: the information state (perfect recall within the deal) adds the deal's
public history to the observation. (Perfect recall as the server sends it: every public event
and the seat's current hand, earlier deals by their results; not the order in which the seat drew
the cards still in its hand, which changes nothing the seat can infer about hidden cards.) The
strings: the information state string is that information set as canonical JSON (the legal
actions left out), the observation string a short text of the current view. While a deal is being shuffled every seat sees only the match part.

``resample_from_infostate(player, sampler)`` (for ``ISMCTSBot``) deals the cards hidden from
``player`` anew (a uniform permutation of every card that player has not seen, over the places
it has not seen) and replays the deal's actions on it, checked (a deal in which a past action
would be illegal is drawn again); the result gives ``player`` exactly the same information set.
It does not infer voids from earlier play (a card an opponent could not have held may be dealt
to him), as is usual for determinized search.

Cost: a state answers Python callers' queries in Python (``legal_actions``, ``is_chance_node``,
``is_player_node``, the four strings and tensors: the answers pyspiel's C++ methods give, tested
at every node), as a C++ call would come back to Python through pyspiel's trampolines several
times (and, for a tensor, build a new state to size it); C++ callers get the same answers the
C++ way. Each view is computed once per state and player, from one information set that keeps
the deal's public history views and converts only the new events; a tensor comes back as a new
list of floats. ``clone`` is OpenSpiel's (a new state plus a deep copy of the attributes): the
new state builds nothing, and the deep copy is one :meth:`MatchState.copy`. In ``mode=deal`` the
finished deal is scored (``MatchState.step(a, settle=False)``, then ``settle_deal``) only when
something reads the match (a view, ``match``, pickling): ``returns`` come from the plan's credit
of the deal (``MatchPlan.credit``), the game points its result records. What a random playout
still costs beyond the engine's own work is mostly pyspiel's (about 1 us per node: ``bummerl
bench openspiel`` prints the same playout of a game doing nothing, and the ceiling ratio it
leaves).

This module holds :func:`load` and re-exports the rest: the parameters from
:mod:`bummerl.envs.spiel_params` (``GAME_NAME``, ``VARIANTS``, ``OPTIONS``, ``UNSET``,
:func:`game_facts`, :func:`openspiel_params`), :class:`BummerlGame` and :class:`BummerlState` from
:mod:`bummerl.envs.spiel_game` (which registers the game), :class:`DeterminizedMCTSBot` from
:mod:`bummerl.envs.spiel_mcts`.
"""

from __future__ import annotations

from typing import Any

import pyspiel

from .spiel_game import BummerlGame, BummerlState
from .spiel_mcts import DeterminizedMCTSBot
from .spiel_params import GAME_NAME, OPTIONS, UNSET, VARIANTS, game_facts, openspiel_params

__all__ = ["GAME_NAME", "OPTIONS", "UNSET", "VARIANTS", "BummerlGame", "BummerlState", "DeterminizedMCTSBot",
           "game_facts", "load", "openspiel_params"]


def load(variant: str = "schnapsen-at", **params: Any) -> BummerlGame:
    """``pyspiel.load_game("bummerl", {"variant": variant, **params})`` with bool options given
    as Python bools (``load("santase", mode="deal", match_target=3, auto_declare=True)``)."""
    game: BummerlGame = pyspiel.load_game(GAME_NAME, {"variant": variant, **{
        k: int(v) if isinstance(v, bool) else v for k, v in params.items()}})
    return game
