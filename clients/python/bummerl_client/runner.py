"""Play a seat until the match ends, driven by the server's event stream (no polling).

:func:`play_seat` subscribes to ``StreamMatch`` for the seat; whenever an update says the seat
is to act, it asks the bot and submits the action with the update's version as
``expected_version``. A stale version (ABORTED) is ignored: the stream brings the newer state.
:func:`play_match` creates a match and runs one bot per seat concurrently.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import grpc

from .bot import Bot, InfoSet
from .client import AsyncClient, BummerlError


async def play_seat(client: AsyncClient, match_id: str, seat: int, token: str, bot: Bot) -> dict[str, Any]:
    """Play ``seat`` with ``bot`` until the match is over; returns the final information set dict.

    Raises BummerlError for errors other than a stale version (e.g. an illegal action by the bot).
    """
    last: dict[str, Any] = {}
    acted_at = -1
    while True:
        try:
            async for upd in client.stream(match_id, seat, token, from_version=max(0, acted_at)):
                info = InfoSet(upd["information_set"])
                last = upd["information_set"]
                if info.over:
                    return last
                if info.to_act == seat and info.legal_actions and info.version > acted_at:
                    action = bot.choose(info)
                    acted_at = info.version
                    try:
                        await client.submit_action(match_id, seat, token, info.version, action)
                    except BummerlError as e:
                        if e.code != grpc.StatusCode.ABORTED:
                            raise
            if InfoSet(last).over:
                return last
        except BummerlError as e:  # stream dropped (server restart): resubscribe
            if e.code not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
                raise
            await asyncio.sleep(0.2)


async def play_match(
    client: AsyncClient,
    variant: str,
    bots: Sequence[Bot],
    options: Mapping[str, object] | None = None,
    seed: int | None = None,
    on_created: Callable[[str], None] | None = None,
    **create_kwargs: Any,
) -> dict[str, Any]:
    """Create a match of ``variant`` and play it with one bot per seat; returns the match record.
    ``create_kwargs`` go to :meth:`AsyncClient.create_match` (``time_control``, ``timeout_policy``,
    ``idle_limit_ms``, ``admin_token``)."""
    created = await client.create_match(variant, options, [b.name for b in bots], seed, **create_kwargs)
    if on_created:
        on_created(created.match_id)
    await asyncio.gather(*(play_seat(client, created.match_id, s, t, b) for s, (t, b) in enumerate(zip(created.tokens, bots, strict=True))))
    return await client.match_record(created.match_id)
