-- Create a match at version 1 (bummerl.store.redis_store.MatchStore.create).
--
-- KEYS[1]  bm:{s<k>}:m:<id>:state (hash)
-- KEYS[2]  bm:{s<k>}:m:<id>:events (stream)
-- KEYS[3]  bm:{s<k>}:deadlines       (sorted set: match id -> deadline, ms since the epoch)
-- KEYS[4]  bm:{s<k>}:active          (set of the ids of matches not yet over; the new id is added)
-- ARGV[1]  state blob
-- ARGV[2]  match id (the member in KEYS[3])
-- ARGV[3]  deadline of version 1 in ms since the epoch; "-1" = none
-- ARGV[4]  n = number of meta fields
-- ARGV[5 .. 4+2n]       meta field name, JSON value, ... (names already "m:<key>")
-- ARGV[5+2n .. #ARGV]   event payloads, appended as stream ids 1-0, 1-1, ...
--
-- Returns 1 when created, 0 when the match already exists (nothing written).

if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end

-- A stream without a state hash can only be a leftover; start it afresh so
-- that the ids 1-0, 1-1, ... are accepted.
redis.call('DEL', KEYS[2])

local nmeta = tonumber(ARGV[4])
local fields = {'version', '1', 'state', ARGV[1]}
for i = 5, 4 + 2 * nmeta do
  fields[#fields + 1] = ARGV[i]
end
redis.call('HSET', KEYS[1], unpack(fields))

if tonumber(ARGV[3]) >= 0 then
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
end

redis.call('SADD', KEYS[4], ARGV[2])

local seq = 0
for i = 5 + 2 * nmeta, #ARGV do
  redis.call('XADD', KEYS[2], string.format('1-%d', seq), 'e', ARGV[i])
  seq = seq + 1
end
return 1
