"""Bridge for bots written in any language: an executable that reads JSON lines on stdin and
answers one line per decision on stdout. The protocol is documented in
``docs/ENGINE_PROTOCOL.md``:

* server -> bot: ``{"type": "hello", "protocol": 1, "match_id", "seat", "variant"}`` once, then
  ``{"type": "decide", "information_set": {...}, "time_limit_ms": N}`` whenever the seat is to act
  (the information set is the ``InformationSet`` message as proto3 JSON, legal actions included: the
  shape the SDK hands its bots and the engine builds, see :mod:`bummerl_client.bot`),
  and ``{"type": "over", "information_set": {...}}`` at the end; then stdin closes.
* bot -> server: one line per ``decide``: the chosen action's id (``"12"``) or text
  (``"play QH"``). The bot must flush stdout after each line.

The child runs under asyncio (it never blocks the event loop). **Process model**
(:data:`PROCESS_MODELS`): by default one process per match (started at the match's first
decision, told the match in ``hello``, ended after ``over``), so a crash costs that match only
and the next match starts a fresh process; with ``reuse`` a process that ended a match cleanly
gets the next match (a new ``hello`` after ``over``; any fault ends it as before). Its stderr goes to
``<log dir>/<match id>/seat<N>.log`` (:func:`default_log_dir`; at most :data:`LOG_CAP_BYTES` a
file, then a truncation mark; match folders older than :data:`LOG_RETENTION_DAYS` days, or beyond
the newest :data:`LOG_KEEP_MATCHES`, are removed); ``bummerl bot logs MATCH`` prints them. Each
decision has a time limit: the seat's move time left on the server clock plus
``grace_s`` (so that the server's timeout policy acts first), or ``decision_timeout_s`` without a
clock. Faults raise :class:`~bummerl_client.bot.BotFault`: ``timeout``, ``crash`` (the process
exited), ``unparsable`` (an empty or non-UTF-8 line; the runner checks the rest).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import shlex
import shutil
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from bummerl.bots.base import Bot, BotFault, InfoSet

PROTOCOL_VERSION = 1
_counter = itertools.count()

LOG_CAP_BYTES = 1024 * 1024
"""Most bytes of a bot's stderr kept per match and seat; the rest is dropped (and counted)."""
LOG_RETENTION_DAYS = 7.0
"""Match log folders older than this many days are removed when a new one is made."""
LOG_KEEP_MATCHES = 1000
"""At most this many match log folders are kept (the newest)."""
_pruned_at = 0.0


def default_log_dir() -> Path:
    """Where bot stderr logs go: ``$BUMMERL_BOT_LOG_DIR``, else ``$XDG_DATA_HOME/bummerl/bot-logs``
    (``~/.local/share/bummerl/bot-logs``), one folder per match id."""
    if os.environ.get("BUMMERL_BOT_LOG_DIR"):
        return Path(os.environ["BUMMERL_BOT_LOG_DIR"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "bummerl" / "bot-logs"


def match_log_dir(match_id: str, root: Path | None = None) -> Path:
    """The folder of one match's bot logs (``seat<N>.log`` inside)."""
    safe = "".join(c for c in match_id if c.isalnum()) or f"local-{os.getpid()}-{next(_counter)}"
    return (root or default_log_dir()) / safe


def prune_logs(root: Path, now: float | None = None) -> int:
    """Remove match log folders under ``root`` older than :data:`LOG_RETENTION_DAYS` or beyond the
    newest :data:`LOG_KEEP_MATCHES`; returns how many. Errors are ignored (another process may be
    pruning too)."""
    now = time.time() if now is None else now
    try:
        dirs = sorted((d for d in root.iterdir() if d.is_dir()), key=lambda d: d.stat().st_mtime, reverse=True)
    except OSError:
        return 0
    gone = 0
    for i, d in enumerate(dirs):
        with contextlib.suppress(OSError):
            if i >= LOG_KEEP_MATCHES or now - d.stat().st_mtime > LOG_RETENTION_DAYS * 86400:
                shutil.rmtree(d, ignore_errors=True)
                gone += 1
    return gone


class _Sink:
    """Where a child's stderr goes now: one match's log file, at most ``cap`` bytes of it (then a
    truncation mark); between two matches of a reused process, nowhere."""

    def __init__(self, file: IO[bytes] | None, cap: int) -> None:
        self.file, self.cap, self.kept, self.dropped = file, cap, 0, 0

    def write(self, chunk: bytes) -> None:
        if self.file is None:
            return
        part = chunk[: max(0, self.cap - self.kept)]
        if part:
            self.file.write(part)
            self.file.flush()
        self.kept += len(part)
        self.dropped += len(chunk) - len(part)

    def switch(self, file: IO[bytes] | None) -> None:
        """Close the current file (with its truncation mark) and write to ``file`` from now on."""
        if self.file is not None:
            if self.dropped:
                self.file.write(f"\n[bummerl: log truncated at {self.cap} bytes; {self.dropped} more bytes "
                                f"dropped]\n".encode())
            self.file.close()
        self.file, self.kept, self.dropped = file, 0, 0


async def _copy_capped(src: asyncio.StreamReader, sink: _Sink) -> None:
    """Copy a child's stderr into ``sink`` until the pipe closes; what the sink does not keep is
    read and dropped, so that the child never blocks on a full pipe."""
    while chunk := await src.read(65536):
        sink.write(chunk)


PROCESS_MODELS = ("match", "reuse")
"""``match``: one process per match, ended after ``over`` (the default); ``reuse``: a process that
finished a match cleanly waits for the next one (another ``hello``), so an engine with a long
start-up (loading tables, a model) starts once per concurrent match slot, not once per match
(``bummerl bot run --process-model reuse``, ``BUMMERL_BOT_PROCESS_MODEL``)."""

_IDLE: dict[tuple[int, tuple[str, ...]], list[tuple[asyncio.subprocess.Process, asyncio.Task[None], _Sink]]] = {}
"""Processes of the ``reuse`` model between matches, by event loop and command line."""


def _idle_key(argv: Sequence[str]) -> tuple[int, tuple[str, ...]]:
    return id(asyncio.get_running_loop()), tuple(argv)


async def _end(proc: asyncio.subprocess.Process) -> None:
    """End a bot process: close its stdin, wait 5 s, then kill it; close the pipes now, not at
    garbage collection."""
    if proc.stdin is not None:
        with contextlib.suppress(OSError):
            proc.stdin.close()
    try:
        await asyncio.wait_for(proc.wait(), 5)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


async def close_idle() -> int:
    """End the ``reuse`` model's processes that wait for a match on this event loop (stdin closed,
    killed after 5 s); returns how many. Call it when no more match will come (the bot runner and
    the harness do)."""
    loop = id(asyncio.get_running_loop())
    procs = [entry for key in [k for k in _IDLE if k[0] == loop] for entry in _IDLE.pop(key)]
    for proc, copier, _sink in procs:
        await _end(proc)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(copier, 5)
    return len(procs)


INTERPRETERS = frozenset({"sh", "bash", "dash", "zsh", "python", "python3", "node", "deno", "ruby", "perl", "php",
                          "java", "lua", "Rscript", "julia", "bun", "env"})
"""Commands named after the script they run (``exec:sh random.sh`` is ``exec:random.sh``)."""


def program_name(argv: Sequence[str]) -> str:
    """The name a bot's command line goes by: the program's file name, or for an interpreter
    (:data:`INTERPRETERS`) the first argument that is not an option (its script)."""
    name = Path(argv[0]).name
    if re.sub(r"[\d.]+$", "", name) in INTERPRETERS:  # python3.11 is python
        for a in argv[1:]:
            if a in ("-c", "-e", "--eval"):  # an inline program: no script to be named after
                break
            if not a.startswith("-"):
                return Path(a).name
    return name


class StdioBot(Bot):
    """A :class:`Bot` whose decisions come from a child process (``argv`` or a shell-like string).

    ``decision_timeout_s``: limit per decision without a server clock, seconds. ``grace_s``:
    added to the server clock's move time left. ``log_path``: file for the child's stderr
    (default: a new file in :func:`default_log_dir`). The process starts at the first decision.
    Raises ValueError for an empty command and BotFault ``crash`` if it cannot be started.
    """

    name = "stdio"

    def __init__(self, argv: Sequence[str] | str, seed: int | None = None, decision_timeout_s: float = 60.0,
                 grace_s: float = 0.5, log_path: str | os.PathLike[str] | None = None,
                 process_model: str = "match") -> None:
        super().__init__(seed)
        self.argv = shlex.split(argv) if isinstance(argv, str) else list(argv)
        if not self.argv:
            raise ValueError("exec: needs a command, e.g. exec:./my_bot")
        self.name = f"exec:{program_name(self.argv)}"
        self.decision_timeout_s = decision_timeout_s
        self.grace_s = grace_s
        self.log_path = Path(log_path) if log_path else None
        if process_model not in PROCESS_MODELS:
            raise ValueError(f"process model must be one of {', '.join(PROCESS_MODELS)}, got {process_model!r}")
        self.process_model = process_model
        self.proc: asyncio.subprocess.Process | None = None
        self._sink: _Sink | None = None
        self._copier: asyncio.Task[None] | None = None
        self._faulted = False

    def fault_note(self) -> str:
        """`` (its stderr is in PATH)`` once the process has a log file, else ""."""
        return f" (its stderr is in {self.log_path})" if self.log_path else ""

    async def _start(self, info: InfoSet) -> asyncio.subprocess.Process:
        global _pruned_at
        if self.log_path is None:
            root = default_log_dir()
            folder = match_log_dir(str(info.raw.get("match_id", "")), root)
            folder.mkdir(parents=True, exist_ok=True)
            self.log_path = folder / f"seat{info.seat}.log"
            if time.monotonic() - _pruned_at > 3600 or not _pruned_at:  # at most hourly per process
                _pruned_at = time.monotonic()
                await asyncio.to_thread(prune_logs, root)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")  # noqa: SIM115 - closed through the sink
        idle = _IDLE.get(_idle_key(self.argv), []) if self.process_model == "reuse" else []
        while idle:  # a process of the reuse model that finished its last match cleanly
            proc, copier, sink = idle.pop()
            if proc.returncode is None:
                sink.switch(log)
                self.proc, self._copier, self._sink = proc, copier, sink
                break
        else:
            try:
                proc = await asyncio.create_subprocess_exec(
                    *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE, limit=4 * 1024 * 1024,
                )
            except OSError as e:
                log.close()
                raise BotFault("crash", f"cannot start {self.argv[0]!r}: {e.strerror or e}") from None
            assert proc.stderr is not None
            self._sink = _Sink(log, LOG_CAP_BYTES)
            self._copier = asyncio.create_task(_copy_capped(proc.stderr, self._sink))
            self.proc = proc
        await self._send({"type": "hello", "protocol": PROTOCOL_VERSION, "match_id": info.raw.get("match_id", ""),
                          "seat": info.seat, "variant": info.variant})
        return proc

    async def _send(self, msg: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
            await self.proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            code = await self._exit_code()
            what = "closed its stdin" if code is None else f"exited (code {code})"  # still running / gone
            raise BotFault("crash", f"{self.name} {what} before reading the next message{self.fault_note()}") from None

    async def _exit_code(self) -> int | None:
        if self.proc is None:
            return None
        with contextlib.suppress(TimeoutError):
            return await asyncio.wait_for(self.proc.wait(), 1.0)
        return None

    def time_limit_s(self, info: InfoSet) -> float:
        """Seconds this decision may take: the server clock's move time left, plus the seat's
        overage bank left (``bank_ms``), + ``grace_s``; ``decision_timeout_s`` without a clock."""
        ms = info.move_time_ms()
        return self.decision_timeout_s if ms is None else (ms + info.bank_ms()) / 1000 + self.grace_s

    async def achoose(self, info: InfoSet) -> int | str:
        try:
            return await self._choose(info)
        except BotFault:
            self._faulted = True  # never reused
            raise

    async def _choose(self, info: InfoSet) -> int | str:
        proc = self.proc or await self._start(info)
        limit = self.time_limit_s(info)
        await self._send({"type": "decide", "information_set": info.raw, "time_limit_ms": int(limit * 1000)})
        assert proc.stdout is not None
        try:
            line = await asyncio.wait_for(proc.stdout.readline(), limit)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()  # a bot that missed its deadline is not trusted with another decision
            raise BotFault("timeout", f"{self.name} gave no answer within {limit:.1f} s; a bot must print one line "
                                      f"per decision and flush stdout{self.fault_note()}") from None
        except ValueError:  # a line longer than the stream limit
            raise BotFault("unparsable", f"{self.name} printed a line longer than 4 MiB{self.fault_note()}") from None
        if not line:
            raise BotFault("crash", f"{self.name} exited (code {await self._exit_code()}) instead of answering"
                                    f"{self.fault_note()}")
        try:
            text = line.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise BotFault("unparsable", f"{self.name} printed a line that is not UTF-8{self.fault_note()}") from None
        if not text:
            raise BotFault("unparsable", f"{self.name} printed an empty line; a bot must print one action per "
                                          f"decision{self.fault_note()}")
        return int(text) if text.lstrip("-").isdigit() else text

    async def aclose(self, final: Mapping[str, Any] | None = None) -> None:
        """Send ``over`` (if the match ended); then, in the ``reuse`` model after a clean match,
        keep the process for the next match; otherwise close stdin, wait 5 s for the child, then
        kill it."""
        proc, self.proc = self.proc, None
        if proc is not None:
            sent = False
            if final is not None and proc.returncode is None:
                with contextlib.suppress(BotFault, OSError):
                    self.proc = proc
                    await self._send({"type": "over", "information_set": final})
                    sent = True
                self.proc = None
            if (self.process_model == "reuse" and sent and not self._faulted and proc.returncode is None
                    and self._copier is not None and self._sink is not None):
                self._sink.switch(None)  # between matches its stderr goes nowhere
                _IDLE.setdefault(_idle_key(self.argv), []).append((proc, self._copier, self._sink))
                self._copier = self._sink = None
                return
            await _end(proc)
        if self._copier is not None:  # the pipe closes with the child: the copy ends
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._copier, 5)
            self._copier = None
        if self._sink is not None:
            self._sink.switch(None)
            self._sink = None
