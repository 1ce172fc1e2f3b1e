"""Every flag of every ``bummerl`` command says what it does (issue 21: a newcomer reads --help)."""

from __future__ import annotations

import argparse

from bummerl_cli.main import build_parser


def _walk(p: argparse.ArgumentParser, path: str) -> list[tuple[str, argparse.Action]]:
    out = []
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sub in a.choices.items():
                out += _walk(sub, f"{path} {name}")
        elif not isinstance(a, argparse._HelpAction):
            out.append((path, a))
    return out


def test_every_flag_has_help() -> None:
    missing = [f"{path} {'/'.join(a.option_strings) or a.dest}" for path, a in _walk(build_parser(), "bummerl")
               if not (a.help or "").strip()]
    assert missing == []


def test_the_help_no_longer_says_two_bots_only() -> None:
    text = build_parser().format_help() + "".join(
        sub.format_help() for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)
        for sub in a.choices.values())
    assert "between two bots" not in text and "two of:" not in text
