"""Offline compliance check of a bot (issue 21; like fastchess ``--compliance``): the bot plays
whole matches of every variant against bundled opponents on the rules engine in this process, with
no server, and every protocol fault is reported with the variant, seat, version and what the bot
said, before a ladder finds it.

The bot sees exactly what a server would send: the information set built by the engine
(:func:`bummerl.rules.information_set`) in its proto3 JSON form (int64 fields as strings, enums
by name), a ``match_id`` and ``version``, and, for an ``exec:`` bot, the stdio bridge's
``hello``/``decide``/``over`` lines with a time limit per decision.

    >>> from bummerl.bots import make_bot
    >>> report = BotTestHarness(lambda: make_bot("random", seed=1), variants=["santase"]).run()
    >>> report.ok, report.matches
    (True, 1)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format

from bummerl.rules import apply, information_set, list_variants, new_match
from bummerl.v1 import common_pb2
from bummerl.wire import to_dict

from . import make_bot
from .base import Bot, BotFault, InfoSet, checked_action


def served_json(info: dict[str, Any]) -> dict[str, Any]:
    """The engine's information set dict as the server sends it (proto3 JSON: int64 as strings,
    every field printed)."""
    return to_dict(json_format.ParseDict(info, common_pb2.InformationSet()))


@dataclass
class Problem:
    """One fault: ``kind`` (``illegal``, ``unparsable``, ``timeout``, ``crash``, ``error``)."""

    variant: str
    seat: int
    version: int
    kind: str
    detail: str


@dataclass
class HarnessReport:
    """What the check found: matches played to the end, decisions made, problems (empty = the
    bot complies), the slowest decision (ms) per variant."""

    matches: int = 0
    decisions: int = 0
    problems: list[Problem] = field(default_factory=list)
    slowest_ms: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


class BotTestHarness:
    """Plays ``make_bot()`` (a fresh bot per match) against ``opponent`` bots (a bundled bot spec,
    default ``random``) in ``variants`` (default: all eleven), ``matches`` per variant, the bot
    in seat ``k % seats`` of match ``k``; ``seed`` fixes the decks. A match stops at the first
    fault of the bot under test (which the report lists); ``decision_timeout_s`` is the limit per
    decision an ``exec:`` bot gets (as without a server clock). ``finish`` is awaited once when
    the check ends (``bot check`` passes the stdio bridge's ``close_idle``, which ends the reused
    processes of ``exec:`` bots)."""

    def __init__(self, make_bot: Callable[[], Bot], variants: Sequence[str] | None = None, matches: int = 1,
                 opponent: str = "random", seed: int = 1, decision_timeout_s: float = 10.0,
                 finish: Callable[[], Awaitable[object]] | None = None) -> None:
        self.make_bot = make_bot
        self.variants = list(variants) if variants else [v.id for v in list_variants()]
        self.matches = matches
        self.opponent = opponent
        self.seed = seed
        self.decision_timeout_s = decision_timeout_s
        self.finish = finish

    def run(self) -> HarnessReport:
        return asyncio.run(self.arun())

    async def arun(self) -> HarnessReport:
        report = HarnessReport()
        try:
            for variant in self.variants:
                for k in range(self.matches):
                    await self._match(variant, k, report)
        finally:
            if self.finish is not None:
                await self.finish()
        return report

    async def _match(self, variant: str, k: int, report: HarnessReport) -> None:
        m = new_match(variant, seed=self.seed + k)
        n = m.rules.spec.num_players
        mine = k % n
        bots = [self.make_bot() if s == mine else make_bot(self.opponent, seed=self.seed + 10 * k + s) for s in range(n)]
        under_test: Any = bots[mine]
        if hasattr(under_test, "decision_timeout_s"):  # e.g. the stdin/stdout bridge's bots
            under_test.decision_timeout_s = self.decision_timeout_s
        match_id = f"check{variant.replace('-', '')}{k}"
        version = 1
        final: dict[str, Any] | None = None
        try:
            while not m.over:
                seat = m.to_act
                info = served_json({**information_set(m, seat), "match_id": match_id, "version": version})
                started = time.perf_counter()
                try:
                    answer = await bots[seat].achoose(InfoSet(info))
                    try:
                        action = checked_action(InfoSet(info), answer)
                    except BotFault as f:  # where an exec: bot's own log is, with the answer's fault
                        raise BotFault(f.kind, f.detail + bots[seat].fault_note()) from None
                except BotFault as f:
                    if seat != mine:
                        raise
                    report.problems.append(Problem(variant, seat, version, f.kind, f.detail))
                    return
                except Exception as e:  # noqa: BLE001 - a bot's own bug is a fault of the bot
                    if seat != mine:
                        raise
                    report.problems.append(Problem(variant, seat, version, "error", f"{type(e).__name__}: {e}"[:300]))
                    return
                if seat == mine:
                    report.decisions += 1
                    ms = (time.perf_counter() - started) * 1000
                    report.slowest_ms[variant] = max(report.slowest_ms.get(variant, 0.0), round(ms, 1))
                m = apply(m, action)
                version += 1
            final = served_json({**information_set(m, mine), "match_id": match_id, "version": version})
            report.matches += 1
        finally:
            for s, b in enumerate(bots):
                await b.aclose(final if s == mine else None)
