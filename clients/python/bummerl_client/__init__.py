"""Python SDK for Bummerl: the network client. Async and sync gRPC clients, a runner that plays a
seat over the server's event stream, the connected-bot runner, and the stdin/stdout bridge that
plays any executable as a bot. The :class:`Bot` base class and the bundled bots live in
:mod:`bummerl.bots` (a bot needs no network); ``Bot``, ``BotFault``, ``InfoSet`` and
``card_points`` are re-exported here, so a bot author writes:

>>> from bummerl_client import Bot
>>> class FirstLegal(Bot):
...     def choose(self, info):
...         return info.legal_actions[0]["id"]
"""

from bummerl.bots.base import Bot, BotFault, InfoSet, card_points

from .client import (
    AsyncClient,
    BummerlError,
    Client,
    CreatedMatch,
    auth_metadata,
    create_match_request,
    error_from_rpc,
    submit_action_request,
)
from .runner import play_match, play_seat

__all__ = [
    "AsyncClient", "Bot", "BotFault", "BummerlError", "Client", "CreatedMatch", "InfoSet", "auth_metadata", "card_points",
    "create_match_request", "error_from_rpc", "play_match", "play_seat", "submit_action_request",
]
