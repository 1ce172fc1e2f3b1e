"""Text for agents and language models: a seat's information set as compact text
(:func:`state_text`), its legal actions (:func:`action_lines`), the rules of a variant from
docs/RULES.md (:func:`rules_section`, :func:`rules_summary`) and the resolution of an action an
agent names (:func:`resolve_action`). Pure functions over the served JSON of an ``InformationSet``
(proto field names, int64 fields as decimal strings); no network, no ``mcp`` or ``openai``
import: the MCP server (:mod:`.mcp_server`) and the ``llm:`` seat (:mod:`.llm`) share them.

Everything rendered comes from the information set the server gave the seat, so the text holds no
card the seat may not see (RULES.md §14.3; tests/clients/test_mcp.py checks it on every variant).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["action_lines", "default_action", "resolve_action", "rules_path", "rules_section", "rules_summary",
           "state_text"]

_SUITS = {"C": "clubs", "S": "spades", "H": "hearts", "D": "diamonds"}
_RULE = re.compile(r"^- \*\*([A-Z0-9][A-Z0-9-]*-\d+[a-z]?)\*\*(.*)$")
_SECTION = re.compile(r"^## (\d+)\. `([a-z0-9-]+)`")


def _short(value: str) -> str:
    """``"TALON_STATE_OPEN"`` -> ``"open"``, ``"PHASE_LEAD"`` -> ``"lead"``."""
    for prefix in ("TALON_STATE_", "PHASE_", "SCORE_DIRECTION_", "TIME_CONTROL_SCOPE_"):
        if value.startswith(prefix):
            return value[len(prefix):].lower().replace("_", " ")
    return value


def _event_line(ev: Mapping[str, Any]) -> str:
    """One public event of the deal's history as ``kind: key=value ...``."""
    for kind, body in ev.items():
        if kind in ("version", "deal_number"):
            continue
        if isinstance(body, Mapping):
            parts = []
            for k, v in body.items():
                if v in ("", [], None) or k == "hand_sizes":
                    continue
                if isinstance(v, list) and v and isinstance(v[0], Mapping) and "card" in v[0]:
                    v = " ".join(f"{c.get('card')}(seat {c.get('seat')})" for c in v)
                parts.append(f"{k}={v}")
            return f"{kind}: {' '.join(parts)}".strip()
        return f"{kind}: {body}"
    return ""


def _clock_line(info: Mapping[str, Any], seat: int) -> str:
    parts = []
    for c in info.get("clocks", []) or []:
        s = int(c.get("seat", -1))
        who = "you" if s == seat else f"seat {s}"
        left = int(c.get("remaining_ms", 0) or 0) / 1000
        text = f"{who} {left:.1f} s"
        if c.get("running"):
            text += f" (running; {int(c.get('move_remaining_ms', 0) or 0) / 1000:.1f} s for this move)"
        parts.append(text)
    return "Clocks: " + ", ".join(parts) if parts else ""


def state_text(info: Mapping[str, Any], recent_events: int = 12) -> str:
    """The seat's information set ``info`` (served JSON) as compact text: variant, seat, version,
    match score, trump and talon, the hand, the trick on the table, whose turn, the clocks, the
    last ``recent_events`` public events of the deal and the legal actions (``[id] text``)."""
    seat = int(info.get("seat", 0))
    deal: Mapping[str, Any] = info.get("deal", {}) or {}
    match: Mapping[str, Any] = info.get("match", {}) or {}
    n = int(info.get("num_seats", 2) or 2)
    lines = [f"{info.get('variant', '?')}: you are seat {seat} of {n}; version {info.get('version', '?')}"]
    teams = info.get("team_of_seat") or []
    if teams and len(set(teams)) < len(teams):
        lines.append("Teams: " + ", ".join(f"seat {s}: team {t}" for s, t in enumerate(teams)))
    gp = match.get("game_points", [])
    target = match.get("target", "?")
    direction = _short(str(match.get("direction", "")))
    lines.append(f"Match: game points {list(gp)} (target {target}, counting {direction or 'up'}); "
                 f"deal {int(match.get('deal_number', 0)) + 1}, dealer seat {match.get('dealer', '?')}")
    if match.get("over"):
        winner = int(match.get("winner", -1))
        lines.append("MATCH OVER: " + ("drawn" if winner < 0 else "you won" if winner == seat else f"seat {winner} won"))
    trump = str(deal.get("trump_suit", "") or "")
    trump_card = str(deal.get("trump_card", "") or "")
    if trump or trump_card:
        t = f"Trump: {trump} ({_SUITS.get(trump, trump)})" if trump else "Trump: none yet"
        if trump_card:
            t += f", trump card {trump_card}"
        lines.append(t)
    talon = int(deal.get("talon_size", 0) or 0)
    tstate = _short(str(deal.get("talon_state", "") or ""))
    if talon or (tstate and tstate != "unspecified"):
        closed_by = int(deal.get("closed_by", -1))
        lines.append(f"Talon: {talon} cards, {tstate}" + (f" (closed by seat {closed_by})" if closed_by >= 0 else ""))
    auction = deal.get("auction") or {}
    contract = auction.get("contract") if isinstance(auction, Mapping) else None
    if contract and contract.get("name"):
        lines.append(f"Contract: {contract['name']} by seat {contract.get('declarer')}"
                     + (f", partners {contract.get('partners')}" if contract.get("partners") else "")
                     + (f", kontra level {contract.get('kontra_level')}" if contract.get("kontra_level") else ""))
    bids = auction.get("bids", []) if isinstance(auction, Mapping) else []
    if bids:
        lines.append("Bids: " + "; ".join(_event_line({"bid": b}).removeprefix("bid: ") for b in bids))
    active = [int(x) for x in deal.get("seats", []) or []]
    if active and len(active) < n:
        lines.append("Playing this deal: " + ", ".join(f"seat {x}" for x in active)
                     + ("" if seat in active else " (you sit out this deal)"))
    lines.append("Your hand: " + (" ".join(deal.get("hand", []) or []) or "(empty)"))
    for key, label in (("laid_away", "You laid away"), ("laid_away_taken_up", "Taken up")):
        cards = deal.get(key) or []
        if cards:
            lines.append(f"{label}: " + " ".join(str(c) for c in cards))
    own = deal.get("own_tricks")
    if isinstance(own, Mapping) and own.get("won_cards"):
        lines.append(f"Your won cards: {' '.join(own['won_cards'])} (deal points {own.get('deal_points', '?')})")
    sizes = deal.get("hand_sizes", [])
    if sizes:
        lines.append("Hand sizes: " + ", ".join(f"seat {s}: {k}" for s, k in enumerate(sizes))
                     + "; tricks won: " + ", ".join(str(t) for t in deal.get("tricks_won", [])))
    trick = deal.get("current_trick", []) or []
    on_table = " ".join(f"{c.get('card')}(seat {c.get('seat')})" for c in trick) or "empty"
    lines.append(f"Trick {int(deal.get('trick_number', 0) or 0) + 1} on the table: {on_table}")
    marriages = deal.get("marriages", []) or []
    if marriages:
        lines.append("Marriages: " + "; ".join(_event_line({"marriage": m}).removeprefix("marriage: ") for m in marriages))
    to_act = int(deal.get("to_act", -1))
    phase = _short(str(deal.get("phase", "")))
    lines.append(f"To act: {'you' if to_act == seat else f'seat {to_act}' if to_act >= 0 else 'nobody'}"
                 + (f" (phase {phase})" if phase else ""))
    clock = _clock_line(info, seat)
    if clock:
        lines.append(clock)
    history = [e for e in (deal.get("history", []) or []) if _event_line(e)]
    if history and recent_events > 0:
        lines.append(f"Last events of this deal ({min(len(history), recent_events)} of {len(history)}):")
        lines.extend("  " + _event_line(e) for e in history[-recent_events:])
    legal = info.get("legal_actions", []) or []
    if legal:
        lines.append("Legal actions:")
        lines.extend("  " + line for line in action_lines(legal))
    elif not match.get("over"):
        lines.append("Legal actions: none (not your turn)")
    return "\n".join(lines)


def action_lines(legal: Sequence[Mapping[str, Any]]) -> list[str]:
    """``[{"id": 12, "text": "play QH", ...}]`` -> ``["[12] play QH"]``."""
    return [f"[{a.get('id')}] {a.get('text')}" for a in legal]


def default_action(legal: Sequence[Mapping[str, Any]]) -> int:
    """The move a seat falls back to: the lowest-id card play, else the first legal action (the
    rule of the server's ``default-move`` timeout policy, ``bummerl.core.timeouts.default_action``).
    Raises ValueError when there is no legal action."""
    if not legal:
        raise ValueError("no legal action")
    plays = [int(a["id"]) for a in legal if a.get("kind") == "play"]
    return min(plays) if plays else int(legal[0]["id"])


def resolve_action(legal: Sequence[Mapping[str, Any]], answer: int | str) -> int | None:
    """The legal action id that ``answer`` names: an id (int or decimal string), a legal action's
    text in any case (``"Play qh"``), or a bare card code naming exactly one legal action
    (``"QH"`` -> ``play QH``). None when it names no legal action."""
    ids = {int(a["id"]) for a in legal}
    if isinstance(answer, bool):
        return None
    if isinstance(answer, int):
        return answer if answer in ids else None
    text = " ".join(str(answer).split()).strip().strip(".'\"`").strip()
    bracket = re.match(r"^\[(\d+)\]\s*(.*)$", text)  # a copied line of action_lines: "[12] play QH"
    if bracket:
        return int(bracket.group(1)) if int(bracket.group(1)) in ids else None
    if text.lstrip("-").isdigit():
        return int(text) if int(text) in ids else None
    low = text.lower()
    for a in legal:
        if str(a.get("text", "")).lower() == low:
            return int(a["id"])
    by_card = [int(a["id"]) for a in legal if str(a.get("card", "")).lower() == low and a.get("kind") == "play"]
    if len(by_card) == 1:
        return by_card[0]
    return None


# ----------------------------------------------------------------- rules (docs/RULES.md)

def rules_path() -> Path | None:
    """docs/RULES.md: ``$BUMMERL_RULES_MD`` if set, else the ``docs/RULES.md`` of the source tree
    this package lies in (an editable install or a checkout); None when neither exists (a wheel
    install: :func:`rules_section` then says where to read the rules)."""
    env = os.environ.get("BUMMERL_RULES_MD")
    if env:
        return Path(env) if Path(env).is_file() else None
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "docs" / "RULES.md"
        if candidate.is_file():
            return candidate
    return None


@lru_cache(maxsize=4)
def _sections(path: str) -> dict[str, tuple[str, str]]:
    """variant id -> (section number, the section's Markdown) of RULES.md at ``path``."""
    text = Path(path).read_text(encoding="utf-8")
    out: dict[str, tuple[str, str]] = {}
    current: str | None = None
    number = ""
    buf: list[str] = []
    for line in text.splitlines():
        if line.startswith("## "):
            if current:
                out[current] = (number, "\n".join(buf).rstrip())
            m = _SECTION.match(line)
            current, number = (m.group(2), m.group(1)) if m else (None, "")
            buf = [line] if current else []
        elif current:
            buf.append(line)
    if current:
        out[current] = (number, "\n".join(buf).rstrip())
    return out


def rules_section(variant: str) -> str:
    """The variant's section of docs/RULES.md (Markdown, with its rule IDs and citations). Raises
    KeyError for a variant without a section, FileNotFoundError when RULES.md is not found
    (:func:`rules_path`)."""
    path = rules_path()
    if path is None:
        raise FileNotFoundError("docs/RULES.md not found (set BUMMERL_RULES_MD to its path)")
    sections = _sections(str(path))
    if variant not in sections:
        raise KeyError(f"no section for variant {variant!r} in RULES.md; sections: {', '.join(sorted(sections))}")
    return sections[variant][1]


def rules_summary(variant: str, max_rule_chars: int = 220) -> str:
    """A concise summary of the variant's rules: the section's heading and first paragraph, then
    one line per rule ID (``AT-DECK-1: 20 cards...``, cut to ``max_rule_chars``), without the seed
    citations. For a section that builds on another (``§2``), that section's rules follow. Raises
    as :func:`rules_section`."""
    section = rules_section(variant)
    out: list[str] = []
    intro_done = False
    for line in section.splitlines():
        m = _RULE.match(line)
        if m:
            intro_done = True
            body = re.sub(r"\*\*\[[^\]]*\]\*\*\s*", "", m.group(2)).lstrip(" —-").strip()
            body = body.replace("**", "")
            out.append(f"{m.group(1)}: {body[:max_rule_chars]}{'…' if len(body) > max_rule_chars else ''}")
        elif line.startswith("### ") and "OPEN" not in line:
            intro_done = True
            out.append(line.removeprefix("### "))
        elif not intro_done and line.strip() and not line.startswith("Seed"):
            out.append(line.removeprefix("## ").strip())
    own_rules = sum(1 for line in section.splitlines() if _RULE.match(line))
    sections = _sections(str(rules_path()))
    own = int(sections[variant][0])
    refs = [int(n) for n in re.findall(r"§(\d+)\b", "\n".join(section.splitlines()[:8]))]
    for number in dict.fromkeys(refs):  # a short section that builds on an earlier one
        if own_rules >= 15 or not 0 < number < own:
            continue
        for vid, (num, _) in sections.items():
            if int(num) == number:
                out.append(f"(rules of `{vid}` (§{num}) that this variant builds on:)")
                out.extend(rules_summary(vid, max_rule_chars).splitlines()[1:])
    return "\n".join(out)
