"""Print every benchmark figure as JSON lines: the engine for each variant, then the service.

    .venv/bin/python bench/run_all.py [--seconds 10] [--matches 64]

The same figures come from ``bummerl bench engine|service`` (``make bench``); this script is for
collecting them all at once, e.g. for a closing note or a performance log.
"""

from __future__ import annotations

import argparse
import json

from bummerl.rules import list_variants
from bummerl_bench.benches import bench_engine, bench_service


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--matches", type=int, default=64)
    args = p.parse_args()
    for v in list_variants():
        print(json.dumps({"bench": "engine", **bench_engine(v.id, args.seconds)}), flush=True)
    print(json.dumps({"bench": "service", **bench_service(args.matches, args.seconds)}), flush=True)


if __name__ == "__main__":
    main()
