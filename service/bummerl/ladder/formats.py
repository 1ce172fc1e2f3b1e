"""Ladder formats and the plan of a ladder's games (docs/DESIGN.md §5).

A format is one :class:`Format` object in :data:`FORMATS`: which tables of bots meet
(:meth:`Format.tables`), what it accepts (:meth:`Format.validate`) and when it stops early
(:meth:`Format.decided`). The next format (Swiss, knockout, arena) is one more class here; the
scheduler (:mod:`bummerl.ladder.driver`) and the service never branch on a format's name.

:func:`plan` turns a format's tables into games: two seats play duplicate pairs (the same seed with
the seats swapped, the second leg with relabelled suits), three or four seats duplicate sets (one
seed under every seating arrangement, :func:`seatings`, each leg after the first with its own
relabelling, :func:`suit_perms`). Match ids come from :class:`MatchIds` (not derivable from the
ladder id and the game number).
"""

from __future__ import annotations

import hmac
import itertools
import json
import math
import random
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol

from bummerl.core.errors import InvalidArgumentError
from bummerl.rules import Rules
from bummerl.rules.base.cards import SUITS

MAX_GAMES = 200_000
"""Most games a ladder may plan (pairings or tables x rounds x legs of a duplicate set), SPRT
ladders included (their ``rounds`` is the most pairs they play)."""


class Format(Protocol):
    """A ladder format. ``name``: its id in the API (``round_robin``...); ``stops_early``: it may
    end before its planned games (then the scheduler asks :meth:`decided` after every result)."""

    @property
    def name(self) -> str: ...

    @property
    def stops_early(self) -> bool: ...

    def validate(self, bots: Sequence[str], seats: int) -> None:
        """Raise InvalidArgumentError (naming the field) unless this format takes ``bots`` at a
        variant of ``seats`` seats."""

    def tables(self, bots: Sequence[str], seats: int) -> list[list[str]]:
        """The tables of one round: lists of ``seats`` different bots, in play order."""

    def decided(self, pairs: Sequence[dict[str, Any]]) -> bool:
        """Whether the ladder may stop before its planned games (``pairs``: the pair table of
        :func:`bummerl.ladder.standings.pair_table` over the results so far)."""


class RoundRobin:
    """Every table of ``seats`` bots (every pair with two seats), ``rounds`` times."""

    name: ClassVar[str] = "round_robin"
    stops_early: ClassVar[bool] = False

    def validate(self, bots: Sequence[str], seats: int) -> None:
        pass

    def tables(self, bots: Sequence[str], seats: int) -> list[list[str]]:
        return [list(c) for c in itertools.combinations(bots, seats)]

    def decided(self, pairs: Sequence[dict[str, Any]]) -> bool:
        return False


class Gauntlet(RoundRobin):
    """The first bot at a table with every ``seats - 1`` of the others."""

    name: ClassVar[str] = "gauntlet"

    def tables(self, bots: Sequence[str], seats: int) -> list[list[str]]:
        return [[bots[0], *c] for c in itertools.combinations(bots[1:], seats - 1)]


class SprtFormat(Gauntlet):
    """Two bots, head to head, until the SPRT of its pair decides (at most ``rounds`` pairs)."""

    name: ClassVar[str] = "sprt"
    stops_early: ClassVar[bool] = True

    def validate(self, bots: Sequence[str], seats: int) -> None:
        if seats != 2:
            raise InvalidArgumentError(f"an SPRT ladder is a head-to-head of two bots in a two-player variant; "
                                       f"this variant seats {seats} (use round_robin or gauntlet)")
        if len(bots) != 2:
            raise InvalidArgumentError("an SPRT ladder is a head-to-head of exactly two bots")

    def decided(self, pairs: Sequence[dict[str, Any]]) -> bool:
        return bool(pairs and pairs[0]["sprt_result"])


FORMATS: dict[str, Format] = {f.name: f for f in (RoundRobin(), Gauntlet(), SprtFormat())}
"""Every format by its name."""


def find_format(name: str) -> Format:
    """The format called ``name``; InvalidArgumentError listing the known ones."""
    try:
        return FORMATS[name]
    except KeyError:
        raise InvalidArgumentError(f"format must be one of {', '.join(FORMATS)}, got {name!r}") from None


def fixed_suits(rules: Rules) -> tuple[int, ...]:
    """Suits (0..3, ``bummerl.rules.base.cards.SUITS`` order) that a duplicate deal must not relabel
    because the table's rules single them out: hearts when ``trump_always_hearts`` is on
    (snapszer-hu-4p by default, snapszer-hu-3p-sopron as an option); else none."""
    return (SUITS.index("H"),) if rules.options.get("trump_always_hearts") else ()


class MatchIds:
    """Match ids of a ladder's games that nobody can derive from public facts (issue 25: a bot
    must not find another leg of its duplicate set by guessing): ``<ladder id>g<24 hex digits of
    HMAC-SHA256(key, game number)>``. ``key`` is drawn at creation and not kept: the ids are
    stored with the plan, so they stay the same across restarts (exactly-once scheduling)."""

    def __init__(self, ladder_id: str, key: bytes) -> None:
        self.ladder_id = ladder_id
        self.key = key

    def __call__(self, game: int) -> str:
        return f"{self.ladder_id}g{hmac.new(self.key, str(game).encode(), 'sha256').hexdigest()[:24]}"


def encode_plan(games: list[dict[str, Any]]) -> tuple[list[str], dict[str, int]]:
    """The game specs as JSON, and the number of games of each duplicate set (``pair``)."""
    legs: dict[str, int] = {}
    for g in games:
        legs[str(g["pair"])] = legs.get(str(g["pair"]), 0) + 1
    return [json.dumps(g) for g in games], legs


def seatings(group: Sequence[str]) -> list[list[str]]:
    """Every seating arrangement of ``group`` (bot ids; index = seat), ``len(group)!`` of them,
    the group's own order first. Ordered so that the first ones already vary what a seat number
    does not decide: ``k`` takes the cyclic order ``k % C`` (the group's first bot followed by
    each ordering of the others: who sits after whom, and with four seats the partnership
    0&2 / 1&3; the first three orders of four give the three partnerships) rotated by
    ``k // C`` seats (``C = (n - 1)!``). Two bots: ``[[a, b], [b, a]]``.

    >>> seatings(["a", "b", "c"])
    [['a', 'b', 'c'], ['a', 'c', 'b'], ['b', 'c', 'a'], ['c', 'b', 'a'], ['c', 'a', 'b'], ['b', 'a', 'c']]
    """
    first, rest = group[0], list(group[1:])
    cycles = [[first, *p] for p in itertools.permutations(rest)]
    n = len(group)
    return [cycles[k % len(cycles)][k // len(cycles):] + cycles[k % len(cycles)][:k // len(cycles)]
            for k in range(len(cycles) * n)]


def suit_perms(rng: random.Random, count: int, fixed: Sequence[int] = ()) -> list[list[int]]:
    """``count`` suit relabellings (permutations of 0..3, never the identity) that keep the suits
    ``fixed`` (a suit the rules single out, e.g. hearts always trump): every allowed one once,
    in random order, before any repeats (23 of them, 5 when hearts stay hearts)."""
    pool = [list(p) for p in itertools.permutations(range(4))
            if list(p) != [0, 1, 2, 3] and all(p[s] == s for s in fixed)]
    out: list[list[int]] = []
    while len(out) < count:
        batch = [list(p) for p in pool]
        rng.shuffle(batch)
        out.extend(batch)
    return out[:count]


def planned_games(fmt: Format, num_bots: int, seats: int, rounds: int, duplicate: bool) -> int:
    """How many games :func:`plan` plans (tables x rounds x ``seats!`` legs, or one game per
    table and round without duplicate deals; an SPRT plans its ``rounds`` pairs up front), without
    listing the tables."""
    if isinstance(fmt, Gauntlet):
        tables = math.comb(num_bots - 1, seats - 1)
    else:
        tables = math.comb(num_bots, seats)
    return tables * rounds * (math.factorial(seats) if duplicate else 1)


def _plain_ids(ladder_id: str) -> Callable[[int], str]:
    return lambda n: f"{ladder_id}g{n:06d}"


def plan(ladder_id: str, fmt: Format, bots: list[str], seats: int, rounds: int, duplicate: bool,
         rng: random.Random, fixed: Sequence[int] = (), match_id: Callable[[int], str] | None = None
         ) -> list[dict[str, Any]]:
    """Every game of a ladder, round by round so that tables interleave. Game spec: ``{"game",
    "pair" (the duplicate set), "leg", "bots" (bot id per seat), "seed", "suit_perm",
    "match_id"}`` (``match_id``: game number -> id, :class:`MatchIds`; default
    ``<ladder>g<number>``).

    Two seats: a duplicate pair is two games on one seed with the seats swapped, the second with
    relabelled suits; who sits first alternates by round. Three or four: a duplicate set plays one
    seed under every seating arrangement of the table (:func:`seatings`; ``leg`` 0 ..
    ``seats! - 1``), every leg after the first with its own relabelling (:func:`suit_perms`,
    keeping the ``fixed`` suits); without duplicate deals one game per table and round, seated by
    arrangement ``round % seats!``. With duplicate deals the legs of each set are spread apart in a
    random order (:func:`spread_legs`); ``game`` numbers the games in that play order."""
    match_id = match_id or _plain_ids(ladder_id)
    games: list[dict[str, Any]] = []
    pair = 0
    for r in range(rounds):
        for table in fmt.tables(bots, seats):
            seed = rng.randrange(2**63)
            if seats == 2:
                first = table if r % 2 == 0 else table[::-1]
                legs = [list(first), list(first[::-1])] if duplicate else [list(first)]
                perms: list[list[int]] = [[]]
                if duplicate:
                    perm = [0, 1, 2, 3]
                    while perm == [0, 1, 2, 3]:
                        rng.shuffle(perm)
                    perms.append(perm)
            else:
                arrangements = seatings(table)
                legs = arrangements if duplicate else [arrangements[r % len(arrangements)]]
                perms = [[], *suit_perms(rng, len(legs) - 1, fixed)]
            for leg, seated in enumerate(legs):
                games.append({"pair": pair, "leg": leg, "bots": seated, "seed": seed, "suit_perm": perms[leg]})
            pair += 1
    if duplicate:
        games = spread_legs(games, rng)
    for n, g in enumerate(games):
        g["game"] = n
        g["match_id"] = match_id(n)
    return [{"game": g["game"], **{k: v for k, v in g.items() if k != "game"}} for g in games]


SPREAD_SETS = 8
"""The legs of a duplicate set are shuffled among the legs of this many sets (at least; a round
with more tables spreads over the whole round), see :func:`spread_legs`."""


def spread_legs(games: list[dict[str, Any]], rng: random.Random, window: int = SPREAD_SETS) -> list[dict[str, Any]]:
    """The games of :func:`plan` (in set order, every leg of a set together) reordered so that the
    legs of one duplicate set lie apart among other games in an order the bots cannot predict
    (issue 38: a bot that remembers the hands of one leg knows its opponents' hands in the next):
    the sets are taken in blocks of ``window`` sets and each block's games are shuffled with
    ``rng`` (the ladder's seeded generator). Which leg of a set comes first is therefore random,
    so a bot's score in its later leg minus its earlier one has expectation 0 for a bot without
    memory (the leaderboard's ``later_leg`` check, :func:`bummerl.ladder.standings.later_leg`).
    The scheduler also never runs two legs of a set at once (``claim.lua``)."""
    out: list[dict[str, Any]] = []
    block: list[dict[str, Any]] = []
    sets = 0
    for i, g in enumerate(games):
        block.append(g)
        last_of_set = i + 1 == len(games) or games[i + 1]["pair"] != g["pair"]
        if last_of_set:
            sets += 1
        if (last_of_set and sets >= window) or i + 1 == len(games):
            rng.shuffle(block)
            out.extend(block)
            block, sets = [], 0
    return out
