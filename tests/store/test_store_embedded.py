"""The embedded Valkey server starts, serves, stops and cleans up."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from bummerl.store import ENV_REDIS_URL, EmbeddedValkey, resolve_redis_url


def test_start_serve_stop_removes_socket_and_temp_dir() -> None:
    server = EmbeddedValkey()
    url = server.start()
    try:
        sock = server.socket_path
        data_dir = server.data_dir
        assert sock is not None and data_dir is not None
        assert url == f"unix://{sock}"
        assert sock.exists() and server.running
        client = redis.Redis.from_url(url)
        assert client.ping()
        client.close()
    finally:
        server.stop()
    assert not server.running
    assert not sock.exists()
    assert not data_dir.exists()
    server.stop()  # a second stop is a no-op
    with pytest.raises(RuntimeError):
        _ = server.url


def test_context_manager_and_persistent_data_dir(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with EmbeddedValkey(data_dir) as server:
        client = redis.Redis.from_url(server.url)
        client.set("bm:test:persist", b"kept")
        client.close()
        sock = server.socket_path
    assert sock is not None and not sock.exists()
    assert data_dir.is_dir()  # a configured dir is kept
    with EmbeddedValkey(data_dir) as server:  # append-only file is on by default with a data_dir
        client = redis.Redis.from_url(server.url)
        assert client.get("bm:test:persist") == b"kept"
        client.close()


def test_long_data_dir_gets_a_short_socket_path(tmp_path: Path) -> None:
    data_dir = tmp_path / ("d" * 60) / ("e" * 60)
    with EmbeddedValkey(data_dir, persist=False) as server:
        sock = server.socket_path
        assert sock is not None and len(str(sock)) < 100
        client = redis.Redis.from_url(server.url)
        assert client.ping()
        client.close()
    assert not sock.exists()


def test_resolve_redis_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_REDIS_URL, "redis://example:6379/0")
    assert resolve_redis_url("redis://given:1/0", None) == ("redis://given:1/0", None)
    assert resolve_redis_url(None, None) == ("redis://example:6379/0", None)
    monkeypatch.delenv(ENV_REDIS_URL)
    url, server = resolve_redis_url(None, None)
    try:
        assert server is not None and url.startswith("unix://")
        client = redis.Redis.from_url(url)
        assert client.ping()
        client.close()
    finally:
        assert server is not None
        server.stop()
