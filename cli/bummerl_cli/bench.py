"""``bummerl bench``: print engine or service figures, measured by the benchmarks of
:mod:`bummerl_bench` (:func:`bummerl_bench.cli.run` runs them; this module parses the flags).

    bummerl bench engine --variant schnapsen-at --seconds 10 [--json]
    bummerl bench openspiel --variant all --seconds 10 [--json]   (needs bummerl[learning])
    bummerl bench service --matches 64 --seconds 10 [--json]
    bummerl bench timeouts --matches 200 [--json]   (deadline to enforced timeout, ms)
    bummerl bench ladder --matches 100 [--json]     (duplicate pairs of instant bots: matches/min)
    bummerl bench strong --pairs 200 [--variant all|multi|ID] [--bot strong:samples=32,seed=1] [--opponent greedy]
                         [--deals N] [--jobs 2] [--json]
                                                    (duplicate deal pairs strong vs greedy: Elo, 95% CI, ms)
    bummerl bench leaderboard [--matches 10000]     (a ladder's leaderboard: from scratch vs a read after one result)
    bummerl bench idle-connections [--connections 1010] [--json]   (one address's idle connections vs another's requests)
    bummerl bench arena [--bots 1000] [--live --seconds 60] [--json]
                                                    (one arena pairing pass over N idle bots: ms;
                                                     --live: N connected bots play an arena, checked)
    bummerl bench watchers [--watchers 1000] [--matches 16] [--seconds 10] [--runs 1] [--watch-api grpc|rest]
                                                    (seats' actions/s and p99 without and with N spectators)
    bummerl bench llm [--variant schnapsen-at] [--seconds 10] [--json]   (the llm: seat's own overhead per decision)
    bummerl bench scale [--ks 1,2] [--redis node|cluster|both] [--seconds 10] [--matches 32] [--loaders 1] [--floor]
                        [--ceiling] [--json]
                                                    (K servers on one Valkey node and on a cluster: actions/s,
                                                     latency, CPU, Redis commands per action, efficiency)
"""

from __future__ import annotations

from typing import Any

from bummerl_bench import cli as bench_cli

run = bench_cli.run
"""``bummerl bench WHAT ...``: :func:`bummerl_bench.cli.run`."""


def add_parser(sub: Any) -> None:
    b = sub.add_parser("bench", help="print engine or service figures")
    b.add_argument("what", choices=["engine", "service", "floor", "core", "timeouts", "ladder", "strong", "sprt",
                                      "openspiel", "leaderboard", "web", "failover", "scale", "llm",
                                      "watchers", "arena", "idle-connections"],
                   help="which figures to print")
    b.add_argument("--failovers", type=int, default=3,
                   help="failover: masters killed (SIGKILL) one after another under load (default 3)")
    b.add_argument("--gap", type=float, default=4.0, help="failover: seconds of load between two kills (default 4)")
    b.add_argument("--lag", type=float, default=0.0,
                   help="failover: stop (SIGSTOP) the master's replica this many seconds before and around each kill, "
                        "so that it lags (default 0: no lag)")
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
    b.add_argument("--ks", default="1,2", help="scale: server counts to measure, comma-separated (default 1,2)")
    b.add_argument("--redis", choices=["node", "cluster", "both"], default="both",
                   help="scale: one Valkey node, a Valkey Cluster, or both (default both)")
    b.add_argument("--loaders", type=int, default=1, help="scale: load generators per server (default 1)")
    b.add_argument("--masters", type=int, default=3, help="scale: masters of the Valkey Cluster (default 3)")
    b.add_argument("--floor", action="store_true",
                   help="scale: also run K floor servers side by side on one node (what the machine allows)")
    b.add_argument("--ceiling", action="store_true",
                   help="scale: instead, one Valkey node's ceiling: the Lua commit alone from --loaders (>= 2) "
                        "client processes for --seconds")
    b.add_argument("--watchers", type=int, default=1000,
                   help="watchers: WatchMatch streams opened on the running matches (default 1000)")
    b.add_argument("--watch-api", choices=["grpc", "rest"], default="grpc", help="watchers: the watchers' API (default grpc)")
    b.add_argument("--connections", type=int, default=1010,
                   help="idle-connections: idle TCP connections opened from 127.0.0.1 (default 1010)")
    b.add_argument("--bots", type=int, default=1000,
                   help="arena: idle bots of one pairing pass (default 1000); with --live: connected bots")
    b.add_argument("--live", action="store_true",
                   help="arena: --bots connected bots play an arena on a server of their own for --seconds")
    b.add_argument("--json", action="store_true", help="one JSON line with the figures")

