"""The event loop of ``bummerl serve`` (``BUMMERL_EVENT_LOOP``, :func:`bummerl.app.loop_factory`):
uvloop by default where it is installed, the standard loop on request or where it is not."""

from __future__ import annotations

import asyncio
import sys

import pytest

from bummerl.app import loop_factory, loop_name
from bummerl.config import Settings


def _kind(event_loop: str) -> str:
    loop = loop_factory(event_loop)()
    try:
        return loop_name(loop)
    finally:
        loop.close()


def test_auto_and_uvloop_give_uvloop_asyncio_the_standard_loop() -> None:
    pytest.importorskip("uvloop")
    assert _kind("auto") == "uvloop"
    assert _kind("uvloop") == "uvloop"
    assert _kind("asyncio") == "asyncio"
    ours, standard = loop_factory("asyncio")(), asyncio.new_event_loop()
    try:
        assert type(ours) is type(standard)
    finally:
        ours.close()
        standard.close()


def test_without_uvloop_auto_falls_back_and_uvloop_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop raises ImportError
    assert _kind("auto") == "asyncio"
    with pytest.raises(RuntimeError, match="uvloop is not installed"):
        loop_factory("uvloop")


def test_an_unknown_loop_is_refused_by_the_settings_and_the_factory() -> None:
    with pytest.raises(ValueError, match="event_loop must be one of auto, uvloop, asyncio, got 'libuv'"):
        Settings.from_env({"BUMMERL_EVENT_LOOP": "libuv"})
    with pytest.raises(ValueError, match="unknown event loop 'libuv'"):
        loop_factory("libuv")


def test_event_loop_comes_from_the_environment() -> None:
    assert Settings.from_env({}).event_loop == "auto"
    assert Settings.from_env({"BUMMERL_EVENT_LOOP": "asyncio"}).event_loop == "asyncio"
