-- Compare-and-set one match (bummerl.store.redis_store.MatchStore.commit).
--
-- KEYS[1]  bm:{s<k>}:m:<id>:state (hash)
-- KEYS[2]  bm:{s<k>}:m:<id>:events (stream)
-- KEYS[3]  bm:{s<k>}:deadlines       (sorted set: match id -> deadline, ms since the epoch)
-- KEYS[4]  bm:{s<k>}:active          (set of the ids of matches not yet over)
-- KEYS[5]  bm:{s<k>}:m:<id>:followers (sorted set: inbox key of each process whose StreamHub
--                                   follows the match -> until when, ms since the epoch;
--                                   written by follow.lua)
-- ARGV[1]  expected version (decimal), optionally followed by one space and the JSON of the
--          expected meta "commit" token of that version: then a version of that number with
--          another token (written again after a failover lost the first) is a conflict too
-- ARGV[2]  new state blob
-- ARGV[3]  match id (the member in KEYS[3])
-- ARGV[4]  deadline of the new version in ms since the epoch; "-1" = none (ZREM)
-- ARGV[5]  time to live of the match keys in ms (retention of a finished match); "0" = keep
-- ARGV[6]  "1" if the new version ends the match (SREM from KEYS[4]), else "0"
-- ARGV[7]  approximate length each follower's inbox is trimmed to
-- ARGV[8]  n = number of meta fields to set
-- ARGV[9]  now, ms since the epoch (the caller's clock): followers registered until before it are skipped
-- ARGV[10 .. 9+2n]      meta field name, JSON value, ... (names already "m:<key>")
-- ARGV[10+2n .. #ARGV]  event payloads, appended as stream ids <new>-0, <new>-1, ...,
--                       and together as one entry in the inbox (a stream) of each follower whose
--                       registration has not run out: m <match id> v <new> 0 <payload> 1 ...
--                       (run-out registrations go with the followers set's time to live)
--
-- Returns {status, version}:
--   { 1, new_version}      committed
--   { 0, current_version}  version conflict, nothing written
--   {-1, 0}                no such match, nothing written
--   {-2, current_version}  stream already holds ids >= new version (corrupt), nothing written
--
-- Every check runs before the first write: a Lua error half-way would not
-- roll back earlier writes.

local held = redis.call('HMGET', KEYS[1], 'version', 'm:commit')
local cur = held[1]
if not cur then
  return {-1, 0}
end
cur = tonumber(cur)
local want, want_commit = string.match(ARGV[1], '^(%d+) ?(.*)$')
if cur ~= tonumber(want) then
  return {0, cur}
end
if want_commit ~= '' and (held[2] or '') ~= want_commit then
  return {0, cur}
end
local new = cur + 1

local nmeta = tonumber(ARGV[8])
local first_event = 10 + 2 * nmeta
if first_event <= #ARGV then
  local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
  if #last > 0 then
    local last_version = tonumber(string.match(last[1][1], '^(%d+)-'))
    if last_version >= new then
      return {-2, cur}
    end
  end
end

local fields = {'version', string.format('%d', new), 'state', ARGV[2]}
for i = 10, 9 + 2 * nmeta do
  fields[#fields + 1] = ARGV[i]
end
redis.call('HSET', KEYS[1], unpack(fields))

if tonumber(ARGV[4]) >= 0 then
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
else
  redis.call('ZREM', KEYS[3], ARGV[3])
end

if ARGV[6] == '1' then
  redis.call('SREM', KEYS[4], ARGV[3])
end

local seq = 0
local note = {'XADD', '', 'MAXLEN', '~', ARGV[7], '*', 'm', ARGV[3], 'v', string.format('%d', new)}
for i = first_event, #ARGV do
  redis.call('XADD', KEYS[2], string.format('%d-%d', new, seq), 'e', ARGV[i])
  note[#note + 1] = string.format('%d', seq)
  note[#note + 1] = ARGV[i]
  seq = seq + 1
end
if seq > 0 then
  local followers = redis.call('ZRANGEBYSCORE', KEYS[5], ARGV[9], '+inf')
  for i = 1, #followers do
    note[2] = followers[i]
    redis.call(unpack(note))
  end
end

if tonumber(ARGV[5]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
end
return {1, new}
