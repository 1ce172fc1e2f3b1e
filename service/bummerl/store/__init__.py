"""Redis store: key schema, atomic Lua CAS scripts, embedded Valkey launcher.

Public API::

    MatchStore, StoredMatch                       # bummerl.store.redis_store
    EmbeddedValkey, resolve_redis_url             # bummerl.store.embedded
    StoreError, MatchNotFoundError, MatchExistsError, VersionConflictError
"""

from bummerl.store.embedded import ENV_REDIS_URL, EmbeddedValkey, resolve_redis_url
from bummerl.store.errors import MatchExistsError, MatchNotFoundError, StoreError, VersionConflictError
from bummerl.store.redis_store import MatchStore, StoredMatch

__all__ = [
    "ENV_REDIS_URL",
    "EmbeddedValkey",
    "MatchExistsError",
    "MatchNotFoundError",
    "MatchStore",
    "StoreError",
    "StoredMatch",
    "VersionConflictError",
    "resolve_redis_url",
]
