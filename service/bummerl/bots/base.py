"""The :class:`Bot` base class (re-exported by the SDK as ``bummerl_client.Bot``), :class:`BotFault`,
:func:`checked_action` (a bot's answer -> a legal action id) and :class:`InfoSet`, a thin view of an information set dict: the
``InformationSet`` message (proto/bummerl/v1/common.proto) as JSON with proto field names, enums by
name (``"TALON_STATE_OPEN"``), events keyed by their kind (``{"card_played": {...}}``). It is the
one shape of the served JSON (SDK, REST, the stdio bridge) and of the engine's own dict
(:func:`bummerl.rules.information_set`, :mod:`bummerl.rules.base.views`), except that proto3 JSON
writes int64 fields (``version``, the clocks' ``*_ms``) as decimal strings: read them with ``int()``.

A bot implements one method, :meth:`Bot.choose`, returning a legal action id (int) or its text
(``"play QH"``). Bots keep no memory: the information set carries the deal's full public
history (perfect recall), so :func:`own_deal_points` can recount what the seat has won.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from bummerl.rules import InvalidActionError, parse_action

RANK_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0}
RANK_ORDER = "ATKQJ9"


def card_points(card: str) -> int:
    """Card points of a card code (DEF-CARD-3; a 9 counts 0)."""
    return RANK_POINTS[card[0]]


def beats(a: str, b: str, trump: str) -> bool:
    """Whether card ``a`` played after led card ``b`` wins the trick (DEF-TRICK-1)."""
    if a[1] == b[1]:
        return RANK_ORDER.index(a[0]) < RANK_ORDER.index(b[0])
    return a[1] == trump


class InfoSet:
    """Read-only view of an information set dict with the fields bots use most."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = raw
        self.deal: Mapping[str, Any] = raw.get("deal", {})
        self.match: Mapping[str, Any] = raw.get("match", {})

    seat = property(lambda self: int(self.raw.get("seat", 0)))
    version = property(lambda self: int(self.raw.get("version", 0)))
    variant = property(lambda self: str(self.raw.get("variant", "")))
    legal_actions = property(lambda self: list(self.raw.get("legal_actions", [])))
    hand = property(lambda self: list(self.deal.get("hand", [])))
    trump_suit = property(lambda self: str(self.deal.get("trump_suit", "")))
    trump_card = property(lambda self: str(self.deal.get("trump_card", "")))
    talon_size = property(lambda self: int(self.deal.get("talon_size", 0)))
    talon_open = property(lambda self: self.deal.get("talon_state") == "TALON_STATE_OPEN")
    current_trick = property(lambda self: list(self.deal.get("current_trick", [])))
    history = property(lambda self: list(self.deal.get("history", [])))
    to_act = property(lambda self: int(self.deal.get("to_act", -1)))
    over = property(lambda self: bool(self.match.get("over", False)))
    clocks = property(lambda self: list(self.raw.get("clocks", [])))

    def move_time_ms(self) -> int | None:
        """Milliseconds this seat has left for its current action (``clocks[seat]
        .move_remaining_ms`` while its clock runs), or None without a time control."""
        for c in self.clocks:
            if int(c.get("seat", -1)) == self.seat and c.get("running"):
                return int(c.get("move_remaining_ms", 0))
        return None

    def bank_ms(self) -> int:
        """Milliseconds of this seat's overage bank left (``clocks[seat].bank_ms``; 0 without a
        bank): time a decision may take beyond :meth:`move_time_ms`, paid from the bank."""
        for c in self.clocks:
            if int(c.get("seat", -1)) == self.seat:
                return int(c.get("bank_ms", 0) or 0)
        return 0

    def actions_of(self, kind: str) -> list[dict[str, Any]]:
        return [a for a in self.legal_actions if a.get("kind") == kind]

    def own_deal_points(self) -> int:
        """The seat's deal points recounted from the public history of the deal: cards of the
        tricks it won plus its marriages once it has won a trick (DEF-PTS-3)."""
        me = self.seat
        pts = 0
        tricks = 0
        marriages = 0
        for ev in self.history:
            t = ev.get("trick_completed")
            if t and int(t.get("winner", 0)) == me:
                tricks += 1
                pts += sum(card_points(c["card"]) for c in t.get("cards", []))
            m = ev.get("marriage_announced")
            if m and int(m.get("seat", 0)) == me:
                marriages += int(m.get("points", 0))
        return pts + (marriages if tricks else 0)


class BotFault(Exception):
    """A bot failed to give a usable decision. ``kind``: ``timeout`` (no answer in time),
    ``illegal`` (an action that is not among the legal actions), ``unparsable`` (not an action
    id or text), ``crash`` (the bot process exited or raised). ``detail``: one line for people;
    ``seat``: filled in by the runner."""

    KINDS = ("timeout", "illegal", "unparsable", "crash")

    def __init__(self, kind: str, detail: str, seat: int = -1) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.seat = seat


class Bot:
    """Base class: override :meth:`choose` (or :meth:`achoose` for a bot that waits on I/O).
    ``seed`` makes a bot's random choices repeatable."""

    name = "bot"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, info: InfoSet) -> int | str:
        """Return a legal action id or text for the information set (``info.legal_actions``)."""
        raise NotImplementedError

    async def achoose(self, info: InfoSet) -> int | str:
        """The decision, awaited by the runner; default: :meth:`choose`. Raise :class:`BotFault`
        for a decision that cannot be made."""
        return self.choose(info)

    def fault_note(self) -> str:
        """Appended to the detail of a fault found in this bot's answer (an unparsable or illegal
        action): where to look, e.g. ``" (its stderr is in PATH)"`` for an ``exec:`` bot; default ""."""
        return ""

    async def aclose(self, final: Mapping[str, Any] | None = None) -> None:
        """Called once when the seat's match is over (``final``: the last information set) or the
        runner stops; default: nothing."""


def checked_action(info: InfoSet, answer: int | str) -> int:
    """The legal action id the bot's answer names (an id, a decimal string, or a text form such
    as ``"play QH"``); raises BotFault ``unparsable`` or ``illegal``."""
    legal = {int(a["id"]) for a in info.legal_actions}
    if isinstance(answer, bool) or not isinstance(answer, int | str):
        raise BotFault("unparsable", f"the bot answered {type(answer).__name__}, not an action id or text")
    if isinstance(answer, str):
        text = answer.strip()
        if text.lstrip("-").isdigit():
            answer = int(text)
        else:
            try:
                answer = parse_action(text)
            except InvalidActionError:
                raise BotFault("unparsable", f"{text[:80]!r} is not an action (expected an id or a text such as "
                                             f"'play QH')") from None
    if answer not in legal:
        texts = ", ".join(str(a["text"]) for a in info.legal_actions)
        raise BotFault("illegal", f"action {answer} is not legal now; legal: {texts}")
    return answer
