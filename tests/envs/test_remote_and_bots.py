"""The env against a live server (``bummerl_client.envs.remote_env(variant, server, token, match_id, seat)``: a real ``bummerl
serve`` process on the session's Valkey, the other seat played over the network by a thread), and
learning agents as SDK bots (``bots.from_policy``, ``bots.from_openspiel``)."""

from __future__ import annotations

import random
import threading

import pytest

pytest.importorskip("pettingzoo", reason="needs the learning extra: pip install 'bummerl[learning]'")
pyspiel = pytest.importorskip("pyspiel", reason="needs the learning extra: pip install 'bummerl[learning]'")
import numpy as np  # noqa: E402
from e2e.e2e_servers import free_port, start_server  # noqa: E402

from bummerl.envs.common import returns_of  # noqa: E402
from bummerl.envs.pettingzoo import env  # noqa: E402
from bummerl.rules import apply, find_variant, information_set, legal_actions, new_match, parse_action  # noqa: E402
from bummerl_client import Client  # noqa: E402
from bummerl_client.bot import BotFault, InfoSet  # noqa: E402
from bummerl_client.bots import from_openspiel, from_policy, make_bot  # noqa: E402
from bummerl_client.envs import remote_env  # noqa: E402


@pytest.fixture(scope="module")
def server(redis_url: str):
    port = free_port()
    proc = start_server(redis_url, port)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        proc.kill()
        proc.wait()


def play_other_seat(target: str, match_id: str, seat: int, token: str, stop: threading.Event) -> None:
    """Uniform random play of ``seat`` over gRPC until the match is over."""
    rng = random.Random(seat)
    with Client(target) as c:
        while not stop.is_set():
            info = c.information_set(match_id, seat, token)
            if info["match"]["over"]:
                return
            if info["legal_actions"]:
                c.submit_action(match_id, seat, token, int(info["version"]), rng.choice(info["legal_actions"])["id"])
            else:
                stop.wait(0.01)


def test_remote_env_plays_a_seat_of_a_live_match(server: str) -> None:
    with Client(server) as c:
        match = c.create_match("schnapsen-at", {"match_target": "3"}, seats=["agent", "random"], seed=7)
    stop = threading.Event()
    other = threading.Thread(target=play_other_seat, args=(server, match.match_id, 1, match.tokens[1], stop))
    other.start()
    try:
        e = remote_env("schnapsen-at", server=server, token=match.tokens[0], match_id=match.match_id, seat=0)
        e.reset()
        assert e.agents == ["seat_0"]
        total, steps = 0.0, 0
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            total += reward
            if term or trunc:
                e.step(None)
                continue
            assert e.observation_space(agent).contains(obs)
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            assert legal == sorted(info["legal_actions"])
            e.step(legal[0])
            steps += 1
        assert steps > 0 and e.info["match"]["over"]
        assert total == returns_of(find_variant("schnapsen-at").configure({}), e.info["match"]["deals"])[0]
        with pytest.raises(RuntimeError, match="over"):
            e.reset()
        e.close()
    finally:
        stop.set()
        other.join(10)


def test_remote_env_follows_the_match_by_its_stream(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The env asks for its information set once (at reset) and then follows the match by the
    runner's Play call (no polling), also while the other seat thinks; an illegal action raises
    IllegalActionError, is not sent, and the env plays on; close() ends the env's thread."""
    from bummerl.rules import IllegalActionError
    from bummerl_client import AsyncClient

    asked: list[int] = []
    unary = AsyncClient.information_set

    async def counted(self, match_id: str, seat: int, token: str):
        asked.append(seat)
        return await unary(self, match_id, seat, token)

    monkeypatch.setattr(AsyncClient, "information_set", counted)
    with Client(server) as c:
        match = c.create_match("snaps-original66", {"match_target": "2"}, seats=["agent", "slow"], seed=11)
    stop = threading.Event()

    def slow_other() -> None:  # the other seat by the SDK runner too, thinking 20 ms a move
        import asyncio

        from bummerl_client import play_seat
        from bummerl_client.bot import Bot

        class Slow(Bot):
            async def achoose(self, info):
                await asyncio.sleep(0.02)
                return int(info.legal_actions[-1]["id"])

        async def run() -> None:
            async with AsyncClient(server) as ac:
                await play_seat(ac, match.match_id, 1, match.tokens[1], Slow(1))

        asyncio.run(run())

    other = threading.Thread(target=slow_other)
    other.start()
    e = remote_env("snaps-original66", server=server, token=match.tokens[0], match_id=match.match_id, seat=0,
            timeout_s=30)
    try:
        e.reset()
        steps = illegal = 0
        for _agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            if illegal == 0:
                bad = next(a for a in range(e.num_actions) if a not in legal)
                with pytest.raises(IllegalActionError):
                    e.step(bad)
                illegal += 1
            e.step(legal[0])
            steps += 1
        assert steps > 5 and e.info["match"]["over"] and illegal == 1
        assert asked.count(0) == 1  # reset's check of the variant; every update came on the stream
    finally:
        e.close()
        stop.set()
        other.join(30)
    assert not any(t.name == "bummerl-remote-env" and t.is_alive() for t in threading.enumerate())


def test_remote_env_checks_its_arguments(server: str) -> None:
    with pytest.raises(ValueError, match="token"):
        remote_env("schnapsen-at", server, "", "")
    with pytest.raises(ValueError, match="remote_env"):  # the engine's env does not reach a server
        env("schnapsen-at", server=server)
    with Client(server) as c:
        match = c.create_match("santase", seats=["a", "b"])
    e = remote_env("schnapsen-at", server=server, token=match.tokens[0], match_id=match.match_id, seat=0)
    with pytest.raises(ValueError, match="santase"):
        e.reset()
    e.close()


def play_match(variant: str, bots, seed: int):
    m = new_match(variant, {"match_target": 2} if variant != "snapszer-hu-2p" else {"set_target": 2}, seed=seed)
    while not m.over:
        m = apply(m, bots[m.to_act].choose(InfoSet(information_set(m, m.to_act))))
    return m


@pytest.mark.parametrize("variant", ["schnapsen-at", "santase", "snapszer-hu-2p"])
def test_from_openspiel_plays_through_the_sdk_bot_interface(variant: str) -> None:
    """OpenSpiel's ISMCTSBot (25 simulations) and the determinized MCTSBot, stepped on states
    rebuilt from the information set alone, play whole matches against greedy."""
    from open_spiel.python.algorithms import ismcts, mcts

    from bummerl.envs.openspiel import DeterminizedMCTSBot, load

    game = load(variant, mode="deal")
    rs = np.random.RandomState(3)
    ism = from_openspiel(ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 1.5, 25, random_state=rs))
    m = play_match(variant, [ism, make_bot("greedy", 1)], seed=5)
    assert m.over and max(m.game_points) >= 2
    pimc = from_openspiel(DeterminizedMCTSBot(game, worlds=2, simulations=8, seed=1))
    assert play_match(variant, [make_bot("random", 2), pimc], seed=6).over


def served(m, seat: int) -> dict:
    """The information set as the server sends it (protobuf, then the SDK's dict)."""
    from bummerl.api.codec import information_set_to_pb
    from bummerl_client.client import to_dict

    return to_dict(information_set_to_pb(information_set(m, seat)))


MULTI = ["snapszer-hu-3p-rotation", "stockschnapsen", "snapszer-hu-3p-sopron", "talonschnapsen", "snapszer-hu-4p",
         "bauernschnapsen"]


@pytest.mark.parametrize("variant", MULTI)
def test_from_openspiel_rebuilds_three_and_four_player_states(variant: str) -> None:
    """At positions of three- and four-player matches (greedy and random seats), the state
    ``from_openspiel`` builds from the served information set is one of the bot's game (every seat
    of the table) at the same decision: the seat to act, its legal actions, its hand, the cards
    in the trick and the trump are the real ones; a resampled state keeps them; a play-off deal of
    another variant is left to greedy, with a legal action."""
    from open_spiel.python.algorithms import ismcts, mcts

    from bummerl.envs.openspiel import load
    from bummerl.rules import MatchState

    game = load(variant, mode="deal")
    rs = np.random.RandomState(1)
    bot = from_openspiel(ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 1.5, 5, random_state=rs), seed=2)
    rng = random.Random(variant)
    rules = find_variant(variant).configure({})
    built = playoffs = 0
    while built < 25:
        m = MatchState(rules, rng.randrange(2**62), max_deals=2)
        greedy = make_bot("greedy", 1)
        while not m.over and built < 25:
            seat = m.to_act
            raw = served(m, seat)
            if len(raw["legal_actions"]) > 1 and rng.random() < 0.4:
                if m.playoff is not None and getattr(m.rules.spec.plan, "playoff_variant", None):
                    a = bot.choose(InfoSet(raw))
                    assert a in m.legal_actions() or isinstance(a, str)
                    playoffs += 1
                else:
                    for s in (bot.state(raw), bot.state(raw).resample_from_infostate(seat, random.Random(built).random)):
                        g = s.get_game()  # the table's game (its options as served)
                        assert g.rules.spec.id == variant and g.num_players() == game.num_players()
                        assert s.current_player() == seat
                        assert s.legal_actions() == sorted(m.legal_actions())
                        mine, real = s.info(seat)["deal"], information_set(m, seat)["deal"]
                        for k in ("hand", "current_trick", "trump_suit", "hand_sizes", "to_act", "seats"):
                            assert mine.get(k) == real.get(k), (variant, k)
                    built += 1
            a = greedy.choose(InfoSet(raw)) if rng.random() < 0.5 else rng.choice(m.legal_actions())
            m.apply(a if isinstance(a, int) else next(x["id"] for x in raw["legal_actions"] if x["kind"] == a))
    assert bot.decisions_by_fallback == playoffs
    if variant == "talonschnapsen":
        assert playoffs >= 1


@pytest.mark.parametrize("variant", ["snapszer-hu-3p-sopron", "snapszer-hu-4p"])
def test_from_openspiel_plays_three_and_four_player_deals(variant: str) -> None:
    """OpenSpiel's ISMCTSBot and the determinized MCTSBot, as SDK bots, play whole deals of a
    three- and a four-player contract game against greedy through the Bot interface."""
    from open_spiel.python.algorithms import ismcts, mcts

    from bummerl.envs.openspiel import DeterminizedMCTSBot, load

    game = load(variant, mode="deal")
    rs = np.random.RandomState(4)
    ism = from_openspiel(ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 1.5, 20, random_state=rs), seed=1)
    pimc = from_openspiel(DeterminizedMCTSBot(game, worlds=2, simulations=8, seed=1), seed=2)
    n = game.num_players()
    m = new_match(variant, seed=8)
    bots = [ism, pimc] + [make_bot("greedy", s) for s in range(2, n)]
    asked = [0, 0]
    while len(m.results) < 2 and not m.over:
        seat = m.to_act
        a = bots[seat].choose(InfoSet(served(m, seat)))
        if seat < 2:
            asked[seat] += 1
            assert a in legal_actions(m)
        m = apply(m, a if isinstance(a, int) else parse_action(a))
    assert min(asked) >= 3 and len(m.results) >= 1


def test_from_policy_sees_the_env_observation_and_must_choose_legally() -> None:
    seen = []

    def first_legal(obs):
        seen.append(obs["observation"].shape)
        return int(np.flatnonzero(obs["action_mask"])[0])

    m = play_match("bauernschnapsen", [from_policy(first_legal), make_bot("greedy", 1)] * 2, seed=3)
    assert m.over and len(set(seen)) == 1
    bad = from_policy(lambda obs: int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    m = new_match("schnapsen-at", seed=1)
    with pytest.raises(BotFault, match="illegal"):
        bad.choose(InfoSet(information_set(m, m.to_act)))


async def test_policy_and_openspiel_bots_play_on_the_server(server: str) -> None:
    """A policy and an OpenSpiel bot, as SDK bots, play a whole match over gRPC (``play_match``:
    the server's information sets, streamed, answered by the bots)."""
    from open_spiel.python.algorithms import ismcts, mcts

    from bummerl.envs.openspiel import load
    from bummerl_client import AsyncClient, play_match

    game = load("schnapsen-at", mode="deal")
    rs = np.random.RandomState(2)
    bots = [from_policy(lambda obs: int(np.flatnonzero(obs["action_mask"])[-1])),
            from_openspiel(ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 1.5, 10, random_state=rs))]
    async with AsyncClient(server) as client:
        record = await play_match(client, "schnapsen-at", bots, options={"match_target": "2"}, seed=3)
    assert record["match_result"]["reason"] == "target_reached"
