-- Load a match unless the caller already holds its current version
-- (bummerl.store.redis_store.MatchStore.load_if_changed).
--
-- KEYS[1]  bm:{s<k>}:m:<id>:state (hash)
-- ARGV[1]  the version the caller holds (decimal)
-- ARGV[2]  the JSON of the meta "commit" token of that version ("" = compare the version only)
--
-- Returns false (nil) when there is no such match, {version} when the caller's
-- version is the current one (same version and same commit token; nothing else is sent),
-- else {version, HGETALL...}.

local held = redis.call('HMGET', KEYS[1], 'version', 'm:commit')
local v = held[1]
if not v then
  return false
end
if v == ARGV[1] and (ARGV[2] == '' or (held[2] or '') == ARGV[2]) then
  return {v}
end
return {v, redis.call('HGETALL', KEYS[1])}
