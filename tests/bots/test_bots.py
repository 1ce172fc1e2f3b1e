"""The bundled bots play every variant with only legal actions, and ``greedy`` beats ``random``
clearly. Bots see the information set exactly as the API serves it (engine dict -> protobuf ->
JSON dict), so these tests run without a server."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bummerl.api.codec import information_set_to_pb
from bummerl.bots import make_bot
from bummerl.rules import MatchState, apply, list_variants, new_match
from bummerl.rules import information_set as engine_infoset
from bummerl_client import InfoSet
from bummerl_client.client import to_dict


def served(m: MatchState, seat: int) -> InfoSet:
    return InfoSet(to_dict(information_set_to_pb(engine_infoset(m, seat))))


def play(variant: str, names: tuple[str, ...], seed: int, options: dict[str, object] | None = None) -> MatchState:
    m = new_match(variant, options, seed=seed)
    names = tuple(names[i % len(names)] for i in range(m.num_seats))
    bots = [make_bot(n, seed * 2 + i) for i, n in enumerate(names)]
    while not m.over:
        s = m.to_act
        m = apply(m, bots[s].choose(served(m, s)))  # apply() rejects any illegal choice
    return m


@pytest.mark.parametrize("variant", [v.id for v in list_variants()])
def test_bundled_bots_finish_a_match_of_every_variant(variant: str) -> None:
    m = play(variant, ("greedy", "random"), seed=1)
    assert m.over and sorted(m.placements)[0] == 1
    assert m.winner in range(-1, m.num_seats)


@pytest.mark.parametrize("variant", ["bauernschnapsen", "snapszer-hu-4p"])
def test_greedy_team_beats_random_team(variant: str) -> None:
    """Issue 10: greedy bids, lays away and plays sensibly in the team games: a greedy pair
    (seats 0 and 2) beats a random pair in most matches."""
    n = 12
    wins = sum(play(variant, ("greedy", "random"), seed=seed, options={"match_target": 12}).winner == 0
               for seed in range(n))
    assert wins >= 0.7 * n, f"greedy won {wins} of {n}"


def test_greedy_names_its_longest_suit_and_calls_the_base_game() -> None:
    """Trump naming picks the longest suit; the hívó calls "mehet" rather than passing."""
    m = new_match("snapszer-hu-3p-sopron", {"trump_always_hearts": False}, seed=4)
    bot = make_bot("greedy", 1)
    info = served(m, m.to_act)
    hand = info.hand
    choice = bot.choose(info)
    suit = apply(m, choice).deal.trump
    from bummerl.rules.base.cards import SUITS

    counts = {x: sum(c[1] == x for c in hand) for x in SUITS}
    assert counts[SUITS[suit]] == max(counts.values())


def test_greedy_beats_random_clearly() -> None:
    wins = 0
    n = 40
    for seed in range(n):
        names = ("greedy", "random") if seed % 2 == 0 else ("random", "greedy")
        m = play("schnapsen-at", names, seed)
        wins += names[m.winner] == "greedy"
    assert wins >= 0.8 * n, f"greedy won only {wins} of {n}"


@pytest.mark.parametrize("variant", [v.id for v in list_variants()])
@pytest.mark.parametrize("name", ["greedy", "strong:samples=4,seed=3"])
def test_bots_decide_alike_on_the_engine_dict_and_the_served_json(variant: str, name: str) -> None:
    """One shape: a bot given the engine's own information set (as in-process benchmarks give it)
    makes the very decisions it makes on the JSON the API serves, where int64 fields are strings."""
    m = new_match(variant, seed=2)
    rng = random.Random(2)
    for _ in range(40):
        if m.over:
            break
        s = m.to_act
        assert make_bot(name, 9).choose(InfoSet(engine_infoset(m, s))) == make_bot(name, 9).choose(served(m, s))
        m = apply(m, rng.choice(m.legal_actions()))


def test_greedy_declares_only_with_66() -> None:
    rng = random.Random(3)
    for seed in range(10):
        m = play("snaps-original66", ("greedy", "greedy"), seed + rng.randrange(1000))
        assert all(r.reason != "false_declaration" for r in m.results)


def test_seat_names_tell_seats_with_the_same_bot_apart() -> None:
    from bummerl_client.runner import seat_names

    assert seat_names(["strong", "greedy"]) == ["strong", "greedy"]
    assert seat_names(["strong", "greedy", "strong", "x" * 64, "x" * 64]) == [
        "strong#0", "greedy", "strong#2", "x" * 60 + "#3", "x" * 60 + "#4"]


PY_BOT = '''
from bummerl_client import Bot

class Highest(Bot):
    def choose(self, info):
        return max(info.legal_actions, key=lambda a: a["id"])["id"]

class Named(Highest):
    name = "tall"

class NoSeed(Bot):
    def __init__(self):
        super().__init__(None)
    def choose(self, info):
        return info.legal_actions[0]["id"]

NOT_A_BOT = 3
'''


def test_a_python_bot_class_is_a_bot_spec(tmp_path: Path) -> None:
    """``py:FILE.py:CLASS`` puts a Bot subclass into --bots of play, ladder run and bot run, as
    ``exec:`` does an executable (a walkthrough had to read botrunner.py to run an SDK bot)."""
    from bummerl.bots.harness import BotTestHarness
    from bummerl_client.__main__ import bot_from_spec

    path = tmp_path / "mybots.py"
    path.write_text(PY_BOT)
    bot = bot_from_spec(f"py:{path}:Highest", seed=3)
    assert bot.name == "py:Highest" and type(bot).__name__ == "Highest"
    assert bot_from_spec(f"py:{path}:Named").name == "tall" and bot_from_spec(f"py:{path}:NoSeed").name == "py:NoSeed"
    report = BotTestHarness(lambda: bot_from_spec(f"py:{path}:Highest"), variants=["schnapsen-at", "santase"]).run()
    assert report.ok and report.matches == 2, report.problems
    for spec, message in ((f"py:{tmp_path}/none.py:Highest", "py: no such file: "),
                          (f"py:{path}:Missing", "has no Bot subclass named 'Missing'"),
                          (f"py:{path}:NOT_A_BOT", "has no Bot subclass named 'NOT_A_BOT'"),
                          ("py:no_such_module_here:Bot", "py: cannot import no_such_module_here: ModuleNotFoundError"),
                          (f"py:{path}", "py: expected FILE.py:CLASS or MODULE:CLASS, got ")):
        with pytest.raises(ValueError, match=message):
            bot_from_spec(spec)
