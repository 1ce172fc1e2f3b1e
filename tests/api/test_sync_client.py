"""The blocking ``Client`` is a thin wrapper over ``AsyncClient`` (issue 23, step 5): it has every
call of the async client, with the same answers and the same errors, and its streams are plain
iterators that close their call when left."""

from __future__ import annotations

import asyncio
import inspect

import grpc
import pytest

from bummerl.app import Runtime
from bummerl_client import AsyncClient, BummerlError, Client


def test_the_blocking_client_has_every_call_of_the_async_one() -> None:
    public = {n for n, f in vars(AsyncClient).items() if not n.startswith("_")
              and (inspect.iscoroutinefunction(f) or inspect.isasyncgenfunction(f))}
    assert public <= set(dir(Client))
    assert ":meth:`AsyncClient.create_match`" in (Client.create_match.__doc__ or "")  # written out (issue 36)


async def test_calls_streams_and_errors_through_the_blocking_client(rt: Runtime) -> None:
    def session() -> tuple[list[int], str, int]:
        with Client(rt.target) as c:
            variants = c.list_variants()
            cm = c.create_match("schnapsen-at", seed=3)
            versions = []
            for upd in c.stream(cm.match_id, 0, cm.tokens[0]):  # left after the first update
                versions.append(int(upd["version"]))
                break
            info = c.information_set(cm.match_id, 0, cm.tokens[0])
            with pytest.raises(BummerlError) as ei:
                c.submit_action(cm.match_id, 0, cm.tokens[0], 99, 0)
            return versions, variants[0]["id"], int(info["version"]) if ei.value.code == grpc.StatusCode.ABORTED else -1

    versions, first_variant, version = await asyncio.to_thread(session)
    assert versions == [1] and first_variant and version == 1
