-- Claim expired deadlines (bummerl.store.redis_store.MatchStore.claim_due).
--
-- KEYS[1]  bm:{s<k>}:deadlines   (sorted set: match id -> deadline, ms since the epoch)
-- ARGV[1]  now, ms since the epoch
-- ARGV[2]  lease, ms: a claimed member is pushed to now + lease, so that no other reaper
--          claims it meanwhile; if the claimer dies, it becomes due again when the lease ends
-- ARGV[3]  at most this many members
--
-- Returns the claimed match ids (deadline <= now), oldest deadline first. Atomic: reapers
-- racing for one deadline get disjoint sets, so exactly one of them acts on it.

local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local until_ms = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', until_ms, member)
end
return due
