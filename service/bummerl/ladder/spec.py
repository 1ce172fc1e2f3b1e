"""What ``create_ladder`` accepts: :class:`LadderSpec`, the ``CreateLadderRequest`` of ladder.proto
as a frozen dataclass with its defaults (validated by :meth:`bummerl.ladder.service.LadderService.create_ladder`
and the ladder's format, :mod:`bummerl.ladder.formats`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bummerl.core.clocks import DEFAULT_TIMEOUT_POLICY, TIMEOUT_POLICIES, TimeControl, TimeControlError
from bummerl.core.errors import InvalidArgumentError, table_error
from bummerl.rules import InvalidOptionError, Rules, UnknownVariantError, VariantSpec, find_variant

__all__ = ["LadderSpec", "table_of"]


@dataclass(frozen=True)
class LadderSpec:
    """What ``create_ladder`` accepts (proto ``CreateLadderRequest``)."""

    name: str
    variant: str
    bot_ids: Sequence[str]
    format: str = "round_robin"
    rounds: int = 1
    """Games per pairing (table of 3 or 4 bots), or duplicate pairs (sets) per pairing (table)
    when ``duplicate_deals``; Swiss: the number of rounds; knockout: not used."""
    duplicate_deals: bool = True
    deals_per_game: int = 0
    """0 = each game is a whole match (Bummerl); N = each game ends after N deals."""
    options: dict[str, str] | None = None
    time_control: dict[str, Any] | None = None
    timeout_policy: str = DEFAULT_TIMEOUT_POLICY
    sprt: dict[str, float] | None = None
    concurrency: int = 4
    seed: int | None = None
    pairs_per_meeting: int = 1
    """Swiss and knockout: duplicate pairs (sets; games without duplicate deals) each pairing of a
    round (each knockout tie) plays before any tie-break."""
    seeding: str = "listed"
    arena_minutes: int = 0
    """Arena: minutes it pairs idle bots (0 = until stopped)."""
    """Knockout: seed the bots in the order listed, or by ``rating`` (the pooled openskill ordinal)."""
    start_when_connected: bool = False
    """Start no game until every bot is connected (or ``connect_timeout_ms`` has passed)."""
    connect_timeout_ms: int = 0
    """With ``start_when_connected``: ms to wait for the bots; 0 = :data:`bummerl.ladder.data.CONNECT_TIMEOUT_MS`."""

    @classmethod
    def from_request(cls, d: Mapping[str, Any]) -> LadderSpec:
        """A spec from a ``CreateLadderRequest`` as a dict (proto field names, short enum names):
        a field left at its proto default (0, "", unset) takes this class's default, and an SPRT
        field left at 0 takes :class:`~bummerl.ladder.stats.Sprt`'s; ``duplicate_deals`` is taken
        as sent (a proto bool has no "unset")."""
        names = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in d.items() if k in names and v not in (None, "", 0, {}) and k != "sprt"}
        kw.update(name=str(d.get("name") or ""), variant=str(d.get("variant") or ""),
                  bot_ids=list(d.get("bot_ids") or ()))
        kw["duplicate_deals"] = bool(d.get("duplicate_deals"))
        kw["sprt"] = {k: v for k, v in (d.get("sprt") or {}).items() if v} or None
        return cls(**kw)


def table_of(spec: LadderSpec) -> tuple[VariantSpec, Rules, TimeControl | None]:
    """The variant, its configured rules and the time control of ``spec``'s table, checked:
    InvalidArgumentError (NotFoundError for an unknown variant) naming the bad field, and for a
    ``timeout_policy`` that is not one of :data:`bummerl.core.clocks.TIMEOUT_POLICIES`."""
    try:
        variant = find_variant(spec.variant)
        rules = variant.configure(dict(spec.options or {}))
        tc = TimeControl.from_dict(spec.time_control) if spec.time_control else None
    except (UnknownVariantError, InvalidOptionError, TimeControlError) as e:
        raise table_error(e) from None
    if spec.timeout_policy not in TIMEOUT_POLICIES:
        raise InvalidArgumentError(f"timeout_policy must be one of {', '.join(TIMEOUT_POLICIES)}")
    return variant, rules, tc
