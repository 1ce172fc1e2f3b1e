"""What a match shows of itself afterwards: its public summary, its record and what each seat
did (:meth:`~bummerl.core.matches.MatchService.summary`, ``record``, ``seat_stats``), built from a
loaded version. Pure: the service loads the match and decides what may be revealed.
"""

from __future__ import annotations

from typing import Any

from bummerl.rules import MatchState, action_to_string, actions, information_set, match_result
from bummerl.rules.base.cards import card_code

from .cache import Loaded
from .clocks import DEFAULT_TIMEOUT_POLICY
from .log import LogEntry, OutcomeKind


def match_summary(match_id: str, version: int, m: MatchState, meta: dict[str, Any]) -> dict[str, Any]:
    """The public summary of a match at ``version`` (``MatchSummary`` shape) from its state and meta."""
    opts = information_set(m, 0)["options"]
    team = m.rules.spec.team_of_seat
    return {
        "match_id": match_id,
        "variant": m.rules.spec.id,
        "options": opts,
        "seats": [{"seat": i, "name": n, "team": team[i]} for i, n in enumerate(meta["seats"])],
        "team_of_seat": list(team),
        "version": version,
        "over": m.over,
        "created_at_ms": meta["created_at_ms"],
        "timeout_policy": meta.get("timeout_policy", DEFAULT_TIMEOUT_POLICY),
        "idle_limit_ms": int(meta.get("idle_limit_ms") or 0),
        "watch": meta.get("watch") or {"access": "public", "delay_moves": 0},
        **({"time_control": meta["time_control"]} if meta.get("time_control") else {}),
        **({"deck_commitment": meta["deck_commitment"]} if meta.get("deck_commitment") else {}),
    }


def build_record(match_id: str, ld: Loaded, show: bool) -> dict[str, Any]:
    """The record of the loaded match (shape of :meth:`~bummerl.core.matches.MatchService.record`);
    ``show``: the hidden cards may be shown (seed, salt, suit relabelling, deck orders, hidden
    actions). Not shown, a ladder game's actions show only their kind."""
    m = ld.state
    # a ladder game whose duplicate set runs on: every card is hidden, the public ones too, since
    # the other legs deal the same cards (relabelled) to other seats
    kinds_only = not show and bool(ld.meta.get("ladder_id"))
    summary = match_summary(match_id, ld.version, m, ld.meta)
    acts = []
    for i, raw in enumerate(ld.entries):
        e = LogEntry.of(raw)
        seat, a, ts, dn = e.seat, e.action, e.at_ms, e.deal
        hidden = not show and not isinstance(a, str) and (
            kinds_only or actions.action_kind(a) in actions.HIDDEN_KINDS)
        acts.append({
            "version": i + 2, "seat": seat, "action_id": -1 if isinstance(a, str) or hidden else a,
            "action_text": a if isinstance(a, str) else actions.action_kind(a) if hidden else action_to_string(a),
            "timestamp_ms": ts, "deal_number": dn,
            "kind": e.outcome, "think_ms": e.think_ms, "clock_ms": e.clock_ms,
        })
    deals = []
    for n in range(m.deal_number + 1):
        hist = m.histories[n] if n < len(m.histories) else m.deal.history
        deal: dict[str, Any] = {"deal_number": n, "dealer": hist[0][1]}
        if show:
            deal["deck_order"] = [card_code(c) for c in m.deck_for(n)]
        if n < len(m.results):
            deal["result"] = m.results[n].to_dict()
        deals.append(deal)
    rec: dict[str, Any] = {
        "match_id": match_id,
        "variant": summary["variant"],
        "options": summary["options"],
        "seats": summary["seats"],
        "team_of_seat": summary["team_of_seat"],
        "deals": deals,
        "actions": acts,
        "over": m.over,
        "version": ld.version,
        "created_at_ms": summary["created_at_ms"],
        "timeout_policy": summary["timeout_policy"],
    }
    if summary.get("time_control"):
        rec["time_control"] = summary["time_control"]
    if summary.get("deck_commitment"):
        rec["deck_commitment"] = summary["deck_commitment"]
    rec["max_deals"] = m.max_deals
    rec["revealed"] = show
    if show:
        rec["seed"] = m.seed
        rec["suit_perm"] = list(m.suit_perm)
        if ld.meta.get("deck_salt"):
            rec["deck_salt"] = ld.meta["deck_salt"]
    if m.over:
        rec["match_result"] = match_result(m)
    return rec


def seat_stats(ld: Loaded) -> list[dict[str, Any]]:
    """What each seat did in the loaded match (shape of
    :meth:`~bummerl.core.matches.MatchService.seat_stats`)."""
    n = ld.state.rules.spec.num_players
    out: list[dict[str, Any]] = [{"actions": 0, "timeouts": 0, "illegal_actions": 0, "disconnects": 0,
                                  "think_ms": [], "time_left_ms": -1} for _ in range(n)]
    prev = int(ld.meta.get("created_at_ms") or 0)
    for raw in ld.entries:
        e = LogEntry.of(raw)
        seat, ts, kind = int(e.seat), int(e.at_ms), e.outcome
        st = out[seat] if 0 <= seat < n else None
        if st is not None:
            if kind == OutcomeKind.NORMAL:
                st["actions"] += 1
                think = int(e.think_ms) if int(e.think_ms) >= 0 else ts - prev
                st["think_ms"].append(max(0, think))
                if int(e.clock_ms) >= 0:
                    st["time_left_ms"] = int(e.clock_ms)
            elif kind == OutcomeKind.TIMEOUT:
                st["timeouts"] += 1
            elif kind == OutcomeKind.ILLEGAL:
                st["illegal_actions"] += 1
            elif kind == OutcomeKind.DISCONNECT:
                st["disconnects"] += 1
        prev = ts
    return out
