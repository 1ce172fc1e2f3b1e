"""The bot-spec grammar, parsed in one place for every face that names a bot (``bummerl play``,
``ladder run``, ``bot run``, ``bot check``, ``python -m bummerl_client join``, house seats,
``bummerl bench``)::

    spec      := bundled | "exec:" COMMAND | "py:" TARGET | "house:" bundled | "llm:" option ( "," option )*
    bundled   := NAME [ ":" option ( "," option )* ]        e.g. strong:budget_ms=50,samples=8
    option    := KEY "=" VALUE
    TARGET    := FILE.py ":" CLASS | MODULE ":" CLASS
    named     := LABEL "=" spec                              (ladder run: mine=exec:./bot)

A comma-separated list of specs (``--bots``) is split by :func:`split_bot_specs`: an item that
looks like ``key=value`` continues the options of the bundled spec before it.
:func:`parse_bot_spec` turns one spec into a :class:`BotSpec`; building it is
:func:`bummerl.bots.make_bot` (bundled and ``py:`` bots) or the SDK's stdio bridge (``exec:``
bots run a program: ``bummerl_client.specs.bot_from_spec``). Every error is one line (ValueError).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

#: The kinds of spec: a bot bundled with Bummerl, a program over the stdio bridge, a Python class.
Kind = Literal["bundled", "exec", "py"]
#: Prefixes of the spec kinds that are not a bundled bot's name.
EXEC, PY, HOUSE = "exec:", "py:", "house:"
#: The name of the chat-model seat (``llm:model=NAME,base_url=URL,...``): parsed as a bundled spec
#: with options, built by the SDK (``bummerl_client.llm``), never played in a house seat.
LLM = "llm"

_OPTION = re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*=")
_NAMED = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9_.:+-]{0,63}?)=(.+)$")


@dataclass(frozen=True)
class BotSpec:
    """One parsed bot spec.

    ``kind``: ``bundled`` (``name`` is the bot's name, ``options`` its ``key=value`` options as
    strings), ``exec`` (``target`` is the command line), ``py`` (``target`` is ``FILE.py:CLASS``
    or ``MODULE:CLASS``). ``house``: the spec was written ``house:...`` (a seat the server plays;
    only bundled bots). ``text``: the spec as given, stripped."""

    kind: Kind
    text: str
    name: str = ""
    target: str = ""
    options: Mapping[str, str] = field(default_factory=dict)
    house: bool = False

    def canonical(self) -> str:
        """The spec written back (``strong:budget_ms=50``, ``exec:./bot``, ``py:bot.py:Mine``),
        without the ``house:`` prefix."""
        if self.kind == "exec":
            return EXEC + self.target
        if self.kind == "py":
            return PY + self.target
        return self.name + (":" + ",".join(f"{k}={v}" for k, v in self.options.items()) if self.options else "")

    def label(self) -> str:
        """A short readable name for the bot of this spec: the bundled bot's name, the program's
        file name of an ``exec:`` bot, the class of a ``py:`` bot."""
        if self.kind == "py":
            return self.target.rsplit(":", 1)[-1]
        if self.kind == "exec":
            words = self.target.split()
            return words[0].rsplit("/", 1)[-1] if words else "exec"
        if self.name == LLM and self.options.get("model"):
            return f"{LLM}-{self.options['model']}"
        return self.name


def parse_options(text: str) -> dict[str, str]:
    """``"budget_ms=50,samples=8"`` -> ``{"budget_ms": "50", "samples": "8"}``; ValueError if an
    item is not ``name=value``."""
    out: dict[str, str] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"bot option {part!r} is not name=value")
        out[name.strip()] = value.strip()
    return out


def parse_bot_spec(text: str) -> BotSpec:
    """One spec (module docstring) -> :class:`BotSpec`. Raises ValueError (one line) for an empty
    spec, an ``exec:`` without a command, a ``py:`` that is not ``FILE.py:CLASS`` or
    ``MODULE:CLASS``, a ``house:`` seat of anything but a bundled bot, or a malformed option.
    Whether a bundled name exists is checked by :func:`bummerl.bots.make_bot`."""
    spec = text.strip()
    house = spec.startswith(HOUSE)
    body = spec[len(HOUSE):].strip() if house else spec
    if not body:
        raise ValueError("empty bot spec" + (" after house:" if house else ""))
    if body.startswith((EXEC, PY)) and house:
        raise ValueError(f"a house seat plays a bundled bot, not {body.split(':', 1)[0]}: ({spec[:80]!r})")
    if body.startswith(EXEC):
        command = body[len(EXEC):].strip()
        if not command:
            raise ValueError("exec: needs a command, e.g. exec:./my_bot")
        return BotSpec("exec", spec, target=command)
    if body.startswith(PY):
        target = body[len(PY):].strip()
        where, sep, cls = target.rpartition(":")
        if not sep or not where or not cls:
            raise ValueError(f"py: expected FILE.py:CLASS or MODULE:CLASS, got {target!r}")
        return BotSpec("py", spec, target=target)
    name, _, opts = body.partition(":")
    if house and name.strip() == LLM:
        raise ValueError("a house seat never plays an llm: bot (the server would spend its operator's model key); "
                         "play it from your side: bummerl play --bots llm:...,greedy or bummerl bot run --bot llm:...")
    return BotSpec("bundled", spec, name=name.strip(), options=parse_options(opts), house=house)


def split_bot_specs(text: str) -> list[str]:
    """``"strong:budget_ms=50,samples=8,greedy"`` -> ``["strong:budget_ms=50,samples=8", "greedy"]``.

    A comma-separated item that looks like ``name=value`` continues the options of the spec
    before it when that spec has options (``name:...``, not ``exec:`` or ``py:``); anything else
    starts a new spec."""
    out: list[str] = []
    for item in text.split(","):
        if out and _OPTION.match(item) and ":" in out[-1] and not out[-1].startswith((EXEC, PY)):
            out[-1] += "," + item.strip()
        elif item.strip():
            out.append(item.strip())
    return out


def named_specs(text: str, bundled: frozenset[str] | set[str]) -> list[tuple[str, str]]:
    """``--bots`` with optional labels: ``"mine=exec:./bot,ref=strong:samples=32,greedy"`` ->
    ``[("mine", "exec:./bot"), ("ref", "strong:samples=32"), ("", "greedy")]``. An item
    ``LABEL=SPEC`` starts a labelled bot when SPEC is a bundled bot (a name in ``bundled``),
    ``exec:...`` or ``py:...``; any other ``key=value`` item continues the options of the bot
    before it (``strong:budget_ms=50,samples=8``)."""
    out: list[tuple[str, str]] = []
    for item in text.split(","):
        m = _NAMED.match(item)
        kind = m.group(2).strip().split(":", 1)[0] if m else ""
        if m and (kind in bundled or kind in ("exec", "py", LLM)):
            out.append((m.group(1), m.group(2).strip()))
        elif out:
            merged = split_bot_specs(f"{out[-1][1]},{item}")
            if len(merged) == 1:
                out[-1] = (out[-1][0], merged[0])
            elif item.strip():
                out.append(("", item.strip()))
        elif item.strip():
            out.append(("", item.strip()))
    return out


__all__ = ["EXEC", "HOUSE", "LLM", "PY", "BotSpec", "Kind", "named_specs", "parse_bot_spec", "parse_options", "split_bot_specs"]
