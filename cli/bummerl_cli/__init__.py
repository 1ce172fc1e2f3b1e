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
    bummerl match show ID --server HOST:PORT | --file RECORD.json [--format text|json|jsonl]
    bummerl ladder run | export | create | list | watch | leaderboard | crosstable | games | stop | pause | resume
    bummerl bot run | check | logs | register | list | revoke | rotate-token | delete
    bummerl loadtest --server HOST:PORT --matches 200 --duration 60 [--slo p99_ms=50,errors=0]
    bummerl migrate --redis-url URL | --data-dir DIR [--shards S] [--dry-run]

Without ``--redis-url`` (or ``BUMMERL_REDIS_URL``) the server starts an embedded Valkey that keeps its
data (append-only file) in ``--data-dir``, by default ``$XDG_DATA_HOME/bummerl`` or
``~/.local/share/bummerl``; ``--ephemeral`` (and ``--demo`` without ``--data-dir``) keeps nothing.
It says which at start-up. The admin
token (``--admin-token`` or ``BUMMERL_ADMIN_TOKEN``) guards CreateMatch; ``bummerl play`` sends it.

One module per command (:mod:`.serve`, :mod:`.migrate`, :mod:`.play`, :mod:`.verify`, :mod:`.match`,
:mod:`.ladder` with :mod:`.ladder_run` and :mod:`.organizer`, :mod:`.bot`, :mod:`.loadtest`,
:mod:`.bench`), each with ``add_parser(sub)`` and ``run(args)``; :mod:`.main` builds the parser and
dispatches; :mod:`.common` holds what several share. A package of its own, outside the server: it
uses the server (``bummerl``), the SDK (``bummerl_client``) and the benchmarks (``bummerl_bench``),
and the server depends on none of them.
"""
