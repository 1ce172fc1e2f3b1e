"""The spectator's no-leak check (docs/RULES.md §14.3), shared by the playout suites of every
variant (``test_playout.py``: two seats; ``test_multiplayer.py``: three and four).

:func:`conceal_all` makes a second state that differs from a match only in the cards no onlooker
may see: every card in a hand, in the talon's face-down part (contract games: the talon and the
cards not yet dealt) or laid away, that no public event of the deal has shown (cards played,
marriage cards, exchanged cards, a face-up card drawn, cards shown), shuffled among those places
with each place keeping its count. The set of public cards is taken from the deal's history
tuples, not from the view under test, so a view that leaked a card could not hide it.
"""

from __future__ import annotations

import json
import random
from typing import Any

from bummerl.rules import DealState, MatchState, apply, events_between, legal_actions, public_view
from bummerl.rules.base.cards import card_code, cards_of, mask_of, parse_card
from bummerl.rules.base.events import event_fields

CODES = {card_code(c) for c in range(24)}


def _strings(x: Any) -> set[str]:
    if isinstance(x, str):
        return {x}
    if isinstance(x, dict):
        return set().union(*(_strings(v) for v in x.values())) if x else set()
    if isinstance(x, list | tuple):
        return set().union(*(_strings(v) for v in x)) if x else set()
    return set()


def public_cards(m: MatchState) -> int:
    """Bitmask of the cards the current deal's public events have shown (and its face-up trump card)."""
    shown: set[str] = set()
    for e in m.deal.history:
        shown |= _strings(event_fields(e, [0] * m.num_seats))
    d = m.deal
    if isinstance(d, DealState) and d.trump_card >= 0:
        shown.add(card_code(d.trump_card))
    return mask_of([parse_card(c) for c in shown & CODES])


def conceal_all(m: MatchState, rng: random.Random, laid_away: bool = True) -> MatchState:
    """A copy of ``m`` whose cards hidden from every onlooker are shuffled among their places;
    ``laid_away`` False keeps laid-away cards where they are."""
    m2 = m.copy()
    d = m2.deal
    public = public_cards(m)
    masks: list[tuple[list[int], int]] = [(d.hands, i) for i in range(len(d.hands))]
    lists: list[tuple[list[int], int, int]] = []  # (list, start, stop): a slice of hidden places
    if isinstance(d, DealState):
        if d.tpos < len(d.talon):
            d.talon = d.talon[:]
            lists.append((d.talon, d.tpos, len(d.talon) - 1))  # the face-up card at the bottom stays
    else:
        if laid_away:
            masks += [(d.laid_away, i) for i in range(len(d.laid_away))]
        for key in ("talon", "rest"):
            if isinstance(d.state.get(key), list):
                lists.append((d.state[key], 0, len(d.state[key])))
    pool: list[int] = []
    for holder, i in masks:
        pool += [c for c in cards_of(holder[i]) if not public >> c & 1]
    for seq, a, b in lists:
        pool += [c for c in seq[a:b] if not public >> c & 1]
    before = sorted(pool)
    rng.shuffle(pool)
    for holder, i in masks:
        n = sum(1 for c in cards_of(holder[i]) if not public >> c & 1)
        holder[i] = (holder[i] & public) | mask_of(pool[:n])
        del pool[:n]
    for seq, a, b in lists:
        for k in range(a, b):
            if not public >> seq[k] & 1:
                seq[k] = pool.pop()
    assert not pool and before == sorted(
        [c for holder, i in masks for c in cards_of(holder[i]) if not public >> c & 1]
        + [c for seq, a, b in lists for c in seq[a:b] if not public >> c & 1])
    return m2


def public_json(m: MatchState) -> str:
    return json.dumps(public_view(m), sort_keys=True)


def check_public_no_leak(m: MatchState, rng: random.Random) -> None:
    """§14.3 for onlookers: ``m`` and :func:`conceal_all` of it give byte-identical public views,
    and after the same next action (one legal in both) byte-identical public views and events.
    For that next action the laid-away cards stay put: when it ends the deal, the result counts
    their points in public (TS-TAL-1, OPEN-TS-2, OPEN-HU3S-1), as every seat sees it too."""
    assert public_json(m) == public_json(conceal_all(m, rng))
    m2 = conceal_all(m, rng, laid_away=False)
    both = [a for a in legal_actions(m) if a in set(legal_actions(m2))]
    if both:
        a = rng.choice(both)
        n1, n2 = apply(m, a), apply(m2, a)
        assert public_json(n1) == public_json(n2), a
        assert events_between(m, n1) == events_between(m2, n2), a
