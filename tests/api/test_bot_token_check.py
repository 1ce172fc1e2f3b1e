"""A bot token that gRPC cannot send as metadata (non-ASCII, issue 38) is a fatal error at once,
not a reconnect loop that never ends: in the SDK's ``run_bot`` and in ``bummerl bot run``."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest

from bummerl.bots import make_bot
from bummerl_client import AsyncClient
from bummerl_client.botrunner import check_token, run_bot


@pytest.mark.parametrize("token", ["bötli.secret", "bot.sec\nret", " bot.secret", ""])
def test_check_token_refuses_what_grpc_cannot_send(token: str) -> None:
    with pytest.raises(ValueError, match="cannot be sent"):
        check_token(token)


def test_check_token_takes_a_real_token() -> None:
    check_token("b_0123abcd.Zx-9_secret")


async def test_run_bot_with_a_non_ascii_token_fails_at_once() -> None:
    statuses: list[str] = []
    async with AsyncClient("127.0.0.1:1") as c:
        with pytest.raises(ValueError, match="cannot be sent"):
            await asyncio.wait_for(run_bot(c, "bötli.secret", lambda: make_bot("random"), on_status=statuses.append), 5)
    assert statuses == []


def test_bot_run_command_with_a_non_ascii_token_exits_2_at_once() -> None:
    t0 = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "bummerl_cli", "bot", "run", "--bot", "random", "--token",
                          "bötli.secret", "--server", "127.0.0.1:1"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "cannot be sent" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert time.monotonic() - t0 < 10
