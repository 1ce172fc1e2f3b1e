"""Python SDK for Bummerl: async and sync gRPC clients, the ``Bot`` base class, a runner that
plays a seat over the server's event stream, a stdin/stdout bridge, and example bots.

>>> from bummerl_client import Bot
>>> class FirstLegal(Bot):
...     def choose(self, info):
...         return info.legal_actions[0]["id"]
"""

from .bot import Bot, BotFault, InfoSet, card_points
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
