"""Connected bots (docs/DESIGN.md §5): a registered bot connects once to its assignment stream and plays
every match the server assigns to it, many at once, with its bot token as the seat token.

:func:`run_bot` reconnects with backoff whenever the stream drops (a server restart loses no
match: the stream first replays every assignment whose match still runs) and never starts a
match twice. Each finished match is reported to ``on_done`` as one dict.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import grpc

from bummerl.bots.base import Bot, BotFault

from .challenges import ChallengePolicy, Policy
from .client import AsyncClient, BummerlError
from .payloads import InformationSet
from .payloads_ladder import Assignment, Challenge
from .runner import FAULT_REASONS, IN_DOUBT, Backoff, play_seat_through_timeouts
from .stdio import close_idle

FATAL = frozenset({grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.NOT_FOUND,
                   grpc.StatusCode.INVALID_ARGUMENT})


def check_token(token: str) -> None:
    """ValueError unless ``token`` can be sent as gRPC metadata (printable ASCII, no spaces at either
    end): such a token never reaches the server, so retrying it would go on forever."""
    if not token or not all(0x20 <= ord(ch) <= 0x7E for ch in token) or token != token.strip():
        bad = next((ch for ch in token if not 0x20 <= ord(ch) <= 0x7E), None)
        why = f"it holds {bad!r}" if bad is not None else "it is empty or has spaces at an end"
        raise ValueError(f"the bot token cannot be sent to the server ({why}); a bot token is printable ASCII, "
                         f"<bot id>.<secret> as `bummerl bot register` printed it")


def bot_id_of(token: str) -> str:
    """The bot id part of a bot token (``<bot id>.<secret>``)."""
    return token.split(".", 1)[0]


async def play_assignment(client: AsyncClient, assignment: Assignment, bot_token: str, bot: Bot) -> dict[str, Any]:
    """Play one assigned seat to the end; returns ``{"match_id", "seat", "ladder_id", "winner",
    "outcome" (won, lost, drawn), "reason", "game_points", "fault"}``. A bot fault resigns the seat
    with the fault's reason, but a missed deadline under the ``forfeit-deal`` or ``default-move``
    policy only costs what the server's policy takes (:func:`~.runner.play_seat_through_timeouts`);
    ``fault`` names the last fault either way."""
    mid, seat = assignment["match_id"], int(assignment["seat"])
    final: InformationSet | None = None
    fault = ""

    def timed_out(f: BotFault) -> None:
        nonlocal fault
        fault = f"{f.kind}: {f.detail}"

    try:
        final = await play_seat_through_timeouts(client, mid, seat, bot_token, bot, timed_out)
    except BotFault as f:
        fault = f"{f.kind}: {f.detail}"
        with contextlib.suppress(BummerlError):
            await client.resign(mid, seat, bot_token, FAULT_REASONS[f.kind])
        final = await client.information_set(mid, seat, bot_token)
    finally:
        await bot.aclose(final)
    m = final["match"] if final else {}
    winner = int(m.get("winner", -1))
    rec = await client.match_record(mid)
    return {
        "match_id": mid, "seat": seat, "ladder_id": assignment.get("ladder_id", ""), "winner": winner,
        "outcome": "drawn" if winner < 0 else "won" if winner == seat else "lost",
        "reason": rec.get("match_result", {}).get("reason", ""), "game_points": m.get("game_points"), "fault": fault,
    }


async def ensure_version(client: AsyncClient, bot_token: str, version: str, note: str = "") -> str:
    """Make ``version`` the newest version of the bot of ``bot_token`` (publish it unless it is
    already); returns a line saying which. BummerlError FAILED_PRECONDITION when the bot had
    this label before another one (a version names one program: publish a new label)."""
    bot_id = bot_id_of(bot_token)
    try:
        await client.publish_version(bot_id, version, note, bot_token)
        return f"published version {version}"
    except BummerlError as e:
        if e.code != grpc.StatusCode.FAILED_PRECONDITION:
            raise
        current = next((b.get("version") for b in await client.list_bots() if b["bot_id"] == bot_id), None)
        if current == version:
            return f"version {version}"
        raise


async def run_bot(client: AsyncClient, bot_token: str, make_bot: Callable[[], Bot],
                  on_done: Callable[[dict[str, Any]], None] | None = None, stop: asyncio.Event | None = None,
                  on_status: Callable[[str], None] | None = None, client_info: str = "",
                  challenge_policy: Policy | None = None) -> None:
    """Play every match assigned to the bot of ``bot_token`` until ``stop`` is set (or forever).
    ``make_bot()`` gives a fresh bot per match (an ``exec:`` bot: a new process per match, so a
    crash costs that match only). Raises BummerlError for a wrong token or unknown bot; other
    stream errors are retried with backoff. ``on_status(line)`` hears ``connected as NAME, waiting
    for games`` once the server accepted the stream and ``server unreachable (CODE): retrying in
    S s`` before each retry; ``client_info`` is what the server is told about this client
    (ListBots shows it). ``challenge_policy`` answers the challenges the bot gets
    (:class:`bummerl_client.challenges.ChallengePolicy` by default: accept within its limits; any
    ``(challenge) -> (accept, reason)``), each answer told to ``on_status``. ValueError at once for
    a token that cannot be sent (:func:`check_token`)."""
    check_token(bot_token)
    stop = stop or asyncio.Event()
    bot_id = bot_id_of(bot_token)
    started: set[str] = set()
    tasks: set[asyncio.Task[None]] = set()
    backoff = Backoff(cap_s=5.0)

    async def play(a: Assignment) -> None:
        try:
            summary = await play_assignment(client, a, bot_token, make_bot())
        except BummerlError as e:
            summary = {"match_id": a["match_id"], "seat": int(a["seat"]), "outcome": "error",
                       "fault": f"{e.code.name}: {e.details}"}
        if on_done:
            on_done(summary)

    policy = challenge_policy or ChallengePolicy()

    async def answer(ch: Challenge) -> None:
        try:
            accept, reason = policy(ch)
        except Exception as e:  # noqa: BLE001 - the author's policy failed: decline, say why
            accept, reason = False, "generic"
            if on_status:
                on_status(f"challenge policy failed ({type(e).__name__}: {e}): declining")
        try:
            got = await client.answer_challenge(bot_token, ch["challenge_id"], accept, reason)
        except BummerlError as e:
            if on_status:
                on_status(f"challenge {ch['challenge_id']} from {ch['challenger_name']}: {e.details}")
            return
        if on_status:
            said = f"accepted: ladder {got['ladder_id']}" if accept else f"declined ({reason})"
            on_status(f"challenge {ch['challenge_id']} from {ch['challenger_name']}: {said}")

    def connected(name: str) -> None:
        if on_status:
            on_status(f"connected as {name}, waiting for games")

    async def follow() -> None:
        async for a in client.assignments(bot_id, bot_token, client_info, on_connected=connected):
            backoff.reset()
            if "challenge" in a:
                if a["challenge"]["challenge_id"] not in started:
                    started.add(a["challenge"]["challenge_id"])
                    t = asyncio.create_task(answer(a["challenge"]))
                    tasks.add(t)
                    t.add_done_callback(tasks.discard)
                continue
            if a["match_id"] in started:
                continue
            started.add(a["match_id"])
            t = asyncio.create_task(play(a))
            tasks.add(t)
            t.add_done_callback(tasks.discard)

    stopper = asyncio.create_task(stop.wait())
    try:
        while not stop.is_set():
            follower = asyncio.create_task(follow())
            await asyncio.wait({follower, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if not follower.done():
                follower.cancel()
                with contextlib.suppress(asyncio.CancelledError, BummerlError):
                    await follower
                break
            exc = follower.exception()
            if isinstance(exc, BummerlError) and (exc.code in FATAL or exc.code not in IN_DOUBT):
                raise exc
            if on_status:
                code = exc.code.name if isinstance(exc, BummerlError) else type(exc).__name__ if exc else "stream ended"
                on_status(f"server unreachable ({code}): retrying in {backoff.next_s:.1f} s")
            await backoff.sleep()
    finally:
        stopper.cancel()
        for t in list(tasks):
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await close_idle()  # exec: bots of the reuse model waiting for a match
