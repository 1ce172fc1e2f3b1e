"""Post-game analysis of a finished match (issue 39): where each seat lost its points.

For every decision of a two-player deal (the two-player games, and the two-player rotation and
play-off deals of the three- and four-player games) with more than one legal action, the seat's
information set *at that moment* (what it knew, nothing more: :func:`bummerl.rules.information_set`)
is searched by the ``strong`` bot's Perfect-Information Monte Carlo with the ``points`` objective:
worlds sampled from that information set (:class:`bummerl.rules.worlds.PublicDeal`), each legal
action played out (a fast policy while the talon is open, then the exact endgame solver). The
mean over the sampled worlds is the action's expected game points of the deal (won minus lost,
from the deciding seat's side); the *loss* of the action taken is the best mean minus its mean
(0 when it was the best). A decision with a loss of at least :data:`INACCURACY` game points is an
inaccuracy, :data:`MISTAKE` a mistake, :data:`BLUNDER` a blunder.

Cost: each decision samples :attr:`AnalysisSettings.samples` worlds, cut at
:attr:`AnalysisSettings.budget_ms` of CPU per decision (wall time on one core). A match of
``d`` analysed decisions costs at most ``d * budget_ms``; a Bummerl of schnapsen-at has about 60
to 120 decisions with a choice (``bummerl bench`` prints the measured cost). The seeds are fixed
(:attr:`AnalysisSettings.seed` plus the version), so an analysis is repeatable.

Contract deals (``bauernschnapsen``, ``talonschnapsen``, ``snapszer-hu-3p-sopron``,
``snapszer-hu-4p``) are listed, not valued (``"values": None``): their search values contracts
and plays by another model.

Only for finished matches (the caller checks the replay gate: the analysis of a decision uses only
its seat's information set, but which decisions were taken tells the later cards).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bummerl.bots.base import InfoSet
from bummerl.bots.strong import StrongBot
from bummerl.rules import MatchState, information_set
from bummerl.rules.worlds import is_rotation_deal

from .log import LogEntry, OutcomeAction

INACCURACY = 0.15
"""Loss (game points) from which a decision is an inaccuracy."""
MISTAKE = 0.4
"""Loss from which a decision is a mistake."""
BLUNDER = 0.8
"""Loss from which a decision is a blunder."""
PHASES = ("talon_open", "talon_closed", "endgame")
"""The phases of a two-player deal the summary counts mistakes in: the talon open, closed by a
seat, exhausted (every card known to whoever counts)."""


@dataclass(frozen=True)
class AnalysisSettings:
    """``samples``: worlds per decision; ``budget_ms``: CPU per decision (ms, cuts the samples);
    ``seed``: the sampling's seed (plus the decision's version)."""

    samples: int = 32
    budget_ms: float = 150.0
    seed: int = 39


def phase_of(info: dict[str, Any]) -> str:
    """``"talon_open"``, ``"talon_closed"`` or ``"endgame"`` (the talon exhausted) of a
    two-player deal's information set; ``"contract"`` for a contract deal."""
    state = (info.get("deal") or {}).get("talon_state") or ""
    if state == "TALON_STATE_OPEN":
        return "talon_open"
    if state == "TALON_STATE_CLOSED":
        return "talon_closed"
    if state == "TALON_STATE_EXHAUSTED":
        return "endgame"
    return "contract"


def classify(loss: float) -> str:
    """"blunder", "mistake", "inaccuracy" or "" for a loss in game points."""
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return ""


def value_actions(info: dict[str, Any], settings: AnalysisSettings, seed: int) -> dict[int, float] | None:
    """Expected game points of the deal (won minus lost, the deciding seat's side) of each legal
    action of ``info``, over worlds sampled from it; None when not valued (one legal action, a
    contract deal, or a decision the search takes without weighing: 66 declared when correct)."""
    legal = info.get("legal_actions") or []
    if len(legal) < 2:
        return None
    two = int(info.get("num_seats", 2)) == 2 or is_rotation_deal(info)
    if not two or phase_of(info) == "contract":
        return None
    bot = StrongBot(seed=seed, samples=settings.samples, budget_ms=settings.budget_ms, objective="points",
                    close_margin=0.0, prune=False, swindle=False, search="pimc", infer=0.0)
    bot.last_stats = {}
    bot.choose(InfoSet(info))
    means = bot.last_stats.get("means")
    if not means or len(means) < 2:
        return None
    return {int(a): float(v) for a, v in means.items()}


def analyse(final: MatchState, entries: Sequence[Sequence[Any]], settings: AnalysisSettings = AnalysisSettings(),
            ) -> dict[str, Any]:
    """The analysis of a finished match from its final state and the service's log entries
    (:meth:`bummerl.core.cache.Loaded`): ``{"decisions": [...], "seats": [...], "cpu_ms"}``.

    Each decision: ``version`` (the version the action made), ``seat``, ``action`` (id),
    ``phase``, ``legal`` (how many actions were legal), and when valued ``values`` (action id as
    a string -> expected game points), ``best`` (an action id of the best value), ``loss`` and
    ``kind`` (:func:`classify`). Each seat: ``decisions`` valued, ``mean_loss``, ``total_loss``
    and ``mistakes`` (inaccuracies, mistakes and blunders) by phase."""
    log = final.to_dict(actions=False)
    log.update(actions=[], ended=None, resigned=None)
    m = MatchState.from_dict(log)
    t0 = time.process_time()
    decisions: list[dict[str, Any]] = []
    for v, raw in enumerate(entries, start=2):
        e = LogEntry.of(raw)
        if not isinstance(e.action, int):
            if e.action == OutcomeAction.FORFEIT_DEAL:
                m = m.copy()
                m.forfeit_deal(e.seat)
            continue
        info: dict[str, Any] = dict(information_set(m, e.seat))
        legal = info.get("legal_actions") or []
        row: dict[str, Any] = {"version": v, "seat": e.seat, "action": e.action, "phase": phase_of(info),
                               "legal": len(legal), "values": None}
        values = value_actions(info, settings, settings.seed * 100_003 + v)
        if values is not None and e.action in values:
            best = max(values, key=lambda a: values[a])
            loss = max(0.0, values[best] - values[e.action])
            row.update(values={str(a): round(x, 4) for a, x in values.items()}, best=best, loss=round(loss, 4),
                       kind=classify(loss))
        decisions.append(row)
        if v < len(entries) + 1:
            m = m.copy()
            m.apply(e.action)
    return {"decisions": decisions, "seats": summarize(decisions, final.num_seats),
            "cpu_ms": round((time.process_time() - t0) * 1000, 1),
            "settings": {"samples": settings.samples, "budget_ms": settings.budget_ms, "seed": settings.seed}}


def summarize(decisions: Sequence[dict[str, Any]], num_seats: int) -> list[dict[str, Any]]:
    """Per seat: decisions valued, mean and total loss (game points), and the inaccuracies,
    mistakes and blunders by phase (:data:`PHASES`)."""
    out = []
    for s in range(num_seats):
        mine = [d for d in decisions if d["seat"] == s and d.get("loss") is not None]
        total = sum(float(d["loss"]) for d in mine)
        mistakes = {p: {"inaccuracy": 0, "mistake": 0, "blunder": 0} for p in PHASES}
        for d in mine:
            if d.get("kind") and d["phase"] in mistakes:
                mistakes[d["phase"]][d["kind"]] += 1
        out.append({"seat": s, "decisions": len(mine), "mean_loss": round(total / len(mine), 4) if mine else 0.0,
                    "total_loss": round(total, 4), "mistakes": mistakes})
    return out
