"""A process's cache of the newest version is told apart from the same version number written
again, after a Redis failover lost a write (issue 26): the commit token, not the version alone."""

from __future__ import annotations

from typing import Any

import pytest

from bummerl.core import MatchService
from bummerl.core.errors import StaleVersionError
from bummerl.store import MatchStore

ADMIN = "adm"


async def test_a_version_made_again_after_a_lost_write_replaces_the_cached_one(tstore: MatchStore) -> None:
    a = MatchService(tstore, admin_token=ADMIN)  # two server processes on one Redis
    b = MatchService(tstore, admin_token=ADMIN)
    created = await a.create_match("schnapsen-at", seed=11, admin_token=ADMIN)
    mid, tokens = created.match_id, created.tokens
    info = await a.information_set(mid, 0, tokens[0])
    seat = int(info["deal"]["to_act"])
    info = await a.information_set(mid, seat, tokens[seat])
    legal = [x["id"] for x in info["legal_actions"]]
    assert len(legal) >= 2
    client: Any = tstore.client
    state_key, events_key = tstore.layout.match_keys(mid)
    before = await client.dump(state_key), await client.dump(events_key)

    await a.submit_action(mid, seat, tokens[seat], 1, legal[0])  # process a caches version 2 ...
    other = 1 - seat
    lost_view = await a.information_set(mid, other, tokens[other])
    for key, dumped in zip((state_key, events_key), before, strict=True):  # ... which the failover loses
        await client.restore(key, 0, dumped, replace=True)

    await b.submit_action(mid, seat, tokens[seat], 1, legal[1])  # version 2 again, another card
    # a bot that saw the lost version 2 acts on it through process a: refused, not applied to the other 2
    with pytest.raises(StaleVersionError):
        await a.submit_action(mid, other, tokens[other], 2, lost_view["legal_actions"][0]["id"])
    seen_by_a = await a.information_set(mid, other, tokens[other])
    seen_by_b = await b.information_set(mid, other, tokens[other])
    assert seen_by_a["version"] == seen_by_b["version"] == 2
    assert seen_by_a == seen_by_b  # a does not serve the lost version from its cache
    assert seen_by_a["deal"] != lost_view["deal"]  # the two versions 2 show different tricks
