"""Fixtures of the API tests: ``rt``, a running server (gRPC and the REST gateway on ephemeral
ports) on the session's Valkey with default settings, or the module's ``SERVER_SETTINGS``."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bummerl.app import Runtime
from bummerl.config import Settings


@pytest.fixture
async def rt(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[Runtime]:
    """A server on the session's Valkey; a test module may set ``SERVER_SETTINGS`` (a dict of
    :class:`~bummerl.config.Settings` fields, e.g. ``{"admin_token": ...}``) for its own."""
    extra = dict(getattr(request.module, "SERVER_SETTINGS", {}))
    async with Runtime(Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url, **extra),
                       gateway_port=0) as runtime:
        yield runtime
