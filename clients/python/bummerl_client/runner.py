"""Play a seat until the match ends, driven by the server's event stream (no polling).

:func:`play_seat` subscribes to ``StreamMatch`` for the seat; whenever an update says the seat is
to act and it has not acted at that version, it awaits the bot's decision, checks it against the
legal actions, and submits it with the update's version as ``expected_version``.

Faults of the network are survived: a SubmitAction that failed with UNAVAILABLE,
DEADLINE_EXCEEDED or a dropped connection is *in doubt* and is sent again, with the same
``expected_version`` and action, with exponential backoff until the server answers (applied,
``duplicate``, or stale); a dropped stream is resubscribed from the last version seen. A version
counts as acted on only once the server has answered, so a snapshot in which the seat is to act
is never skipped. Faults of the bot (no answer in time, an illegal or unparsable answer, a crash)
raise :class:`~bummerl_client.bot.BotFault`; :func:`play_match` then resigns that seat so that
the match ends, and reports the fault.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import grpc

from bummerl.bots.base import Bot, BotFault, InfoSet, checked_action

from .client import AsyncClient, BummerlError
from .payloads import DealResult, InformationSet

IN_DOUBT = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED,
                      grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL})
"""Status codes after which the fate of a call is unknown: retry it as it was."""


FAULT_REASONS = {"timeout": "timeout", "illegal": "illegal", "unparsable": "illegal", "crash": "disconnect"}
"""The resign reason a bot fault is reported with (ResignRequest.reason)."""

EXIT_CODES = {"timeout": 3, "illegal": 4, "unparsable": 4, "crash": 5}
"""The exit code of a command that played a seat and whose bot faulted (``join``, ``bummerl play``)."""


class Backoff:
    """Exponential backoff with jitter, in **seconds**: 0.05, 0.1, 0.2 ... capped at ``cap_s``."""

    def __init__(self, first_s: float = 0.05, cap_s: float = 2.0) -> None:
        self.first_s = first_s
        self.cap_s = cap_s
        self.n = 0

    def reset(self) -> None:
        self.n = 0

    @property
    def next_s(self) -> float:
        """The longest the next :meth:`sleep` may wait, seconds."""
        return min(self.cap_s, self.first_s * 2.0**self.n)

    async def sleep(self) -> None:
        delay = self.next_s
        self.n += 1
        await asyncio.sleep(delay * (0.5 + random.random() / 2))


async def _submit(client: AsyncClient, match_id: str, seat: int, token: str, version: int, action: int,
                  give_up_s: float) -> None:
    """Submit until the server answers; returns on applied, duplicate, stale (ABORTED) or a
    refusal that the stream will explain (FAILED_PRECONDITION: match over, out of time)."""
    backoff = Backoff()
    stop = time.monotonic() + give_up_s
    while True:
        try:
            await client.submit_action(match_id, seat, token, version, action)
            return
        except BummerlError as e:
            if e.code in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                return
            if e.code not in IN_DOUBT or time.monotonic() > stop:
                raise
        await backoff.sleep()


async def play_seat(client: AsyncClient, match_id: str, seat: int, token: str, bot: Bot, *,
                    give_up_s: float = 120.0, use_play: bool = True) -> InformationSet:
    """Play ``seat`` with ``bot`` until the match is over; returns the final information set dict.

    ``token``: the seat token (or, in a ladder, the bot token). ``give_up_s``: how long (seconds)
    the server may stay unreachable before the last error is raised. ``use_play``: one ``Play``
    call per seat (updates in, actions out on the same call), else (or on a server without it)
    ``StreamMatch`` plus a ``SubmitAction`` per action. Raises BotFault (with ``seat`` set) when
    the bot fails, BummerlError for other errors (e.g. a wrong token)."""
    last: InformationSet | None = None
    acted_at = -1  # the newest version at which this seat acted
    backoff = Backoff()
    down_since: float | None = None
    while True:
        try:
            if use_play:
                # an action sent on a call that then broke may be lost: the next call's snapshot
                # shows the seat to act at that version again, and it acts again (expected_version
                # makes a second apply impossible)
                sent = -1
                async with client.play(match_id, seat, token, from_version=max(0, acted_at)) as call:
                    async for upd in call:
                        down_since = None
                        backoff.reset()
                        last = upd["information_set"]
                        action = await _decide(InfoSet(last), seat, bot, sent)
                        if action is not None:
                            sent = InfoSet(last).version
                            acted_at = max(acted_at, sent - 1)
                            await call.send(sent, action)
            else:
                async for upd in client.stream(match_id, seat, token, from_version=max(0, acted_at)):
                    down_since = None
                    backoff.reset()
                    last = upd["information_set"]
                    action = await _decide(InfoSet(last), seat, bot, acted_at)
                    if action is not None:
                        await _submit(client, match_id, seat, token, InfoSet(last).version, action, give_up_s)
                        acted_at = InfoSet(last).version
            if last is not None and InfoSet(last).over:
                return last
        except BummerlError as e:
            if use_play and e.code == grpc.StatusCode.UNIMPLEMENTED:
                use_play = False  # an older server: stream + SubmitAction
                continue
            if use_play and e.code in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                continue  # the match moved on (or is over, out of time): the next call's snapshot says how
            if e.code not in IN_DOUBT:
                raise
            down_since = down_since or time.monotonic()
            if time.monotonic() - down_since > give_up_s:
                raise
            await backoff.sleep()


PLAYS_ON_AFTER_TIMEOUT = frozenset({"forfeit-deal", "default-move"})
"""Timeout policies under which the match goes on after a seat runs out of time (README: Time
controls and timeouts): the seat keeps playing, it is not resigned."""


async def play_seat_through_timeouts(client: AsyncClient, match_id: str, seat: int, token: str, bot: Bot,
                                     on_timeout: Callable[[BotFault], None] | None = None) -> InformationSet:
    """:func:`play_seat`, surviving the bot's missed deadlines when the match's timeout policy
    goes on without the seat losing the match (``forfeit-deal``, ``default-move``): the server has
    applied the policy, so the bot is reset (``aclose``: an ``exec:`` bot's process, killed when it
    missed the deadline, is replaced by a fresh one at the next decision) and the seat plays on;
    ``on_timeout`` is told of each such fault. Under ``forfeit-match``, and for every other fault,
    the BotFault is raised as :func:`play_seat` raises it (the caller resigns the seat)."""
    policy: str | None = None
    while True:
        try:
            return await play_seat(client, match_id, seat, token, bot)
        except BotFault as f:
            if f.kind != "timeout":
                raise
            if policy is None:
                policy = str((await client.match_record(match_id, token)).get("timeout_policy") or "")
            if policy not in PLAYS_ON_AFTER_TIMEOUT:
                raise
            if on_timeout is not None:
                on_timeout(f)
            await bot.aclose(None)


async def _decide(info: InfoSet, seat: int, bot: Bot, acted_at: int) -> int | None:
    """The bot's checked action when ``info`` gives ``seat`` the turn at a version it has not acted
    at yet, else None. Raises BotFault (``seat`` set); a bot's own exception is a ``crash``."""
    if info.over or info.to_act != seat or not info.legal_actions or info.version <= acted_at:
        return None
    try:
        answer = await bot.achoose(info)
    except BotFault as f:
        f.seat = seat
        raise
    except Exception as e:  # noqa: BLE001 - a bot's own bug is a crash of the bot
        raise BotFault("crash", f"{type(e).__name__}: {str(e)[:200]}", seat) from e
    try:
        return checked_action(info, answer)
    except BotFault as f:
        raise BotFault(f.kind, f.detail + bot.fault_note(), seat) from None


async def _watch_deals(client: AsyncClient, match_id: str, token: str,
                       on_deal: Callable[[DealResult], None]) -> None:
    """Call ``on_deal(result)`` for each DealEnded event of the match until it ends (progress
    only: a stream error ends the watch, not the match)."""
    try:
        async for update in client.stream(match_id, 0, token):
            for event in update.get("events", []):
                if "deal_ended" in event:
                    on_deal(event["deal_ended"].get("result", {}))
                if "match_ended" in event:
                    return
    except BummerlError:
        return


def seat_names(names: Sequence[str]) -> list[str]:
    """Seat names that tell the seats apart: a name that two seats share gets its seat number
    (``["strong", "strong"]`` -> ``["strong#0", "strong#1"]``), so records, transcripts and the
    web pages ("strong#1 takes the trick") say which seat did what; unique names stay as they are."""
    return [f"{n[:60]}#{i}" if names.count(n) > 1 else n for i, n in enumerate(names)]


async def play_match(
    client: AsyncClient,
    variant: str,
    bots: Sequence[Bot],
    options: Mapping[str, object] | None = None,
    seed: int | None = None,
    on_created: Callable[[str], None] | None = None,
    on_deal: Callable[[DealResult], None] | None = None,
    **create_kwargs: Any,
) -> dict[str, Any]:
    """Create a match of ``variant`` and play it with one bot per seat; returns the match record.
    ``create_kwargs`` go to :meth:`AsyncClient.create_match` (``time_control``, ``timeout_policy``,
    ``idle_limit_ms``, ``admin_token``). A seat whose bot fails is resigned (unless the server
    already ended the match, e.g. on time) so that the match ends, but a bot that only missed a
    deadline under the ``forfeit-deal`` or ``default-move`` policy plays on
    (:func:`play_seat_through_timeouts`); the record then has ``"faults": [{"seat", "kind",
    "detail"}]`` (each fault, also those the seat survived). ``on_deal`` is called with each deal's result
    (the ``DealResult`` dict: ``deal_number`` 0-based, ``winner``, ``game_points``, ``reason``,
    ``deal_points``, ``tricks_won``...) as the deal ends, from seat 0's StreamMatch."""
    created = await client.create_match(variant, options, seat_names([b.name for b in bots]), seed, **create_kwargs)
    if on_created:
        on_created(created.match_id)
    faults: list[dict[str, Any]] = []
    watcher = asyncio.create_task(_watch_deals(client, created.match_id, created.tokens[0], on_deal)) if on_deal else None

    def timed_out(f: BotFault) -> None:
        faults.append({"seat": f.seat, "kind": f.kind, "detail": f.detail})

    async def seat_task(seat: int, token: str, bot: Bot) -> None:
        final: InformationSet | None = None
        try:
            final = await play_seat_through_timeouts(client, created.match_id, seat, token, bot, timed_out)
        except BotFault as f:
            faults.append({"seat": seat, "kind": f.kind, "detail": f.detail})
            try:
                await client.resign(created.match_id, seat, token, FAULT_REASONS[f.kind])
            except BummerlError as e:
                if e.code != grpc.StatusCode.FAILED_PRECONDITION:  # already over (e.g. lost on time)
                    raise
        finally:
            await bot.aclose(final)

    try:
        await asyncio.gather(*(seat_task(s, t, b) for s, (t, b) in enumerate(zip(created.tokens, bots, strict=True))))
        if watcher is not None:  # the stream ends with the match; give it a moment to deliver the last deal
            await asyncio.wait([watcher], timeout=2.0)
    finally:
        if watcher is not None:
            watcher.cancel()
    rec = cast(dict[str, Any], await client.match_record(created.match_id))  # a MatchRecord, plus "faults"
    if faults:
        rec["faults"] = sorted(faults, key=lambda f: f["seat"])
    return rec
