-- Register a process's StreamHub as a follower of one match (bummerl.store.hub.StreamHub):
-- commit.lua then appends each commit of the match to the process's inbox.
--
-- KEYS[1]  bm:{s<k>}:m:<id>:followers  (sorted set: inbox key -> until when, ms since the epoch)
-- KEYS[2]  bm:{s<k>}:inbox:<process>   (stream: the process's inbox on this shard)
-- ARGV[1]  how long the registration lasts, ms
-- ARGV[2]  now, ms since the epoch (the caller's clock)
--
-- The inbox is created (with one entry without an "m" field, which readers skip) if it does not
-- exist, so that it always has a time to live: a process that dies leaves nothing behind for
-- longer than twice ARGV[1].  The followers set lives as long as its newest registration (a
-- process that stopped following stays in it until then: commit.lua skips it).  Returns the
-- registration's end (ms since the epoch).

local ttl = tonumber(ARGV[1])
local until_ms = tonumber(ARGV[2]) + ttl
redis.call('ZADD', KEYS[1], string.format('%d', until_ms), KEYS[2])
if redis.call('PTTL', KEYS[1]) < ttl then  -- never shortens another process's longer registration
  redis.call('PEXPIRE', KEYS[1], ttl)
end
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', 1, '*', 'open', '1')
end
if redis.call('PTTL', KEYS[2]) < 2 * ttl then
  redis.call('PEXPIRE', KEYS[2], 2 * ttl)
end
return until_ms
