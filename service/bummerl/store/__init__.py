"""Redis store: key schema, atomic Lua CAS scripts, embedded Valkey launcher.

Public API::

    MatchStore, StoredMatch                       # bummerl.store.redis_store
    StreamHub                                     # bummerl.store.hub (one stream reader per process)
    EmbeddedValkey, resolve_redis_url             # bummerl.store.embedded
    StoreError, MatchNotFoundError, MatchExistsError, VersionConflictError
"""

from bummerl.store.embedded import ENV_REDIS_URL, EmbeddedValkey, resolve_redis_url
from bummerl.store.errors import MatchExistsError, MatchNotFoundError, StoreError, VersionConflictError
from bummerl.store.hub import StreamHub
from bummerl.store.redis_store import MatchStore, StoredMatch

__all__ = [
    "ENV_REDIS_URL",
    "EmbeddedValkey",
    "MatchExistsError",
    "MatchNotFoundError",
    "MatchStore",
    "StoreError",
    "StoredMatch",
    "StreamHub",
    "VersionConflictError",
    "resolve_redis_url",
]
