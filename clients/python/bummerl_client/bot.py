"""Kept for bot authors who import ``bummerl_client.bot``: the :class:`Bot` base class,
:class:`BotFault` and :class:`InfoSet` live in :mod:`bummerl.bots.base` (``from bummerl_client
import Bot`` is the documented spelling)."""

from bummerl.bots.base import RANK_ORDER, Bot, BotFault, InfoSet, beats, card_points

__all__ = ["RANK_ORDER", "Bot", "BotFault", "InfoSet", "beats", "card_points"]
