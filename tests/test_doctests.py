"""The docstring examples of the public modules run (python-chess habit: examples CI runs)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "bummerl.rules",
    "bummerl.rules.base.cards",
    "bummerl.rules.base.actions",
    "bummerl.config",
    "bummerl.core.errors",
    "bummerl.api.metadata",
    "bummerl.ladder.formats",
    "bummerl.bots.harness",
    "bummerl_client",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0 or name == "bummerl_client", f"{name} has no examples"
