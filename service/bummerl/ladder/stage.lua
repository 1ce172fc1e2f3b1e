-- Write the next stage of a ladder planned stage by stage (Swiss, knockout), exactly once
-- (bummerl.ladder.driver.Scheduler.next_stage). Every process may compute the stage from the
-- results; only the first whose view is still current writes it.
--
-- KEYS[1]  bm:ladder:{<id>}:plan     (hash: stage = the number of the next stage, games, sets, ...)
-- KEYS[2]  bm:ladder:{<id>}:pending  (list of game spec JSON)
-- KEYS[3]  bm:ladder:{<id>}:running  (hash)
-- KEYS[4]  bm:ladder:{<id>}:results  (list)
-- KEYS[5]  bm:ladder:{<id>}:setleft  (hash: set -> games not yet recorded)
-- KEYS[6]  bm:ladder:{<id>}:stages   (list of stage records, JSON)
-- ARGV[1]  the stage number this plan is for (the plan's "stage" when the caller read it)
-- ARGV[2]  the number of results the caller planned from
-- ARGV[3]  games planned in all after this stage
-- ARGV[4]  sets planned in all after this stage
-- ARGV[5]  the stage record (JSON)
-- ARGV[6]  n: the number of game specs that follow
-- ARGV[7 .. 6+n]  game specs (JSON), in play order
-- ARGV[7+n ..]    pairs of (set, games of that set)
--
-- Returns 1 when written; 0 when another process wrote this stage first, or a game is still
-- pending or running, or a result came in after the caller read them (it plans again next pass).

if redis.call('HGET', KEYS[1], 'stage') ~= ARGV[1] then
  return 0
end
if redis.call('LLEN', KEYS[2]) > 0 or redis.call('HLEN', KEYS[3]) > 0 then
  return 0
end
if redis.call('LLEN', KEYS[4]) ~= tonumber(ARGV[2]) then
  return 0
end
local n = tonumber(ARGV[6])
for i = 7, 6 + n do
  redis.call('RPUSH', KEYS[2], ARGV[i])
end
for i = 7 + n, #ARGV, 2 do
  redis.call('HSET', KEYS[5], ARGV[i], ARGV[i + 1])
end
redis.call('RPUSH', KEYS[6], ARGV[5])
redis.call('HSET', KEYS[1], 'stage', tostring(tonumber(ARGV[1]) + 1), 'games', ARGV[3], 'sets', ARGV[4])
return 1
