"""The ``llm:`` seat: a bot that plays through an OpenAI-compatible chat endpoint (hosted APIs and
local servers such as vLLM, llama.cpp or Ollama alike), with the ``openai`` package (the
``agents`` extra; imported when the first bot is built).

Spec: ``llm:model=NAME,base_url=URL[,api_key_env=VAR][,retries=2][,keep_prompts=false]
[,timeout_s=60][,temperature=0][,max_tokens=256][,log=PATH]``, usable wherever a bot spec is
(``bummerl play``, ``bummerl bot run``, ``bummerl ladder run``, the SDK's
:func:`~bummerl_client.specs.bot_from_spec`). Never a ``house:`` seat: the server would spend its
operator's key (the server refuses ``house:llm:...``).

Each decision: the prompt is the variant's rules summary (docs/RULES.md, one line per rule ID,
:func:`~bummerl_client.mcp_text.rules_summary`), the seat's state as text and the legal actions
(:func:`~bummerl_client.mcp_text.state_text`); the answer is asked for as ``{"action": "<text>"}``
and read leniently (:func:`parse_answer`: that JSON anywhere in the answer, or a legal action's
text or ``[id]`` in prose). An illegal or unparsable answer is quoted back and asked again, at
most ``retries`` times; then, or when the endpoint fails or the time is up, the seat plays the
default move (the lowest-id card play, else the first legal action: the rule of the server's
``default-move`` policy) and the fault is reported (a warning on the ``bummerl_client.llm``
logger, ``fault`` in the decision). The calls of one decision together are bounded by the seat's
clock (its ``move_remaining_ms`` less a margin) and by ``timeout_s``.

Per decision the bot keeps (:attr:`LlmBot.decisions`, and one JSON line each in its log) the
tokens used, the retries, the latency (ms), the action, the fault; the prompts and answers only
with ``keep_prompts=true``. The match record (GetMatchRecord) is the server's and has no field for
a client's notes, so these stay with the bot: the log is ``log=PATH`` or
``$BUMMERL_BOT_LOG_DIR/llm/<time>-<model>-<pid>-<n>.jsonl`` (the stdio bridge's log folder,
:func:`~bummerl_client.stdio.default_log_dir`), its last line the match's :meth:`LlmBot.summary`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import count
from pathlib import Path
from typing import Any

from bummerl.bots.base import Bot, InfoSet

from .mcp_text import action_lines, default_action, resolve_action, rules_summary, state_text
from .stdio import default_log_dir

__all__ = ["Decision", "LlmBot", "parse_answer"]

log = logging.getLogger(__name__)

OPTIONS = ("model", "base_url", "api_key_env", "retries", "keep_prompts", "timeout_s", "temperature", "max_tokens", "log")
"""The options of an ``llm:`` spec."""

_JSON = re.compile(r"\{[^{}]*\}", re.S)
_ID = re.compile(r"^\s*(?:action\s*[:=]?\s*)?\[?(\d+)\]?\s*\.?\s*$", re.I)
_files = count()


@dataclass
class Decision:
    """One decision of an ``llm:`` seat. ``version``: of the information set it answered;
    ``action``/``text``: what was played; ``retries``: questions asked again after a bad answer;
    ``prompt_tokens``/``completion_tokens``: summed over the decision's calls (as the endpoint
    reports them; 0 when it reports none); ``latency_ms``: wall time of the whole decision;
    ``fault``: "" or ``illegal`` / ``unparsable`` (after the last retry), ``timeout`` (the clock or
    ``timeout_s`` ran out), ``endpoint`` (the endpoint failed: its error in ``detail``);
    ``fallback``: the default move was played; ``messages``: the prompts and answers, only with
    ``keep_prompts``."""

    version: int
    action: int = -1
    text: str = ""
    retries: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    fault: str = ""
    detail: str = ""
    fallback: bool = False
    messages: list[dict[str, str]] = field(default_factory=list)


def parse_answer(answer: str, legal: Sequence[Mapping[str, Any]]) -> tuple[int | None, str, str]:
    """A model's answer -> ``(action id, "", "")``, or ``(None, kind, why)`` with ``kind``
    ``illegal`` (a ``{"action": ...}`` naming no legal action) or ``unparsable``. Read in order:
    the first JSON object with an ``"action"`` key anywhere in the answer (its value an action
    text, an id, ``"[id] text"`` or a card code naming one legal play); else the legal actions whose
    text the prose names (exactly one); else a bare ``[id]`` / ``action 12``."""
    for m in _JSON.finditer(answer):
        try:
            obj = json.loads(m.group(0))
        except ValueError:
            continue
        if isinstance(obj, dict) and "action" in obj:
            value = obj["action"]
            got = resolve_action(legal, value) if isinstance(value, int | str) else None
            if got is not None:
                return got, "", ""
            return None, "illegal", f"{json.dumps(value)[:80]} is not one of the legal actions"
    low = answer.lower()
    named = {int(a["id"]) for a in legal
             if re.search(r"(?<![a-z0-9])" + re.escape(str(a.get("text", "")).lower()) + r"(?![a-z0-9])", low)}
    if len(named) == 1:
        return named.pop(), "", ""
    if len(named) > 1:
        return None, "unparsable", "it names several legal actions; answer with exactly one"
    m2 = _ID.match(answer)
    if m2:
        got = resolve_action(legal, int(m2.group(1)))
        if got is not None:
            return got, "", ""
        return None, "illegal", f"{m2.group(1)} is not the id of a legal action"
    return None, "unparsable", 'no {"action": ...} and no legal action named'


def _flag(value: str, name: str) -> bool:
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"llm: {name} must be true or false, got {value!r}")


def _number(value: str, name: str, lo: float, hi: float) -> float:
    try:
        x = float(value)
    except ValueError:
        raise ValueError(f"llm: {name} must be a number, got {value!r}") from None
    if not lo <= x <= hi:
        raise ValueError(f"llm: {name} must be in [{lo:g}, {hi:g}], got {value}")
    return x


class LlmBot(Bot):
    """A seat played by a chat model (module docstring). ``model``: the endpoint's model name;
    ``base_url``: the OpenAI-compatible API root (``http://localhost:8000/v1``); ``api_key``: sent
    as the bearer key ("unused" when None: local servers take any); ``retries``: questions asked
    again after an illegal or unparsable answer; ``timeout_s``: the longest one decision may take
    (seconds) besides the clock; ``keep_prompts``: keep the messages in each :class:`Decision`;
    ``log_path``: the JSON-lines log (None: the default place; ``""``: no log file)."""

    name = "llm"

    def __init__(self, model: str, base_url: str, api_key: str | None = None, *, retries: int = 2,
                 timeout_s: float = 60.0, keep_prompts: bool = False, temperature: float = 0.0,
                 max_tokens: int = 256, log_path: str | None = None, seed: int | None = None) -> None:
        super().__init__(seed)
        if not model:
            raise ValueError("llm: model=NAME is required, e.g. llm:model=gpt-4o-mini,base_url=https://api.openai.com/v1")
        if not re.match(r"^https?://", base_url or ""):
            raise ValueError(f"llm: base_url must be an http(s) URL such as http://localhost:8000/v1, got {base_url!r}")
        try:
            import openai  # the agents extra, loaded with the first llm: bot
        except ImportError:
            raise ValueError("llm: needs the openai package: pip install 'bummerl[agents]'") from None
        self.model, self.base_url = model, base_url
        self.retries, self.timeout_s, self.keep_prompts = retries, timeout_s, keep_prompts
        self.temperature, self.max_tokens = temperature, max_tokens
        self.name = f"llm:{model}"[:60]
        self._client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key or "unused", max_retries=0,
                                          timeout=timeout_s)
        self._errors: tuple[type[BaseException], ...] = (openai.APIError,)
        self.decisions: list[Decision] = []
        self._rules: dict[str, str] = {}
        if log_path is None:
            stamp = time.strftime("%Y%m%dT%H%M%S")
            safe_model = re.sub(r"[^A-Za-z0-9_.-]+", "-", model)[:40]
            log_path = str(default_log_dir() / "llm" / f"{stamp}-{safe_model}-{os.getpid()}-{next(_files)}.jsonl")
        self.log_path = log_path

    @classmethod
    def from_options(cls, seed: int | None, options: Mapping[str, str], decision_timeout_s: float = 60.0) -> LlmBot:
        """The bot of an ``llm:`` spec's options (module docstring). ``decision_timeout_s``: the
        default of ``timeout_s``. Raises ValueError (one line) for a missing ``model`` or
        ``base_url``, an unknown or bad option, or an ``api_key_env`` variable that is not set."""
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise ValueError(f"llm: unknown option {unknown[0]!r}; options: {', '.join(OPTIONS)}")
        key_env = options.get("api_key_env", "")
        api_key = None
        if key_env:
            api_key = os.environ.get(key_env)
            if not api_key:
                raise ValueError(f"llm: api_key_env={key_env} but ${key_env} is not set")
        return cls(options.get("model", ""), options.get("base_url", ""), api_key,
                   retries=int(_number(options.get("retries", "2"), "retries", 0, 10)),
                   timeout_s=_number(options.get("timeout_s", f"{decision_timeout_s:g}"), "timeout_s", 0.05, 3600),
                   keep_prompts=_flag(options.get("keep_prompts", "false"), "keep_prompts"),
                   temperature=_number(options.get("temperature", "0"), "temperature", 0, 2),
                   max_tokens=int(_number(options.get("max_tokens", "256"), "max_tokens", 1, 100_000)),
                   log_path=options.get("log"), seed=seed)

    def choose(self, info: InfoSet) -> int | str:
        raise NotImplementedError("an llm: bot decides with achoose (it awaits the endpoint)")

    def fault_note(self) -> str:
        return f" (its decisions are in {self.log_path})" if self.log_path else ""

    def rules_for(self, variant: str) -> str:
        """The rules summary of the prompt (cached per variant); a pointer when RULES.md is missing."""
        if variant not in self._rules:
            try:
                self._rules[variant] = rules_summary(variant)
            except (KeyError, OSError):
                self._rules[variant] = f"(the rules of {variant}: docs/RULES.md of Bummerl)"
        return self._rules[variant]

    def messages_for(self, info: InfoSet) -> list[dict[str, str]]:
        """The first prompt of a decision: system (the rules and the answer's form) and user (the
        state as text with the legal actions)."""
        system = (f"You play the card game {info.variant} (Schnapsen family) as seat {info.seat}. Its rules, one line per "
                  f"rule ID:\n{self.rules_for(info.variant)}\n\nEach turn you get the state and the legal actions. "
                  'Answer with one JSON object and nothing else: {"action": "<the text of one legal action>"}.')
        user = state_text(info.raw) + '\n\nYour move: answer {"action": "..."} with one of the legal actions above.'
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _budget_s(self, info: InfoSet) -> float:
        """Seconds this decision may take: ``timeout_s``, cut to the seat's move time less a margin
        (a fifth of it, between 0.05 and 1 s) for the answer's way to the server."""
        move_ms = info.move_time_ms()
        if move_ms is None:
            return self.timeout_s
        move_s = move_ms / 1000
        return max(0.0, min(self.timeout_s, move_s - min(1.0, max(0.05, move_s / 5))))

    async def achoose(self, info: InfoSet) -> int | str:
        """Ask the model (module docstring); always returns a legal action id."""
        start = time.monotonic()
        deadline = start + self._budget_s(info)
        legal = info.legal_actions
        d = Decision(version=info.version)
        messages = self.messages_for(info)
        action: int | None = None
        while True:
            left = deadline - time.monotonic()
            if left <= 0.01:
                d.fault, d.detail = "timeout", f"no legal answer within {self._budget_s(info):.2f} s"
                break
            d.calls += 1
            try:
                resp = await asyncio.wait_for(self._client.chat.completions.create(
                    model=self.model, messages=messages,  # type: ignore[arg-type]
                    temperature=self.temperature, max_tokens=self.max_tokens, timeout=left), timeout=left)
            except TimeoutError:
                d.fault, d.detail = "timeout", f"the endpoint did not answer within {left:.2f} s"
                break
            except self._errors as e:
                if "timed out" in str(e).lower() or type(e).__name__ == "APITimeoutError":
                    d.fault, d.detail = "timeout", f"the endpoint did not answer within {left:.2f} s"
                else:
                    d.fault, d.detail = "endpoint", f"{type(e).__name__}: {str(e)[:200]}"
                break
            usage = getattr(resp, "usage", None)
            d.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
            d.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
            choices = getattr(resp, "choices", None) or []
            answer = str(choices[0].message.content or "") if choices else ""
            action, kind, why = parse_answer(answer, legal)
            messages.append({"role": "assistant", "content": answer})
            if action is not None:
                break
            if d.retries >= self.retries:
                d.fault, d.detail = kind, f"{why} (answer: {answer[:120]!r})"
                break
            d.retries += 1
            messages.append({"role": "user", "content": (
                f"Your answer {answer[:300]!r} is not usable: {why}. The legal actions are:\n"
                + "\n".join(action_lines(legal)) + '\nAnswer again with one JSON object {"action": "<text>"} naming one of them.')})
        if action is None:
            action = default_action(legal)
            d.fallback = True
            log.warning("llm seat %s (seat %d, version %d): %s: %s; playing the default move",
                        self.model, info.seat, info.version, d.fault, d.detail)
        d.action = action
        d.text = next((str(a.get("text")) for a in legal if int(a["id"]) == action), "")
        d.latency_ms = round((time.monotonic() - start) * 1000, 2)
        if self.keep_prompts:
            d.messages = messages
        self.decisions.append(d)
        self._write(asdict(d) if self.keep_prompts else {k: v for k, v in asdict(d).items() if k != "messages"})
        return action

    def summary(self) -> dict[str, Any]:
        """Totals over the decisions so far: ``decisions``, ``calls``, ``retries``,
        ``prompt_tokens``, ``completion_tokens``, ``latency_ms_mean``/``_max``, ``faults`` (kind ->
        count), ``fallbacks``, ``model``, ``log``."""
        ds = self.decisions
        faults: dict[str, int] = {}
        for d in ds:
            if d.fault:
                faults[d.fault] = faults.get(d.fault, 0) + 1
        lat = [d.latency_ms for d in ds]
        return {"model": self.model, "decisions": len(ds), "calls": sum(d.calls for d in ds),
                "retries": sum(d.retries for d in ds), "prompt_tokens": sum(d.prompt_tokens for d in ds),
                "completion_tokens": sum(d.completion_tokens for d in ds),
                "latency_ms_mean": round(sum(lat) / len(lat), 2) if lat else 0.0, "latency_ms_max": max(lat, default=0.0),
                "faults": faults, "fallbacks": sum(d.fallback for d in ds), "log": self.log_path}

    def _write(self, entry: Mapping[str, Any]) -> None:
        if not self.log_path:
            return
        try:
            path = Path(self.log_path)
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")
        except OSError as e:  # a log that cannot be written must not cost the match
            log.warning("llm seat %s: cannot write %s: %s", self.model, self.log_path, e)
            self.log_path = ""

    async def aclose(self, final: Mapping[str, Any] | None = None) -> None:
        """Writes the :meth:`summary` as the log's last line (``{"summary": ...}``) when the match
        is over; the HTTP client stays open for the next match of a reused bot."""
        if final is not None and self.decisions:
            self._write({"summary": self.summary()})
