"""``bummerl mcp``: the Model Context Protocol server for agents (:mod:`bummerl_client.mcp_server`),
over stdio (the default: an MCP client such as Claude Desktop starts it) or streamable HTTP.

    bummerl mcp [--server HOST:PORT] [--transport stdio|http] [--host 127.0.0.1] [--port 8765]
                [--admin-token-env VAR]

It plays through the server's public API with the seat tokens of the matches it starts or joins;
``--admin-token-env`` names the variable holding the admin token that ``CreateMatch`` needs on a
server that has one (nothing else is done with it). Needs the ``agents`` extra (``mcp``).
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from .common import server_of


def add_parser(sub: Any) -> None:
    p = sub.add_parser("mcp", help="serve the MCP tools (list variants, rules, start/join a match, state, act...) "
                                   "for AI agents")
    p.add_argument("--server", default=None, help="the Bummerl server, HOST:PORT (default: BUMMERL_SERVER or "
                                                  "localhost:50051)")
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                   help="stdio (an MCP client starts this command; default) or http (streamable HTTP on /mcp)")
    p.add_argument("--host", default="127.0.0.1", help="http: the address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="http: the port to listen on (default 8765)")
    p.add_argument("--admin-token-env", default=None, metavar="VAR",
                   help="the environment variable holding the server's admin token, sent with CreateMatch only "
                        "(default: none; a server with an admin token then refuses start_match)")


def run(args: argparse.Namespace) -> int:
    from bummerl_client.mcp_server import serve  # the mcp package only for this command

    admin = None
    if args.admin_token_env:
        admin = os.environ.get(args.admin_token_env)
        if not admin:
            raise ValueError(f"--admin-token-env {args.admin_token_env}: the variable is not set")
    serve(server_of(args), args.transport, args.host, args.port, admin)
    return 0
