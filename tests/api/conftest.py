"""Fixtures of the API tests: ``rt``, a running server (gRPC and the REST gateway on ephemeral
ports) on the session's Valkey with default settings. Modules that need other settings define
their own ``rt``."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bummerl.app import Runtime
from bummerl.config import Settings


@pytest.fixture
async def rt(redis_url: str) -> AsyncIterator[Runtime]:
    async with Runtime(Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url),
                       gateway_port=0) as runtime:
        yield runtime
