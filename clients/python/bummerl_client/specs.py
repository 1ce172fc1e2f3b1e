"""Bots from their specs on the client side: the bundled and ``py:`` bots of :mod:`bummerl.bots`
plus ``exec:`` bots, programs played over the stdio bridge (:mod:`.stdio`, docs/ENGINE_PROTOCOL.md),
and ``llm:`` bots, chat models behind an OpenAI-compatible endpoint (:mod:`.llm`).
The grammar is :mod:`bummerl.bots.spec`; this module only adds the program runner.
"""

from __future__ import annotations

import os
import shutil

from bummerl.bots import Bot, make_bot, parse_bot_spec, split_bot_specs
from bummerl.bots.spec import LLM

from .stdio import StdioBot

__all__ = ["bot_from_spec", "bot_specs"]


def bot_from_spec(spec: str, seed: int | None = None, decision_timeout_s: float = 60.0,
                  process_model: str | None = None) -> Bot:
    """``random`` / ``greedy`` / ``strong:budget_ms=50,...`` / ``exec:COMMAND ARGS`` /
    ``py:FILE.py:CLASS`` (:func:`bummerl.bots.python_bot`) / ``llm:model=NAME,base_url=URL,...``
    (:class:`~bummerl_client.llm.LlmBot`; ``decision_timeout_s`` is its default ``timeout_s``) ->
    a Bot (the grammar: :mod:`bummerl.bots.spec`).
    ``process_model`` of an ``exec:`` bot: ``match`` or ``reuse`` (:data:`~bummerl_client.stdio.PROCESS_MODELS`;
    default ``BUMMERL_BOT_PROCESS_MODEL`` or ``match``). Raises ValueError (one line) for an
    unknown bot, a bad option, or an executable that is not found (on PATH or as a path)."""
    s = parse_bot_spec(spec)
    if s.kind == "exec":
        model = process_model or os.environ.get("BUMMERL_BOT_PROCESS_MODEL") or "match"
        bot = StdioBot(s.target, seed, decision_timeout_s=decision_timeout_s, process_model=model)
        program = bot.argv[0]
        if shutil.which(program) is None:
            raise ValueError(f"exec: executable not found: {program}"
                             + ("" if os.sep in program else " (not on PATH; give a path such as ./" + program + ")"))
        return bot
    if s.kind == "bundled" and s.name == LLM and not s.house:
        from .llm import LlmBot  # the openai package (agents extra) only for an llm: bot

        return LlmBot.from_options(seed, s.options, decision_timeout_s)
    return make_bot(s, seed)


def bot_specs(text: str, prog: str, count: int | None = None) -> list[str]:
    """Split a ``--bots`` list (``strong:budget_ms=50,samples=8,greedy`` -> two specs, see
    :func:`bummerl.bots.split_bot_specs`) and build every bot once to check its name and
    options: a bad one exits with one line ``PROG: ...`` (SystemExit)."""
    specs = split_bot_specs(text)
    if count is not None and len(specs) != count:
        example = ",".join(("greedy", "random")[i % 2] for i in range(count))
        raise SystemExit(f"{prog}: --bots takes {count} bots, one per seat, e.g. {example}"
                         + (" or strong:budget_ms=50,greedy" if count == 2 else ""))
    for spec in specs:
        try:
            bot_from_spec(spec)
        except ValueError as e:
            raise SystemExit(f"{prog}: {e}") from None
    return specs
