"""BotTestHarness and ``bummerl bot check`` (issue 21): a bot plays every variant offline against
bundled opponents; every protocol fault is reported with its variant, seat and version."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from bummerl.bots import make_bot
from bummerl.bots.harness import BotTestHarness
from bummerl_client.stdio import StdioBot, close_idle

FIRST_LEGAL = '''
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "decide":
        assert isinstance(msg["information_set"]["version"], str)  # proto3 JSON, as a server sends it
        print(msg["information_set"]["legal_actions"][0]["id"], flush=True)
'''

NONSENSE = '''
import json, sys
for line in sys.stdin:
    if json.loads(line)["type"] == "decide":
        print("play ZZ", flush=True)
'''


def test_a_bundled_bot_complies_in_every_variant() -> None:
    report = BotTestHarness(lambda: make_bot("greedy", seed=2)).run()
    assert report.ok, report.problems
    assert report.matches == 11 and report.decisions > 11


def test_an_exec_bot_that_answers_well_complies(tmp_path: Path) -> None:
    script = tmp_path / "first.py"
    script.write_text(FIRST_LEGAL)
    report = BotTestHarness(lambda: StdioBot([sys.executable, str(script)]),
                            variants=["schnapsen-at", "talonschnapsen"], matches=2).run()
    assert report.ok, report.problems
    assert report.matches == 4


def test_faults_are_reported_with_variant_seat_and_version(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(NONSENSE)
    report = BotTestHarness(lambda: StdioBot([sys.executable, str(bad)]), variants=["santase"]).run()
    (p,) = report.problems
    assert (p.variant, p.kind, p.seat) == ("santase", "unparsable", 0) and "ZZ" in p.detail and p.version >= 1
    crash = BotTestHarness(lambda: StdioBot(["sh", "-c", "exit 3"]), variants=["schnapsen-at"]).run()
    assert [x.kind for x in crash.problems] == ["crash"]


def test_bot_check_command(tmp_path: Path, capsys: Any) -> None:
    from bummerl_cli.main import main

    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(FIRST_LEGAL)
    bad.write_text(NONSENSE)
    assert main(["bot", "check", "--bot", f"exec:{sys.executable} {good}", "--variant", "schnapsen-at"]) == 0
    out = capsys.readouterr().out
    assert "the bot complies: 1 match played to the end, " in out and " decisions; slowest decision " in out
    assert main(["bot", "check", "--bot", f"exec:{sys.executable} {bad}", "--variant", "schnapsen-at"]) == 1
    out = capsys.readouterr().out
    # the fault names the answer and where the bot's stderr went; the count is in words, not "fault(s)"
    assert "unparsable: 'play ZZ' is not an action" in out and "(its stderr is in " in out and "seat0.log)" in out
    assert "1 fault: 0 matches played to the end, 0 decisions;" in out


PID_PER_MATCH = '''
import json, os, sys
log = open(sys.argv[1], "a")
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        log.write(f"{os.getpid()} {msg['match_id']}\\n")
        log.flush()
    elif msg["type"] == "decide":
        print(msg["information_set"]["legal_actions"][0]["id"], flush=True)
'''


def test_the_process_model_is_selectable(tmp_path: Path) -> None:
    """``match``: a new process per match; ``reuse``: a process that ended a match cleanly gets the
    next one (another hello), so it starts once (issue 21)."""
    script, log = tmp_path / "pid.py", tmp_path / "hellos.txt"
    script.write_text(PID_PER_MATCH)
    pids = {}
    for model in ("match", "reuse"):
        log.write_text("")
        report = BotTestHarness(lambda m=model: StdioBot([sys.executable, str(script), str(log)], process_model=m),
                                variants=["santase"], matches=3, finish=close_idle).run()
        assert report.ok and report.matches == 3
        hellos = [line.split() for line in log.read_text().splitlines()]
        assert len(hellos) == 3 and len({m for _, m in hellos}) == 3  # one hello per match
        pids[model] = {p for p, _ in hellos}
    assert len(pids["match"]) == 3 and len(pids["reuse"]) == 1


def test_an_exec_bot_is_named_after_its_script_not_its_interpreter() -> None:
    """``exec:sh clients/examples/random.sh`` shows as ``exec:random.sh`` in match records and
    results (it showed as ``exec:sh``); an inline program keeps the interpreter's name."""
    from bummerl_client.stdio import StdioBot

    assert StdioBot("sh clients/examples/random.sh").name == "exec:random.sh"
    assert StdioBot(["python3.11", "-u", "bots/mine.py"]).name == "exec:mine.py"
    assert StdioBot("node --no-warnings clients/examples/random.mjs").name == "exec:random.mjs"
    assert StdioBot("./my_bot --fast").name == "exec:my_bot"
    assert StdioBot(["sh", "-c", "while read l; do echo 0; done"]).name == "exec:sh"
