"""Ctrl-C on ``bummerl serve`` with connected bots is as clean as SIGTERM (issue 38): the
terminal sends SIGINT to the whole foreground process group, the embedded Valkey child too, which
used to die under the draining server (a KeyboardInterrupt traceback and a ConnectionError
warning per bot stream and feed). SIGINT goes to the group here, as a terminal sends it; SIGTERM
to the server alone, as ``kill`` does."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
from e2e_servers import free_port

CLI = [sys.executable, "-m", "bummerl_cli"]


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("BUMMERL_")}


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_stops_serve_with_connected_bots_as_cleanly_as_sigterm(sig: signal.Signals) -> None:
    port = free_port()
    env = {**_env(), "BUMMERL_SERVER": f"127.0.0.1:{port}"}
    serve = subprocess.Popen([*CLI, "serve", "--ephemeral", "--port", str(port), "--http-port", "0",
                              "--metrics-port", "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)  # its own group, as a shell's foreground job
    bots: list[subprocess.Popen[str]] = []
    try:
        assert serve.stdout is not None
        for line in serve.stdout:
            if "gRPC listening" in line:
                break
        tag = uuid.uuid4().hex[:6]
        for name in (f"a{tag}", f"b{tag}"):
            got = subprocess.run([*CLI, "bot", "register", name, "--json"], env=env, capture_output=True, text=True,
                                 timeout=60, check=True)
            bots.append(subprocess.Popen([*CLI, "bot", "run", "--bot", "random", "--token",
                                          json.loads(got.stdout)["bot_token"]], env=env, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, text=True))
        subprocess.run([*CLI, "ladder", "create", "--bots", f"a{tag},b{tag}", "--deals", "200", "--concurrency", "8"],
                       env=env, capture_output=True, text=True, timeout=60, check=True)
        time.sleep(2)  # games running, both bots streaming
        assert serve.poll() is None
        if sig == signal.SIGINT:
            os.killpg(serve.pid, sig)  # Ctrl-C: the terminal signals the foreground job's whole group
        else:
            serve.send_signal(sig)  # kill / a service manager: the server process alone
        out, err = serve.communicate(timeout=60)
    finally:
        for p in bots:
            p.terminate()
            p.wait(10)
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait(10)
    assert serve.returncode == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "ConnectionError" not in err and "unavailable" not in err, err
    assert "bummerl: shutting down" in out
