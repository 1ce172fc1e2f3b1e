"""The SDK's typed payloads and its written-out blocking client (issue 36).

* Every ``TypedDict`` of :mod:`bummerl_client.payloads` has exactly its message's fields, in
  ``.proto`` order, typed as proto3 JSON has them (int64 as ``str``, enums as ``Literal`` s of their
  names, nested messages as their ``TypedDict``); only a field with presence may be ``NotRequired``.
* Every call of :class:`AsyncClient` answers with those types (no ``dict[str, Any]``), and what a
  server really sends conforms to them, call by call.
* :class:`Client` has each coroutine method of :class:`AsyncClient` written out with the same
  parameters, and an ``Iterator`` where the async one streams: they cannot drift apart.
"""

from __future__ import annotations

import asyncio
import inspect
import typing
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from bummerl.app import Runtime
from bummerl.bots import make_bot
from bummerl.config import Settings
from bummerl.v1 import common_pb2, game_pb2, ladder_pb2
from bummerl_client import AsyncClient, Client, CreatedMatch, payloads, payloads_ladder
from bummerl_client.client import PlayCall
from bummerl_client.runner import play_seat

ADMIN = "types-admin"
RENAMED = {"RegisteredBot": "RegisterBotResponse"}
MESSAGES: dict[str, Descriptor] = {
    name: d for mod in (common_pb2, game_pb2, ladder_pb2) for name, d in mod.DESCRIPTOR.message_types_by_name.items()}
PAYLOADS: dict[str, Any] = {n: getattr(mod, n) for mod in (payloads, payloads_ladder) for n in mod.__all__
                             if typing.is_typeddict(getattr(mod, n))}
BY_MESSAGE = {RENAMED.get(n, n): td for n, td in PAYLOADS.items()}

INT64 = {FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT64,
         FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64}
INT32 = {FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_SINT32,
         FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_SFIXED32}


# ---------------------------------------------------------------------------------------------
# The payload types against the .proto


def _repeated(f: FieldDescriptor) -> bool:
    return bool(f.is_repeated) if hasattr(f, "is_repeated") else bool(f.label == FieldDescriptor.LABEL_REPEATED)


def _single(f: FieldDescriptor) -> Any:
    """The type of one value of field ``f`` in proto3 JSON."""
    if f.type == FieldDescriptor.TYPE_MESSAGE:
        return BY_MESSAGE[f.message_type.name]
    if f.type == FieldDescriptor.TYPE_ENUM:
        return Literal[tuple(v.name for v in f.enum_type.values)]
    if f.type in INT64:
        return str
    if f.type in INT32:
        return int
    if f.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return float
    return {FieldDescriptor.TYPE_BOOL: bool, FieldDescriptor.TYPE_STRING: str, FieldDescriptor.TYPE_BYTES: str}[f.type]


def _expected(f: FieldDescriptor) -> Any:
    m = f.message_type
    if m is not None and m.GetOptions().map_entry:
        return dict[str, _single(m.fields_by_name["value"])]
    return list[_single(f)] if _repeated(f) else _single(f)


def _has_presence(f: FieldDescriptor) -> bool:
    """Absent from proto3 JSON when unset: a singular message, an ``optional`` field, a oneof member."""
    return not _repeated(f) and (f.message_type is not None or f.containing_oneof is not None)


def test_every_payload_type_is_its_message_in_proto3_json() -> None:
    assert {"InformationSet", "SubmitActionResponse", "MatchUpdate", "MatchRecord", "MatchReplay", "VariantInfo",
            "ResignResponse", "WatchUpdate", "Bot", "RegisteredBot", "Ladder", "Leaderboard", "Assignment",
            "LadderEvent", "LadderResult", "LadderGame", "Event"} <= set(PAYLOADS)
    for name, td in PAYLOADS.items():
        desc = MESSAGES[RENAMED.get(name, name)]
        hints = get_type_hints(td)
        assert list(hints) == [f.name for f in desc.fields], f"{name}: fields or their order"
        for f in desc.fields:
            got, want = hints[f.name], _expected(f)
            if want is float:
                assert got in (float, float | str), f"{name}.{f.name}: {got}"  # a non-finite double is a string
            else:
                assert got == want, f"{name}.{f.name}: {got}, want {want}"
            if f.name in td.__optional_keys__:
                assert _has_presence(f), f"{name}.{f.name}: always in the JSON, cannot be NotRequired"
            elif _has_presence(f):  # a oneof member is one of several: never required
                assert f.containing_oneof is None or f.containing_oneof.name.startswith("_"), f"{name}.{f.name}"


def test_the_enums_and_the_int64_rule_read_as_the_docstring_says() -> None:
    assert get_args(payloads.Phase) == tuple(v.name for v in common_pb2.Phase.DESCRIPTOR.values)
    assert get_type_hints(payloads.InformationSet)["version"] is str
    assert get_type_hints(payloads.Event)["version"] is str and payloads.Event.__required_keys__ == {
        "version", "deal_number"}
    assert "int64" in (payloads.__doc__ or "") and "bummerl.rules.base.views" in (payloads.__doc__ or "")


def _payload_types(t: Any) -> list[Any]:
    """The types inside a return annotation (``list[X]``, ``AsyncGenerator[X, None]``, ``X | None``)."""
    origin = get_origin(t)
    if origin in (list, AsyncGenerator, AsyncIterator, Iterator, Union):
        return [x for a in get_args(t) if a not in (None, type(None)) for x in _payload_types(a)]
    return [t]


def test_every_call_answers_with_a_payload_type() -> None:
    allowed = set(PAYLOADS.values()) | {CreatedMatch, PlayCall, type(None)}
    for name, fn in vars(AsyncClient).items():
        if name.startswith("_") or not callable(fn):
            continue
        for t in _payload_types(get_type_hints(fn)["return"]):
            assert t in allowed, f"AsyncClient.{name} answers {t}"
    assert get_type_hints(CreatedMatch)["summary"] is payloads.MatchSummary


# ---------------------------------------------------------------------------------------------
# The blocking client, written out


def _async_calls() -> dict[str, Any]:
    return {n: f for n, f in vars(AsyncClient).items()
            if not n.startswith("_") and (inspect.iscoroutinefunction(f) or inspect.isasyncgenfunction(f))}


def test_the_blocking_client_has_each_async_call_with_the_same_parameters() -> None:
    calls = _async_calls()
    written = {n: f for n, f in vars(Client).items() if not n.startswith("_") and inspect.isfunction(f)}
    assert set(written) == set(calls), "Client and AsyncClient have different calls"
    for name, afn in calls.items():
        fn = written[name]
        assert not inspect.iscoroutinefunction(fn) and not inspect.isasyncgenfunction(fn), name
        assert fn.__qualname__ == f"Client.{name}", f"{name} is not written out in Client"
        assert list(inspect.signature(fn).parameters.values()) == list(inspect.signature(afn).parameters.values()), name
        want = get_type_hints(afn)["return"]
        if inspect.isasyncgenfunction(afn):
            want = Iterator[get_args(want)[0]]
        assert get_type_hints(fn)["return"] == want, name
        assert f":meth:`AsyncClient.{name}`" in (fn.__doc__ or ""), name


# ---------------------------------------------------------------------------------------------
# What a server sends conforms to the types


def conforms(value: Any, t: Any, where: str = "") -> None:
    """Assert that ``value`` (a decoded JSON value) is of type ``t`` (a payload type, or a
    ``list``/``dict``/``Literal``/union of them, or a plain scalar type)."""
    if typing.is_typeddict(t):
        assert isinstance(value, dict), f"{where}: {type(value).__name__}, want {t.__name__}"
        hints = get_type_hints(t)
        assert set(value) <= set(hints), f"{where}: keys {set(value) - set(hints)} not in {t.__name__}"
        assert t.__required_keys__ <= set(value), f"{where}: {t.__name__} lacks {t.__required_keys__ - set(value)}"
        for k, v in value.items():
            conforms(v, hints[k], f"{where}.{k}")
        return
    origin, args = get_origin(t), get_args(t)
    if origin is list:
        assert isinstance(value, list), f"{where}: {value!r}"
        for i, x in enumerate(value):
            conforms(x, args[0], f"{where}[{i}]")
    elif origin is dict:
        assert isinstance(value, dict), f"{where}: {value!r}"
        for k, x in value.items():
            conforms(x, args[1], f"{where}[{k}]")
    elif origin is Literal:
        assert value in args, f"{where}: {value!r} not in {args}"
    elif origin in (Union, type(int | str)):
        errors = []
        for a in args:
            try:
                conforms(value, a, where)
                return
            except AssertionError as e:
                errors.append(str(e))
        raise AssertionError("; ".join(errors))
    elif t is float:
        assert isinstance(value, (int, float)) and not isinstance(value, bool), f"{where}: {value!r}"
    elif t is int:
        assert type(value) is int, f"{where}: {value!r}"
    else:
        assert type(value) is t, f"{where}: {value!r}, want {t.__name__}"
        label = any(k in where for k in ("bot", "entries", "versions"))  # a bot's version label, not an int64
        if t is str and (where.endswith("_ms") or (where.endswith("version") and not label)):
            assert value.lstrip("-").isdigit(), f"{where}: {value!r} (an int64 as a decimal string)"


@pytest.fixture
async def rt(redis_url: str) -> AsyncIterator[Runtime]:
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url, admin_token=ADMIN)
    async with Runtime(settings, gateway_port=0) as r:
        yield r


async def test_what_the_game_service_sends_conforms(rt: Runtime) -> None:
    async with AsyncClient(rt.target) as c:
        variants = await c.list_variants()
        conforms(variants, list[payloads.VariantInfo], "variants")
        cm = await c.create_match("schnapsen-at", seed=11, time_control={"base_ms": 60000, "scope": "match"},
                                  admin_token=ADMIN)
        conforms(cm.summary, payloads.MatchSummary, "summary")
        assert "time_control" in cm.summary
        info = await c.information_set(cm.match_id, 0, cm.tokens[0])
        conforms(info, payloads.InformationSet, "info")
        assert info["clocks"] and "time_control" in info
        actor = info["deal"]["to_act"]
        acting = await c.information_set(cm.match_id, actor, cm.tokens[actor])
        sub = await c.submit_action(cm.match_id, actor, cm.tokens[actor], int(acting["version"]),
                                    acting["legal_actions"][0]["id"])
        conforms(sub, payloads.SubmitActionResponse, "submit")
        async for upd in c.stream(cm.match_id, 0, cm.tokens[0]):
            conforms(upd, payloads.MatchUpdate, "update")
            assert upd["events"] and "deal_started" in upd["events"][0]
            break
        async for w in c.watch(cm.match_id):
            conforms(w, payloads.WatchUpdate, "watch")
            break
        async with c.play(cm.match_id, 1, cm.tokens[1]) as call:
            async for upd in call:
                conforms(upd, payloads.MatchUpdate, "play")
                break
        running = await c.match_record(cm.match_id)
        conforms(running, payloads.MatchRecord, "running record")
        assert "match_result" not in running and "seed" not in running
        resigned = await c.resign(cm.match_id, 1, cm.tokens[1])
        conforms(resigned, payloads.ResignResponse, "resign")

        played = await c.create_match("santase", seed=12, admin_token=ADMIN)
        await asyncio.gather(*(play_seat(c, played.match_id, s, played.tokens[s], make_bot("random", s))
                               for s in range(2)))
        rec = await c.match_record(played.match_id)
        conforms(rec, payloads.MatchRecord, "record")
        assert rec["revealed"] and "seed" in rec and "match_result" in rec
        replay = await c.match_replay(played.match_id, seat_views=True)
        conforms(replay, payloads.MatchReplay, "replay")
        assert replay["steps"][-1]["seat_views"] and "action" in replay["steps"][-1]


async def test_what_the_ladder_service_sends_conforms(rt: Runtime) -> None:
    tag = uuid.uuid4().hex[:6]
    async with AsyncClient(rt.target) as c:
        bots = [await c.register_bot(f"types-{tag}-{i}", admin_token=ADMIN) for i in range(2)]
        conforms(bots, list[payloads_ladder.RegisteredBot], "registered")
        seen: list[Any] = []
        seats: set[asyncio.Task[payloads.InformationSet]] = set()

        async def serve(bot: payloads_ladder.RegisteredBot, seed: int) -> None:
            async for a in c.assignments(bot["bot_id"], bot["bot_token"]):
                seen.append(a)
                seats.add(asyncio.create_task(play_seat(c, a["match_id"], a["seat"], bot["bot_token"],
                                                        make_bot("random", seed))))

        servers = [asyncio.create_task(serve(b, i)) for i, b in enumerate(bots)]
        try:
            ladder = await c.create_ladder(admin_token=ADMIN, name=f"types-{tag}", variant="santase",
                                           bot_ids=[b["bot_id"] for b in bots], rounds=1, deals_per_game=1,
                                           format="LADDER_FORMAT_ROUND_ROBIN")
            conforms(ladder, payloads_ladder.Ladder, "ladder")
            kinds = []
            async with asyncio.timeout(60):
                async for ev in c.stream_ladder(ladder["ladder_id"]):
                    conforms(ev, payloads_ladder.LadderEvent, f"event {ev['type']}")
                    kinds.append(ev["type"])
            assert kinds[0] == "created" and kinds[-1] == "finished" and "result" in kinds
        finally:
            for t in [*servers, *seats]:
                t.cancel()
            await asyncio.gather(*servers, *seats, return_exceptions=True)
        conforms(seen, list[payloads_ladder.Assignment], "assignments")
        conforms(await c.ladder(ladder["ladder_id"]), payloads_ladder.Ladder, "ladder")
        conforms(await c.list_ladders(), list[payloads_ladder.Ladder], "ladders")
        board = await c.leaderboard(ladder["ladder_id"])
        conforms(board, payloads_ladder.Leaderboard, "leaderboard")
        assert board["entries"] and board["pairs"]
        conforms(await c.leaderboard(ladder["ladder_id"], pooled=True), payloads_ladder.Leaderboard, "pooled")
        conforms(await c.ladder_matches(ladder["ladder_id"]), list[payloads_ladder.LadderResult], "ladder matches")
        conforms(await c.ladder_games(ladder["ladder_id"]), list[payloads_ladder.LadderGame], "ladder games")
        conforms(await c.list_bots(), list[payloads_ladder.Bot], "bots")
        conforms(await c.rotate_bot_token(bots[0]["bot_id"], ADMIN), payloads_ladder.RegisteredBot, "rotated")
        conforms(await c.revoke_bot(bots[0]["bot_id"], ADMIN), payloads_ladder.Bot, "revoked")
        conforms(await c.delete_bot(bots[1]["bot_id"], ADMIN), payloads_ladder.Bot, "deleted")
