"""Time controls and chess-style clocks, all clock arithmetic in one place (docs/DESIGN.md §5).

Units: every duration and instant here is an ``int`` of **milliseconds**; instants are server
wall-clock milliseconds since the Unix epoch, read from an injected ``now_ms()`` (tests pass a fake
clock and never sleep). Nothing here does I/O.

Model (docs/RULES.md SRV-5 leaves time limits to the server; this is the server's convention):

* A seat's clock starts when the version that makes it that seat's turn is committed
  (``turn_start_ms``) and stops when its action is committed.
* The time a seat may use for one action (its *budget*) is its remaining main time, capped by
  ``move_cap_ms`` when set; with ``base_ms == 0`` there is no main clock and every action has
  exactly ``move_cap_ms`` ("fixed time per move").
* ``lag_compensation_ms`` is not charged: an action that took ``e`` ms costs ``max(0, e - lag)``.
  The deadline of a turn is therefore ``turn_start + budget + lag``.
* After an action the seat gets ``increment_ms`` (Fischer increment) added to its main time.
* Scope ``deal``: every seat's main time is reset to ``base_ms`` when a deal starts; scope
  ``match``: one main time for the whole match.
* Overage bank (``bank_ms``, Kaggle's ``remainingOverageTime``): each seat also has a bank for the
  whole match (never reset, not even with scope ``deal``). An action may take longer than its
  budget: the time beyond the budget is taken from the bank, and the deadline of a turn is
  ``turn_start + budget + bank + lag``. The timeout policy applies when the bank is empty too.

>>> tc = TimeControl.parse("60+1,move=5")
>>> (tc.base_ms, tc.increment_ms, tc.move_cap_ms, tc.scope)
(60000, 1000, 5000, 'match')
>>> str(tc)
'60+1,move=5'
>>> c = Clocks.start(tc, num_seats=2, seat=0, now_ms=1_000)
>>> c.deadline_ms
6000
>>> c = c.after_action(seat=0, now_ms=3_500, next_seat=1, deal_changed=False)
>>> c.remaining_ms
[58500, 60000]
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

SCOPES = ("match", "deal")
"""``match``: one clock per seat for the whole match; ``deal``: reset at the start of every deal."""


class TimeoutPolicy(StrEnum):
    """What the server does when a seat's deadline passes (the reaper or a late action applies it).
    A string enum: each member is its stored string (meta ``timeout_policy``), so it compares equal
    to the plain strings read back from Redis or sent by a client."""

    FORFEIT_MATCH = "forfeit-match"
    """The seat loses the match at once (match result reason ``timeout``)."""
    FORFEIT_DEAL = "forfeit-deal"
    """The seat loses the current deal, scored for the opponent as if the seat had taken no trick
    (``DealResult.reason`` ``timeout``); the match goes on and the seat's main time is set back to
    ``base_ms`` (otherwise it would lose every later turn at once)."""
    DEFAULT_MOVE = "default-move"
    """The server plays the seat's default legal action (the lowest-id card play, else the first
    legal action) and the seat's clock stays at zero plus the increment."""


TIMEOUT_POLICIES = tuple(TimeoutPolicy)
"""Every timeout policy: ``("forfeit-match", "forfeit-deal", "default-move")``, the members of
:class:`TimeoutPolicy` (which says what each does), in this order; ``policy in TIMEOUT_POLICIES``
holds for the plain strings as well."""

DEFAULT_TIMEOUT_POLICY = TimeoutPolicy.FORFEIT_MATCH
"""The policy of a match created without one."""

MAX_MS = 7 * 24 * 3600 * 1000
"""Upper bound of every duration of a time control: one week, in milliseconds."""

_NUM = r"(\d+(?:\.\d+)?)"
_BASE_RE = re.compile(rf"^{_NUM}(?:\+{_NUM})?$")


class TimeControlError(ValueError):
    """A malformed or out-of-range time control; the message names the part that is wrong."""


def _ms(seconds_text: str, what: str) -> int:
    value = float(seconds_text)
    if not math.isfinite(value) or value < 0:
        raise TimeControlError(f"{what} must be a number of seconds >= 0, got {seconds_text!r}")
    ms = round(value * 1000)
    if ms > MAX_MS:
        raise TimeControlError(f"{what} must be at most {MAX_MS // 1000} s, got {seconds_text!r}")
    return ms


def _fmt_s(ms: int) -> str:
    return f"{ms / 1000:g}"


@dataclass(frozen=True)
class TimeControl:
    """Per-seat clock settings of a match (proto ``TimeControl``), all in **milliseconds**."""

    base_ms: int = 0
    """Main time per seat; 0 = no main clock (then ``move_cap_ms`` must be set)."""
    increment_ms: int = 0
    """Added to the seat's main time after each of its actions (Fischer increment)."""
    move_cap_ms: int = 0
    """Most time one action may take; 0 = no cap."""
    lag_compensation_ms: int = 0
    """Time per action not charged, to compensate network lag."""
    scope: str = "match"
    """``match`` or ``deal`` (:data:`SCOPES`)."""
    bank_ms: int = 0
    """Overage bank per seat for the whole match: time an action may take beyond its budget; 0 = none."""

    def __post_init__(self) -> None:
        for name in ("base_ms", "increment_ms", "move_cap_ms", "lag_compensation_ms", "bank_ms"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_MS:
                raise TimeControlError(f"time_control.{name} must be an integer in 0..{MAX_MS} (ms), got {v!r}")
        if self.scope not in SCOPES:
            raise TimeControlError(f"time_control.scope must be one of {', '.join(SCOPES)}, got {self.scope!r}")
        if self.base_ms == 0 and self.move_cap_ms == 0:
            raise TimeControlError("a time control needs base_ms > 0 or move_cap_ms > 0")

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """The CLI text form, in **seconds**: ``"5+0.1"`` (base + increment), ``"move=2"`` (fixed
        time per move), combinable with commas: ``"60+1,move=5"``, plus ``lag=0.05``,
        ``scope=deal`` and ``bank=30`` (the overage bank: ``"move=2,bank=30"``). Raises
        :class:`TimeControlError` naming the bad part.

        >>> TimeControl.parse("move=2")
        TimeControl(base_ms=0, increment_ms=0, move_cap_ms=2000, lag_compensation_ms=0, scope='match', bank_ms=0)
        >>> TimeControl.parse("5+x")
        Traceback (most recent call last):
        ...
        bummerl.core.clocks.TimeControlError: bad time control part '5+x': expected BASE[+INC] in seconds, move=S, lag=S, bank=S or scope=match|deal
        """
        kw: dict[str, Any] = {}
        parts = [p.strip() for p in str(text).split(",") if p.strip()]
        if not parts:
            raise TimeControlError("empty time control; examples: 5+0.1, move=2, 60+1,move=5")
        for part in parts:
            key, eq, value = part.partition("=")
            m = _BASE_RE.match(part)
            if m and "base_ms" not in kw:
                kw["base_ms"] = _ms(m.group(1), "base")
                kw["increment_ms"] = _ms(m.group(2), "increment") if m.group(2) else 0
            elif eq and key.strip() == "move" and re.fullmatch(_NUM, value.strip()):
                kw["move_cap_ms"] = _ms(value.strip(), "move")
            elif eq and key.strip() == "lag" and re.fullmatch(_NUM, value.strip()):
                kw["lag_compensation_ms"] = _ms(value.strip(), "lag")
            elif eq and key.strip() == "bank" and re.fullmatch(_NUM, value.strip()):
                kw["bank_ms"] = _ms(value.strip(), "bank")
            elif eq and key.strip() == "scope":
                kw["scope"] = value.strip()
            else:
                raise TimeControlError(
                    f"bad time control part {part!r}: expected BASE[+INC] in seconds, move=S, lag=S, bank=S or "
                    f"scope=match|deal"
                )
        return cls(**kw)

    def __str__(self) -> str:
        parts = []
        if self.base_ms:
            parts.append(_fmt_s(self.base_ms) + (f"+{_fmt_s(self.increment_ms)}" if self.increment_ms else "+0"))
        if self.move_cap_ms:
            parts.append(f"move={_fmt_s(self.move_cap_ms)}")
        if self.lag_compensation_ms:
            parts.append(f"lag={_fmt_s(self.lag_compensation_ms)}")
        if self.bank_ms:
            parts.append(f"bank={_fmt_s(self.bank_ms)}")
        if self.scope != "match":
            parts.append(f"scope={self.scope}")
        return ",".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The proto ``TimeControl`` shape: ``{"base_ms", "increment_ms", "move_cap_ms",
        "lag_compensation_ms", "scope": "match" | "deal", "bank_ms"}`` (``bank_ms`` only when set, so
        the stored form of a match without a bank is unchanged)."""
        d: dict[str, Any] = {
            "base_ms": self.base_ms,
            "increment_ms": self.increment_ms,
            "move_cap_ms": self.move_cap_ms,
            "lag_compensation_ms": self.lag_compensation_ms,
            "scope": self.scope,
        }
        if self.bank_ms:
            d["bank_ms"] = self.bank_ms
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> TimeControl | None:
        """Inverse of :meth:`to_dict`; ``None``/``{}`` or all-zero durations = no time control.
        Raises :class:`TimeControlError` for bad values."""
        if not d:
            return None
        values = {k: d.get(k, 0) or 0 for k in ("base_ms", "increment_ms", "move_cap_ms", "lag_compensation_ms")}
        if not any(values.values()):
            return None
        return cls(**{k: int(v) for k, v in values.items()}, scope=str(d.get("scope") or "match"),
                   bank_ms=int(d.get("bank_ms", 0) or 0))


@dataclass(frozen=True)
class Clocks:
    """The clocks of one match at one version (stored with the match, JSON via :meth:`to_dict`).

    ``remaining_ms[s]`` is seat ``s``'s main time at ``turn_start_ms`` (for the seat to act, the
    time it had when its turn began), ``bank_ms[s]`` its overage bank then (empty list: none).
    ``seat`` is the seat whose clock runs (-1 = none: match over). ``deadline_ms`` is the instant
    the running seat loses on time (-1 = none)."""

    tc: TimeControl
    remaining_ms: list[int]
    seat: int = -1
    turn_start_ms: int = 0
    deadline_ms: int = -1
    bank_ms: list[int] = field(default_factory=list)

    # ----------------------------------------------------------------- transitions
    @classmethod
    def start(cls, tc: TimeControl, num_seats: int, seat: int, now_ms: int) -> Clocks:
        """Fresh clocks at match creation; ``seat`` (the first to act) starts running at ``now_ms``."""
        return cls(tc, [tc.base_ms] * num_seats, bank_ms=[tc.bank_ms] * num_seats if tc.bank_ms else [])._run(seat, now_ms)

    def budget_ms(self, seat: int) -> int:
        """Most time ``seat`` may use for its next action (main time capped by the move cap)."""
        tc = self.tc
        if tc.base_ms == 0:
            return tc.move_cap_ms
        rem = max(0, self.remaining_ms[seat])
        return min(rem, tc.move_cap_ms) if tc.move_cap_ms else rem

    def bank_of(self, seat: int) -> int:
        """``seat``'s overage bank at the start of its turn (0 without a bank)."""
        return max(0, self.bank_ms[seat]) if 0 <= seat < len(self.bank_ms) else 0

    def _run(self, seat: int, now_ms: int) -> Clocks:
        if seat < 0:
            return replace(self, seat=-1, turn_start_ms=now_ms, deadline_ms=-1)
        deadline = now_ms + self.budget_ms(seat) + self.bank_of(seat) + self.tc.lag_compensation_ms
        return replace(self, seat=seat, turn_start_ms=now_ms, deadline_ms=deadline)

    def charged_ms(self, now_ms: int) -> int:
        """Time charged to the running seat if it acted at ``now_ms`` (lag compensated)."""
        return max(0, now_ms - self.turn_start_ms - self.tc.lag_compensation_ms)

    def expired(self, now_ms: int) -> bool:
        """True once the running seat's deadline has passed (an action at ``now_ms`` is late)."""
        return self.seat >= 0 and now_ms > self.deadline_ms

    def after_action(self, seat: int, now_ms: int, next_seat: int, deal_changed: bool, refill: bool = False,
                     increment: bool = True) -> Clocks:
        """The clocks after ``seat``'s action committed at ``now_ms``: its main time is charged and
        gets the increment (not with ``increment=False``: a timeout that ended the match leaves the
        flag at 0); ``next_seat`` starts running (-1 = none). ``deal_changed`` with scope
        ``deal`` resets every main time to ``base_ms``. ``refill``: the acting seat's main time is
        set back to ``base_ms`` (policy :attr:`TimeoutPolicy.FORFEIT_DEAL`)."""
        tc = self.tc
        rem = list(self.remaining_ms)
        bank = list(self.bank_ms)
        if 0 <= seat < len(bank):  # the time beyond the budget comes out of the bank
            bank[seat] = max(0, bank[seat] - max(0, self.charged_ms(now_ms) - self.budget_ms(seat)))
        if tc.base_ms and 0 <= seat < len(rem):
            rem[seat] = max(0, rem[seat] - self.charged_ms(now_ms)) + (tc.increment_ms if increment else 0)
            if refill:
                rem[seat] = tc.base_ms
        if deal_changed and tc.scope == "deal":
            rem = [tc.base_ms] * len(rem)
        return replace(self, remaining_ms=rem, bank_ms=bank)._run(next_seat, now_ms)

    # ----------------------------------------------------------------- views
    def view(self, now_ms: int) -> list[dict[str, Any]]:
        """Per seat ``{"seat", "remaining_ms", "running", "move_remaining_ms", "bank_ms"}`` at
        ``now_ms`` (proto ``Clock``): the running seat's main time minus the time used so far
        (never below 0); ``move_remaining_ms`` = time left for the current action before the bank
        is drawn on (0 when not running, and once the action runs into the bank); ``bank_ms`` =
        the seat's overage bank left now (the running seat's shrinks once its budget is used up;
        the flag falls when both are 0). With no main clock, ``remaining_ms`` is the move time left."""
        out = []
        used = max(0, now_ms - self.turn_start_ms)
        for s, rem in enumerate(self.remaining_ms):
            running = s == self.seat
            bank = self.bank_of(s)
            if running:
                move_left = max(0, self.deadline_ms - bank - self.tc.lag_compensation_ms - now_ms)
                main = max(0, rem - used) if self.tc.base_ms else move_left
                charged = max(0, used - self.tc.lag_compensation_ms)
                bank = max(0, bank - max(0, charged - self.budget_ms(s)))
            else:
                move_left = 0
                main = rem if self.tc.base_ms else self.tc.move_cap_ms
            out.append({"seat": s, "remaining_ms": main, "running": running, "move_remaining_ms": move_left,
                        "bank_ms": bank})
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON form stored with the match: ``{"remaining_ms", "seat", "turn_start_ms", "deadline_ms"}``
        and ``bank_ms`` under an overage bank (the time control itself is stored once, in the match
        meta)."""
        d: dict[str, Any] = {
            "remaining_ms": list(self.remaining_ms),
            "seat": self.seat,
            "turn_start_ms": self.turn_start_ms,
            "deadline_ms": self.deadline_ms,
        }
        if self.bank_ms:
            d["bank_ms"] = list(self.bank_ms)
        return d

    @classmethod
    def from_dict(cls, tc: TimeControl, d: dict[str, Any]) -> Clocks:
        bank = [int(x) for x in d.get("bank_ms") or ()] or ([tc.bank_ms] * len(d["remaining_ms"]) if tc.bank_ms else [])
        return cls(tc, [int(x) for x in d["remaining_ms"]], int(d["seat"]), int(d["turn_start_ms"]), int(d["deadline_ms"]),
                   bank)
