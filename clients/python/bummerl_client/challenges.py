"""How a connected bot answers the challenges it gets on its assignment stream (issue 37):
:class:`ChallengePolicy`, the default of :func:`bummerl_client.botrunner.run_bot` and
``bummerl bot run``. A bot author overrides it with any callable ``(challenge) -> (accept, reason)``
(``reason`` one of the server's decline reasons: ``generic``, ``later``, ``too_fast``,
``too_slow``, ``time_control``, ``variant``, ``rated``, ``casual``, ``no_bots``)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from .payloads_ladder import Challenge

Answer = tuple[bool, str]
"""(accept, decline reason; "" when accepting)."""

Policy = Callable[[Challenge], Answer]
"""Decides a challenge."""

DECISIONS_PER_DEAL = 10
"""A rough count of one seat's decisions in a deal, to tell how much time a whole-match clock
gives a move (``base / DECISIONS_PER_DEAL + increment``)."""


def move_time_ms(ch: Challenge) -> int:
    """About how long one decision may take under the challenge's time control, ms (0 = no clock):
    its per-move cap, else ``base_ms / DECISIONS_PER_DEAL + increment_ms``, plus a share of the
    overage bank."""
    tc = ch.get("time_control")
    if not tc:
        return 0
    base, inc, cap = int(tc.get("base_ms") or 0), int(tc.get("increment_ms") or 0), int(tc.get("move_cap_ms") or 0)
    bank = int(tc.get("bank_ms") or 0)
    per = cap if cap else base // DECISIONS_PER_DEAL + inc
    return per + bank // DECISIONS_PER_DEAL


@dataclass(frozen=True)
class ChallengePolicy:
    """Accept a challenge unless one of these says no (the first that does gives the reason):
    ``variants`` (None = any), ``max_pairs``, ``min_move_ms`` (a clock giving less a move:
    ``too_fast``; see :func:`move_time_ms`), ``max_move_ms`` (more: ``too_slow``; 0 = no limit),
    ``untimed`` (False: only timed challenges, else ``time_control``), ``opponents`` (names or ids
    to accept; None = any registered bot or house bot), ``rated`` (True: only rated, else
    ``casual``; False: only casual, else ``rated``; None = both), ``accept`` (False: decline
    everything, ``later``)."""

    variants: Collection[str] | None = None
    max_pairs: int = 10
    min_move_ms: int = 0
    max_move_ms: int = 0
    untimed: bool = True
    opponents: Collection[str] | None = None
    rated: bool | None = None
    accept: bool = True

    def __call__(self, ch: Challenge) -> Answer:
        if not self.accept:
            return False, "later"
        if self.variants is not None and ch["variant"] not in self.variants:
            return False, "variant"
        if self.opponents is not None and not {ch["challenger"], ch["challenger_name"]} & set(self.opponents):
            return False, "generic"
        if int(ch.get("pairs") or 1) > self.max_pairs:
            return False, "later"
        per = move_time_ms(ch)
        if not per and not self.untimed:
            return False, "time_control"
        if per and per < self.min_move_ms:
            return False, "too_fast"
        if per and self.max_move_ms and per > self.max_move_ms:
            return False, "too_slow"
        if self.rated is True and not ch.get("rated"):
            return False, "casual"
        if self.rated is False and ch.get("rated"):
            return False, "rated"
        return True, ""
