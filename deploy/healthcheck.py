#!/usr/bin/env python3
"""Exit 0 if the Bummerl server at HOST:PORT answers SERVING on the gRPC health service
(grpc.health.v1.Health/Check), 1 otherwise. The container image's HEALTHCHECK and
deploy/compose.yaml run it; Kubernetes asks the same service with its native grpc probe.

    python deploy/healthcheck.py [HOST:PORT] [--service NAME] [--timeout SECONDS]

HOST:PORT defaults to 127.0.0.1:50051, the service to "" (the whole server).
"""

from __future__ import annotations

import argparse
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def check(target: str, service: str = "", timeout: float = 2.0) -> str:
    """The status name the health service reports for ``service`` ("SERVING", "NOT_SERVING", ...),
    or "UNREACHABLE: <code>" when the call fails."""
    with grpc.insecure_channel(target) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as exc:
            return f"UNREACHABLE: {exc.code().name}"
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bummerl-healthcheck", description=__doc__.splitlines()[0])
    p.add_argument("target", nargs="?", default="127.0.0.1:50051")
    p.add_argument("--service", default="")
    p.add_argument("--timeout", type=float, default=2.0)
    args = p.parse_args(argv)
    status = check(args.target, args.service, args.timeout)
    print(f"{args.target}: {status}")
    return 0 if status == "SERVING" else 1


if __name__ == "__main__":
    sys.exit(main())
