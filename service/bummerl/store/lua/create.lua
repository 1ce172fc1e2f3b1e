-- Create a match at version 1 (bummerl.store.redis_store.MatchStore.create).
--
-- KEYS[1]  bm:{<match_id>}:state   (hash)
-- KEYS[2]  bm:{<match_id>}:events  (stream)
-- ARGV[1]  state blob
-- ARGV[2]  n = number of meta fields
-- ARGV[3 .. 2+2n]       meta field name, JSON value, ... (names already "m:<key>")
-- ARGV[3+2n .. #ARGV]   event payloads, appended as stream ids 1-0, 1-1, ...
--
-- Returns 1 when created, 0 when the match already exists (nothing written).

if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end

-- A stream without a state hash can only be a leftover; start it afresh so
-- that the ids 1-0, 1-1, ... are accepted.
redis.call('DEL', KEYS[2])

local nmeta = tonumber(ARGV[2])
local fields = {'version', '1', 'state', ARGV[1]}
for i = 3, 2 + 2 * nmeta do
  fields[#fields + 1] = ARGV[i]
end
redis.call('HSET', KEYS[1], unpack(fields))

local seq = 0
for i = 3 + 2 * nmeta, #ARGV do
  redis.call('XADD', KEYS[2], string.format('1-%d', seq), 'e', ARGV[i])
  seq = seq + 1
end
return 1
