"""``bummerl bench WHAT``: runs one of the benchmarks of this package and prints its figures, one
line each (or one JSON line with ``--json``). The command line's flags are parsed by the ``bummerl``
CLI (``bummerl_cli.bench``); :func:`run` takes its namespace: ``what`` names the benchmark, the
other attributes are its flags (their defaults as the CLI gives them).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable

from bummerl.ladder.sprt_sim import print_bench
from bummerl.rules import list_variants

from . import benches, failover, scale, web
from .engine import bench_engine_isolated
from .floor import bench_floor
from .llm import run as _llm
from .openspiel import main as openspiel_main


def run(args: argparse.Namespace) -> int:
    """Run the benchmark ``args.what`` with the flags in ``args``; its exit code."""
    if args.what == "failover":
        return _failover(args)
    if args.what != "strong":
        args.variant = args.variant or "schnapsen-at"
    return BENCHES.get(args.what, _service)(args)


def _failover(args: argparse.Namespace) -> int:
    modes = ("none", "replicated") if args.durability == "both" else (args.durability,)
    failover.run(matches=args.matches if args.matches != 64 else 16, failovers=args.failovers,
                 gap_s=args.gap, seed=args.seed if args.seed is not None else 1, as_json=args.json,
                 modes=modes, lag_s=args.lag)
    return 0


def _engine(args: argparse.Namespace) -> int:
    variants = [v.id for v in list_variants()] if args.variant == "all" else [args.variant]
    for v in variants:
        r = bench_engine_isolated(v, args.seconds, policy=args.policy)
        if args.json:
            print(json.dumps(r))
        else:
            print(f"engine {r['variant']}: {r['deals_per_s']:,.0f} deals/s, {r['actions_per_s']:,.0f} actions/s "
                  f"({r['actions_per_deal']} actions/deal, {r['seconds']} s, one core, policy {r['policy']})")
    return 0


def _core(args: argparse.Namespace) -> int:
    r = benches.bench_core(args.matches if args.matches != 64 else 32, args.seconds if args.seconds != 10.0 else 3.0,
                           args.variant, trials=args.runs if args.runs else 5)
    if args.json:
        print(json.dumps(r))
    else:
        print(f"core {r['variant']}: {r['cpu_us_per_action_min']} us of CPU per action (min of {r['trials']} runs; "
              f"median {r['cpu_us_per_action_median']} us), the service's own work on the stream path without gRPC "
              f"({r['matches']} matches, ~{r['actions_per_trial']:,} actions per {r['seconds']} s run)")
    return 0


def _openspiel(args: argparse.Namespace) -> int:
    return openspiel_main(args.variant, args.seconds, args.json)


def _leaderboard(args: argparse.Namespace) -> int:
    r = benches.bench_leaderboard(args.matches if args.matches != 64 else 10_000)
    if args.json:
        print(json.dumps(r))
    else:
        print(f"leaderboard over {r['results']:,} results of {r['bots']} bots: {r['full_ms']} ms from scratch, "
              f"{r['incremental_read_ms']} ms for a read after one new result (running standings)")
    return 0


def _ladder(args: argparse.Namespace) -> int:
    r = benches.bench_ladder(args.matches if args.matches != 64 else 100, variant=args.variant)
    if args.json:
        print(json.dumps(r))
    else:
        print(f"ladder: {r['matches_per_min']:,.0f} matches/min ({r['games']} single-deal games, concurrency "
              f"{r['concurrency']}, {r['seconds']} s); service overhead {r['overhead_ms_per_move']} ms per move "
              f"({r['ms_per_move_server']} ms through the server - {r['ms_per_move_engine']} ms in process)")
    return 0


def _floor(args: argparse.Namespace) -> int:
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
    return 0


def _strong(args: argparse.Namespace) -> int:
    if args.variant in (None, "all", "multi"):
        variants = [v.id for v in list_variants() if (v.num_players == 2) == (args.variant != "multi")]
    else:
        variants = [args.variant]
    for v in variants:  # one line per variant as soon as it is done
        r = benches.bench_strong(args.pairs, v, args.bot, args.opponent, args.jobs, args.seed or 1,
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
    return 0


def _sprt(args: argparse.Namespace) -> int:
    """Error rates of the ladder's SPRT, simulated (:mod:`bummerl.ladder.sprt_sim`)."""
    return print_bench(args.runs or 2000, args.seed or 1, args.json)


def _web(args: argparse.Namespace) -> int:
    try:
        page = asyncio.run(web.bench_page_render(args.runs or 10))
    except (ImportError, RuntimeError) as e:
        page = {"skipped": f"{type(e).__name__}: {e}"}
    spec = asyncio.run(web.bench_spectators(args.spectators, args.seconds, rate=args.rate or 20.0))
    analysis = web.bench_analysis(2)
    if args.json:
        print(json.dumps({"page": page, "spectators": spec, "analysis": analysis}))
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
        a = analysis
        print(f"web: post-game analysis of {a['variant']} (greedy v random, {a['samples']} worlds, at most "
              f"{a['budget_ms']:g} ms per decision): CPU p50 {a['cpu_ms_per_match_p50'] / 1000:.1f} s per match, "
              f"{a['cpu_ms_per_decision_p50']:.0f} ms per valued decision ({len(a['matches'])} matches, "
              f"{', '.join(str(m['valued']) for m in a['matches'])} valued decisions)")
    return 0


def _timeouts(args: argparse.Namespace) -> int:
    r = benches.bench_timeouts(args.matches)
    if args.json:
        print(json.dumps(r))
    else:
        print(f"timeouts: deadline to enforced timeout p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, "
              f"max {r['max_ms']} ms, min {r['min_ms']} ms ({r['matches']} matches, {r['move_ms']} ms per move)")
    return 0


def _scale(args: argparse.Namespace) -> int:
    ks = [int(k) for k in str(args.ks).split(",") if k.strip()]
    kinds = scale.KINDS if args.redis == "both" else (args.redis,)
    return scale.main(ks, kinds, args.seconds, args.matches if args.matches != 64 else 32, args.loaders, args.masters,
                      args.variant, args.json, ceiling=args.ceiling, floor=args.floor)


def _service(args: argparse.Namespace) -> int:
    r = benches.bench_service(args.matches, args.seconds, args.variant, rest=args.rest, workers=args.workers,
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


def _watchers(args: argparse.Namespace) -> int:
    """What spectators cost the seats (:mod:`bummerl_bench.watchers`)."""
    from . import watchers

    r = watchers.bench_watchers(args.watchers, args.matches if args.matches != 64 else 16, args.seconds,
                                args.runs or 1, args.watch_api)
    print(json.dumps(r) if args.json else watchers.report(r))
    return 0


def _idle_connections(args: argparse.Namespace) -> int:
    """Issue 38's hostile client: idle connections from one address (:mod:`bummerl_bench.hostile`)."""
    from . import hostile

    r = asyncio.run(hostile.bench_idle_connections(args.connections))
    print(json.dumps(r) if args.json else hostile.report(r))
    return 0 if r["other_failed"] == 0 else 1


def _arena(args: argparse.Namespace) -> int:
    """One arena pairing pass over ``--bots`` idle bots (:mod:`bummerl_bench.arena`)."""
    from . import arena

    if args.live:
        live = arena.bench_arena_live(args.bots, args.seconds)
        print(json.dumps(live) if args.json else arena.report_live(live))
        return 0 if not (live["started_twice"] or live["overlaps"]) else 1
    r = arena.bench_arena_pairing(args.bots)
    print(json.dumps(r) if args.json else arena.report(r))
    return 0


BENCHES: dict[str, Callable[[argparse.Namespace], int]] = {
    "engine": _engine, "core": _core, "openspiel": _openspiel, "leaderboard": _leaderboard, "ladder": _ladder,
    "floor": _floor, "strong": _strong, "sprt": _sprt, "web": _web, "timeouts": _timeouts, "service": _service,
    "scale": _scale, "llm": _llm,
    "watchers": _watchers, "arena": _arena, "idle-connections": _idle_connections,
}
"""The benchmarks by ``bummerl bench`` name (``failover`` runs before the default variant is set)."""
