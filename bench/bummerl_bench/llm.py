"""``bummerl bench llm``: the ``llm:`` seat's own overhead per decision (bummerl_client.llm), apart
from the model's thinking. Two figures, over the information sets of played-out deals of a variant
(every decision of seeded random matches, both seats):

* ``prompt_parse_us``: building the prompt (rules summary, state as text, legal actions) and
  reading the answer (the lenient parser), CPU only, microseconds per decision;
* ``decision_ms``: a whole decision through the ``openai`` client against a local endpoint that
  answers at once (aiohttp on 127.0.0.1, no model): the harness plus one HTTP round trip,
  milliseconds per decision (median and p95), with ``endpoint_ms`` the endpoint's own time.

Run: ``bummerl bench llm [--variant schnapsen-at] [--seconds 10] [--json]`` or
``python -m bummerl_bench.llm``. No network beyond 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from typing import Any

from bummerl.bots.base import InfoSet
from bummerl.rules import apply, information_set, legal_actions, new_match


def infosets(variant: str, matches: int = 3) -> list[InfoSet]:
    """The information sets of the seat to act at every decision of ``matches`` seeded matches
    played with the first legal action (the deals' whole course: leads, follows, closes, ends)."""
    out: list[InfoSet] = []
    for seed in range(matches):
        m = new_match(variant, seed=seed)
        while not m.over and len(out) < 2000:
            acts = legal_actions(m)
            raw = information_set(m, information_set(m, 0)["deal"]["to_act"])
            if raw.get("legal_actions"):
                out.append(InfoSet(raw))
            m = apply(m, acts[seed % len(acts)])
    return out


async def _run(variant: str, seconds: float) -> dict[str, Any]:
    from aiohttp import web

    from bummerl_client.llm import LlmBot, parse_answer

    infos = infosets(variant)
    endpoint_s: list[float] = []

    async def answer(request: web.Request) -> web.Response:
        t0 = time.perf_counter()
        body = await request.json()
        prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
        line = next(x for x in prompt.splitlines() if x.startswith("  ["))
        resp = web.json_response({
            "id": "b", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": json.dumps({"action": line.split("] ", 1)[1]})}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
        endpoint_s.append(time.perf_counter() - t0)
        return resp

    app = web.Application()
    app.router.add_post("/v1/chat/completions", answer)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    with tempfile.TemporaryDirectory() as tmp:
        bot = LlmBot("bench", f"http://127.0.0.1:{port}/v1", log_path=f"{tmp}/llm.jsonl")
        # CPU: prompt and parse
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / 2:
            info = infos[n % len(infos)]
            bot.messages_for(info)
            parse_answer(json.dumps({"action": info.legal_actions[-1]["text"]}), info.legal_actions)
            n += 1
        cpu_us = (time.perf_counter() - start) / n * 1e6
        # whole decisions through the openai client
        lat: list[float] = []
        start = time.perf_counter()
        while time.perf_counter() - start < seconds / 2:
            t0 = time.perf_counter()
            await bot.achoose(infos[len(lat) % len(infos)])
            lat.append((time.perf_counter() - t0) * 1000)
        await bot.aclose(None)
    await runner.cleanup()
    lat.sort()
    return {"bench": "llm", "variant": variant, "positions": len(infos), "prompt_parse_us": round(cpu_us, 1),
            "prompt_parse_decisions": n, "decision_ms_median": round(statistics.median(lat), 3),
            "decision_ms_p95": round(lat[int(len(lat) * 0.95) - 1], 3), "decisions": len(lat),
            "endpoint_ms_median": round(statistics.median(endpoint_s) * 1000, 3)}


def bench_llm(variant: str = "schnapsen-at", seconds: float = 10.0) -> dict[str, Any]:
    """The figures of the module docstring (``seconds``: half for each measurement)."""
    return asyncio.run(_run(variant, seconds))


def run(args: argparse.Namespace) -> int:
    """``bummerl bench llm`` (``args.variant``, ``args.seconds``, ``args.json``)."""
    r = bench_llm(args.variant or "schnapsen-at", args.seconds)
    if args.json:
        print(json.dumps(r))
    else:
        print(f"llm seat {r['variant']}: prompt + parse {r['prompt_parse_us']} us of CPU per decision "
              f"({r['prompt_parse_decisions']:,} decisions over {r['positions']} positions); a whole decision through the "
              f"openai client to a local instant endpoint {r['decision_ms_median']} ms median, {r['decision_ms_p95']} ms "
              f"p95 ({r['decisions']:,} decisions; the endpoint's own time {r['endpoint_ms_median']} ms median)")
    return 0


if __name__ == "__main__":
    p = argparse.ArgumentParser(prog="python -m bummerl_bench.llm")
    p.add_argument("--variant", default="schnapsen-at")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--json", action="store_true")
    raise SystemExit(run(p.parse_args()))
