"""A readable transcript of a match record (``bummerl match show``): each deal's hands and trump,
every card, trick and winner, marriages, exchanges, closing, bids and contracts, the scores, the
result and the times. Derived from the record alone (the record stays the source).

A revealed record (``"revealed": true``: the match and its duplicate set are over, or the caller is
the admin; docs/ACCESS.md) is replayed with the rules engine from its seed, so the transcript shows
every hand as dealt and every laid-away card. An unrevealed record gives what any onlooker may see:
the public actions, no hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bummerl.core.verify import _replay_one, outcome_kind  # _replay_one: the one replay of recorded actions
from bummerl.rules import MatchState, events_between, find_variant, information_set, initial_events
from bummerl.rules.base.views import Event


def _int(x: Any, default: int = 0) -> int:
    try:
        return int(x)
    except (TypeError, ValueError):
        return default


def describe(ev: Mapping[str, Any], names: Sequence[str]) -> str:
    """One public event as a line of text, e.g. ``"bob plays QH"``; "" for a kind it leaves out."""
    def who(seat: Any) -> str:
        s = _int(seat, -1)
        return names[s] if 0 <= s < len(names) else f"seat {s}"

    (kind,) = [k for k in ev if k not in ("version", "deal_number")] or [""]
    f: Mapping[str, Any] = ev.get(kind) or {}
    if kind == "card_played":
        return f"{who(f['seat'])} plays {f['card']}"
    if kind == "trick_completed":
        cards = " ".join(c["card"] for c in f.get("cards", ()))
        return f"trick [{cards}] won by {who(f['winner'])}"
    if kind == "marriage_announced":
        return f"{who(f['seat'])} announces the marriage in {f['suit']} ({f['points']})"
    if kind == "trump_exchanged":
        return f"{who(f['seat'])} exchanges {f['card_down']} for the trump card {f['card_up']}"
    if kind == "talon_closed":
        return f"{who(f['seat'])} closes the talon"
    if kind == "declared":
        ok = "correctly" if f.get("correct") else "falsely"
        return f"{who(f['seat'])} declares 66 {ok} ({f.get('deal_points', 0)} points)"
    if kind == "passed":
        return f"{who(f['seat'])} passes"
    if kind == "bid":
        return f"{who(f['seat'])} bids {f['call']}"
    if kind == "contract":
        level = _int(f.get("kontra_level"))
        return (f"contract {f['name']} by {who(f['declarer'])}"
                + (f", trump {f['trump_suit']}" if f.get("trump_suit") else "")
                + (f", kontra level {level}" if level else ""))
    if kind == "trump_named":
        return f"{who(f['seat'])} names {f['suit']} trump"
    if kind == "cards_laid_away":
        return f"{who(f['seat'])} lays away {f['count']} card(s)"
    if kind == "cards_taken_up":
        return f"{who(f['seat'])} takes up {f['count']} card(s)"
    if kind == "cards_shown":
        return f"{who(f['seat'])} shows {' '.join(f.get('cards', ()))}"
    if kind == "resigned":
        return f"{who(f['seat'])} resigns"
    if kind == "timeout":
        return f"{who(f['seat'])}: {str(f.get('reason', '')).lower()}"
    if kind == "deal_ended":
        r = f["result"]
        gp = r.get("game_points", [])
        winner = _int(r.get("winner"), -1)
        head = f"deal {_int(r.get('deal_number')) + 1} ends: " + (f"{who(winner)} wins" if winner >= 0 else "no winner")
        return (f"{head} ({r.get('reason', '')}), game points {list(map(_int, gp))}, deal points "
                f"{list(map(_int, r.get('deal_points', [])))}, tricks {list(map(_int, r.get('tricks_won', [])))}")
    if kind == "match_ended":
        r = f["result"]
        winner = _int(r.get("winner"), -1)
        return (f"match ends: {who(winner) + ' wins' if winner >= 0 else 'no winner'} ({r.get('reason', '')}), "
                f"game points {list(map(_int, r.get('game_points', [])))}")
    return ""


def entries(rec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The transcript as structured entries, in order: ``{"kind": "match" | "deal" | "action" |
    "event", "deal_number", "text", ...}``; an action entry also has ``version``, ``seat``,
    ``action``, ``think_ms`` and ``timestamp_ms``, a deal entry ``hands`` (card codes per seat,
    revealed records only) and ``dealer``."""
    names = [str(s.get("name", f"seat{i}")) for i, s in enumerate(rec.get("seats") or ())]
    out: list[dict[str, Any]] = [{
        "kind": "match", "deal_number": 0,
        "text": (f"match {rec.get('match_id', '?')}: {rec.get('variant', '?')}, "
                 f"{' vs '.join(names)}" + ("" if rec.get("revealed") else " (hidden cards not revealed)")),
    }]
    if rec.get("revealed") and "seed" in rec:
        out += _replayed(rec, names)
    else:
        out += _public(rec, names)
    if rec.get("match_result") and not any(e["kind"] == "event" and e["text"].lstrip().startswith("match ends") for e in out):
        out.append({"kind": "event", "deal_number": -1,
                    "text": describe({"match_ended": {"result": rec["match_result"]}}, names)})
    return out


def _action_entry(act: Mapping[str, Any], names: Sequence[str]) -> dict[str, Any]:
    seat = _int(act.get("seat"))
    think = _int(act.get("think_ms"), -1)
    who = names[seat] if 0 <= seat < len(names) else f"seat {seat}"
    kind = outcome_kind(act.get("kind") or "NORMAL")
    text = f"v{_int(act.get('version'))} {who}: {act.get('action_text', '')}"
    if kind != "NORMAL":
        text += f" [{kind}]"
    if think >= 0:
        text += f" ({think} ms)"
    return {"kind": "action", "deal_number": _int(act.get("deal_number")), "version": _int(act.get("version")),
            "seat": seat, "action": act.get("action_text", ""), "think_ms": think,
            "timestamp_ms": _int(act.get("timestamp_ms")), "text": text}


def _public(rec: Mapping[str, Any], names: Sequence[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    deals = {_int(d.get("deal_number")): d for d in rec.get("deals") or ()}
    shown = -1
    for act in rec.get("actions") or ():
        n = _int(act.get("deal_number"))
        if n != shown:
            shown = n
            out.append({"kind": "deal", "deal_number": n, "dealer": _int(deals.get(n, {}).get("dealer")),
                        "text": f"deal {n + 1}"})
        out.append(_action_entry(act, names))
        result = deals.get(n, {}).get("result")
        nxt = [a for a in rec.get("actions") or () if _int(a.get("version")) == _int(act.get("version")) + 1]
        if result and (not nxt or _int(nxt[0].get("deal_number")) != n):
            out.append({"kind": "event", "deal_number": n, "text": describe({"deal_ended": {"result": result}}, names)})
    return out


def _replayed(rec: Mapping[str, Any], names: Sequence[str]) -> list[dict[str, Any]]:
    rules = find_variant(str(rec["variant"])).configure({k: str(v) for k, v in (rec.get("options") or {}).items()})
    m = MatchState(rules, _int(rec["seed"]), max_deals=_int(rec.get("max_deals")),
                   suit_perm=tuple(_int(s) for s in rec.get("suit_perm") or ()))
    out: list[dict[str, Any]] = []
    shown = -1

    def deal_header() -> None:
        nonlocal shown
        shown = m.deal_number
        hands = [list(information_set(m, s)["deal"]["hand"]) for s in range(len(names))]
        first: list[Event] = initial_events(m)[:1]
        trump = ""
        if first and "deal_started" in first[0]:
            ds = first[0]["deal_started"]
            trump = ds.get("trump_card") or ds.get("trump_suit") or ""
        lines = [f"deal {m.deal_number + 1}" + (f", trump {trump}" if trump else "")]
        lines += [f"  {names[s]}: {' '.join(h)}" for s, h in enumerate(hands) if h]
        out.append({"kind": "deal", "deal_number": m.deal_number, "hands": hands, "text": "\n".join(lines)})

    deal_header()
    for i, act in enumerate(rec.get("actions") or ()):
        before = m.copy()
        out.append(_action_entry(act, names))
        _replay_one(m, act, i, str(rec.get("match_id", "?")))
        for ev in events_between(before, m):
            if "deal_started" in ev or "card_played" in ev:
                continue  # the action line says the card; the next deal gets its own header
            text = describe(ev, names)
            if text:
                out.append({"kind": "event", "deal_number": ev["deal_number"], "text": "  " + text})
        if m.deal_number != shown and not m.over:
            deal_header()
    return out


def text(rec: Mapping[str, Any]) -> str:
    """The transcript as text, one line per entry (a deal's hands on their own lines)."""
    return "\n".join(e["text"] for e in entries(rec)) + "\n"
