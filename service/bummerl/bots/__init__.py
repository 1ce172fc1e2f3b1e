"""Bots of Bummerl: the :class:`Bot` base class every bot implements (the SDK re-exports it as
``bummerl_client.Bot``), the bundled bots the server also plays in ``house:`` seats, the bot-spec
grammar (:mod:`.spec`) and the offline compliance harness (:mod:`.harness`). A bot reads only the
information set it is given and reaches the engine through its facade (``bummerl.rules``,
``bummerl.rules.search``, ``bummerl.rules.worlds``); nothing here does network I/O
(tests/test_layout.py).

Bundled bots, by name (:data:`BOTS`): ``random``, ``greedy``, ``strong`` and ``strong-v1``
(``strong`` as issue 11 left it, for comparisons) (see :func:`make_bot`). A bundled bot that takes
options has a class method ``from_options(seed, options: Mapping[str, str])`` raising ValueError
(one line) for an unknown or bad option. A spec is a name with optional options:
``strong:budget_ms=50,samples=8,seed=1``, or ``py:FILE.py:CLASS`` for a Bot subclass of your own.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from typing import Any

from .base import Bot, BotFault, InfoSet, card_points, checked_action
from .greedy import GreedyBot
from .random_bot import RandomBot
from .spec import BotSpec, named_specs, parse_bot_spec, parse_options, split_bot_specs
from .strong import StrongBot, StrongV1Bot

BOTS: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot, "strong": StrongBot, "strong-v1": StrongV1Bot}


def make_bot(spec: str | BotSpec, seed: int | None = None) -> Bot:
    """A bot from its spec: a bundled bot (``name`` or ``name:opt=value,...``) or a Python class
    (``py:FILE.py:CLASS``, :func:`python_bot`). ``seed`` makes its random choices repeatable.

    Raises ValueError (one line) for an unknown name, an option of a bot without options, a bad
    option, or an ``exec:`` spec (a program is run by the SDK's stdio bridge:
    ``bummerl_client.specs.bot_from_spec``)."""
    s = parse_bot_spec(spec) if isinstance(spec, str) else spec
    if s.kind == "py":
        return python_bot(s.target, seed)
    if s.kind == "exec":
        raise ValueError(f"{s.text[:80]!r}: an exec: bot runs a program; build it with bummerl_client.specs.bot_from_spec")
    cls = BOTS.get(s.name)
    if cls is None:
        raise ValueError(f"unknown bot {s.name!r}; known: {', '.join(sorted(BOTS))} (or exec:COMMAND, py:FILE.py:CLASS)")
    from_options = getattr(cls, "from_options", None)  # a bot that takes options builds itself from them
    if from_options is not None:
        bot: Bot = from_options(seed, s.options)
        return bot
    if s.options:
        raise ValueError(f"bot {s.name!r} takes no options (got {', '.join(s.options)})")
    return cls(seed)


_PY_MODULES: dict[str, Any] = {}


def python_bot(target: str, seed: int | None = None) -> Bot:
    """A :class:`~bummerl.bots.base.Bot` subclass written in Python, from ``FILE.py:CLASS`` (a
    path) or ``MODULE:CLASS`` (importable), constructed with ``seed`` when its ``__init__`` takes
    one. Its name is the class's ``name`` if it sets one, else ``py:CLASS``. A file is loaded once
    per process. Raises ValueError (one line) for a missing file or class, a module that fails to
    import, or a class that is no Bot."""
    where, sep, class_name = target.rpartition(":")
    if not sep or not where or not class_name:
        raise ValueError(f"py: expected FILE.py:CLASS or MODULE:CLASS, got {target!r}")
    module = _PY_MODULES.get(where)
    if module is None:
        try:
            if where.endswith(".py"):
                path = os.path.abspath(where)
                if not os.path.isfile(path):
                    raise ValueError(f"py: no such file: {where}")
                loader_spec = importlib.util.spec_from_file_location(f"bummerl_py_bot_{len(_PY_MODULES)}", path)
                if loader_spec is None or loader_spec.loader is None:
                    raise ValueError(f"py: cannot load {where}")
                module = importlib.util.module_from_spec(loader_spec)
                loader_spec.loader.exec_module(module)
            else:
                module = importlib.import_module(where)
        except ValueError:
            raise
        except Exception as e:  # noqa: BLE001 - the bot author's module: one line, not a traceback
            raise ValueError(f"py: cannot import {where}: {type(e).__name__}: {e}") from None
        _PY_MODULES[where] = module
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise ValueError(f"py: {where} has no Bot subclass named {class_name!r}")
    try:
        bot = cls(seed)
    except TypeError:  # an __init__ without a seed
        bot = cls()
    if type(bot).name == Bot.name:  # the class kept the base's "bot"
        bot.name = f"py:{class_name}"
    return bot


__all__ = ["BOTS", "Bot", "BotFault", "BotSpec", "GreedyBot", "InfoSet", "RandomBot", "StrongBot", "StrongV1Bot",
           "card_points", "checked_action", "make_bot", "named_specs", "parse_bot_spec", "parse_options",
           "python_bot", "split_bot_specs"]
