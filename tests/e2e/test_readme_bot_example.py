"""README's "A bot in Python" example runs as printed (only the server address changed) and plays
a whole match: a newcomer's first program must not drift from the SDK."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bummerl.app import Runtime
from bummerl.config import Settings

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture
async def rt(redis_url: str) -> AsyncIterator[Runtime]:
    async with Runtime(Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url)) as r:
        yield r


def _example() -> str:
    section = README.read_text().split("### A bot in Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, "README: no python block under 'A bot in Python'"
    return code.group(1)


async def test_the_readme_bot_example_plays_a_match(rt: Runtime, tmp_path: Path) -> None:
    code = _example()
    assert '"localhost:50051"' in code
    script = tmp_path / "bot.py"
    script.write_text(code.replace('"localhost:50051"', f'"{rt.target}"'))
    import asyncio

    out = await asyncio.to_thread(subprocess.run, [sys.executable, str(script)], capture_output=True, text=True,
                                  timeout=120)
    assert out.returncode == 0, out.stderr
    assert "'winner': " in out.stdout and out.stdout.rstrip().endswith("[]")  # a result, and no faults


@pytest.fixture
async def rt_admin(redis_url: str) -> AsyncIterator[Runtime]:
    async with Runtime(Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url,
                                         admin_token="readme-admin")) as r:
        yield r


async def test_the_readme_bot_example_plays_on_a_server_with_an_admin_token(rt_admin: Runtime, tmp_path: Path) -> None:
    """The example passes BUMMERL_ADMIN_TOKEN as ``admin_token`` (it failed with PERMISSION_DENIED)."""
    import asyncio
    import os

    script = tmp_path / "bot.py"
    script.write_text(_example().replace('"localhost:50051"', f'"{rt_admin.target}"'))
    env = {**os.environ, "BUMMERL_ADMIN_TOKEN": "readme-admin"}
    out = await asyncio.to_thread(subprocess.run, [sys.executable, str(script)], capture_output=True, text=True,
                                  timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert "'winner': " in out.stdout
