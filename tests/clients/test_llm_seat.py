"""The ``llm:`` seat (bummerl_client.llm) against a local fake OpenAI-compatible endpoint (aiohttp on
127.0.0.1) that scripts its answers: good, illegal, unparsable, slow, failing; the lenient parser;
the spec; a whole match against greedy on a real server. No test reaches the network."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")

from aiohttp import web  # noqa: E402

from bummerl.app import Runtime  # noqa: E402
from bummerl.bots import GreedyBot, InfoSet, named_specs, parse_bot_spec, split_bot_specs  # noqa: E402
from bummerl.config import Settings  # noqa: E402
from bummerl.rules import apply, information_set, legal_actions, new_match  # noqa: E402
from bummerl_client import AsyncClient  # noqa: E402
from bummerl_client.llm import LlmBot, parse_answer  # noqa: E402
from bummerl_client.mcp_text import default_action  # noqa: E402
from bummerl_client.runner import play_match  # noqa: E402
from bummerl_client.specs import bot_from_spec  # noqa: E402

LINE = re.compile(r"^\s*\[(\d+)\] (.+)$", re.M)


@dataclass
class FakeEndpoint:
    """``script``: what the next requests get, in order (then ``default``): ``("good",)`` the first
    legal action of the prompt as JSON; ``("say", TEXT)``; ``("slow", SECONDS)``; ``("fail", STATUS)``."""

    url: str = ""
    script: list[tuple[Any, ...]] = field(default_factory=list)
    default: tuple[Any, ...] = ("good",)
    requests: list[dict[str, Any]] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append(body)
        self.keys.append(request.headers.get("Authorization", ""))
        step = self.script.pop(0) if self.script else self.default
        if step[0] == "slow":
            await asyncio.sleep(step[1])
            step = ("good",)
        if step[0] == "fail":
            return web.json_response({"error": {"message": "the model is down", "type": "server_error"}}, status=step[1])
        if step[0] == "good":
            prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
            text = json.dumps({"action": LINE.findall(prompt)[0][1]})
        else:
            text = step[1]
        return web.json_response({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 7, "total_tokens": 107}})


@pytest.fixture
async def fake() -> AsyncIterator[FakeEndpoint]:
    ep = FakeEndpoint()
    app = web.Application()
    app.router.add_post("/v1/chat/completions", ep.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    ep.url = f"http://127.0.0.1:{port}/v1"
    try:
        yield ep
    finally:
        await runner.cleanup()


def _info(variant: str = "schnapsen-at", moves: int = 2, clock_ms: int | None = None) -> InfoSet:
    m = new_match(variant, seed=4)
    for _ in range(moves):
        m = apply(m, legal_actions(m)[0])
    raw = information_set(m, information_set(m, 0)["deal"]["to_act"])
    raw = dict(raw)
    raw["version"] = "7"
    if clock_ms is not None:
        raw["clocks"] = [{"seat": raw["seat"], "running": True, "remaining_ms": str(clock_ms),
                          "move_remaining_ms": str(clock_ms)}]
    return InfoSet(raw)


def _bot(fake: FakeEndpoint, tmp_path: Path, **opts: str) -> LlmBot:
    options = {"model": "fake-model", "base_url": fake.url, "log": str(tmp_path / "llm.jsonl"), **opts}
    return LlmBot.from_options(1, options)


def test_the_parser_reads_json_prose_ids_and_cards() -> None:
    legal = [{"id": 3, "text": "play QH", "kind": "play", "card": "QH"},
             {"id": 9, "text": "play AS", "kind": "play", "card": "AS"},
             {"id": 40, "text": "close", "kind": "close", "card": ""}]
    assert parse_answer('{"action": "play QH"}', legal)[0] == 3
    assert parse_answer('I think... ```json\n{"action": "Play as"}\n```', legal)[0] == 9
    assert parse_answer('{"action": 40}', legal)[0] == 40
    assert parse_answer('{"action": "[9] play AS"}', legal)[0] == 9
    assert parse_answer('{"action": "QH"}', legal)[0] == 3
    assert parse_answer("My move: close the talon. So: close.", legal)[0] == 40
    assert parse_answer("[3]", legal)[0] == 3
    assert parse_answer('{"action": "play KS"}', legal)[1] == "illegal"
    assert parse_answer("17", legal)[1] == "illegal"
    assert parse_answer("either play QH or play AS", legal)[1] == "unparsable"
    assert parse_answer("I pass.", legal)[1] == "unparsable"
    assert parse_answer("", legal)[1] == "unparsable"


async def test_a_good_answer_is_played_and_its_cost_kept(fake: FakeEndpoint, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_KEY", "sk-test-123")
    bot = _bot(fake, tmp_path, api_key_env="FAKE_KEY")
    info = _info()
    action = await bot.achoose(info)
    assert action == info.legal_actions[0]["id"]
    d = bot.decisions[-1]
    assert (d.retries, d.calls, d.prompt_tokens, d.completion_tokens, d.fault, d.fallback) == (0, 1, 100, 7, "", False)
    assert d.latency_ms > 0 and d.version == 7 and d.messages == []
    assert fake.keys == ["Bearer sk-test-123"]
    req = fake.requests[0]
    assert req["model"] == "fake-model"
    system, user = req["messages"][0]["content"], req["messages"][1]["content"]
    assert "AT-DECK-1" in system and '{"action"' in system  # the rules summary and the answer's form
    assert "Your hand: " + " ".join(info.hand) in user and "Legal actions:" in user
    logged = [json.loads(line) for line in (tmp_path / "llm.jsonl").read_text().splitlines()]
    assert logged[0]["prompt_tokens"] == 100 and "messages" not in logged[0]
    await bot.aclose(info.raw)
    summary = json.loads((tmp_path / "llm.jsonl").read_text().splitlines()[-1])["summary"]
    assert summary["decisions"] == 1 and summary["completion_tokens"] == 7 and summary["faults"] == {}


async def test_prompts_are_kept_only_when_asked(fake: FakeEndpoint, tmp_path: Path) -> None:
    bot = _bot(fake, tmp_path, keep_prompts="true")
    await bot.achoose(_info())
    logged = json.loads((tmp_path / "llm.jsonl").read_text().splitlines()[0])
    assert [m["role"] for m in logged["messages"]] == ["system", "user", "assistant"]


async def test_an_illegal_answer_is_quoted_back_and_asked_again(fake: FakeEndpoint, tmp_path: Path) -> None:
    fake.script = [("say", '{"action": "play 9X"}')]
    bot = _bot(fake, tmp_path)
    info = _info()
    assert await bot.achoose(info) == info.legal_actions[0]["id"]
    d = bot.decisions[-1]
    assert (d.retries, d.calls, d.fault, d.prompt_tokens) == (1, 2, "", 200)
    again = fake.requests[1]["messages"]
    assert again[2] == {"role": "assistant", "content": '{"action": "play 9X"}'}
    assert "play 9X" in again[3]["content"] and "not one of the legal actions" in again[3]["content"]


async def test_unparsable_answers_fall_back_to_the_default_move(fake: FakeEndpoint, tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    fake.default = ("say", "Hmm, tough one. I would rather not say.")
    bot = _bot(fake, tmp_path, retries="2")
    info = _info()
    with caplog.at_level(logging.WARNING, logger="bummerl_client.llm"):
        action = await bot.achoose(info)
    assert action == default_action(info.legal_actions)
    d = bot.decisions[-1]
    assert (d.calls, d.retries, d.fault, d.fallback) == (3, 2, "unparsable", True)
    assert "rather not say" in d.detail
    assert "playing the default move" in caplog.text
    assert bot.summary()["faults"] == {"unparsable": 1} and bot.summary()["fallbacks"] == 1


async def test_a_slow_endpoint_is_cut_by_the_seat_clock(fake: FakeEndpoint, tmp_path: Path) -> None:
    fake.default = ("slow", 2.0)
    bot = _bot(fake, tmp_path)
    info = _info(clock_ms=500)
    start = time.monotonic()
    action = await bot.achoose(info)
    took = time.monotonic() - start
    assert took < 0.5  # the move time less its margin (a fifth: 0.1 s)
    assert action == default_action(info.legal_actions)
    assert bot.decisions[-1].fault == "timeout" and bot.decisions[-1].fallback


async def test_timeout_s_bounds_a_seat_without_a_clock(fake: FakeEndpoint, tmp_path: Path) -> None:
    fake.default = ("slow", 2.0)
    bot = _bot(fake, tmp_path, timeout_s="0.3")
    start = time.monotonic()
    await bot.achoose(_info())
    assert time.monotonic() - start < 1.0 and bot.decisions[-1].fault == "timeout"


async def test_a_failing_endpoint_falls_back_and_reports_it(fake: FakeEndpoint, tmp_path: Path) -> None:
    fake.default = ("fail", 500)
    bot = _bot(fake, tmp_path)
    info = _info(moves=5)
    assert await bot.achoose(info) == default_action(info.legal_actions)
    d = bot.decisions[-1]
    assert d.fault == "endpoint" and "500" in d.detail and d.calls == 1  # no retries on a broken endpoint


def test_the_spec_builds_an_llm_seat_and_refuses_bad_ones(fake: FakeEndpoint, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_KEY", raising=False)
    spec = f"llm:model=m1,base_url={fake.url},retries=1"
    bot = bot_from_spec(spec, decision_timeout_s=7)
    assert isinstance(bot, LlmBot) and bot.retries == 1 and bot.timeout_s == 7 and bot.name == "llm:m1"
    assert split_bot_specs(f"{spec},greedy") == [spec, "greedy"]
    assert named_specs(f"mine=llm:model=m1,base_url={fake.url},greedy", {"greedy"}) == [
        ("mine", f"llm:model=m1,base_url={fake.url}"), ("", "greedy")]
    assert parse_bot_spec(spec).label() == "llm-m1"
    for bad, why in ((f"llm:base_url={fake.url}", "model=NAME is required"), ("llm:model=m", "base_url"),
                     (f"llm:model=m,base_url={fake.url},api_key_env=NO_SUCH_KEY", "NO_SUCH_KEY is not set"),
                     (f"llm:model=m,base_url={fake.url},temp=1", "unknown option"),
                     (f"llm:model=m,base_url={fake.url},retries=many", "retries")):
        with pytest.raises(ValueError, match=why):
            bot_from_spec(bad)
    with pytest.raises(ValueError, match="never plays an llm"):
        parse_bot_spec(f"house:{spec}")


async def test_an_llm_seat_plays_a_whole_match_against_greedy(fake: FakeEndpoint, tmp_path: Path,
                                                              redis_url: str) -> None:
    fake.script = [("say", "no idea"), ("fail", 503)]  # one retry and one fallback along the way
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url)
    bot = _bot(fake, tmp_path)
    async with Runtime(settings, gateway_port=0) as rt, AsyncClient(rt.target) as client:
        rec = await play_match(client, "schnapsen-at", [bot, GreedyBot(2)], seed=9)
    assert rec["over"] and "faults" not in rec
    mine = [a for a in rec["actions"] if int(a["seat"]) == 0 and a.get("action_text")]
    assert len(bot.decisions) == len(mine) > 5
    assert [d.action for d in bot.decisions] == [int(a["action_id"]) for a in mine]
    s = bot.summary()
    assert s["retries"] >= 1 and s["faults"] == {"endpoint": 1} and s["prompt_tokens"] == 100 * (s["calls"] - 1)
