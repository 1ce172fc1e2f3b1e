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
to 120 decisions with a choice (``bummerl bench web`` prints the measured cost: about 1.8 s of CPU
per greedy-v-random match, 41 ms per valued decision). The seeds are fixed
(:attr:`AnalysisSettings.seed` plus the version), so an analysis is repeatable (while the budget
does not cut the samples: the budget is wall time).

Contract deals (``bauernschnapsen``, ``talonschnapsen``, ``snapszer-hu-3p-sopron``,
``snapszer-hu-4p``) are listed, not valued (``"values": None``): their search values contracts
and plays by another model.

Only for finished matches (the caller checks the replay gate: the analysis of a decision uses only
its seat's information set, but which decisions were taken tells the later cards). Served by
``GetMatchAnalysis`` (:mod:`bummerl.core.analysis_store`: once per match, cached, off the event loop).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
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


def valuable(info: dict[str, Any]) -> bool:
    """Is this decision valued (:func:`value_actions`): more than one legal action, in a two-player
    deal that is not a contract deal? Cheap: no search."""
    if len(info.get("legal_actions") or []) < 2:
        return False
    two = int(info.get("num_seats", 2)) == 2 or is_rotation_deal(info)
    return two and phase_of(info) != "contract"


def value_actions(info: dict[str, Any], settings: AnalysisSettings, seed: int) -> dict[int, float] | None:
    """Expected game points of the deal (won minus lost, the deciding seat's side) of each legal
    action of ``info``, over worlds sampled from it; None when not valued (one legal action, a
    contract deal, or a decision the search takes without weighing: 66 declared when correct)."""
    if not valuable(info):
        return None
    bot = StrongBot(seed=seed, samples=settings.samples, budget_ms=settings.budget_ms, objective="points",
                    close_margin=0.0, prune=False, swindle=False, search="pimc", infer=0.0)
    bot.last_stats = {}
    bot.choose(InfoSet(info))
    means = bot.last_stats.get("means")
    if not means or len(means) < 2:
        return None
    return {int(a): float(v) for a, v in means.items()}


def timed_values(info: dict[str, Any], settings: AnalysisSettings, seed: int) -> tuple[dict[int, float] | None, float]:
    """:func:`value_actions` and the CPU time it took (ms, this process's): one unit of work of a
    worker process (plain data in and out)."""
    t0 = time.process_time()
    values = value_actions(info, settings, seed)
    return values, (time.process_time() - t0) * 1000


def decision_seed(settings: AnalysisSettings, version: int) -> int:
    """The sampling seed of the decision that made ``version``."""
    return settings.seed * 100_003 + version


def analyse(final: MatchState, entries: Sequence[Sequence[Any]], settings: AnalysisSettings = AnalysisSettings(),
            ) -> dict[str, Any]:
    """The analysis of a finished match from its final state and the service's log entries
    (:meth:`bummerl.core.cache.Loaded`): ``{"decisions": [...], "seats": [...], "cpu_ms"}``.

    Each decision: ``version`` (the version the action made), ``seat``, ``action`` (id),
    ``text`` (its text form), ``texts`` (every legal action's text by id as a string),
    ``phase``, ``legal`` (how many actions were legal), and when valued ``values`` (action id as
    a string -> expected game points), ``best`` (an action id of the best value), ``loss`` and
    ``kind`` (:func:`classify`). Each seat: ``decisions`` valued, ``mean_loss``, ``total_loss``
    and ``mistakes`` (inaccuracies, mistakes and blunders) by phase."""
    return analyse_log(final.to_dict(actions=False), final.num_seats, entries, settings)


def analyse_log(log: dict[str, Any], num_seats: int, entries: Sequence[Sequence[Any]],
                settings: AnalysisSettings = AnalysisSettings()) -> dict[str, Any]:
    """:func:`analyse` from the match's log without its actions (``MatchState.to_dict(actions=False)``,
    plain data: what a worker process is sent) and its number of seats."""
    t0 = time.process_time()
    decisions = [with_values(row, value_actions(info, settings, decision_seed(settings, row["version"])))
                 for row, info in decision_steps(log, entries)]
    return finish(decisions, num_seats, (time.process_time() - t0) * 1000, settings)


def decision_steps(log: dict[str, Any], entries: Sequence[Sequence[Any]],
                   ) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Each decision of the match (the log without its actions, the service's entries) as its row
    (``version``, ``seat``, ``action``, ``text``, ``texts``, ``phase``, ``legal``, ``values`` None)
    and the deciding seat's information set at that moment; service outcomes are left out."""
    log = dict(log)
    log.update(actions=[], ended=None, resigned=None)
    m = MatchState.from_dict(log)
    for v, raw in enumerate(entries, start=2):
        e = LogEntry.of(raw)
        if not isinstance(e.action, int):
            if e.action == OutcomeAction.FORFEIT_DEAL:
                m = m.copy()
                m.forfeit_deal(e.seat)
            continue
        info: dict[str, Any] = dict(information_set(m, e.seat))
        legal = info.get("legal_actions") or []
        texts = {int(a["id"]): str(a["text"]) for a in legal}
        yield ({"version": v, "seat": e.seat, "action": e.action, "phase": phase_of(info), "legal": len(legal),
                "values": None, "text": texts.get(e.action, str(e.action)),
                "texts": {str(a): t for a, t in texts.items()}}, info)
        if v < len(entries) + 1:
            m = m.copy()
            m.apply(e.action)


def with_values(row: dict[str, Any], values: dict[int, float] | None) -> dict[str, Any]:
    """``row`` with ``values``, ``best``, ``loss`` and ``kind`` when ``values`` value its action."""
    if values is not None and row["action"] in values:
        best = max(values, key=lambda a: values[a])
        loss = max(0.0, values[best] - values[row["action"]])
        row.update(values={str(a): round(x, 4) for a, x in values.items()}, best=best, loss=round(loss, 4),
                   kind=classify(loss))
    return row


def finish(decisions: list[dict[str, Any]], num_seats: int, cpu_ms: float, settings: AnalysisSettings,
           ) -> dict[str, Any]:
    """The :func:`analyse` result of the valued decisions."""
    return {"decisions": decisions, "seats": summarize(decisions, num_seats), "cpu_ms": round(cpu_ms, 1),
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


def to_message(result: dict[str, Any], match_id: str, names: Sequence[str] = ()) -> dict[str, Any]:
    """The ``MatchAnalysis`` message (proto/bummerl/v1/game.proto, state ``"done"``) of an
    :func:`analyse` result: each decision with ``values`` as ``[{action_id, action_text, value}]``
    best first, ``best_action_id`` -1, ``loss`` 0 and ``kind`` "" when not valued; each seat with
    its ``name`` (from ``names``) and ``phases`` in :data:`PHASES` order; the thresholds in
    ``settings``. Losses and values are game points, ``cpu_ms`` milliseconds."""
    decisions = []
    for d in result["decisions"]:
        values = d.get("values")
        texts = d.get("texts") or {}
        row = {"version": int(d["version"]), "seat": int(d["seat"]), "action_id": int(d["action"]),
               "action_text": str(d.get("text", d["action"])), "phase": d["phase"], "legal_actions": int(d["legal"]),
               "valued": values is not None, "values": [], "best_action_id": -1, "loss": 0.0, "kind": ""}
        if values is not None:
            ranked = sorted(values.items(), key=lambda kv: (-float(kv[1]), int(kv[0])))
            row.update(values=[{"action_id": int(a), "action_text": str(texts.get(a, a)), "value": float(x)}
                               for a, x in ranked],
                       best_action_id=int(d["best"]), loss=float(d["loss"]), kind=str(d["kind"]))
        decisions.append(row)
    seats = [{"seat": int(s["seat"]), "name": str(names[s["seat"]]) if s["seat"] < len(names) else "",
              "decisions": int(s["decisions"]), "mean_loss": float(s["mean_loss"]), "total_loss": float(s["total_loss"]),
              "phases": [{"phase": p, "inaccuracies": s["mistakes"][p]["inaccuracy"], "mistakes": s["mistakes"][p]["mistake"],
                          "blunders": s["mistakes"][p]["blunder"]} for p in PHASES]}
             for s in result["seats"]]
    st = result.get("settings") or {}
    return {"match_id": match_id, "state": "done", "retry_after_ms": 0, "decisions": decisions, "seats": seats,
            "cpu_ms": float(result.get("cpu_ms", 0.0)),
            "settings": {"samples": int(st.get("samples", 0)), "budget_ms": float(st.get("budget_ms", 0.0)),
                         "seed": int(st.get("seed", 0)), "inaccuracy": INACCURACY, "mistake": MISTAKE,
                         "blunder": BLUNDER}}
