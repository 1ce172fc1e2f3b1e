"""``bummerl mcp``: a Model Context Protocol server that lets an agent (Claude Desktop, an IDE
assistant, any MCP client) play Bummerl, built on the ``mcp`` Python SDK (the ``agents`` extra).
It talks to a Bummerl server through the public gRPC API only (:class:`~bummerl_client.AsyncClient`),
so it works against any deployment; transports: stdio (a desktop agent starts it) and streamable
HTTP (``/mcp``, for remote agents).

Tools (arguments and results in their schemas; every result has a text part a model reads and a
JSON ``structuredContent``):

* ``list_variants()``: the variants (id, name, seats, options with defaults).
* ``get_rules(variant, full=false)``: a summary with the rule IDs, or the whole docs/RULES.md
  section; also the resource ``bummerl://rules/{variant}``.
* ``start_match(variant, opponents=["house:greedy"], seat=0, options={}, seed=null,
  time_control=null, timeout_policy="")``: a new match against house bots (where the server offers
  them); the agent's seat is kept under a ``handle`` (the seat token stays in this process).
* ``join_match(match_id, seat, token)``: a seat someone created, by its seat token.
* ``get_state(handle, wait_for_turn_s=0)``: the seat's state as compact text plus the JSON
  information set; optionally waits (seconds) until the seat is to act.
* ``legal_actions(handle)``: ``[{"id", "text", "kind"}]``.
* ``act(action, handle, expected_version=null, wait_for_turn_s=10)``: an action by id or text
  (``"play QH"``, ``"12"``, ``"QH"``), submitted with the version of the state last shown to the
  agent as ``expected_version`` (so a move chosen on a state that has since changed is refused
  with ``STALE_VERSION``, not applied to another position); returns the state after it, by
  default once the seat is to act again.
* ``resign(handle)``; ``match_record(handle or match_id)``: the public record (hidden cards
  only once the match has revealed them).

``handle`` may be left out over stdio (one agent per process): it means the seat started or joined last;
over HTTP every seat tool needs the handle ``start_match`` / ``join_match`` returned, so one
agent cannot act for another's seat. Nothing reaches beyond the seat token: no admin call is
made, except that ``CreateMatch`` carries the operator's admin token when one is configured
(``--admin-token-env``; a server with an admin token refuses to create matches without it).
Errors are tool errors (``isError``) whose text starts with the API's reason code
(``ILLEGAL_ACTION``, ``STALE_VERSION``, ``NOT_YOUR_TURN``, ``INVALID_ACTION``...; docs/CLIENTS.md)
and whose ``structuredContent`` is ``{"error": {"reason", "code", "details", "current_version"}}``.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

try:
    from pydantic import Field  # comes with mcp (the agents extra)
except ImportError as e:  # pragma: no cover - a core install
    raise ImportError(f"bummerl mcp needs the mcp package: pip install 'bummerl[agents]' ({e})") from None

from .client import AsyncClient, BummerlError
from .mcp_text import resolve_action, rules_section, rules_summary, state_text

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["SeatTools", "ToolFailure", "build_server", "serve"]

DEFAULT_WAIT_S = 10.0
"""How long ``act`` waits by default for the seat's next turn (seconds)."""

MAX_SEATS = 1000
"""Seats one ``bummerl mcp`` process holds at most (the oldest is let go first)."""


class ToolFailure(Exception):
    """A tool's error: ``reason`` (the API's reason code, or INVALID_ARGUMENT / NOT_FOUND for a bad
    handle), ``code`` (the gRPC status name), ``details``, ``current_version`` (on STALE_VERSION)."""

    def __init__(self, reason: str, code: str, details: str, current_version: int | None = None) -> None:
        super().__init__(f"{reason}: {details}")
        self.reason, self.code, self.details, self.current_version = reason, code, details, current_version

    @classmethod
    def of(cls, e: BummerlError) -> ToolFailure:
        return cls(e.reason or e.code.name, e.code.name, e.details, e.current_version)

    def payload(self) -> dict[str, Any]:
        return {"error": {"reason": self.reason, "code": self.code, "details": self.details,
                          "current_version": self.current_version}}


@dataclass
class Seat:
    """A seat this process plays for an agent; ``seen``: the information set last shown."""

    handle: str
    match_id: str
    seat: int
    token: str
    seen: dict[str, Any] | None = None


def _legal(info: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{"id": int(a["id"]), "text": str(a["text"]), "kind": str(a.get("kind", ""))}
            for a in info.get("legal_actions", []) or []]


class SeatTools:
    """The tools' logic, without MCP (tests and other front ends call it directly). ``target``:
    the Bummerl server's gRPC ``HOST:PORT``; ``admin_token``: sent with CreateMatch only;
    ``single_client``: a missing ``handle`` means the seat started or joined last (stdio). Methods return plain
    dicts and raise :class:`ToolFailure`."""

    def __init__(self, target: str, admin_token: str | None = None, single_client: bool = True) -> None:
        self.target, self.admin_token, self.single_client = target, admin_token, single_client
        self._client: AsyncClient | None = None
        self.seats: dict[str, Seat] = {}

    @property
    def client(self) -> AsyncClient:
        if self._client is None:  # made on the running loop (grpc.aio)
            self._client = AsyncClient(self.target)
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def _api(self, coro: Any) -> Any:
        try:
            return await coro
        except BummerlError as e:
            raise ToolFailure.of(e) from None

    def seat_of(self, handle: str | None) -> Seat:
        if handle:
            if handle not in self.seats:
                raise ToolFailure("NOT_FOUND", "NOT_FOUND", f"no seat with handle {handle[:40]!r} in this session; "
                                  "start_match or join_match first")
            return self.seats[handle]
        if not self.seats:
            raise ToolFailure("INVALID_ARGUMENT", "INVALID_ARGUMENT", "no seat yet: call start_match or join_match")
        if self.single_client:
            return next(reversed(self.seats.values()))  # the seat started or joined last
        raise ToolFailure("INVALID_ARGUMENT", "INVALID_ARGUMENT", "give the seat's handle (start_match / join_match "
                          "returned it)")

    def _keep(self, s: Seat) -> Seat:
        """Hold ``s`` (the oldest seat goes beyond :data:`MAX_SEATS`)."""
        self.seats[s.handle] = s
        while len(self.seats) > MAX_SEATS:
            self.seats.pop(next(iter(self.seats)))
        return s

    def _shown(self, s: Seat, info: dict[str, Any]) -> dict[str, Any]:
        """The state result for ``info``, remembered as the one the agent saw."""
        s.seen = info
        return {"handle": s.handle, "match_id": s.match_id, "seat": s.seat, "version": int(info.get("version", 0)),
                "over": bool((info.get("match") or {}).get("over", False)), "text": state_text(info),
                "legal_actions": _legal(info), "information_set": info}

    async def list_variants(self) -> dict[str, Any]:
        got = await self._api(self.client.list_variants())
        return {"variants": [{"id": v["id"], "name": v["name"], "num_players": int(v["num_players"]),
                              "description": v.get("description", ""), "rules_section": v.get("section", ""),
                              "options": {o["name"]: o["default_value"] for o in v.get("options", [])}} for v in got]}

    async def rules(self, variant: str, full: bool = False) -> str:
        """docs/RULES.md's section (``full``) or its summary with the rule IDs; where RULES.md is
        not at hand (a wheel install), a summary from ListVariants: the variant's description and
        its options with their rule IDs."""
        try:
            return rules_section(variant) if full else rules_summary(variant)
        except KeyError as e:
            raise ToolFailure("UNKNOWN_VARIANT", "INVALID_ARGUMENT", str(e.args[0])) from None
        except OSError:
            pass
        got = {v["id"]: v for v in await self._api(self.client.list_variants())}
        if variant not in got:
            raise ToolFailure("UNKNOWN_VARIANT", "INVALID_ARGUMENT", f"no variant {variant!r}; known: {', '.join(sorted(got))}")
        v = got[variant]
        lines = [f"{v['name']} ({variant}, {v['num_players']} players; RULES.md {v.get('section', '')})",
                 str(v.get("description", "")), "Options (default; rule IDs):"]
        lines += [f"- {o['name']} = {o['default_value']} ({', '.join(o.get('rule_ids', [])) or 'no rule ID'}): "
                  f"{o.get('description', '')}" for o in v.get("options", [])]
        return "\n".join(lines)

    async def start_match(self, variant: str, opponents: list[str] | None = None, seat: int = 0,
                          options: Mapping[str, str] | None = None, seed: int | None = None,
                          time_control: Mapping[str, Any] | None = None, timeout_policy: str = "") -> dict[str, Any]:
        opponents = list(opponents or ["house:greedy"])
        if any(not o.startswith("house:") for o in opponents):
            raise ToolFailure("INVALID_ARGUMENT", "INVALID_ARGUMENT", "opponents are house seats (house:greedy, "
                              "house:strong, house:random...); to play a seat someone else holds use join_match")
        variants = {v["id"]: v for v in (await self.list_variants())["variants"]}
        n = int(variants[variant]["num_players"]) if variant in variants else 2
        if len(opponents) == 1:
            opponents *= n - 1
        if len(opponents) != n - 1 or not 0 <= seat < n:
            raise ToolFailure("INVALID_ARGUMENT", "INVALID_ARGUMENT", f"{variant} has {n} seats: give {n - 1} opponents "
                              f"(or one for all) and a seat in 0..{n - 1}")
        names = opponents[:seat] + ["agent"] + opponents[seat:]
        created = await self._api(self.client.create_match(
            variant, dict(options or {}), names, seed, time_control=time_control, timeout_policy=timeout_policy or None,
            admin_token=self.admin_token))
        s = self._keep(Seat(secrets.token_hex(8), created.match_id, seat, created.tokens[seat]))
        return await self.state(s.handle, 0.0)

    async def join_match(self, match_id: str, seat: int, token: str) -> dict[str, Any]:
        info = await self._api(self.client.information_set(match_id, seat, token))  # checks the token
        s = self._keep(Seat(secrets.token_hex(8), match_id, seat, token))
        return self._shown(s, dict(info))

    async def _wait_turn(self, s: Seat, info: dict[str, Any], wait_s: float) -> dict[str, Any]:
        """``info``, or a later information set in which the seat is to act or the match is over
        (followed on the seat's stream for at most ``wait_s`` seconds)."""
        def ready(i: Mapping[str, Any]) -> bool:
            return bool((i.get("match") or {}).get("over")) or (
                int((i.get("deal") or {}).get("to_act", -1)) == s.seat and bool(i.get("legal_actions")))

        if wait_s <= 0 or ready(info):
            return info

        async def follow() -> dict[str, Any] | None:
            async for upd in self.client.stream(s.match_id, s.seat, s.token, from_version=int(info.get("version", 0))):
                if ready(upd["information_set"]):
                    return dict(upd["information_set"])
            return None

        try:
            got = await asyncio.wait_for(follow(), wait_s)
        except TimeoutError:
            got = None
        except BummerlError as e:
            raise ToolFailure.of(e) from None
        return got if got is not None else dict(await self._api(self.client.information_set(s.match_id, s.seat, s.token)))

    async def state(self, handle: str | None, wait_for_turn_s: float = 0.0) -> dict[str, Any]:
        s = self.seat_of(handle)
        info = dict(await self._api(self.client.information_set(s.match_id, s.seat, s.token)))
        return self._shown(s, await self._wait_turn(s, info, min(max(wait_for_turn_s, 0.0), 120.0)))

    async def legal_actions(self, handle: str | None) -> dict[str, Any]:
        got = await self.state(handle)
        return {"handle": got["handle"], "version": got["version"], "legal_actions": got["legal_actions"]}

    async def act(self, action: str | int, handle: str | None = None, expected_version: int | None = None,
                  wait_for_turn_s: float = DEFAULT_WAIT_S) -> dict[str, Any]:
        s = self.seat_of(handle)
        if s.seen is None and expected_version is None:
            await self.state(s.handle)
        seen = s.seen or {}
        version = int(expected_version if expected_version is not None else seen.get("version", 0))
        chosen: int | str = action
        resolved = resolve_action(seen.get("legal_actions", []) or [], action)
        if resolved is not None:
            chosen = resolved
        elif isinstance(action, str) and action.strip().lstrip("-").isdigit():
            chosen = int(action.strip())
        resp = await self._api(self.client.submit_action(s.match_id, s.seat, s.token, version, chosen))
        info = dict(resp["information_set"])
        out = self._shown(s, await self._wait_turn(s, info, min(max(wait_for_turn_s, 0.0), 120.0)))
        out["applied"] = {"action": chosen if isinstance(chosen, int) else str(chosen), "at_version": version,
                          "duplicate": bool(resp.get("duplicate", False))}
        return out

    async def resign(self, handle: str | None) -> dict[str, Any]:
        s = self.seat_of(handle)
        resp = await self._api(self.client.resign(s.match_id, s.seat, s.token))
        return {"handle": s.handle, "match_id": s.match_id, "seat": s.seat, "version": int(resp.get("version", 0)),
                "match_result": resp.get("match_result", {})}

    async def record(self, handle: str | None = None, match_id: str | None = None) -> dict[str, Any]:
        mid = match_id or self.seat_of(handle).match_id
        return dict(await self._api(self.client.match_record(mid)))  # public: never the admin token


# ----------------------------------------------------------------- the MCP face

Handle = Annotated[str | None, Field(description="the seat's handle from start_match / join_match (over stdio it "
                                                "may be left out: the seat started or joined last)")]
WaitS = Annotated[float, Field(description="seconds to wait until the seat is to act (or the match is over); 0 = now",
                               ge=0, le=120)]


def build_server(target: str, admin_token: str | None = None, single_client: bool = True,
                 tools: SeatTools | None = None) -> MCPServer[Any]:
    """The ``mcp.server.mcpserver.MCPServer`` with the tools of the module docstring, over a
    :class:`SeatTools` for the Bummerl server at ``target``. Raises ImportError (with the extra to
    install) without the ``mcp`` package."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.types import CallToolResult, TextContent
    except ImportError as e:
        raise ImportError(f"bummerl mcp needs the mcp package: pip install 'bummerl[agents]' ({e})") from None
    import json

    t = tools or SeatTools(target, admin_token, single_client)
    server: MCPServer[Any] = MCPServer(name="bummerl", instructions=(
        "Play card games of the Schnapsen family on a Bummerl server. list_variants, get_rules, then start_match "
        "(against house bots) or join_match (a seat token); get_state shows your hand and the legal actions; act "
        "with an action's text or id. Errors start with the API's reason code (STALE_VERSION: call get_state and "
        "decide again)."))

    def ok(result: Mapping[str, Any], text: str | None = None) -> Any:
        body = text if text is not None else json.dumps(result, indent=1)
        return CallToolResult(content=[TextContent(type="text", text=body)], structured_content=dict(result))

    def failed(f: ToolFailure) -> Any:
        text = f"{f.reason}: {f.details}" + (f" (current version {f.current_version})" if f.current_version else "")
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=f.payload(),
                              is_error=True)

    async def guarded(coro: Any, render: Any = None) -> Any:
        try:
            result = await coro
        except ToolFailure as f:
            return failed(f)
        return ok(result, render(result) if render else None)

    def state_render(r: Mapping[str, Any]) -> str:
        return f"handle {r['handle']} · match {r['match_id']} · seat {r['seat']}\n{r['text']}"

    @server.tool(structured_output=False)
    async def list_variants() -> Any:
        """The variants this server plays: id, name, number of players, options with defaults."""
        return await guarded(t.list_variants())

    @server.tool(structured_output=False)
    async def get_rules(variant: Annotated[str, Field(description="variant id, e.g. schnapsen-at")],
                        full: Annotated[bool, Field(description="the whole RULES.md section with citations")] = False,
                        ) -> Any:
        """The rules of a variant: a summary, one line per rule ID (AT-DECK-1: ...), or with full=true its
        whole section of docs/RULES.md. Also the resource bummerl://rules/{variant}."""
        async def go() -> dict[str, Any]:
            return {"variant": variant, "rules": await t.rules(variant, full)}
        return await guarded(go(), lambda r: r["rules"])

    @server.resource("bummerl://rules/{variant}", mime_type="text/markdown")
    async def rules_resource(variant: str) -> str:
        """The rules summary (rule IDs) of a variant, from docs/RULES.md."""
        return await t.rules(variant, False)

    @server.tool(structured_output=False)
    async def start_match(
        variant: Annotated[str, Field(description="variant id (list_variants)")],
        opponents: Annotated[list[str] | None, Field(description="house bots for the other seats, e.g. "
                                                     "['house:greedy'] (one is used for every other seat)")] = None,
        seat: Annotated[int, Field(description="your seat, 0-based", ge=0, le=3)] = 0,
        options: Annotated[dict[str, str] | None, Field(description="table options (list_variants), as strings")] = None,
        seed: Annotated[int | None, Field(description="deck seed for a repeatable match")] = None,
        time_control: Annotated[dict[str, Any] | None, Field(description="{base_ms, increment_ms, move_cap_ms, "
                                                             "scope: match|deal}, milliseconds; none = untimed")] = None,
        timeout_policy: Annotated[str, Field(description="forfeit-match (default), forfeit-deal or default-move")] = "",
    ) -> Any:
        """Start a match against house bots; returns your seat's handle and state."""
        return await guarded(t.start_match(variant, opponents, seat, options, seed, time_control, timeout_policy),
                             state_render)

    @server.tool(structured_output=False)
    async def join_match(match_id: str, seat: Annotated[int, Field(ge=0, le=3)],
                         token: Annotated[str, Field(description="the seat token CreateMatch gave for this seat")],
                         ) -> Any:
        """Join a seat of an existing match with its seat token; returns the seat's handle and state."""
        return await guarded(t.join_match(match_id, seat, token), state_render)

    @server.tool(structured_output=False)
    async def get_state(handle: Handle = None, wait_for_turn_s: WaitS = 0.0) -> Any:
        """Your seat's state: compact text (hand, trump, talon, trick, scores, whose turn, clock, legal
        actions) and the JSON information set (structuredContent.information_set)."""
        return await guarded(t.state(handle, wait_for_turn_s), state_render)

    @server.tool(structured_output=False)
    async def legal_actions(handle: Handle = None) -> Any:
        """The legal actions of your seat now: [{id, text, kind}] (empty when it is not your turn)."""
        return await guarded(t.legal_actions(handle), lambda r: "\n".join(
            f"[{a['id']}] {a['text']}" for a in r["legal_actions"]) or "no legal action (not your turn)")

    @server.tool(structured_output=False)
    async def act(
        action: Annotated[str, Field(description="a legal action's text ('play QH', 'close', 'pass'), its id "
                                                 "('12') or a card ('QH')")],
        handle: Handle = None,
        expected_version: Annotated[int | None, Field(description="the version you decided on; default: the "
                                                      "state last shown to you")] = None,
        wait_for_turn_s: WaitS = DEFAULT_WAIT_S,
    ) -> Any:
        """Play an action. Refused with STALE_VERSION when the state changed since you last saw it (call
        get_state), ILLEGAL_ACTION, NOT_YOUR_TURN, INVALID_ACTION... Returns the state after it, once it is
        your turn again (or the match is over, or wait_for_turn_s passed)."""
        return await guarded(t.act(action, handle, expected_version, wait_for_turn_s), state_render)

    @server.tool(structured_output=False)
    async def resign(handle: Handle = None) -> Any:
        """Resign your seat: the match ends, lost for your side."""
        return await guarded(t.resign(handle))

    @server.tool(structured_output=False)
    async def match_record(handle: Handle = None,
                           match_id: Annotated[str | None, Field(description="any match id, instead of a handle")] = None,
                           ) -> Any:
        """The public match record (actions, results); hidden cards only once the match revealed them."""
        return await guarded(t.record(handle, match_id))

    return server


def serve(target: str, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765,
          admin_token: str | None = None) -> None:
    """Run ``bummerl mcp`` until stopped: ``transport`` ``stdio`` or ``http`` (streamable HTTP on
    ``http://HOST:PORT/mcp``). Blocks."""
    server = build_server(target, admin_token, single_client=transport == "stdio")
    if transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=port)
