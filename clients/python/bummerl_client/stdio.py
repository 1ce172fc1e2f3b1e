"""Bridge for bots written in any language: an executable that reads JSON lines on stdin and
answers one line per decision on stdout.

Protocol (one line each way, UTF-8, newline-terminated):

* server -> bot: ``{"type": "decide", "information_set": {...}}`` — the seat is to act; the
  information set is the JSON of the ``InformationSet`` message (legal actions included).
* bot -> server: the chosen action, either its id (``"12"``) or its text (``"play QH"``).
* server -> bot, at the end: ``{"type": "over", "information_set": {...}}``; then stdin closes.

Anything the bot prints on stderr is passed through. A bot that exits or answers an empty line
makes :class:`StdioBot` raise ``RuntimeError``.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Sequence
from typing import Any

from .bot import Bot, InfoSet


class StdioBot(Bot):
    """A :class:`Bot` whose decisions come from a child process (``argv`` or a shell-like string)."""

    name = "stdio"

    def __init__(self, argv: Sequence[str] | str, seed: int | None = None) -> None:
        super().__init__(seed)
        self.argv = shlex.split(argv) if isinstance(argv, str) else list(argv)
        self.name = f"exec:{self.argv[0]}"
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def _send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg, separators=(",", ":")) + "\n")
        self.proc.stdin.flush()

    def choose(self, info: InfoSet) -> int | str:
        self._send({"type": "decide", "information_set": info.raw})
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        if not line:
            raise RuntimeError(f"bot {self.argv[0]!r} gave no answer (exit code {self.proc.poll()})")
        return int(line) if line.lstrip("-").isdigit() else line

    def close(self, final: dict[str, Any] | None = None) -> None:
        """Send the final information set (if any), close stdin and wait for the child (5 s)."""
        try:
            if final is not None and self.proc.poll() is None:
                self._send({"type": "over", "information_set": final})
            if self.proc.stdin:
                self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
