"""Results, ratings and statistics of a ladder (docs/DESIGN.md §5): the result of a finished game
(:func:`seated_result` for three or four seats), the openskill standings folded one result at a
time (:class:`Standings`), the pair table with Elo, LOS and the SPRT (:func:`pair_table`), and the
whole leaderboard (:func:`leaderboard`). Pure: no Redis."""

from __future__ import annotations

import asyncio
import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from . import botstats
from .later_leg import LaterLeg
from .stats import PENTANOMIAL, TRINOMIAL, Sprt, estimate, head_to_head, pentanomial, placement_scores


def _outcome(result: dict[str, Any], i: int) -> tuple[float, float]:
    """(score, best other score) of seat ``i`` for :func:`botstats.game_stats`: two seats the game
    scores; three or four: 1 vs 0 alone (with the partner) in first place, 1/2 vs 1/2 first place
    shared, 0 vs 1 otherwise (the leaderboard's W/D/L)."""
    if "placements" not in result:
        return float(result["scores"][i]), float(result["scores"][1 - i])
    places, teams = result["placements"], result["teams"]
    firsts = {teams[j] for j, p in enumerate(places) if p == 1}
    if places[i] != 1:
        return 0.0, 1.0
    return (1.0, 0.0) if len(firsts) == 1 else (0.5, 0.5)


def seated_result(game: Mapping[str, Any], summary: dict[str, Any], team_of_seat: Sequence[int]) -> dict[str, Any]:
    """The result of a finished game of a 3- or 4-seat variant (``summary``: the match service's
    summary with ``match_result`` and ``deal_results``; ``team_of_seat``: the variant's team per
    seat). Per seat, index = seat: ``bots`` (bot id), ``placements`` (1 = first; teammates share
    a place), ``teams`` (team id), ``scores`` (:func:`~bummerl.ladder.stats.placement_scores`:
    1 alone first, 0 behind every other team, shared places half), ``game_points`` (the match's
    final game points), ``deals_won`` / ``deals_lost`` (deals the seat played and was, or was not,
    credited game points in, counting deals that credited anybody and no play-off deal; a seat
    sitting a deal out or credited as the watcher counts neither). Also ``game``, ``pair`` (the
    duplicate set), ``leg``, ``match_id``, ``winner`` (team, or seat without teams, alone in
    first place; -1 shared), ``reason`` and ``deals`` (deals played, play-off deals included)."""
    res = summary["match_result"]
    n = len(game["bots"])
    teams = [int(t) for t in team_of_seat]
    w = int(res["winner"])
    places = [int(p) for p in res.get("placements") or []]
    if len(places) != n:  # not expected from a finished match; derive the places from the winner
        places = [1 if w < 0 or teams[i] == w else 2 for i in range(n)]
    won, lost = [0] * n, [0] * n
    for d in summary["deal_results"]:
        credited = {i for i in range(n) if d["game_points"][i] > 0}
        if d.get("playoff") or not credited:
            continue
        for i in d.get("seats") or range(n):
            if i in credited:
                won[i] += 1
            else:
                lost[i] += 1
    return {
        "game": game["game"], "pair": game["pair"], "leg": game["leg"], "match_id": game["match_id"],
        "bots": game["bots"], "winner": w, "placements": places, "teams": teams,
        "scores": placement_scores(places, teams), "reason": res["reason"], "deals_won": won, "deals_lost": lost,
        "deals": len(summary["deal_results"]), "game_points": [int(x) for x in res["game_points"]],
    }


def rating_pool(cfg: Mapping[str, Any]) -> str:
    """The rating pool of a ladder: ratings are comparable across ladders of one variant with the
    same options, time control and deals per game (one Bummerl or N deals), so they are pooled
    by this key, e.g. ``schnapsen-at|{}|5000+100|deals=0``; accepted challenges form pools of their
    own (``...|challenge``)."""
    tc = cfg.get("time_control") or {}
    clock = (f"{tc.get('base_ms', 0)}+{tc.get('increment_ms', 0)}/move{tc.get('move_cap_ms', 0)}"
             f"/{tc.get('scope') or 'match'}" if tc else "untimed")
    if tc and tc.get("bank_ms"):  # an overage bank is another time control (kept out of the older keys)
        clock += f"/bank{tc['bank_ms']}"
    options = json.dumps(cfg.get("options") or {}, sort_keys=True, separators=(",", ":"))
    kind = "|challenge" if cfg.get("kind") == "challenge" else ""  # challenges: a pool of their own
    return f"{cfg['variant']}|{options}|{clock}|deals={cfg.get('deals_per_game', 0)}{kind}"


def leaderboard(cfg: Mapping[str, Any], results: list[dict[str, Any]]) -> dict[str, Any]:
    """Ratings and pairwise statistics from a ladder's results, in result order.

    ``entries``: per bot ``{"rank", "bot_id", "name", "mu", "sigma", "ordinal", "games", "wins",
    "losses", "draws", "score", "deals_won", "deals_lost", "stats", "later_leg"}``
    (``later_leg``: :class:`~bummerl.ladder.later_leg.LaterLegView`, the bot's score in the later
    legs of its duplicate sets minus the earlier ones, flagged when its interval is above 0;
    ``versions``: each version's own rating over its games, ``version`` the newest that played), sorted by ``ordinal`` (openskill's
    ``mu - 3 sigma``; Plackett-Luce model, one rating update per game in result order).
    ``score`` is the sum of the bot's game scores (two seats: 1 won, 1/2 drawn, 0 lost).

    Games of three or four seats (results with ``placements``): one update per game with one
    openskill team per team of the variant (``[[seat 0, seat 2], [seat 1, seat 3]]`` in the
    four-seat team games; each bot its own team otherwise) ranked by the placements, so partners
    get the same update. ``wins`` = alone (with the partner) in first place, ``draws`` = first
    place shared with another team (or an abandoned game), ``losses`` = any other place;
    ``score`` sums :func:`~bummerl.ladder.stats.placement_scores`; ``deals_won`` / ``deals_lost``
    as in :func:`seated_result`.

    ``pairs``: per pairing ``{"a", "b", "elo", "elo_ci95", "los", "deal_pairs", "games",
    "pentanomial", "sprt_llr", "sprt_result"}`` from ``a``'s side (see :mod:`bummerl.ladder.stats`),
    ``a`` the bot listed first in the ladder's ``bot_ids`` (so an SPRT tests its first bot against
    the second, as a gauntlet's first bot is the one under test; by id for bots not listed):
    from complete duplicate pairs (pentanomial) when the ladder plays them, else from games.
    Three or four seats: head to head of every two bots that sat at one table as opponents
    (partners are left out): a game scores ``a`` 1 if it placed ahead of ``b``, 1/2 on the same
    place, 0 behind; with duplicate deals the unit is a complete duplicate set (``deal_pairs``
    counts them; ``a``'s mean over the set's games where the two were opponents), else the game;
    ``pentanomial`` is empty. That Elo measures finishing ahead of one bot at a table of three or
    four, with the other seats' play mixed in: compare it within the ladder, not with two-player
    Elo.
    """
    standings = Standings(cfg["bot_ids"])
    standings.add(results)
    return {"ladder_id": cfg["ladder_id"], "entries": standings.entries(cfg.get("bot_names", {})),
            "pairs": pair_table(cfg, results)}


class Standings:
    """The running openskill ratings and tallies of a ladder (the ``entries`` of
    :func:`leaderboard`), folded one result at a time in result order, so that a leaderboard read
    costs the results added since the last read, not all of them (:meth:`LadderService.leaderboard`
    keeps one per ladder). ``bot_ids``: the ladder's bots."""

    def __init__(self, bot_ids: Sequence[str]) -> None:
        self.model = PlackettLuce()
        self.ratings = {b: self.model.rating(name=b) for b in bot_ids}
        self.tally = {b: {"games": 0, "wins": 0, "losses": 0, "draws": 0, "score": 0.0, "deals_won": 0,
                          "deals_lost": 0} for b in bot_ids}
        self.stats: dict[str, dict[str, Any]] = {b: {} for b in bot_ids}
        self.later_leg = LaterLeg()
        self.versions: dict[str, dict[str, Any]] = {}
        """``bot@version`` -> its own openskill rating and game count (``versions`` of the entries)."""
        self.count = 0
        """Results folded in so far."""

    def add(self, results: Sequence[dict[str, Any]]) -> None:
        """Fold ``results`` (the next ones of the ladder, in order) into the ratings and tallies."""
        model, ratings, tally = self.model, self.ratings, self.tally
        for r in results:
            self.count += 1
            self.later_leg.add(r)
            self._rate_versions(r)
            for bot, st in zip(r["bots"], r.get("stats") or (), strict=False):
                botstats.add(self.stats.setdefault(bot, {}), st)
            if len(r["bots"]) != 2:
                _rate_seated(model, ratings, tally, r)
                continue
            a, b = r["bots"]
            sa, sb = r["scores"]
            ranks = [0.0, 0.0] if sa == sb else ([0.0, 1.0] if sa > sb else [1.0, 0.0])
            [[ra], [rb]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
            ratings[a], ratings[b] = ra, rb
            for bot, mine, theirs, dw, dl in ((a, sa, sb, r["deals_won"][0], r["deals_won"][1]),
                                              (b, sb, sa, r["deals_won"][1], r["deals_won"][0])):
                t = tally[bot]
                t["games"] += 1
                t["wins" if mine > theirs else "losses" if mine < theirs else "draws"] += 1
                t["score"] += mine
                t["deals_won"] += dw
                t["deals_lost"] += dl

    def _rate_versions(self, r: dict[str, Any]) -> None:
        """One openskill update of the versions that played ``r`` (its ``versions``, index = seat),
        ranked as the bots were; a result without versions rates none."""
        versions = list(r.get("versions") or ())
        if not versions or len(versions) != len(r["bots"]) or not all(versions):
            return
        keys = [f"{b}@{v}" for b, v in zip(r["bots"], versions, strict=True)]
        for k in keys:
            self.versions.setdefault(k, {"rating": self.model.rating(name=k), "games": 0})
        teams = r.get("teams") or list(range(len(keys)))
        scores = [float(x) for x in r["scores"]]
        order = sorted(set(teams))
        seats_of = {t: [i for i, u in enumerate(teams) if u == t] for t in order}
        ranks = [-scores[seats_of[t][0]] for t in order]  # a higher score ranks first (openskill: lower rank)
        rated = self.model.rate([[self.versions[keys[i]]["rating"] for i in seats_of[t]] for t in order], ranks=ranks)
        for t, new in zip(order, rated, strict=True):
            for i, rating in zip(seats_of[t], new, strict=True):
                self.versions[keys[i]]["rating"] = rating
        for k in keys:
            self.versions[k]["games"] += 1

    def version_rows(self, bot: str) -> list[dict[str, Any]]:
        """``{"version", "mu", "sigma", "ordinal", "games"}`` of each version of ``bot`` that
        played, in the order they first played."""
        out = []
        for key, v in self.versions.items():
            b, _, version = key.partition("@")
            if b == bot:
                rt = v["rating"]
                out.append({"version": version, "mu": rt.mu, "sigma": rt.sigma, "ordinal": rt.ordinal(),
                            "games": v["games"]})
        return out

    def entries(self, names: dict[str, str]) -> list[dict[str, Any]]:
        """The leaderboard rows, best ordinal first (see :func:`leaderboard`)."""
        entries: list[dict[str, Any]] = [
            {"bot_id": b, "name": names.get(b, b), "mu": rt.mu, "sigma": rt.sigma, "ordinal": rt.ordinal(),
             **self.tally[b], "stats": botstats.view(self.stats.get(b, {})), "later_leg": self.later_leg.view(b),
             "versions": (vs := self.version_rows(b)), "version": vs[-1]["version"] if vs else ""}
            for b, rt in self.ratings.items()]
        entries.sort(key=lambda e: -float(e["ordinal"]))
        for i, e in enumerate(entries):
            e["rank"] = i + 1
        return entries


def pair_table(cfg: Mapping[str, Any], results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``pairs`` of :func:`leaderboard` alone (no ratings): what an SPRT ladder needs after
    every result."""
    names = cfg.get("bot_names", {})
    listed = {b: i for i, b in enumerate(cfg.get("bot_ids") or ())}

    def order(bot: str) -> tuple[int, str]:  # a = the bot listed first: the SPRT's (gauntlet's) bot under test
        return listed.get(bot, len(listed)), bot

    by_pair: dict[Any, list[dict[str, Any]]] = {}
    for r in results:
        by_pair.setdefault(r["pair"], []).append(r)
    sprt = Sprt(**cfg["sprt"]) if cfg.get("sprt") else None
    pairings: dict[tuple[str, str], dict[str, list[float]]] = {}
    seated = False
    for games in by_pair.values():
        if len(games[0]["bots"]) != 2:
            seated = True
            _pair_seated(pairings, games, bool(cfg.get("duplicate_deals")), order)
            continue
        a, b = sorted(games[0]["bots"], key=order)
        side = pairings.setdefault((a, b), {"pairs": [], "games": []})
        own = [g["scores"][g["bots"].index(a)] for g in games]
        side["games"].extend(own)
        if cfg.get("duplicate_deals") and len(games) == 2:
            side["pairs"].append(sum(own) / 2)
    pairs = []
    for (a, b), side in sorted(pairings.items(), key=lambda kv: (order(kv[0][0]), order(kv[0][1]))):
        units = side["pairs"] if cfg.get("duplicate_deals") else side["games"]
        est = estimate(units)
        # two-seat duplicate pairs score 0, 1/4 ... 1 (pentanomial), single games 0, 1/2, 1
        cells = PENTANOMIAL if cfg.get("duplicate_deals") and not seated else TRINOMIAL
        llr = sprt.llr(units, cells) if sprt else 0.0
        pairs.append({
            "a": a, "b": b, "a_name": names.get(a, a), "b_name": names.get(b, b), "elo": est.elo,
            "elo_ci95": est.elo_ci95, "los": est.los, "deal_pairs": len(side["pairs"]), "games": len(side["games"]),
            "pentanomial": [] if seated else pentanomial(side["pairs"]), "sprt_llr": llr,
            "sprt_result": sprt.verdict(units, cells) if sprt else "",
        })
    return pairs


def _rate_seated(model: Any, ratings: dict[str, Any], tally: dict[str, dict[str, Any]], r: dict[str, Any]) -> None:
    """One openskill update and the tallies of a 3- or 4-seat result (see :func:`leaderboard`)."""
    bots, places, teams = r["bots"], r["placements"], r["teams"]
    order = sorted(set(teams))
    seats_of = {t: [i for i, u in enumerate(teams) if u == t] for t in order}
    team_place = {t: places[seats_of[t][0]] for t in order}
    rated = model.rate([[ratings[bots[i]] for i in seats_of[t]] for t in order], ranks=[float(team_place[t]) for t in order])
    for t, new in zip(order, rated, strict=True):
        for i, rating in zip(seats_of[t], new, strict=True):
            ratings[bots[i]] = rating
    firsts = sum(1 for t in order if team_place[t] == 1)
    for i, b in enumerate(bots):
        t = tally[b]
        t["games"] += 1
        t["wins" if places[i] == 1 and firsts == 1 else "draws" if places[i] == 1 else "losses"] += 1
        t["score"] += r["scores"][i]
        t["deals_won"] += r["deals_won"][i]
        t["deals_lost"] += r["deals_lost"][i]


def _pair_seated(pairings: dict[tuple[str, str], dict[str, list[float]]], games: list[dict[str, Any]],
                 duplicate: bool, order: Callable[[str], Any]) -> None:
    """Add the head-to-head scores of one duplicate set (or one game) of 3 or 4 seats to
    ``pairings`` (``(a, b)`` with ``a`` first by ``order`` -> ``{"pairs": set means, "games": game
    scores}``, from ``a``'s side); a set counts as a unit only when complete (``seats!`` games)."""
    own: dict[tuple[str, str], list[float]] = {}
    for g in games:
        bots = g["bots"]
        for i, j in itertools.combinations(range(len(bots)), 2):
            if order(bots[i]) > order(bots[j]):
                i, j = j, i
            x = head_to_head(g["placements"], g["teams"], i, j)
            if x is not None:
                own.setdefault((bots[i], bots[j]), []).append(x)
    complete = duplicate and len(games) == math.factorial(len(games[0]["bots"]))
    for key, xs in own.items():
        side = pairings.setdefault(key, {"pairs": [], "games": []})
        side["games"].extend(xs)
        if complete:
            side["pairs"].append(sum(xs) / len(xs))


BOARDS = 64
"""Ladders whose running standings one process keeps (least recently read dropped)."""


@dataclass
class LadderBoard:
    """A ladder's results and running standings as one process holds them (``lock`` guards both)."""

    standings: Standings
    results: list[dict[str, Any]] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
