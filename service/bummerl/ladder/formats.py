"""Ladder formats and the plan of a ladder's games (docs/DESIGN.md §5).

A format is one class (listed in :data:`bummerl.ladder.registry.FORMATS`) that plans a ladder **stage by stage**
(:meth:`Format.stage`): given what has happened (the bots, the earlier stages, every result so
far), it returns the next :class:`Stage` (the :class:`Meeting` s of bots to play, and any byes)
or None when nothing is left. Round robin, gauntlet and SPRT plan everything in stage 0, at
creation; Swiss (:mod:`bummerl.ladder.swiss`) and knockout (:mod:`bummerl.ladder.knockout`)
plan a round at a time from the standings. The scheduler (:mod:`bummerl.ladder.driver`) asks
for the next stage once every game of the previous one is recorded and writes it exactly once
(``stage.lua``); neither it nor the service branches on a format: adding a format is one class
here or in a module of its own, one line in :mod:`bummerl.ladder.registry`, and its tests.

:func:`plan_meetings` turns meetings into games: two seats play duplicate pairs (the same seed
with the seats swapped, the second leg with relabelled suits), three or four seats duplicate sets
(one seed under every seating arrangement, :func:`seatings`, each leg after the first with its
own relabelling, :func:`suit_perms`), the legs of a set spread apart (:func:`spread_legs`). Match
ids come from :class:`MatchIds` (not derivable from the ladder id and the game number).
"""

from __future__ import annotations

import hmac
import itertools
import json
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypedDict

from bummerl.core.errors import InvalidArgumentError
from bummerl.rules import Rules
from bummerl.rules.base.cards import SUITS

MAX_GAMES = 200_000
"""Most games a ladder may plan (pairings or tables x rounds x legs of a duplicate set), SPRT
ladders included (their ``rounds`` is the most pairs they play); for a format planned stage by
stage, the most it could plan (:meth:`Format.max_games`)."""


@dataclass(frozen=True)
class Meeting:
    """Bots that play together in a stage: ``table`` (bot ids; with two seats the seat order of
    the first leg in an even ``round``), ``round`` (two seats: who sits first alternates with it;
    3-4 seats without duplicate deals: seating arrangement ``round % seats!``), ``key`` (the Swiss
    pairing or knockout tie, carried by its games and results as ``meeting``; "" when the format
    needs none). One meeting is one duplicate set (one game without duplicate deals)."""

    table: list[str]
    round: int = 0
    key: str = ""


@dataclass(frozen=True)
class Stage:
    """What a format plans at once: ``meetings`` in play order, ``byes`` (bots that sit the stage
    out, scored as the format says), ``label`` (for people: ``round 2``, ``round 1, tie-break 1``)."""

    meetings: list[Meeting]
    byes: list[str] = field(default_factory=list)
    label: str = ""


class StageRecord(TypedDict):
    """A stage as stored (``bm:ladder:<id>:stages``, formats planned stage by stage): its number,
    label, meetings (``key``, ``bots``, ``sets``) and byes."""

    stage: int
    label: str
    meetings: list[dict[str, Any]]
    byes: list[str]


def stage_record(number: int, stage: Stage) -> StageRecord:
    """The record of ``stage``: one entry per meeting key, in first-planned order, with ``sets``
    (the duplicate sets, or games without duplicate deals, planned for it in this stage)."""
    seen: dict[str, dict[str, Any]] = {}
    for m in stage.meetings:
        seen.setdefault(m.key, {"key": m.key, "bots": list(m.table), "sets": 0})["sets"] += 1
    return {"stage": number, "label": stage.label, "meetings": list(seen.values()), "byes": list(stage.byes)}


@dataclass(frozen=True)
class StageContext:
    """What a format decides a stage from: the ladder's ``bots`` (in the order listed, or seeded),
    ``seats`` per game, ``rounds`` (the format's own meaning), ``per_meeting`` (duplicate sets each
    pairing or tie plays per stage), ``duplicate`` (duplicate deals), ``stage`` (0 at creation),
    ``history`` (the stages planned before, formats planned stage by stage), ``results`` (every
    result so far, each with ``stage`` and ``meeting`` where planned with them) and ``rng`` (seeded
    from the ladder's secret plan seed and the stage number: the same stage is planned the same in
    every process)."""

    bots: Sequence[str]
    seats: int
    rounds: int
    per_meeting: int = 1
    duplicate: bool = True
    stage: int = 0
    history: Sequence[StageRecord] = ()
    results: Sequence[Mapping[str, Any]] = ()
    rng: random.Random = field(default_factory=lambda: random.Random(0))


@dataclass(frozen=True)
class DemandContext:
    """What an arena pairs from: ``idle`` bots (connected, in no game of the arena), ``ordinal``
    and ``sigma`` per bot (openskill, from the arena's results; unrated bots absent), ``last``
    per bot the bots of its latest game, ``seats``."""

    idle: Sequence[str]
    seats: int
    ordinal: Mapping[str, float] = field(default_factory=dict)
    sigma: Mapping[str, float] = field(default_factory=dict)
    last: Mapping[str, Sequence[str]] = field(default_factory=dict)


class Format(Protocol):
    """A ladder format. ``name``: its id in the API (``round_robin``...); ``stops_early``: it may
    end before its planned games (the scheduler asks :meth:`decided` after every result);
    ``staged``: it plans from the results, stage after stage (its stages are kept, and
    :meth:`view` shows them); ``continuous``: it pairs idle connected bots whenever there are
    some (:meth:`on_demand`), until its time is up or it is stopped."""

    @property
    def name(self) -> str: ...

    @property
    def stops_early(self) -> bool: ...

    @property
    def staged(self) -> bool: ...

    @property
    def continuous(self) -> bool: ...

    def validate(self, bots: Sequence[str], seats: int, rounds: int) -> None:
        """Raise InvalidArgumentError (naming the field) unless this format takes ``bots`` at a
        variant of ``seats`` seats for ``rounds``."""

    def max_games(self, num_bots: int, seats: int, rounds: int, per_meeting: int, duplicate: bool) -> int:
        """The most games it may plan (checked against :data:`MAX_GAMES` at creation)."""

    def stage(self, ctx: StageContext) -> Stage | None:
        """The next stage (``ctx.stage``), or None when the ladder has nothing left to plan."""

    def on_demand(self, ctx: DemandContext) -> list[Meeting]:
        """A continuous format's games for the idle bots of ``ctx`` now ([] for the others)."""

    def decided(self, pairs: Sequence[dict[str, Any]]) -> bool:
        """Whether the ladder may stop before its planned games (``pairs``: the pair table of
        :func:`bummerl.ladder.standings.pair_table` over the results so far)."""

    def view(self, ctx: StageContext) -> dict[str, Any]:
        """What the format shows of its progress (Swiss standings with tiebreaks, a knockout
        bracket): ``{"standings": [...], "rounds": [...]}`` (see ``GetPairings``); empty lists for
        a format planned at once."""


def legs_per_set(seats: int, duplicate: bool) -> int:
    """Games of one duplicate set: ``seats!`` (2 for a pair), 1 without duplicate deals."""
    return math.factorial(seats) if duplicate else 1


class RoundRobin:
    """Every table of ``seats`` bots (every pair with two seats), ``rounds`` times, all planned at
    creation."""

    name: ClassVar[str] = "round_robin"
    stops_early: ClassVar[bool] = False
    staged: ClassVar[bool] = False
    continuous: ClassVar[bool] = False

    def validate(self, bots: Sequence[str], seats: int, rounds: int) -> None:
        pass

    def tables(self, bots: Sequence[str], seats: int) -> list[list[str]]:
        return [list(c) for c in itertools.combinations(bots, seats)]

    def max_games(self, num_bots: int, seats: int, rounds: int, per_meeting: int, duplicate: bool) -> int:
        return math.comb(num_bots, seats) * rounds * legs_per_set(seats, duplicate)

    def stage(self, ctx: StageContext) -> Stage | None:
        if ctx.stage:
            return None
        return Stage([Meeting(t, r) for r in range(ctx.rounds) for t in self.tables(ctx.bots, ctx.seats)])

    def on_demand(self, ctx: DemandContext) -> list[Meeting]:
        return []

    def decided(self, pairs: Sequence[dict[str, Any]]) -> bool:
        return False

    def view(self, ctx: StageContext) -> dict[str, Any]:
        return {"standings": [], "rounds": []}


class Gauntlet(RoundRobin):
    """The first bot at a table with every ``seats - 1`` of the others."""

    name: ClassVar[str] = "gauntlet"

    def tables(self, bots: Sequence[str], seats: int) -> list[list[str]]:
        return [[bots[0], *c] for c in itertools.combinations(bots[1:], seats - 1)]

    def max_games(self, num_bots: int, seats: int, rounds: int, per_meeting: int, duplicate: bool) -> int:
        return math.comb(num_bots - 1, seats - 1) * rounds * legs_per_set(seats, duplicate)


class SprtFormat(Gauntlet):
    """Two bots, head to head, until the SPRT of its pair decides (at most ``rounds`` pairs)."""

    name: ClassVar[str] = "sprt"
    stops_early: ClassVar[bool] = True

    def validate(self, bots: Sequence[str], seats: int, rounds: int) -> None:
        if seats != 2:
            raise InvalidArgumentError(f"an SPRT ladder is a head-to-head of two bots in a two-player variant; "
                                       f"this variant seats {seats} (use round_robin or gauntlet)")
        if len(bots) != 2:
            raise InvalidArgumentError("an SPRT ladder is a head-to-head of exactly two bots")

    def decided(self, pairs: Sequence[dict[str, Any]]) -> bool:
        return bool(pairs and pairs[0]["sprt_result"])


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


def plan(ladder_id: str, fmt: Format, bots: list[str], seats: int, rounds: int, duplicate: bool,
         rng: random.Random, fixed: Sequence[int] = (), match_id: Callable[[int], str] | None = None
         ) -> list[dict[str, Any]]:
    """The games of a ladder's first stage (every game of a format planned at once), see
    :func:`plan_meetings`."""
    first = fmt.stage(StageContext(bots, seats, rounds, duplicate=duplicate, rng=rng))
    return plan_meetings(first.meetings if first else [], seats, duplicate, rng, fixed,
                         match_id or _plain_ids(ladder_id))


def _plain_ids(ladder_id: str) -> Callable[[int], str]:
    return lambda n: f"{ladder_id}g{n:06d}"


def plan_meetings(meetings: Sequence[Meeting], seats: int, duplicate: bool, rng: random.Random,
                  fixed: Sequence[int], match_id: Callable[[int], str], first_game: int = 0, first_pair: int = 0,
                  stage: int | None = None) -> list[dict[str, Any]]:
    """The games of ``meetings`` (in order, so that tables interleave). Game spec
    (:class:`bummerl.ladder.data.GameSpec`): ``{"game", "pair" (the duplicate set), "leg", "bots"
    (bot id per seat), "seed", "suit_perm", "match_id"}``, plus ``stage`` and ``meeting`` (the
    meeting's key) when ``stage`` is given; games are numbered from ``first_game`` and sets from
    ``first_pair`` (``match_id``: game number -> id, :class:`MatchIds`).

    Two seats: a duplicate pair is two games on one seed with the seats swapped, the second with
    relabelled suits; who sits first alternates with the meeting's ``round``. Three or four: a
    duplicate set plays one seed under every seating arrangement of the table (:func:`seatings`;
    ``leg`` 0 .. ``seats! - 1``), every leg after the first with its own relabelling
    (:func:`suit_perms`, keeping the ``fixed`` suits); without duplicate deals one game per meeting,
    seated by arrangement ``round % seats!``. With duplicate deals the legs of each set are spread
    apart in a random order (:func:`spread_legs`); ``game`` numbers the games in that play order."""
    games: list[dict[str, Any]] = []
    for n, meeting in enumerate(meetings):
        table, r, pair = meeting.table, meeting.round, first_pair + n
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
            g: dict[str, Any] = {"pair": pair, "leg": leg, "bots": seated, "seed": seed, "suit_perm": perms[leg]}
            if stage is not None:
                g.update(stage=stage, meeting=meeting.key)
            games.append(g)
    if duplicate:
        games = spread_legs(games, rng)
    out = []
    for n, g in enumerate(games):
        out.append({"game": first_game + n, **g, "match_id": match_id(first_game + n)})
    return out


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
