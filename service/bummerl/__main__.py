"""``bummerl`` command line: ``serve``, ``play``, ``ladder``, ``bot``, ``verify``, ``bench``.

    bummerl serve [--port 50051] [--http-port 8080] [--metrics-port 9095] [--redis-url URL]
                  [--data-dir DIR | --ephemeral] [--demo greedy,random] [--variant schnapsen-at]
    bummerl play --variant schnapsen-at --bots greedy,random [--server HOST:PORT] [--seed N]
                 [--option name=value ...] [--tc 5+0.1] [--timeout-policy forfeit-match] [--json]
    bummerl bench engine --variant schnapsen-at --seconds 10 [--json]
    bummerl bench openspiel --variant all --seconds 10 [--json]   (needs bummerl[learning])
    bummerl bench service --matches 64 --seconds 10 [--json]
    bummerl bench timeouts --matches 200 [--json]   (deadline to enforced timeout, ms)
    bummerl bench ladder --matches 100 [--json]     (duplicate pairs of instant bots: matches/min)
    bummerl bench strong --pairs 200 [--variant all|multi|ID] [--bot strong:samples=32,seed=1] [--opponent greedy]
                         [--deals N] [--jobs 2] [--json]
                                                    (duplicate deal pairs strong vs greedy: Elo, 95% CI, ms)
    bummerl bench leaderboard [--matches 10000]     (a ladder's leaderboard: from scratch vs a read after one result)
    bummerl verify RECORD.json [...] | --server HOST:PORT --match ID   (exit 1 at the first mismatch)

Without ``--redis-url`` (or ``BUMMERL_REDIS_URL``) the server starts an embedded Valkey that keeps its
data (append-only file) in ``--data-dir``, by default ``$XDG_DATA_HOME/bummerl`` or
``~/.local/share/bummerl``; ``--ephemeral`` (and ``--demo`` without ``--data-dir``) keeps nothing.
It says which at start-up. The admin
token (``--admin-token`` or ``BUMMERL_ADMIN_TOKEN``) guards CreateMatch; ``bummerl play`` sends it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import signal
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from bummerl.config import Settings, default_data_dir
from bummerl.rules import UnknownVariantError, find_variant


def _options(pairs: list[str]) -> dict[str, str]:
    out = {}
    for p in pairs:
        name, sep, value = p.partition("=")
        if not sep:
            raise SystemExit(f"--option expects name=value, got {p!r}")
        out[name.strip()] = value.strip()
    return out


def _port(text: str) -> int:
    """argparse type of a TCP port: an int in 0..65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port {value} is outside 0..65535")
    return value


def _bot_specs(text: str, prog: str, count: int | None = None) -> list[str]:
    from bummerl_client.__main__ import bot_specs

    return bot_specs(text, prog, count)


def _print_deal(res: dict[str, Any]) -> None:
    """One line for a finished deal (a ``DealResult`` dict; ``deal_number`` is 0-based)."""
    gp = list(res.get("game_points") or [])
    credited = [s for s, v in enumerate(gp) if v]
    who = "no points" if not credited else ("seat " if len(credited) == 1 else "seats ") + ", ".join(map(str, credited))
    contract = f"{res['contract']} x{res.get('multiplier', 1)}, " if res.get("contract") else ""
    play_off = "play-off, " if res.get("playoff") else ""
    print(f"deal {res.get('deal_number', 0) + 1}: {play_off}{contract}{who} +{max(gp or [0])} ({res.get('reason')}), "
          f"deal points {res.get('deal_points')}, tricks {res.get('tricks_won')}", flush=True)


CONCEDED = ("resigned", "illegal", "disconnect", "timeout", "abandoned")
"""Match end reasons of a match that did not end at the table (a seat gave up, faulted or timed
out under ``forfeit-match``, or nobody acted): ``bummerl play`` names them in its result line."""


def page_link(web: str | None, kind: str, ident: str) -> str:
    """The web page of a match or ladder (``kind`` "match" / "ladder") on the pages at ``web``
    (the REST gateway's base URL, e.g. ``http://localhost:8080``); "" without one."""
    return f"{web.rstrip('/')}/#/{kind}/{ident}" if web else ""


async def _play(client: Any, variant: str, bot_names: list[str], seed: int | None, options: dict[str, str],
                as_json: bool, web: str | None = None, **create_kwargs: Any) -> dict[str, Any]:
    from bummerl.cli_organize import counted
    from bummerl_client import play_match
    from bummerl_client.__main__ import bot_from_spec

    bots = [bot_from_spec(b, None if seed is None else seed + i) for i, b in enumerate(bot_names)]

    def created(match_id: str) -> None:
        if not as_json:
            print(f"{variant}: {' vs '.join(f'{b.name} (seat {i})' for i, b in enumerate(bots))}, match {match_id}",
                  flush=True)
            if web:
                print(f"watch it: {page_link(web, 'match', match_id)}", flush=True)

    rec = await play_match(client, variant, bots, options, seed, on_created=created,
                           on_deal=None if as_json else _print_deal, **create_kwargs)
    names = [s["name"] for s in rec["seats"]]
    for f in rec.get("faults", []):
        print(f"bummerl play: seat {f['seat']} ({names[f['seat']]}): bot {f['kind']}: {f['detail']}", file=sys.stderr)
    res = rec["match_result"]
    places = list(res.get("placements") or [])
    firsts = [s for s, p in enumerate(places) if p == 1] or ([res["winner"]] if res["winner"] >= 0 else [])
    summary = {
        "match_id": rec["match_id"], "variant": rec["variant"], "winner": res["winner"],
        "winner_bot": names[firsts[0]] if len(firsts) == 1 else None, "placements": places,
        "winner_seats": firsts,
        "game_points": res["game_points"], "sets_won": res["sets_won"], "deals": len(rec["deals"]),
        "actions": len(rec["actions"]), "reason": res["reason"], "match_schneider": res["match_schneider"],
        "faults": rec.get("faults", []),
    }
    if as_json:
        print(json.dumps(summary))
    else:
        who = ", ".join(f"seat {s} ({names[s]})" for s in firsts) or "nobody"
        early = ""
        if res["reason"] in CONCEDED:  # the match did not end at the table: say how it ended
            early = f"; ended early: {res['reason']}" + "".join(
                f" (seat {f['seat']}'s bot: {f['kind']})" for f in summary["faults"][-1:])
        print(f"result: {who} {'wins' if len(firsts) == 1 else 'win'}, game points {res['game_points']}"
              f"{', sets ' + str(res['sets_won']) if max(res['sets_won']) > 1 else ''}"
              f"{' (Schneider)' if res['match_schneider'] else ''}; {counted(summary['deals'], 'deal')}, "
              f"{counted(summary['actions'], 'action')}{early}")
    return summary


def _storage(settings: Settings, demo: bool) -> tuple[Settings, str]:
    """The settings ``bummerl serve`` runs with and its start-up line on where the data lives: a
    Redis URL as given; else the embedded Valkey in ``data_dir``, in :func:`default_data_dir`
    when none is given, or, with ``ephemeral`` or a ``--demo`` without a data dir, in a temporary
    directory that is deleted at the end."""
    if settings.redis_url:
        return settings, "bummerl: redis at BUMMERL_REDIS_URL / --redis-url"
    if settings.data_dir is None and not settings.ephemeral and not demo:
        settings = dataclasses.replace(settings, data_dir=default_data_dir())
    if settings.data_dir is None:
        why = "--ephemeral" if settings.ephemeral else "--demo without --data-dir"
        return settings, (f"bummerl: redis embedded Valkey, EPHEMERAL ({why}): every ladder, bot and match is lost "
                          "when this server stops")
    return settings, f"bummerl: redis embedded Valkey, data kept in {settings.data_dir} (append-only file)"


def _serve_workers(args: argparse.Namespace) -> int:
    """``serve --workers N``: N server processes sharing the gRPC and REST ports on purpose
    (SO_REUSEPORT) and one Redis (the embedded Valkey is started here, once); Prometheus
    multiprocess mode, with this process serving the aggregate ``/metrics``. SIGTERM/SIGINT stop
    the workers (each drains like a single server)."""
    import shutil
    import subprocess
    import tempfile
    import threading

    from bummerl.store import resolve_redis_url

    given = Settings.from_env(**{k: v for k, v in {"port": args.port, "http_port": args.http_port,
                                                   "metrics_port": args.metrics_port, "host": args.host,
                                                   "redis_url": args.redis_url, "data_dir": args.data_dir,
                                                   "ephemeral": args.ephemeral or None}.items() if v is not None})
    if given.port == 0:
        raise SystemExit("bummerl serve: --workers needs a fixed --port (the workers share it)")
    given, where = _storage(given, demo=False)
    stop = threading.Event()  # before the embedded Valkey starts: a signal then stops it too
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    redis_url, embedded = resolve_redis_url(given.redis_url, str(given.data_dir) if given.data_dir else None)
    print(where, flush=True)
    prom_dir = tempfile.mkdtemp(prefix="bummerl-prom-")
    env = {**os.environ, "BUMMERL_REDIS_URL": redis_url, "PROMETHEUS_MULTIPROC_DIR": prom_dir}
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = prom_dir  # before bummerl.metrics is imported here
    argv = [sys.executable, "-m", "bummerl", "serve", "--workers", "1", "--reuse-port", "--metrics-port", "0",
            "--port", str(given.port), "--http-port", str(given.http_port), "--host", given.host]
    for flag, value in (("--admin-token", args.admin_token), ("--idle-limit", args.idle_limit),
                        ("--shards", args.shards), ("--durability", args.durability)):
        if value is not None:
            argv += [flag, str(value)]
    procs = [subprocess.Popen(argv, env=env) for _ in range(args.workers)]
    try:
        from bummerl import metrics

        if given.metrics_port:
            port = metrics.start_metrics_server(given.metrics_port, given.host)
            print(f"bummerl: metrics of {args.workers} workers on http://{given.host}:{port}/metrics", flush=True)
        print(f"bummerl: {args.workers} workers on gRPC {given.host}:{given.port}", flush=True)
        while not stop.wait(0.2) and all(p.poll() is None for p in procs):
            pass
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
        if embedded is not None:
            embedded.stop()
        shutil.rmtree(prom_dir, ignore_errors=True)
    failed = [p.returncode for p in procs if p.returncode not in (0, -signal.SIGTERM)]
    return 1 if failed and not stop.is_set() else 0


def _run_on_event_loop(main: Coroutine[Any, Any, int]) -> int:
    """Run ``main`` on the event loop that ``BUMMERL_EVENT_LOOP`` names (:attr:`Settings.event_loop`,
    default uvloop where installed). Raises ValueError/RuntimeError for a bad or unavailable one."""
    from bummerl.app import loop_factory

    try:
        factory = loop_factory(Settings.from_env().event_loop)
    except BaseException:
        main.close()
        raise
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)


async def _serve(args: argparse.Namespace) -> int:
    from bummerl import metrics
    from bummerl.app import GcPacer, Runtime, configure_logging, loop_name, tune_gc
    from bummerl.store.errors import LayoutError
    from bummerl_client import AsyncClient

    given = {"host": args.host, "port": args.port, "http_port": args.http_port, "metrics_port": args.metrics_port,
             "redis_url": args.redis_url, "data_dir": args.data_dir, "admin_token": args.admin_token,
             "idle_limit_s": args.idle_limit, "reuse_port": args.reuse_port or None, "ephemeral": args.ephemeral or None,
             "log_format": args.log_format, "access_log": args.access_log or None, "shards": args.shards,
             "durability": args.durability}
    # flags win over BUMMERL_* variables, which win over the defaults
    settings, where = _storage(Settings.from_env(**{k: v for k, v in given.items() if v is not None}), bool(args.demo))
    configure_logging(settings)
    # SIGTERM/SIGINT from here on stop the server cleanly, also while it starts: a signal between
    # the start of the embedded Valkey and these handlers killed this process and left the Valkey
    # running without it (seen in 4 of 5 SIGTERMs sent on the "gRPC listening" line)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    rt = Runtime(settings)
    try:
        await rt.start()
    except LayoutError as exc:
        if settings.redis_url or settings.data_dir is None:
            raise
        # the embedded Valkey has no URL to give: say which command converts its data dir
        raise LayoutError(f"{exc} (this server's embedded Valkey: `bummerl migrate --data-dir "
                          f"{settings.data_dir}`)") from exc
    tune_gc()
    metrics.watch_gc()
    pacer = asyncio.create_task(GcPacer(settings.gc_pace_ms, budget=settings.gc_budget).run(stop), name="bummerl-gc") if settings.gc_pace_ms else None
    print(where, flush=True)
    print(f"bummerl: gRPC listening on {rt.target}", flush=True)
    web = f"http://{rt.target.rsplit(':', 1)[0]}:{rt.http_port}" if rt.http_port else None
    if rt.http_port:
        print(f"bummerl: REST/JSON on {web}/v1/variants", flush=True)
        if settings.web_pages:
            print(f"bummerl: web pages on {web}/", flush=True)
        else:
            web = None
    if rt.metrics_port:
        print(f"bummerl: metrics on http://{rt.target.rsplit(':', 1)[0]}:{rt.metrics_port}/metrics", flush=True)
    print(f"bummerl: event loop {loop_name(loop)}", flush=True)
    try:
        if args.demo and not stop.is_set():
            demo = _bot_specs(args.demo, "bummerl serve --demo", find_variant(args.variant).num_players)
            print(f"bummerl: demo Bummerl {args.variant}: {args.demo.replace(',', ' vs ')}", flush=True)

            async def play_demo() -> None:
                async with AsyncClient(rt.target) as client:
                    await _play(client, args.variant, demo, args.seed, {}, False, web,
                                admin_token=settings.admin_token)

            # Ctrl-C / SIGTERM stop the server during the demo too, not only after its last deal
            playing, stopped = asyncio.create_task(play_demo()), asyncio.create_task(stop.wait())
            await asyncio.wait((playing, stopped), return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
            if playing.done():
                playing.result()  # the demo's error, if any
                print("bummerl: still serving; press Ctrl-C to stop", flush=True)
            else:
                playing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await playing
        await stop.wait()
    finally:
        print("bummerl: shutting down", flush=True)
        stop.set()
        if pacer is not None:
            pacer.cancel()
        await rt.stop()
    return 0


async def _play_cmd(args: argparse.Namespace) -> int:
    from bummerl_client import AsyncClient

    try:
        seats: int | None = find_variant(args.variant).num_players
    except UnknownVariantError:
        seats = None  # the server names the variants it knows (INVALID_ARGUMENT)
    bots = _bot_specs(args.bots, "bummerl play", seats)
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
            try:
                await client.wait_ready(5)
            except TimeoutError:
                raise SystemExit(f"bummerl play: cannot reach the server at {args.server} (no connection in 5 s)") from None
            admin = args.admin_token or Settings.from_env().admin_token
            summary = await _play(client, args.variant, bots, args.seed, options, args.json, args.web,
                                  admin_token=admin, **create)
        return _play_exit_code(summary)
    from bummerl.app import Runtime

    logging.basicConfig(level=logging.ERROR)
    settings = Settings.from_env(port=0, http_port=0, metrics_port=0, reaper_poll_ms=10)
    async with Runtime(settings) as rt:
        async with AsyncClient(rt.target) as client:
            summary = await _play(client, args.variant, bots, args.seed, options, args.json,
                                  admin_token=settings.admin_token, **create)
    return _play_exit_code(summary)


def _play_exit_code(summary: dict[str, Any]) -> int:
    """``bummerl play``'s exit code: 0 when no bot faulted, else that of ``bummerl_client join`` for
    the first fault (3 timeout, 4 an illegal or unparsable answer, 5 a crash), also when the
    match went on after it (timeout policy ``default-move`` / ``forfeit-deal``)."""
    from bummerl_client.__main__ import EXIT_CODES

    faults = summary.get("faults") or []
    return EXIT_CODES.get(faults[0]["kind"], 5) if faults else 0


def _bench(args: argparse.Namespace) -> int:
    import bummerl_bench.benches as bench

    if args.what == "failover":
        from bummerl_bench import failover as bench_failover

        modes = ("none", "replicated") if args.durability == "both" else (args.durability,)
        bench_failover.run(matches=args.matches if args.matches != 64 else 16, failovers=args.failovers,
                           gap_s=args.gap, seed=args.seed if args.seed is not None else 1, as_json=args.json,
                           modes=modes)
        return 0
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
    elif args.what == "core":
        r = bench.bench_core(args.matches if args.matches != 64 else 32, args.seconds if args.seconds != 10.0 else 3.0,
                             args.variant, trials=args.runs if args.runs else 5)
        if args.json:
            print(json.dumps(r))
        else:
            print(f"core {r['variant']}: {r['cpu_us_per_action_min']} us of CPU per action (min of {r['trials']} runs; "
                  f"median {r['cpu_us_per_action_median']} us), the service's own work on the stream path without gRPC "
                  f"({r['matches']} matches, ~{r['actions_per_trial']:,} actions per {r['seconds']} s run)")
    elif args.what == "openspiel":
        from bummerl_bench.openspiel import main as bench_openspiel_main

        return bench_openspiel_main(args.variant, args.seconds, args.json)
    elif args.what == "leaderboard":
        r = bench.bench_leaderboard(args.matches if args.matches != 64 else 10_000)
        if args.json:
            print(json.dumps(r))
        else:
            print(f"leaderboard over {r['results']:,} results of {r['bots']} bots: {r['full_ms']} ms from scratch, "
                  f"{r['incremental_read_ms']} ms for a read after one new result (running standings)")
    elif args.what == "ladder":
        r = bench.bench_ladder(args.matches if args.matches != 64 else 100, variant=args.variant)
        if args.json:
            print(json.dumps(r))
        else:
            print(f"ladder: {r['matches_per_min']:,.0f} matches/min ({r['games']} single-deal games, concurrency "
                  f"{r['concurrency']}, {r['seconds']} s); service overhead {r['overhead_ms_per_move']} ms per move "
                  f"({r['ms_per_move_server']} ms through the server - {r['ms_per_move_engine']} ms in process)")
    elif args.what == "floor":
        from bummerl_bench.floor import bench_floor

        r = bench_floor(args.matches, args.seconds, args.variant, play=args.play)
        if args.json:
            print(json.dumps(r))
        elif args.play:
            f, pf, sp = r["floor"], r["play_floor"], r["service_play"]
            fc, pc, sc = f.get("server_cpu") or {}, pf.get("server_cpu") or {}, sp.get("server_cpu") or {}
            print(f"floor (aio gRPC + HGET + Lua CAS, {f['event_loop']}): {f['calls_per_s']:,.0f} calls/s, server CPU "
                  f"{fc.get('ms_per_call')} ms per call ({fc.get('cores')} cores)")
            print(f"Play floor (one Play stream per seat, HGET + Lua CAS, an update to each seat): "
                  f"{pf['actions_per_s']:,.0f} actions/s, server CPU {pc.get('ms_per_action')} ms per action "
                  f"({pc.get('cores')} cores)")
            print(f"service on Play ({r['in_flight']} matches): {sp['actions_per_s']:,.0f} actions/s, server CPU "
                  f"{sc.get('ms_per_action')} ms per action ({sc.get('cores')} cores) = {r['play_cpu_ratio']}x the "
                  f"floor's per call, {r['play_over_play_floor']}x the Play floor's per action")
        else:
            f, sv, h = r["floor"], r["service"], r["service_half_load"]
            print(f"floor (aio gRPC + HGET + Lua CAS, {f['event_loop']}): {f['calls_per_s']:,.0f} calls/s, p50 {f['p50_ms']} ms, "
                  f"p99 {f['p99_ms']} ms ({r['in_flight']} in flight)")
            print(f"service SubmitAction: {sv['actions_per_s']:,.0f} calls/s, p50 {sv['p50_ms']} ms, p99 {sv['p99_ms']} ms"
                  f" = {r['ratio']}x the floor")
            print(f"service, every RPC (SubmitAction + GetInformationSet + CreateMatch): {sv['calls_per_s']:,.0f} calls/s"
                  f" = {r['call_ratio']}x the floor")
            fc, sc = f.get("server_cpu"), sv.get("server_cpu")
            if fc and sc:
                print(f"server CPU at full load: floor {fc['ms_per_call']} ms per call ({fc['cores']} cores), service "
                      f"{sc['ms_per_call']} ms per RPC = {r['cpu_ratio']}x the floor, {sc['ms_per_action']} ms per "
                      f"SubmitAction ({sc['cores']} cores)")
            print(f"service at half that rate ({h['rate']:,.0f}/s): {h['actions_per_s']:,.0f} calls/s, "
                  f"p50 {h['p50_ms']} ms, p99 {h['p99_ms']} ms")
            fh = r["floor_half_load"]
            print(f"floor at the same rate: {fh['calls_per_s']:,.0f} calls/s, p50 {fh['p50_ms']} ms, p99 {fh['p99_ms']} ms")
    elif args.what == "strong":
        from bummerl.rules import list_variants

        if args.variant in (None, "all", "multi"):
            variants = [v.id for v in list_variants() if (v.num_players == 2) == (args.variant != "multi")]
        else:
            variants = [args.variant]
        for v in variants:  # one line per variant as soon as it is done
            r = bench.bench_strong(args.pairs, v, args.bot, args.opponent, args.jobs, args.seed or 1,
                                   progress=None if args.json else (lambda s: print(s, file=sys.stderr, flush=True)),
                                   deals=args.deals, tc=args.tc)[0]
            if args.json:
                print(json.dumps(r), flush=True)
                continue

            def f(x: float | None, sign: str = "+") -> str:
                return "unbounded" if x is None else f"{x:{sign}.1f}"

            cpu = "" if r.get("mean_decision_cpu_ms") is None else f" ({r['mean_decision_cpu_ms']:.1f} ms CPU)"
            print(f"{r['variant']}: {r['bot']} vs {r['opponent']}: Elo {f(r['elo'])} "
                  f"(95% CI {f(r['elo_low'])}..{f(r['elo_high'])} Elo), LOS {r['los']:.3f}, score {r['score']:.3f}, "
                  f"{r['pairs']} duplicate {r['unit'].replace('pair', 'pairs', 1) + ' ' + str(r['pentanomial']) if r['pentanomial'] else 'sets (' + r['unit'] + ')'}, "
                  f"game points {r['gp_margin_per_deal']:+.3f}/deal, "
                  f"mean decision {r['mean_decision_ms']:.1f} ms{cpu}"
                  + (f", opponent {r['opponent_decision_ms']:.1f} ms ({r['opponent_decision_cpu_ms']:.1f} ms CPU)"
                     if r.get("opponent_decision_ms") is not None else "")
                  + (f", under {r['tc']}: {r['timeouts']} / {r['opponent_timeouts']} games lost on time" if r.get("tc") else "")
                  + f" ({r['seconds']} s)", flush=True)
    elif args.what == "sprt":  # error rates of the ladder's SPRT, simulated (bummerl.ladder.sprt_sim)
        from bummerl.ladder.sprt_sim import print_bench

        return print_bench(args.runs or 2000, args.seed or 1, args.json)
    elif args.what == "web":
        from bummerl_bench import web as bench_web

        try:
            page = asyncio.run(bench_web.bench_page_render(args.runs or 10))
        except (ImportError, RuntimeError) as e:
            page = {"skipped": f"{type(e).__name__}: {e}"}
        spec = asyncio.run(bench_web.bench_spectators(args.spectators, args.seconds, rate=args.rate or 20.0))
        if args.json:
            print(json.dumps({"page": page, "spectators": spec}))
        else:
            if "skipped" in page:
                print(f"web: match page first render: skipped ({page['skipped']})")
            else:
                print(f"web: match page first render (navigation start to the drawn table, {page['runs']} loads): "
                      f"live p50 {page['live']['p50_ms']} ms, max {page['live']['max_ms']} ms; "
                      f"replay p50 {page['replay']['p50_ms']} ms, max {page['replay']['max_ms']} ms")
            w, o = spec["with"], spec["without"]
            print(f"web: seats' SubmitAction at {spec['rate']:g}/s with {spec['spectators']} spectators on the match: "
                  f"p50 {w['p50_ms']} ms, "
                  f"p99 {w['p99_ms']} ms ({w['actions']} actions); without: p50 {o['p50_ms']} ms, p99 {o['p99_ms']} ms "
                  f"({o['actions']} actions); {spec['spectator_updates_per_s']:,.0f} spectator updates/s")
    elif args.what == "timeouts":
        r = bench.bench_timeouts(args.matches)
        if args.json:
            print(json.dumps(r))
        else:
            print(f"timeouts: deadline to enforced timeout p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, "
                  f"max {r['max_ms']} ms, min {r['min_ms']} ms ({r['matches']} matches, {r['move_ms']} ms per move)")
    else:
        r = bench.bench_service(args.matches, args.seconds, args.variant, rest=args.rest, workers=args.workers,
                                stream=args.stream or args.play, sdk=args.sdk, rate=args.rate, play=args.play)
        r["workers"] = args.workers
        if args.json:
            print(json.dumps(r))
        else:
            print(f"service ({r['api']}, {r['workers']} worker{'s' if r['workers'] > 1 else ''}): "
                  f"{r['actions_per_s']:,.0f} SubmitAction/s, p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms "
                  f"({r['matches']} concurrent matches, {r['submit_calls']} calls in {r['seconds']} s, errors {r['errors']}"
                  f"{', server RSS ' + str(r['server_rss_mb']) + ' MiB' if r.get('server_rss_mb') else ''})")
            for kind, n in r.get("error_kinds", {}).items():
                print(f"  error x{n}: {kind}")
            if r.get("server_cpu"):
                c = r["server_cpu"]
                per_call = f", {c['ms_per_call']} ms per RPC" if c["ms_per_call"] and "stream" not in r["api"] else ""
                print(f"  server CPU: {c['ms_per_action']} ms per SubmitAction{per_call} ({c['cores']} cores)")
            if r.get("redis_per_action"):
                rd = r["redis_per_action"]
                print(f"  Redis per action: {rd['commands']} commands, {rd['bytes_in']:,.0f} bytes in, "
                      f"{rd['bytes_out']:,.0f} bytes out, {rd['memory_bytes']:,.0f} bytes more memory kept")
            if r.get("server_gc"):
                g = r["server_gc"]
                print(f"  server garbage collector: {g['collections']:,} collections, {g['pause_ms']} ms paused in all, "
                      f"{g['over_2ms']} over 2 ms, {g['over_5ms']} over 5 ms")
    return 0


def _records(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The records named on the command line: files (one JSON object, or JSON Lines) and, with
    ``--server``, each ``--match`` fetched by GetMatchRecord."""
    out: list[dict[str, Any]] = []
    for name in args.records:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
        text = text.strip()
        try:
            got = json.loads(text)
            items = got if isinstance(got, list) else [got]
        except json.JSONDecodeError:
            items = [json.loads(line) for line in text.splitlines() if line.strip()]
        # a line of `bummerl ladder export` wraps the record: {"ladder_id", "game", ..., "record": {...}}
        out.extend(x["record"] if isinstance(x.get("record"), dict) and "match_id" not in x else x for x in items)
    if args.match:
        if not args.server:
            raise ValueError("--match needs --server HOST:PORT")
        from bummerl_client import Client

        with Client(args.server) as c:
            out.extend(c.match_record(m) for m in args.match)
    if not out:
        raise ValueError("no record given (RECORD.json, -, or --server HOST:PORT --match ID)")
    return out


def _match_show(args: argparse.Namespace) -> int:
    from bummerl import transcript

    if args.file:
        rec = json.loads(sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8"))
        rec = rec["record"] if isinstance(rec.get("record"), dict) and "match_id" not in rec else rec
    else:
        server = args.server or os.environ.get("BUMMERL_SERVER")
        if not (server and args.match_id):
            raise ValueError("give a match id and --server HOST:PORT (or --file RECORD.json)")
        from bummerl_client import Client

        with Client(server) as c:
            rec = c.match_record(args.match_id, token=args.admin_token or os.environ.get("BUMMERL_ADMIN_TOKEN"))
    if args.format == "json":
        print(json.dumps(rec, indent=2))
    elif args.format == "jsonl":
        for e in transcript.entries(rec):
            print(json.dumps(e))
    else:
        sys.stdout.write(transcript.text(rec))
    return 0


def _verify_cmd(args: argparse.Namespace) -> int:
    from bummerl.core.verify import VerificationError, verify_record

    for rec in _records(args):
        try:
            ok = verify_record(rec)
        except VerificationError as e:
            print(f"bummerl verify: FAILED: {e}", file=sys.stderr)
            return 1
        if args.json:
            print(json.dumps({"ok": True, **ok}))
        else:
            print(f"ok {ok['match_id']}: commitment, {ok['deals']} deck(s), {ok['actions']} actions and the "
                  f"result (winner {ok['winner']}) check out")
    return 0


async def _migrate_cmd(args: argparse.Namespace) -> int:
    """``bummerl migrate``: :func:`bummerl.store.migrate.migrate` on the given Redis (a cluster is
    detected with ``INFO cluster``); prints the report."""
    from bummerl.store import EmbeddedValkey
    from bummerl.store.migrate import migrate
    from bummerl.store.redis_store import open_client

    embedded = None
    url = args.redis_url
    if args.data_dir:
        embedded = EmbeddedValkey(args.data_dir)
        url = embedded.start()
    if not url:
        raise ValueError("say where the data is: --redis-url URL (or BUMMERL_REDIS_URL) or --data-dir DIR")
    try:
        client = await open_client(url)
        try:
            report = await migrate(client, args.shards, dry_run=args.dry_run,
                                   progress=None if args.json else lambda line: print(line, flush=True))
        finally:
            await client.aclose()
    finally:
        if embedded is not None:
            embedded.stop()
    if args.json:
        print(json.dumps(report.as_dict()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``bummerl`` command line (every flag with its help and default)."""
    p = argparse.ArgumentParser(prog="bummerl", description="Bummerl game server for the Schnapsen family")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="run the gRPC/REST server")
    s.add_argument("--host", default=None, help="address to listen on (default: BUMMERL_HOST or 127.0.0.1)")
    s.add_argument("--port", type=_port, default=None, help="gRPC port (default: BUMMERL_PORT or 50051; 0 = any)")
    s.add_argument("--http-port", type=_port, default=None,
                   help="REST gateway port (default: BUMMERL_HTTP_PORT or 8080; 0 = off)")
    s.add_argument("--metrics-port", type=_port, default=None,
                   help="Prometheus port (default: BUMMERL_METRICS_PORT or 9095; 0 = off)")
    s.add_argument("--workers", type=int, default=1, metavar="N",
                   help="N server processes sharing the ports and one Redis (Prometheus multiprocess mode)")
    s.add_argument("--reuse-port", action="store_true",
                   help="share the ports with other processes (SO_REUSEPORT); default: a port in use is an error")
    s.add_argument("--redis-url", default=None, help="Redis URL (default: BUMMERL_REDIS_URL or embedded Valkey)")
    keep = s.add_mutually_exclusive_group()
    keep.add_argument("--data-dir", default=None,
                      help="data dir of the embedded Valkey (append-only file, kept across restarts; default: "
                           "BUMMERL_DATA_DIR, else $XDG_DATA_HOME/bummerl or ~/.local/share/bummerl)")
    keep.add_argument("--ephemeral", action="store_true",
                      help="keep nothing: the embedded Valkey in a temporary directory, every ladder, bot and match "
                           "lost at the end (BUMMERL_EPHEMERAL; also the default of --demo without --data-dir)")
    s.add_argument("--log-format", choices=["text", "json"], default=None,
                   help="text lines or one JSON object per line (default: BUMMERL_LOG_FORMAT or text)")
    s.add_argument("--access-log", action="store_true",
                   help="log every call at INFO on the bummerl.access logger (default: BUMMERL_ACCESS_LOG or off)")
    s.add_argument("--demo", default=None, help="play one demo Bummerl with these bots first, e.g. greedy,random")
    s.add_argument("--variant", default="schnapsen-at", help="variant of the --demo match (default schnapsen-at)")
    s.add_argument("--seed", type=int, default=None, help="deck seed of the --demo match (default: secret random)")
    s.add_argument("--admin-token", default=None,
                   help="secret needed to create matches (default: BUMMERL_ADMIN_TOKEN; none = anyone may)")
    s.add_argument("--idle-limit", type=float, default=None, metavar="SECONDS",
                   help="end matches without a time control after this long without an action (0 = never; "
                        "default: BUMMERL_IDLE_LIMIT_S or 86400)")
    s.add_argument("--shards", type=int, default=None, metavar="S",
                   help="key-layout shards on an empty Redis (default: BUMMERL_SHARDS, else what Redis has stored, "
                        "else 1 on a single node and 16 on Redis Cluster); another count than the stored one is an "
                        "error: bummerl migrate --shards moves the data")
    s.add_argument("--durability", choices=["none", "replicated"], default=None,
                   help="replicated: acknowledge an action only once a Redis replica has it (WAIT 1), so it survives "
                        "a failover (default: BUMMERL_DURABILITY or none)")
    mg = sub.add_parser("migrate", help="move the data in Redis to this version's key layout (servers stopped)",
                        description="One-shot: layout 1 (one global deadlines set, feed and active set) to layout 2 "
                                    "(sharded, Redis Cluster ready), or layout 2 from S to --shards shards. Run it with "
                                    "every server stopped; running it again changes nothing.")
    mg.add_argument("--redis-url", default=os.environ.get("BUMMERL_REDIS_URL"),
                    help="the deployment's Redis or a node of its cluster (default: BUMMERL_REDIS_URL)")
    mg.add_argument("--data-dir", default=None, help="or: the data dir of `bummerl serve`'s embedded Valkey")
    mg.add_argument("--shards", type=int, default=None, help="target shard count (default: keep, or 1 / 16 on a cluster)")
    mg.add_argument("--dry-run", action="store_true", help="count what would move, write nothing")
    mg.add_argument("--json", action="store_true", help="print the report as one JSON object")
    pl = sub.add_parser("play", help="play one match (a Bummerl) between bots, one per seat (2, 3 or 4 by variant), "
                                     "through a server")
    pl.add_argument("--variant", default="schnapsen-at", help="variant id or alias (default schnapsen-at)")
    pl.add_argument("--web", default=os.environ.get("BUMMERL_WEB_URL"),
                    help="with --server: base URL of its web pages (e.g. http://HOST:8080) to print the match's link "
                         "(default $BUMMERL_WEB_URL)")
    pl.add_argument("--bots", default="greedy,random",
                    help="one per seat (2, 3 or 4, as the variant seats), comma-separated: random, greedy, "
                         "strong[:budget_ms=50,samples=N,seed=S], exec:COMMAND (default greedy,random)")
    pl.add_argument("--server", default=None, help="HOST:PORT (default: start a local server)")
    pl.add_argument("--seed", type=int, default=None, help="deck seed (default: secret random)")
    pl.add_argument("--option", action="append", default=[], help="table option name=value (repeatable)")
    pl.add_argument("--json", action="store_true", help="last line: one JSON object with the result")
    pl.add_argument("--tc", default=None, metavar="TC",
                    help="time control in seconds: 5+0.1 (base+increment), move=2 (per move), 60+1,move=5")
    pl.add_argument("--timeout-policy", default="forfeit-match",
                    choices=["forfeit-match", "forfeit-deal", "default-move"],
                    help="what happens when a bot runs out of time (default forfeit-match)")
    pl.add_argument("--admin-token", default=None, help="admin token of --server (default: BUMMERL_ADMIN_TOKEN)")
    v = sub.add_parser("verify", help="check finished match records against their deck commitments",
                       description="Recompute each record's decks from its revealed seed, check the deck "
                                   "commitment published at creation, replay every action and compare the deal "
                                   "and match results. Exits 1 at the first mismatch, naming it.")
    v.add_argument("records", nargs="*", metavar="RECORD.json",
                   help="a MatchRecord as JSON, or JSON Lines of records (ladder export); - = standard input")
    v.add_argument("--server", default=None, help="HOST:PORT: fetch the records of --match from this server")
    v.add_argument("--match", action="append", default=[], metavar="ID", help="match id to fetch (repeatable)")
    v.add_argument("--json", action="store_true", help="one JSON object per verified record")
    ms = sub.add_parser("match", help="show a match").add_subparsers(dest="match_cmd", required=True)
    show = ms.add_parser("show", help="a readable transcript of a match record: hands, tricks, marriages, "
                                      "closing, scores, result and times",
                         description="Prints a match's record as a transcript (text), as the record itself (json) "
                                     "or one JSON object per transcript line (jsonl). Hands and laid-away cards "
                                     "appear once the record is revealed (docs/ACCESS.md).")
    show.add_argument("match_id", nargs="?", default=None, help="match id (with --server)")
    show.add_argument("--server", default=None, help="HOST:PORT of the server (default: BUMMERL_SERVER)")
    show.add_argument("--file", default=None, help="read the record from this JSON file instead (- = stdin)")
    show.add_argument("--admin-token", default=None,
                      help="admin token: the full record at any time (default: BUMMERL_ADMIN_TOKEN)")
    show.add_argument("--format", choices=["text", "json", "jsonl"], default="text", help="output (default text)")
    from bummerl import cli_ladder, loadtest

    cli_ladder.add_parsers(sub)
    loadtest.add_parser(sub)
    b = sub.add_parser("bench", help="print engine or service figures")
    b.add_argument("what", choices=["engine", "service", "floor", "core", "timeouts", "ladder", "strong", "sprt",
                                      "openspiel", "leaderboard", "web", "failover"],
                   help="which figures to print")
    b.add_argument("--failovers", type=int, default=3,
                   help="failover: masters killed (SIGKILL) one after another under load (default 3)")
    b.add_argument("--gap", type=float, default=4.0, help="failover: seconds of load between two kills (default 4)")
    b.add_argument("--durability", choices=["none", "replicated", "both"], default="both",
                   help="failover: the durability setting(s) to measure (default both)")
    b.add_argument("--spectators", type=int, default=100, help="web: WatchMatch streams on the match being played")
    b.add_argument("--variant", default=None,
                   help="variant id, or 'all' (engine, strong); 'multi' (strong: the six 3-4 seat games); "
                        "default schnapsen-at (strong: all)")
    b.add_argument("--seconds", type=float, default=10.0, help="how long to measure, seconds (default 10; core: per run, 3)")
    b.add_argument("--matches", type=int, default=64, help="concurrent matches (service, timeouts, ladder; default 64; core: 32)")
    b.add_argument("--policy", choices=["random", "no-declare"], default="random",
                   help="engine: uniform random, or random without declaring (full-length deals)")
    b.add_argument("--rest", action="store_true", help="service: drive the REST/JSON gateway instead of gRPC")
    b.add_argument("--rate", type=float, default=None,
                   help="service: pace the load at this many SubmitAction/s (open loop) instead of saturating")
    b.add_argument("--sdk", action="store_true",
                   help="service: drive gRPC through the Python SDK (dict responses) instead of raw stubs")
    b.add_argument("--workers", type=int, default=1, help="service: server processes (bummerl serve --workers N)")
    b.add_argument("--stream", action="store_true",
                   help="service: bots follow StreamMatch like real bots (no polling); counts stream fan-out")
    b.add_argument("--play", action="store_true",
                   help="service: like --stream, but each seat plays on one bidirectional Play call (no SubmitAction); "
                        "floor: the stream path (the unary floor, a Play floor and the service on Play)")
    b.add_argument("--pairs", type=int, default=200,
                   help="strong: duplicate deal pairs per variant (3-4 seats: duplicate sets, every seating)")
    b.add_argument("--deals", type=int, default=None,
                   help="strong: deals per game; two seats: default 1, 0 = whole matches to the variant's target; "
                        "3-4 seats: default the number of seats, each seat deals once")
    b.add_argument("--tc", default=None, metavar="TC",
                   help="strong, two seats: both bots under this time control (seconds, e.g. 5+0.1; a bot out of "
                        "time loses the game)")
    b.add_argument("--bot", default="strong:samples=32,seed=1", help="strong: the bot under test (a bot spec; at two seats also 'oracle', "
                        "strong-v1's search shown the real hidden cards: a clairvoyant reference)")
    b.add_argument("--opponent", default="greedy", help="strong: its opponent (a bot spec)")
    b.add_argument("--jobs", type=int, default=1, help="strong: worker processes")
    b.add_argument("--seed", type=int, default=None, help="strong: seed of the deals (default 1)")
    b.add_argument("--runs", type=int, default=None,
                   help="sprt: simulated SPRT runs per true Elo and shape (default 2000); web: page loads per kind of "
                        "match page (default 10); core: runs (default 5)")
    b.add_argument("--json", action="store_true", help="one JSON line with the figures")
    return p


def main(argv: list[str] | None = None) -> int:
    p = build_parser()
    args = p.parse_args(argv)
    try:
        if args.cmd == "serve":
            return _serve_workers(args) if args.workers > 1 else _run_on_event_loop(_serve(args))
        if args.cmd == "play":
            return asyncio.run(_play_cmd(args))
        if args.cmd in ("ladder", "bot"):
            from bummerl import cli_ladder

            return cli_ladder.dispatch(args)
        if args.cmd == "verify":
            return _verify_cmd(args)
        if args.cmd == "match":
            return _match_show(args)
        if args.cmd == "migrate":
            return asyncio.run(_migrate_cmd(args))
        if args.cmd == "loadtest":
            from bummerl import loadtest as lt

            return lt.run(args)
        return _bench(args)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI's errors are one line, never a traceback
        print(f"bummerl {args.cmd}: {_one_line(exc)}", file=sys.stderr)
        if os.environ.get("BUMMERL_DEBUG"):
            raise
        return 2


def _one_line(exc: BaseException) -> str:
    """The message of a CLI failure: the gRPC status of a server error, the text otherwise."""
    from bummerl_client import BummerlError

    if isinstance(exc, BummerlError):
        if exc.code.name == "UNAVAILABLE":
            return f"cannot reach the server: {exc.details}"
        return f"{exc.code.name}: {exc.details}"
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
        return "timed out (is the server reachable?)"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text if isinstance(exc, (ValueError, OSError)) else f"{type(exc).__name__}: {text}"


if __name__ == "__main__":
    sys.exit(main())
