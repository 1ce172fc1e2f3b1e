-- Claim expired deadlines (bummerl.store.redis_store.MatchStore.claim_due).
--
-- KEYS[1]  bm:{s<k>}:deadlines   (sorted set: match id -> deadline, ms since the epoch)
-- ARGV[1]  now, ms since the epoch
-- ARGV[2]  lease, ms: a claimed member is pushed to now + lease, so that no other reaper
--          claims it meanwhile; if the claimer dies, it becomes due again when the lease ends
-- ARGV[3]  at most this many members
--
-- Returns {claimed, next}: the claimed match ids (deadline <= now), oldest deadline first, and
-- the earliest deadline left in the set after the claim (its score as a string; false if the set
-- is empty), so that a reaper learns when to look again without a second command. Atomic: reapers
-- racing for one deadline get disjoint sets, so exactly one of them acts on it.

local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local until_ms = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', until_ms, member)
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {due, first[2] or false}
