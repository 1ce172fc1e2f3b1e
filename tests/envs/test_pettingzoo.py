"""The PettingZoo AEC env and the Gymnasium single-seat wrapper (service/bummerl/envs/): PettingZoo's
own ``api_test`` and ``seed_test`` on every variant, rewards that add up to the game points of
the match (§13.1 scoring), and the wrapper's bundled-bot opponents."""

from __future__ import annotations

import functools
import random

import pytest

pytest.importorskip("pettingzoo", reason="needs the learning extra: pip install 'bummerl[learning]'")
pytest.importorskip("gymnasium", reason="needs the learning extra: pip install 'bummerl[learning]'")
import numpy as np  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from bummerl.envs.common import returns_of  # noqa: E402
from bummerl.envs.gym import SingleSeat  # noqa: E402
from bummerl.envs.pettingzoo import env  # noqa: E402
from bummerl.rules import IllegalActionError, InvalidOptionError, list_variants  # noqa: E402

VARIANTS = [s.id for s in list_variants()]
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # api_test's advice on Dict spaces


@pytest.mark.parametrize("variant", VARIANTS)
def test_api_test_and_seed_test(variant: str) -> None:
    api_test(env(variant, mode="deal"), num_cycles=300)
    api_test(env(variant, perfect_recall=True), num_cycles=300)
    seed_test(functools.partial(env, variant), num_cycles=200)


def play(e, rng: random.Random) -> dict[str, float]:
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        assert legal == sorted(info["legal_actions"]) and len(info["text"]) == len(legal)
        e.step(rng.choice(legal))
    return total


@pytest.mark.parametrize("rewards", ["deal", "match"])
@pytest.mark.parametrize("variant", ["schnapsen-at", "snapszer-hu-2p", "stockschnapsen", "snapszer-hu-4p"])
def test_rewards_add_up_to_the_match_game_points(variant: str, rewards: str) -> None:
    """Per deal or at the end, a seat's rewards add up to its game points of the match (§13.1)."""
    opts = {"match_target": 3} if variant != "snapszer-hu-4p" else {"match_target": 1000, "max_deals": 3}
    e = env(variant, rewards=rewards, **opts)
    e.reset(seed=11)
    paid = []
    orig = e._accumulate_rewards

    def spy() -> None:
        paid.append(any(e.rewards.values()))
        orig()

    e._accumulate_rewards = spy
    total = play(e, random.Random(2))
    m = e.match
    assert m.over and len(m.results) >= 2
    want = returns_of(e.rules, m.results)
    assert [total[a] for a in e.possible_agents] == want and any(want)
    assert sum(paid) == (1 if rewards == "match" else sum(any(returns_of(e.rules, [r])) for r in m.results))


def test_deal_mode_ends_after_one_deal_and_render_shows_no_hidden_card() -> None:
    e = env("santase", mode="deal", render_mode="ansi")
    e.reset(seed=3)
    text = e.render()
    me = e.match.to_act
    hand = " ".join(sorted(e.render().split("| hand ")[1].split(" | ")[0].split()))
    from bummerl.rules import information_set

    assert hand == " ".join(sorted(information_set(e.match, me)["deal"]["hand"])) and text.startswith(f"p{me} ")
    play(e, random.Random(1))
    assert len(e.match.results) >= 1 and not e.agents


def test_bad_options_and_actions() -> None:
    with pytest.raises(InvalidOptionError, match="match_target"):
        env("schnapsen-at", match_target=0)
    with pytest.raises(ValueError, match="mode"):
        env("schnapsen-at", mode="season")
    with pytest.raises(ValueError, match="rewards"):
        env("schnapsen-at", rewards="trick")
    e = env("schnapsen-at")
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        e.step(illegal)


# --------------------------------------------------------------------------- Gymnasium
@pytest.mark.parametrize("variant,opponents", [
    ("schnapsen-at", "greedy"),
    ("snaps-original66", "strong:samples=2,seed=1"),
    ("stockschnapsen", ["greedy", "random"]),
    ("bauernschnapsen", "greedy"),
])
def test_single_seat_plays_against_bundled_bots(variant: str, opponents) -> None:
    """Whole deals against the bundled bots: every reset leaves the agent to act (a deal the seat
    sits out is skipped), observations are in the space, rewards are the agent's game points."""
    g = SingleSeat(variant, opponents=opponents, mode="deal")
    rng = random.Random(0)
    for ep in range(6):
        obs, info = g.reset(seed=ep)
        assert g.observation_space.contains(obs) and obs["action_mask"].any() and info["legal_actions"]
        total, done = 0.0, False
        while not done:
            obs, reward, done, trunc, info = g.step(rng.choice(info["legal_actions"]))
            total += reward
        assert total == returns_of(g.aec.rules, g.aec.match.results[:1])[g.seat]
    with pytest.raises(RuntimeError, match="reset"):
        g.step(0)


def test_single_seat_is_reproducible_and_checks_its_arguments() -> None:
    def episode(seed: int) -> list[float]:
        g = SingleSeat("santase", opponents="greedy", seat=1, match_target=2)
        obs, info = g.reset(seed=seed)
        out, done = [], False
        while not done:
            obs, r, done, _, info = g.step(min(info["legal_actions"]))
            out.append(r)
        return out

    assert episode(5) == episode(5)
    with pytest.raises(ValueError, match="opponents"):
        SingleSeat("bauernschnapsen", opponents=["greedy"])
    with pytest.raises(ValueError, match="unknown bot"):
        SingleSeat("schnapsen-at", opponents="grandmaster")
    with pytest.raises(ValueError, match="seat"):
        SingleSeat("schnapsen-at", seat=2)


def test_reinforce_example_runs() -> None:
    """clients/python/examples/reinforce_linear.py trains and evaluates (a few seconds here; the
    README quotes a run of minutes)."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).parents[2] / "clients/python/examples/reinforce_linear.py"
    out = subprocess.run([sys.executable, str(script), "--minutes", "0.05", "--eval", "20"], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    assert "trained linear policy" in out and "uniform random" in out
