"""Every ladder format by its name (docs/DESIGN.md §5): a new format is one class (see
:class:`bummerl.ladder.formats.Format`) and one entry here."""

from __future__ import annotations

from bummerl.core.errors import InvalidArgumentError

from .arena import Arena
from .formats import Format, Gauntlet, RoundRobin, SprtFormat
from .knockout import Knockout
from .swiss import Swiss

FORMATS: dict[str, Format] = {f.name: f for f in (RoundRobin(), Gauntlet(), SprtFormat(), Swiss(), Knockout(), Arena())}
"""Every format by its name (``CreateLadderRequest.format``, lower case)."""


def find_format(name: str) -> Format:
    """The format called ``name``; InvalidArgumentError listing the known ones."""
    try:
        return FORMATS[name]
    except KeyError:
        raise InvalidArgumentError(f"format must be one of {', '.join(FORMATS)}, got {name!r}") from None
