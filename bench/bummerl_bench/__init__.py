"""The benchmarks behind ``bummerl bench ...`` and ``make bench`` (figures, not timed tests).

* :mod:`.benches` — the engine (deals/s per variant), the service (SubmitAction calls/s and latency,
  Redis per action), timeouts, ladders, the strong bot's Elo over duplicate deals, leaderboards;
* :mod:`.floor` — the floor of a gRPC call on this machine (a server doing no work);
* ``bench_core`` (in :mod:`.benches`) — the service's own CPU per action on the stream path,
  without gRPC, in one process (min and median of several runs);
* :mod:`.web` — the web pages and the spectators' streams;
* :mod:`.openspiel` — the OpenSpiel game's playouts and ISMCTS (needs ``bummerl[learning]``).
* :mod:`.cli` — ``bummerl bench WHAT``: runs one of them and prints its lines (the flags are
  parsed by the ``bummerl`` command line, ``bummerl_cli.bench``).

A package of its own (issue 23), outside the service: it uses only public modules of the service,
the engine's facade and the SDK's public calls. Shipped with the distribution so that
``bummerl bench`` works wherever bummerl is installed.
"""
