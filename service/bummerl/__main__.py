"""``bummerl`` command line: ``serve``, ``play``, ``bench``.

    bummerl serve [--port 50051] [--http-port 8080] [--metrics-port 9095] [--redis-url URL]
                  [--data-dir DIR] [--demo greedy,random] [--variant schnapsen-at]
    bummerl play --variant schnapsen-at --bots greedy,random [--server HOST:PORT] [--seed N]
                 [--option name=value ...] [--tc 5+0.1] [--timeout-policy forfeit-match] [--json]
    bummerl bench engine --variant schnapsen-at --seconds 10 [--json]
    bummerl bench service --matches 64 --seconds 10 [--json]
    bummerl bench timeouts --matches 200 [--json]   (deadline to enforced timeout, ms)
    bummerl bench ladder --matches 100 [--json]     (duplicate pairs of instant bots: matches/min)
    bummerl bench strong --pairs 200 [--variant all] [--bot strong:samples=32,seed=1] [--jobs 2] [--json]
                                                    (duplicate deal pairs strong vs greedy: Elo, 95% CI, ms)

Without ``--redis-url`` (or ``BUMMERL_REDIS_URL``) the server starts an embedded Valkey. The admin
token (``--admin-token`` or ``BUMMERL_ADMIN_TOKEN``) guards CreateMatch; ``bummerl play`` sends it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import sys
from typing import Any

from bummerl.config import Settings


def _options(pairs: list[str]) -> dict[str, str]:
    out = {}
    for p in pairs:
        name, sep, value = p.partition("=")
        if not sep:
            raise SystemExit(f"--option expects name=value, got {p!r}")
        out[name.strip()] = value.strip()
    return out


def _bot_specs(text: str, prog: str, count: int | None = None) -> list[str]:
    from bummerl_client.__main__ import bot_specs

    return bot_specs(text, prog, count)


def _print_deal(d: dict[str, Any]) -> None:
    res = d.get("result")
    if not res:
        return
    w = res["winner"]
    who = "drawn" if w < 0 else f"seat {w}"
    print(f"deal {d['deal_number'] + 1}: {who} +{max(res['game_points'])} ({res['reason']}), "
          f"deal points {res['deal_points']}, tricks {res['tricks_won']}")


async def _play(client: Any, variant: str, bot_names: list[str], seed: int | None, options: dict[str, str],
                as_json: bool, **create_kwargs: Any) -> dict[str, Any]:
    from bummerl_client import play_match
    from bummerl_client.__main__ import bot_from_spec

    bots = [bot_from_spec(b, None if seed is None else seed + i) for i, b in enumerate(bot_names)]
    rec = await play_match(client, variant, bots, options, seed, **create_kwargs)
    names = [s["name"] for s in rec["seats"]]
    for f in rec.get("faults", []):
        print(f"bummerl play: seat {f['seat']} ({names[f['seat']]}): bot {f['kind']}: {f['detail']}", file=sys.stderr)
    if not as_json:
        print(f"{rec['variant']}: {' vs '.join(f'{n} (seat {i})' for i, n in enumerate(names))}, match {rec['match_id']}")
        for d in rec["deals"]:
            _print_deal(d)
    res = rec["match_result"]
    summary = {
        "match_id": rec["match_id"], "variant": rec["variant"], "winner": res["winner"],
        "winner_bot": names[res["winner"]] if res["winner"] >= 0 else None,
        "game_points": res["game_points"], "sets_won": res["sets_won"], "deals": len(rec["deals"]),
        "actions": len(rec["actions"]), "reason": res["reason"], "match_schneider": res["match_schneider"],
        "faults": rec.get("faults", []),
    }
    if as_json:
        print(json.dumps(summary))
    else:
        print(f"result: seat {res['winner']} ({summary['winner_bot']}) wins, game points {res['game_points']}"
              f"{', sets ' + str(res['sets_won']) if max(res['sets_won']) > 1 else ''}"
              f"{' (Schneider)' if res['match_schneider'] else ''}; {summary['deals']} deals, {summary['actions']} actions")
    return summary


async def _serve(args: argparse.Namespace) -> int:
    from bummerl.app import Runtime
    from bummerl_client import AsyncClient

    settings = Settings.from_env(port=args.port, http_port=args.http_port, metrics_port=args.metrics_port,
                                 **({"redis_url": args.redis_url} if args.redis_url else {}),
                                 **({"data_dir": args.data_dir} if args.data_dir else {}),
                                 **({"admin_token": args.admin_token} if args.admin_token else {}),
                                 **({"idle_limit_s": args.idle_limit} if args.idle_limit is not None else {}),
                                 host=args.host)
    logging.basicConfig(level=settings.log_level_number, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    rt = Runtime(settings)
    await rt.start()
    print(f"bummerl: gRPC listening on {rt.target}", flush=True)
    if rt.http_port:
        print(f"bummerl: REST/JSON on http://{rt.target.rsplit(':', 1)[0]}:{rt.http_port}/v1/variants", flush=True)
    if rt.metrics_port:
        print(f"bummerl: metrics on http://{rt.target.rsplit(':', 1)[0]}:{rt.metrics_port}/metrics", flush=True)
    print(f"bummerl: redis {'embedded Valkey' if rt.embedded else 'at BUMMERL_REDIS_URL'}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    try:
        if args.demo:
            print(f"bummerl: demo Bummerl {args.variant}: {args.demo.replace(',', ' vs ')}", flush=True)
            async with AsyncClient(rt.target) as client:
                await _play(client, args.variant, _bot_specs(args.demo, "bummerl serve --demo", 2), args.seed, {}, False,
                            admin_token=settings.admin_token)
            print("bummerl: still serving; press Ctrl-C to stop", flush=True)
        await stop.wait()
    finally:
        print("bummerl: shutting down", flush=True)
        await rt.stop()
    return 0


async def _play_cmd(args: argparse.Namespace) -> int:
    from bummerl_client import AsyncClient

    bots = _bot_specs(args.bots, "bummerl play", 2)
    options = _options(args.option)
    create: dict[str, Any] = {"timeout_policy": args.timeout_policy}
    if args.tc:
        from bummerl.core.clocks import TimeControl, TimeControlError

        try:
            create["time_control"] = TimeControl.parse(args.tc).to_dict()
        except TimeControlError as e:
            raise SystemExit(f"bummerl play: --tc: {e}") from None
    if args.server:
        async with AsyncClient(args.server) as client:
            await client.wait_ready(10)
            admin = args.admin_token or Settings.from_env().admin_token
            await _play(client, args.variant, bots, args.seed, options, args.json, admin_token=admin, **create)
        return 0
    from bummerl.app import Runtime

    logging.basicConfig(level=logging.ERROR)
    settings = Settings.from_env(port=0, http_port=0, metrics_port=0, reaper_poll_ms=10)
    async with Runtime(settings) as rt:
        async with AsyncClient(rt.target) as client:
            await _play(client, args.variant, bots, args.seed, options, args.json, admin_token=settings.admin_token,
                        **create)
    return 0


def _bench(args: argparse.Namespace) -> int:
    from bummerl import bench

    if args.what != "strong":
        args.variant = args.variant or "schnapsen-at"
    if args.what == "engine":
        variants = [v.id for v in __import__("bummerl.rules", fromlist=["list_variants"]).list_variants()] if args.variant == "all" else [args.variant]
        for v in variants:
            r = bench.bench_engine(v, args.seconds, policy=args.policy)
            if args.json:
                print(json.dumps(r))
            else:
                print(f"engine {r['variant']}: {r['deals_per_s']:,.0f} deals/s, {r['actions_per_s']:,.0f} actions/s "
                      f"({r['actions_per_deal']} actions/deal, {r['seconds']} s, one core, policy {r['policy']})")
    elif args.what == "ladder":
        r = bench.bench_ladder(args.matches if args.matches != 64 else 100, variant=args.variant)
        if args.json:
            print(json.dumps(r))
        else:
            print(f"ladder: {r['matches_per_min']:,.0f} matches/min ({r['games']} single-deal games, concurrency "
                  f"{r['concurrency']}, {r['seconds']} s); service overhead {r['overhead_ms_per_move']} ms per move "
                  f"({r['ms_per_move_server']} ms through the server - {r['ms_per_move_engine']} ms in process)")
    elif args.what == "strong":
        from bummerl.rules import list_variants

        variants = [v.id for v in list_variants() if v.num_players == 2] if args.variant in (None, "all") else [args.variant]
        for v in variants:  # one line per variant as soon as it is done
            r = bench.bench_strong(args.pairs, v, args.bot, args.opponent, args.jobs, args.seed or 1,
                                   progress=None if args.json else (lambda s: print(s, file=sys.stderr, flush=True)))[0]
            if args.json:
                print(json.dumps(r), flush=True)
                continue

            def f(x: float | None, sign: str = "+") -> str:
                return "unbounded" if x is None else f"{x:{sign}.1f}"

            print(f"{r['variant']}: {r['bot']} vs {r['opponent']}: Elo {f(r['elo'])} +/- {f(r['elo_ci95'], '')} "
                  f"(95% CI {f(r['elo_low'])}..{f(r['elo_high'])}), LOS {r['los']:.3f}, score {r['score']:.3f}, "
                  f"{r['pairs']} duplicate pairs {r['pentanomial']}, game points {r['gp_margin_per_deal']:+.3f}/deal, "
                  f"mean decision {r['mean_decision_ms']:.1f} ms ({r['seconds']} s)", flush=True)
    elif args.what == "timeouts":
        r = bench.bench_timeouts(args.matches)
        if args.json:
            print(json.dumps(r))
        else:
            print(f"timeouts: deadline to enforced timeout p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, "
                  f"max {r['max_ms']} ms, min {r['min_ms']} ms ({r['matches']} matches, {r['move_ms']} ms per move)")
    else:
        r = bench.bench_service(args.matches, args.seconds, args.variant)
        if args.json:
            print(json.dumps(r))
        else:
            print(f"service: {r['actions_per_s']:,.0f} SubmitAction/s, p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms "
                  f"({r['matches']} concurrent matches, {r['submit_calls']} calls in {r['seconds']} s, errors {r['errors']})")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bummerl", description="Bummerl game server for the Schnapsen family")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="run the gRPC/REST server")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=50051)
    s.add_argument("--http-port", type=int, default=8080, help="REST gateway port (0 = off)")
    s.add_argument("--metrics-port", type=int, default=9095, help="Prometheus port (0 = off)")
    s.add_argument("--redis-url", default=None, help="Redis URL (default: BUMMERL_REDIS_URL or embedded Valkey)")
    s.add_argument("--data-dir", default=None, help="data dir of the embedded Valkey")
    s.add_argument("--demo", default=None, help="play one demo Bummerl with these bots first, e.g. greedy,random")
    s.add_argument("--variant", default="schnapsen-at")
    s.add_argument("--seed", type=int, default=None)
    s.add_argument("--admin-token", default=None,
                   help="secret needed to create matches (default: BUMMERL_ADMIN_TOKEN; none = anyone may)")
    s.add_argument("--idle-limit", type=float, default=None, metavar="SECONDS",
                   help="end matches without a time control after this long without an action (0 = never; "
                        "default: BUMMERL_IDLE_LIMIT_S or 86400)")
    pl = sub.add_parser("play", help="play one Bummerl between two bots through a server")
    pl.add_argument("--variant", default="schnapsen-at")
    pl.add_argument("--bots", default="greedy,random",
                    help="two of: random, greedy, strong[:budget_ms=50,samples=N,seed=S], exec:COMMAND")
    pl.add_argument("--server", default=None, help="HOST:PORT (default: start a local server)")
    pl.add_argument("--seed", type=int, default=None)
    pl.add_argument("--option", action="append", default=[], help="table option name=value (repeatable)")
    pl.add_argument("--json", action="store_true", help="last line: one JSON object with the result")
    pl.add_argument("--tc", default=None, metavar="TC",
                    help="time control in seconds: 5+0.1 (base+increment), move=2 (per move), 60+1,move=5")
    pl.add_argument("--timeout-policy", default="forfeit-match",
                    choices=["forfeit-match", "forfeit-deal", "default-move"],
                    help="what happens when a bot runs out of time (default forfeit-match)")
    pl.add_argument("--admin-token", default=None, help="admin token of --server (default: BUMMERL_ADMIN_TOKEN)")
    from bummerl import cli_ladder

    cli_ladder.add_parsers(sub)
    b = sub.add_parser("bench", help="print engine or service figures")
    b.add_argument("what", choices=["engine", "service", "timeouts", "ladder", "strong"])
    b.add_argument("--variant", default=None,
                   help="variant id, or 'all' (engine, strong); default schnapsen-at (strong: all)")
    b.add_argument("--seconds", type=float, default=10.0)
    b.add_argument("--matches", type=int, default=64)
    b.add_argument("--policy", choices=["random", "no-declare"], default="random",
                   help="engine: uniform random, or random without declaring (full-length deals)")
    b.add_argument("--pairs", type=int, default=200, help="strong: duplicate deal pairs per variant")
    b.add_argument("--bot", default="strong:samples=32,seed=1", help="strong: the bot under test (a bot spec)")
    b.add_argument("--opponent", default="greedy", help="strong: its opponent (a bot spec)")
    b.add_argument("--jobs", type=int, default=1, help="strong: worker processes")
    b.add_argument("--seed", type=int, default=None, help="strong: seed of the deals (default 1)")
    b.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    try:
        if args.cmd == "serve":
            return asyncio.run(_serve(args))
        if args.cmd == "play":
            return asyncio.run(_play_cmd(args))
        if args.cmd in ("ladder", "bot"):
            return cli_ladder.dispatch(args)
        return _bench(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
