"""Where ``bummerl serve`` keeps its data on the embedded Valkey (issue 25): by default in
``$XDG_DATA_HOME/bummerl`` with the append-only file, so ladders, bots and matches survive a restart;
``--ephemeral`` keeps the old throw-away behaviour; the start-up output says which. Real ``bummerl
serve`` subprocesses, each with its own ``XDG_DATA_HOME`` under the test's temp dir (never the real
home directory)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_servers import free_port, serve

from bummerl.config import Settings, default_data_dir


def env_for(xdg: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BUMMERL_")}  # no BUMMERL_REDIS_URL
    env.update(XDG_DATA_HOME=str(xdg), BUMMERL_HTTP_PORT="0", BUMMERL_METRICS_PORT="0")
    return env


def test_serve_keeps_matches_in_the_default_data_dir_across_a_restart(tmp_path: Path) -> None:
    """Before: a fresh temp dir per start, so the match was NOT_FOUND after the restart and nothing
    said so."""
    from bummerl_client import Client

    env = env_for(tmp_path / "xdg")
    port = free_port()
    with serve(["--port", str(port)], env) as (proc, lines):
        assert proc.poll() is None, lines
        assert f"bummerl: redis embedded Valkey, data kept in {tmp_path / 'xdg' / 'bummerl'} (append-only file)" in lines
        with Client(f"127.0.0.1:{port}") as c:
            m = c.create_match("schnapsen-at", seed=5)
    assert proc.returncode == 0
    assert (tmp_path / "xdg" / "bummerl" / "appendonlydir").is_dir()
    port = free_port()
    with serve(["--port", str(port)], env) as (proc, lines):
        assert proc.poll() is None, lines
        with Client(f"127.0.0.1:{port}") as c:
            info = c.information_set(m.match_id, 0, m.tokens[0])
            assert info["match_id"] == m.match_id and c.match_record(m.match_id)["match_id"] == m.match_id


def test_a_second_server_on_the_same_data_dir_refuses_to_start(tmp_path: Path) -> None:
    env = env_for(tmp_path / "xdg")
    with serve(["--port", str(free_port())], env) as (first, lines):
        assert first.poll() is None, lines
        second = subprocess.run([sys.executable, "-m", "bummerl_cli", "serve", "--port", "0"], env=env,
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 2 and "Traceback" not in second.stderr
        assert "is in use by another server" in second.stderr.strip().splitlines()[-1]
        assert first.poll() is None


def test_ephemeral_says_so_and_keeps_nothing(tmp_path: Path) -> None:
    env = env_for(tmp_path / "xdg")
    with serve(["--port", str(free_port()), "--ephemeral"], env) as (proc, lines):
        assert proc.poll() is None, lines
        assert any("EPHEMERAL (--ephemeral): every ladder, bot and match is lost" in line for line in lines), lines
    assert not (tmp_path / "xdg").exists()
    out = subprocess.run([sys.executable, "-m", "bummerl_cli", "serve", "--ephemeral", "--data-dir", str(tmp_path)],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "not allowed with argument" in out.stderr


def test_default_data_dir_follows_xdg_and_ephemeral_excludes_a_data_dir() -> None:
    assert default_data_dir({"XDG_DATA_HOME": "/var/lib/x", "HOME": "/home/a"}) == Path("/var/lib/x/bummerl")
    assert default_data_dir({"XDG_DATA_HOME": "", "HOME": "/home/a"}) == Path("/home/a/.local/share/bummerl")
    assert Settings.from_env({"BUMMERL_EPHEMERAL": "1"}).ephemeral
    with pytest.raises(ValueError, match="exclude each other"):
        Settings.from_env({"BUMMERL_EPHEMERAL": "true", "BUMMERL_DATA_DIR": "/tmp/x"})
