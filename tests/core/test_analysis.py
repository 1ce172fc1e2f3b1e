"""The post-game analysis (bummerl.core.analysis, issue 39's last part): each decision with a choice
valued from its seat's information set, the loss of the action taken, a summary per seat. (Served by
GetMatchAnalysis: tests/api/test_analysis_api.py; shown in the replay: tests/web/test_analysis_page.py.)"""

from __future__ import annotations

from typing import Any

from bummerl.bots import make_bot
from bummerl.bots.base import InfoSet
from bummerl.core.analysis import BLUNDER, INACCURACY, PHASES, AnalysisSettings, analyse, classify
from bummerl.rules import MatchState, information_set, new_match, parse_action


def _play(variant: str, specs: tuple[str, ...], seed: int) -> tuple[MatchState, list[list[Any]]]:
    m = new_match(variant, seed=seed)
    bots = [make_bot(s, i + 1) for i, s in enumerate(specs)]
    entries: list[list[Any]] = []
    while not m.over:
        seat, info = next((s, i) for s in range(m.num_seats) if (i := information_set(m, s)).get("legal_actions"))
        a = bots[seat].choose(InfoSet(info))
        a = a if isinstance(a, int) else parse_action(a)
        entries.append([seat, a, 0])
        m = m.copy()
        m.apply(a)
    return m, entries


def test_every_decision_with_a_choice_is_valued_and_the_analysis_repeats() -> None:
    """A greedy-random match of schnapsen-at: every decision of more than one legal action is valued
    over exactly its legal actions, its loss is the best value minus the taken one's (0 for the
    best), the kinds follow the thresholds, the summary adds up, and a second run gives the same."""
    final, entries = _play("schnapsen-at", ("greedy", "random"), 11)
    settings = AnalysisSettings(samples=8, budget_ms=0, seed=5)
    got = analyse(final, entries, settings)
    assert len(got["decisions"]) == len(entries)
    valued = [d for d in got["decisions"] if d["values"] is not None]
    assert valued and all(d["legal"] >= 2 for d in valued)
    for d in valued:
        values = {int(a): v for a, v in d["values"].items()}
        assert d["action"] in values and d["best"] in values and len(values) == d["legal"]
        assert abs(d["loss"] - (max(values.values()) - values[d["action"]])) < 1e-3
        assert d["kind"] == classify(d["loss"]) and d["phase"] in PHASES
    assert classify(INACCURACY) == "inaccuracy" and classify(BLUNDER) == "blunder" and classify(0.0) == ""
    for s in got["seats"]:
        mine = [d for d in valued if d["seat"] == s["seat"]]
        assert s["decisions"] == len(mine)
        assert abs(s["total_loss"] - sum(d["loss"] for d in mine)) < 1e-2
        assert sum(n for p in s["mistakes"].values() for n in p.values()) == sum(1 for d in mine if d["kind"])
    again = analyse(final, entries, settings)
    assert again["decisions"] == got["decisions"]


def test_contract_deals_are_listed_not_valued() -> None:
    """Bauernschnapsen: every decision is listed, none valued (contract deals are not analysed yet)."""
    final, entries = _play("bauernschnapsen", ("greedy", "random", "greedy", "random"), 3)
    got = analyse(final, entries, AnalysisSettings(samples=4, budget_ms=0))
    assert len(got["decisions"]) == len(entries) and all(d["values"] is None for d in got["decisions"])
