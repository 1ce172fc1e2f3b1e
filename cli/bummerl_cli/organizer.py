"""The organizer's commands against a running server (issue 21): bots and ladders.

    bummerl bot register NAME [--description TEXT]       (prints the bot token once)
    bummerl bot list | revoke NAME | rotate-token NAME | delete NAME
    bummerl ladder create --variant V --bots a,b,c [--format round_robin] [--deals N | --matches N]
                          [--tc 5+0.1] [--start-when-connected [--connect-timeout S]]    (prints the id)
    bummerl ladder list | watch ID | leaderboard ID [--pooled] | crosstable ID
    bummerl ladder games ID [--state planned|running|finished] | stop ID | pause ID | resume ID
    bummerl ladder create --format swiss --rounds N | --format knockout [--seeding listed|rating]
    bummerl ladder pairings ID [--round R] | bracket ID

Every command takes ``--server HOST:PORT`` (default ``BUMMERL_SERVER`` or localhost:50051),
``--admin-token`` (default ``BUMMERL_ADMIN_TOKEN``) and ``--json`` (machine output on stdout).
Bots are named by name or id. Tables are drawn with rich. The flags of these commands are added
by :mod:`.bot` and :mod:`.ladder`; :func:`dispatch` runs one of :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

from rich.live import Live
from rich.table import Table
from rich.text import Text

from bummerl_client import AsyncClient

from .common import (
    FORMATS,
    SafeTable,
    add_columns,
    admin_of,
    counted,
    elo_cell,
    leaderboard_table,
    out_console,
    safe,
    server_of,
    set_word,
    sprt_fields,
    time_control_fields,
)
from .pairings import STAGED, bracket_table, pairings_tables, plan_fields


def _short(enum: Any, prefix: str) -> str:
    return str(enum).removeprefix(prefix).lower()


def _ms(ts: Any) -> str:
    t = int(ts or 0)
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t / 1000)) if t else "-"


def _absent(lad: Mapping[str, Any]) -> list[str]:
    """Names of the ladder's bots that hold no assignment stream, while it runs (once it ended,
    every bot has left, and ``ladder run``'s throwaway bots are gone: nobody is missing)."""
    if _short(lad.get("status"), "LADDER_STATUS_") != "running":
        return []
    return [lad.get("bot_names", {}).get(b, b) for b in lad.get("absent_bots", [])]


def result_line(r: Mapping[str, Any], names: dict[str, str]) -> str:
    """One finished ladder game for people: ``game 10: alice 1 - bob 0 (disconnect)``, each bot by
    name with its score (0, 0.5 or 1; a placement score in 3-4 seat games)."""
    scores = [float(x) for x in r.get("scores") or ()]
    seats = " - ".join(f"{names.get(b, b)} {s:g}" for b, s in zip(r.get("bots") or (), scores, strict=False))
    return f"game {r.get('game')}: {seats or r.get('scores')} ({r.get('reason')})"


def _stat_cells(st: Mapping[str, Any]) -> list[str]:
    """games, W/D/L, faults (timeouts / illegal answers / crashes), think p50/p99 of a BotStats."""
    p50, p99 = int(st.get("think_ms_p50", -1)), int(st.get("think_ms_p99", -1))
    return [str(st.get("games", 0)), f"{st.get('wins', 0)}/{st.get('draws', 0)}/{st.get('losses', 0)}",
            f"{st.get('timeouts', 0)} timeout, {st.get('illegal_actions', 0)} illegal, {st.get('disconnects', 0)} crash",
            f"{p50}/{p99}" if p50 >= 0 else "-"]


class Organizer:
    """One command's connection and output."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.client = AsyncClient(server_of(args))
        self.console = out_console()
        self.admin = admin_of(args)

    def out(self, data: Any, table: Callable[[], Table | str]) -> None:
        if self.args.json:
            print(json.dumps(data))
            return
        shown = table()
        if isinstance(shown, str):  # plain lines (ids, tokens): never wrapped at the terminal's width
            self.console.print(safe(shown, keep_newlines=True), soft_wrap=True, markup=False, highlight=False)
        else:
            self.console.print(shown)

    async def bot_id(self, name_or_id: str) -> str:
        for b in await self.client.list_bots():
            if name_or_id in (b["bot_id"], b["name"]) and not b.get("deleted"):
                return str(b["bot_id"])
        raise ValueError(f"no bot named {name_or_id!r} (bummerl bot list shows them)")

    async def names(self) -> dict[str, str]:
        return {b["bot_id"]: b["name"] for b in await self.client.list_bots()}

    # ---------------------------------------------------------------- bots
    async def bot_register(self) -> None:
        got = await self.client.register_bot(self.args.name, self.args.description, admin_token=self.admin)
        self.out(got, lambda: f"registered {got['name']} ({got['bot_id']})\nbot token (shown once): {got['bot_token']}")

    async def bot_list(self) -> None:
        bots = await self.client.list_bots()
        if not getattr(self.args, "all", False):  # a deleted bot's name is free: a new bot may have it
            bots = [b for b in bots if not b.get("deleted")]

        def table() -> Table:
            t = SafeTable(title="Bots")
            add_columns(t, ("name", "id", "version", "connected", "since", "client", "status", "games", "W/D/L",
                             "faults", "think p50/p99 ms"))
            for b in bots:
                status = "deleted" if b.get("deleted") else "revoked" if b.get("revoked") else "active"
                st = b.get("stats") or {}
                versions = len(b.get("versions") or ())
                version = (b.get("version") or "-") + (f" ({versions})" if versions > 1 else "")
                t.add_row(b["name"], b["bot_id"], version, "yes" if b.get("connected") else "no",
                          _ms(b.get("connected_since_ms")) if b.get("connected") else "-", b.get("client") or "-", status,
                          *_stat_cells(st))
            return t

        self.out(bots, table)

    async def bot_update(self) -> None:
        """Publish a new version of a bot (admin token, or the bot's own ``--token``)."""
        bot_id = await self.bot_id(self.args.name)
        token = self.args.token or os.environ.get("BUMMERL_BOT_TOKEN") or self.admin
        got = await self.client.publish_version(bot_id, self.args.version, self.args.note, token)
        self.out(got, lambda: f"{got['name']} is at version {got['version']} "
                              f"({len(got.get('versions') or ())} versions)")

    async def bot_change(self) -> None:
        bot_id = await self.bot_id(self.args.name)
        cmd = self.args.bot_cmd
        if cmd == "rotate-token":
            got = await self.client.rotate_bot_token(bot_id, admin_token=self.admin)
            self.out(got, lambda: f"new bot token of {got['name']} (shown once; the old one no longer works): "
                                  f"{got['bot_token']}")
            return
        fn = self.client.revoke_bot if cmd == "revoke" else self.client.delete_bot
        changed = await fn(bot_id, admin_token=self.admin)
        self.out(changed, lambda: f"{cmd}d {changed['name']} ({changed['bot_id']})")

    # ---------------------------------------------------------------- ladders
    async def ladder_create(self) -> None:
        a = self.args
        ids = [await self.bot_id(n.strip()) for n in a.bots.split(",") if n.strip()]
        fields: dict[str, Any] = {
            "name": a.name or "", "variant": a.variant, "bot_ids": ids, "format": FORMATS[a.format],
            "duplicate_deals": not a.no_duplicate,
            **plan_fields(a.format, a.deals or a.matches, a.rounds, a.seeding, len(ids), "bummerl ladder create",
                          a.minutes),
            "deals_per_game": 1 if a.deals else 0, "concurrency": a.concurrency,
            "timeout_policy": a.timeout_policy, "start_when_connected": a.start_when_connected,
        }
        if a.seed is not None:
            fields["seed"] = a.seed
        if a.connect_timeout:
            fields["connect_timeout_ms"] = str(int(a.connect_timeout * 1000))
        if a.tc:
            fields["time_control"] = time_control_fields(a.tc, "bummerl ladder create")
        if a.format == "sprt":
            fields["sprt"] = sprt_fields(a.sprt)
        for opt in a.option:
            k, _, v = opt.partition("=")
            fields.setdefault("options", {})[k] = v
        lad = await self.client.create_ladder(admin_token=self.admin, **fields)
        self.out(lad, lambda: lad["ladder_id"])  # the id alone, for L=$(bummerl ladder create ...)
        if not self.args.json:
            print(f"ladder {lad['ladder_id']}: {counted(int(lad['matches_total']), 'game')}", file=sys.stderr)

    async def ladder_list(self) -> None:
        ladders = await self.client.list_ladders()

        def table() -> Table:
            t = SafeTable(title="Ladders")
            add_columns(t, ("id", "name", "variant", "format", "status", "played", "running", "total", "absent bots"))
            for lad in ladders:
                t.add_row(lad["ladder_id"], lad.get("name", ""), lad["variant"],
                          _short(lad.get("format"), "LADDER_FORMAT_"), _short(lad.get("status"), "LADDER_STATUS_"),
                          str(lad.get("matches_played", 0)), str(lad.get("matches_running", 0)),
                          str(lad.get("matches_total", 0)),
                          ", ".join(_absent(lad)) or "-")
            return t

        self.out(ladders, table)

    def board_tables(self, lad: Mapping[str, Any], board: Mapping[str, Any]) -> Table:
        names = lad.get("bot_names", {})
        seats = int(lad.get("num_players") or 2)
        outer = SafeTable.grid()
        outer.add_row(leaderboard_table(board, names, seats))
        pairs = SafeTable(title="Pairs (Elo of a over b, 95% CI; LOS)")
        add_columns(pairs, ("a", "b", "Elo", "LOS", set_word(seats), "games", "SPRT LLR", "SPRT"))
        for p in board.get("pairs", []):
            pairs.add_row(names.get(p["a"], p["a"]), names.get(p["b"], p["b"]), elo_cell(p, seats),
                          f"{float(p.get('los', 0.5)):.3f}", str(p.get("deal_pairs", 0)), str(p.get("games", 0)),
                          f"{float(p.get('sprt_llr', 0.0)):.2f}", p.get("sprt_result", "") or "-")
        outer.add_row(pairs)
        stats = SafeTable(title="Bot statistics (this ladder)")
        add_columns(stats, ("bot", "games", "W/D/L", "faults", "think p50/p99 ms", "time left ms"))
        for e in board.get("entries", []):
            st = e.get("stats") or {}
            left = int(st.get("time_left_ms", -1))
            stats.add_row(e["name"], *_stat_cells(st), str(left) if left >= 0 else "-")
        outer.add_row(stats)
        if any(len(e.get("versions") or ()) > 1 for e in board.get("entries", [])):
            outer.add_row(versions_table(board))
        return outer

    async def ladder_leaderboard(self) -> None:
        lad = await self.client.ladder(self.args.id)
        board = await self.client.leaderboard(self.args.id, pooled=self.args.pooled)
        self.out(board, lambda: self.board_tables(lad, board))

    async def ladder_pairings(self) -> None:
        """Swiss standings with tiebreaks and each round's pairings (``--round R``: that round only),
        or a knockout's bracket."""
        p = await self.client.pairings(self.args.id)
        self.out(p, lambda: pairings_tables(p, self.args.round or 0))

    async def ladder_bracket(self) -> None:
        """A knockout's bracket (a Swiss ladder: its pairings)."""
        p = await self.client.pairings(self.args.id)
        form = str(p.get("format") or "").removeprefix("LADDER_FORMAT_").lower()
        if form not in STAGED:
            raise SystemExit(f"bummerl ladder bracket: ladder {self.args.id} is a {form or 'plain'} ladder, not a "
                             f"knockout")
        self.out(p, lambda: bracket_table(p) if form == "knockout" else pairings_tables(p))

    async def ladder_crosstable(self) -> None:
        """Score of the row bot against the column bot over the games they met in (two seats: its
        points; 3-4 seats: placed ahead = 1, same place = 1/2), as ``score/games``."""
        lad = await self.client.ladder(self.args.id)
        names = lad.get("bot_names", {})
        results = await self.client.ladder_matches(self.args.id)
        bots = list(lad.get("bot_ids", []))
        cell: dict[tuple[str, str], list[float]] = {}
        for r in results:
            rb = list(r["bots"])
            places = [int(x) for x in r.get("placements") or []]
            teams = [int(x) for x in r.get("teams") or range(len(rb))]
            for i, a in enumerate(rb):
                for j, b in enumerate(rb):
                    if i == j or teams[i] == teams[j]:
                        continue
                    if places:
                        s = 1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
                    else:
                        s = float(r["scores"][i])
                    got = cell.setdefault((a, b), [0.0, 0.0])
                    got[0] += s
                    got[1] += 1
        data = {names.get(a, a): {names.get(b, b): {"score": v[0], "games": int(v[1])} for (x, b), v in cell.items()
                                   if x == a} for a in bots}

        def table() -> Table:
            t = SafeTable(title="Cross table (row's score vs column, over the games they met in)")
            t.add_column("")
            for b in bots:
                t.add_column(names.get(b, b), justify="right")
            for a in bots:
                row = []
                for b in bots:
                    v = cell.get((a, b))
                    row.append("-" if a == b else f"{v[0]:g}/{int(v[1])}" if v else "")
                t.add_row(names.get(a, a), *row)
            return t

        self.out(data, table)

    async def ladder_games(self) -> None:
        lad = await self.client.ladder(self.args.id)
        names = lad.get("bot_names", {})
        games = await self.client.ladder_games(self.args.id, self.args.state or "")

        def table() -> Table:
            t = SafeTable(title=f"Games of {self.args.id}")
            add_columns(t, ("game", "set", "leg", "bots", "state", "match"))
            for g in games:
                t.add_row(str(g.get("game", 0)), str(g.get("pair", 0)), str(g.get("leg", 0)),
                          " vs ".join(names.get(b, b) for b in g["bots"]), g["state"], g.get("match_id") or "-")
            return t

        self.out(games, table)

    async def ladder_state(self) -> None:
        fn = {"stop": self.client.stop_ladder, "pause": self.client.pause_ladder,
              "resume": self.client.resume_ladder}[self.args.ladder_cmd]
        lad = await fn(self.args.id, admin_token=self.admin)
        self.out(lad, lambda: f"{lad['ladder_id']}: {_short(lad.get('status'), 'LADDER_STATUS_')}")

    async def ladder_watch(self) -> None:
        """Redraws progress, standings and the last results as the ladder's events arrive, until
        it ends (or Ctrl-C); ``--json`` prints each event as a line instead."""
        lid = self.args.id
        if self.args.json:
            async for ev in self.client.stream_ladder(lid):
                print(json.dumps(ev), flush=True)
            return
        last: list[str] = []

        async def frame() -> Table:
            lad = await self.client.ladder(lid)
            board = await self.client.leaderboard(lid)
            grid = SafeTable.grid()
            status = _short(lad.get("status"), "LADDER_STATUS_")
            head = (f"{lad.get('name') or lid} ({lad['variant']}): {status}, {lad.get('matches_played', 0)}/"
                    f"{lad.get('matches_total', 0)} played, {lad.get('matches_running', 0)} running")
            absent = _absent(lad)
            grid.add_row(head + (f"; absent: {', '.join(absent)}" if absent else ""))
            grid.add_row(self.board_tables(lad, board))
            grid.add_row(Text("\n".join(safe(line) for line in last[-8:]) or "(no result yet)"))
            return grid

        lad_names = (await self.client.ladder(lid)).get("bot_names", {})
        with Live(await frame(), console=self.console, refresh_per_second=2) as live:
            async for ev in self.client.stream_ladder(lid):
                if ev.get("type") == "result":
                    r = ev.get("result", {})
                    last.append(result_line(r, lad_names))
                live.update(await frame())
                if ev.get("type") == "finished":
                    break


COMMANDS = {
    ("bot", "register"): Organizer.bot_register, ("bot", "list"): Organizer.bot_list,
    ("bot", "revoke"): Organizer.bot_change, ("bot", "rotate-token"): Organizer.bot_change,
    ("bot", "delete"): Organizer.bot_change, ("bot", "update"): Organizer.bot_update,
    ("ladder", "create"): Organizer.ladder_create, ("ladder", "list"): Organizer.ladder_list,
    ("ladder", "watch"): Organizer.ladder_watch, ("ladder", "leaderboard"): Organizer.ladder_leaderboard,
    ("ladder", "crosstable"): Organizer.ladder_crosstable, ("ladder", "games"): Organizer.ladder_games,
    ("ladder", "stop"): Organizer.ladder_state, ("ladder", "pause"): Organizer.ladder_state,
    ("ladder", "resume"): Organizer.ladder_state, ("ladder", "pairings"): Organizer.ladder_pairings,
    ("ladder", "bracket"): Organizer.ladder_bracket,
}


def versions_table(board: Mapping[str, Any]) -> Table:
    """Each bot's versions with their own ratings over their games here (issue 37)."""
    t = SafeTable(title="Versions (each its own openskill rating over its games)")
    add_columns(t, ("bot", "version", "games", "ordinal", "mu", "sigma"))
    for e in board.get("entries", []):
        for v in e.get("versions") or ():
            t.add_row(e["name"], v["version"], str(v.get("games", 0)), f"{float(v['ordinal']):.2f}",
                      f"{float(v['mu']):.2f}", f"{float(v['sigma']):.2f}")
    return t


def handles(args: argparse.Namespace) -> bool:
    return (args.cmd, getattr(args, "bot_cmd", None) or getattr(args, "ladder_cmd", None)) in COMMANDS


def dispatch(args: argparse.Namespace) -> int:
    async def go() -> None:
        org = Organizer(args)
        try:
            await org.client.wait_ready(15)
            await COMMANDS[(args.cmd, getattr(args, "bot_cmd", None) or args.ladder_cmd)](org)
        finally:
            await org.client.close()

    try:
        asyncio.run(go())
    except KeyboardInterrupt:
        print(file=sys.stderr)
    return 0
