"""When a seat's time runs out and what the server commits then (docs/DESIGN.md §5).

:func:`deadline_ms` is the instant stored with each version (and indexed for the reaper);
:func:`timeout_step` is the match after the seat to act missed it: the match's timeout policy
(:class:`~bummerl.core.clocks.TimeoutPolicy`) under a time control, else the idle limit (the match
ends as abandoned). Pure: :meth:`bummerl.core.matches.MatchService.expire` and a late SubmitAction
commit the step through the version compare-and-set, so exactly one of them does. Units: ms.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from bummerl.rules import MatchEnd, MatchState
from bummerl.rules.base.actions import action_kind

from .clocks import Clocks, TimeoutPolicy
from .log import OutcomeAction, OutcomeKind


class TimeoutStep(NamedTuple):
    """What a timeout commits: the match ``after`` it, the log entry's ``action`` (an engine
    action id or an :class:`~bummerl.core.log.OutcomeAction`) and ``kind``; ``refill``: the seat's
    main time is set back to ``base_ms`` (policy ``forfeit-deal``)."""

    after: MatchState
    action: int | str
    kind: OutcomeKind
    refill: bool = False


def default_action(legal: Sequence[int]) -> int:
    """The action the server plays for a seat under timeout policy ``default-move``
    (:attr:`~bummerl.core.clocks.TimeoutPolicy.DEFAULT_MOVE`): the lowest-id card play (never a
    declaration or a close), else the first legal action."""
    plays = [a for a in legal if action_kind(a) == "play"]
    return min(plays) if plays else legal[0]


def deadline_ms(m: MatchState, clocks: Clocks | None, meta: dict[str, Any], now: int) -> int:
    """The instant (ms) the seat to act times out (clock) or the match counts as abandoned
    (idle limit, meta ``idle_limit_ms``, no clock); -1 = none."""
    if m.over:
        return -1
    if clocks is not None:
        return clocks.deadline_ms
    idle = int(meta.get("idle_limit_ms") or 0)
    return now + idle if idle > 0 else -1


def timeout_step(before: MatchState, timed: bool, policy: str) -> TimeoutStep:
    """The step that ends the turn of the seat to act in ``before`` once its deadline passed
    (``before`` is not changed). ``timed``: the match has a time control, so ``policy`` (a
    :class:`~bummerl.core.clocks.TimeoutPolicy` value) applies: ``forfeit-deal`` (entry
    ``forfeit-deal``), ``default-move`` (the :func:`default_action` itself), else ``forfeit-match``
    (entry ``forfeit-match``, match end reason ``timeout``), each of kind TIMEOUT; without a time
    control the idle limit passed: the match ends with no winner (entry ``abandon``, kind
    ABANDONED, reason ``abandoned``)."""
    seat = before.to_act
    after = before.copy()
    if not timed:
        after.concede(seat, MatchEnd.ABANDONED)
        return TimeoutStep(after, OutcomeAction.ABANDON, OutcomeKind.ABANDONED)
    if policy == TimeoutPolicy.FORFEIT_DEAL:
        after.forfeit_deal(seat)
        return TimeoutStep(after, OutcomeAction.FORFEIT_DEAL, OutcomeKind.TIMEOUT, refill=True)
    if policy == TimeoutPolicy.DEFAULT_MOVE:
        after.step(default_action(before.legal_actions()))
        return TimeoutStep(after, after.actions[-1][1], OutcomeKind.TIMEOUT)
    after.concede(seat, MatchEnd.TIMEOUT)
    return TimeoutStep(after, OutcomeAction.FORFEIT_MATCH, OutcomeKind.TIMEOUT)
