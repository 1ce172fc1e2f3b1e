-- Write the games an arena paired for its idle bots, exactly once (bummerl.ladder.driver.Scheduler.arena_pass).
-- Every process may pair the idle bots it sees; only the first whose view is still current
-- writes: the counter moves on with every write, so a bot is never in two games a pass planned
-- from one view (a game that ends meanwhile only frees bots).
--
-- KEYS[1]  bm:ladder:{<id>}:plan     (hash: stage = the pairing counter, games, sets, ...)
-- KEYS[2]  bm:ladder:{<id>}:pending  (list of game spec JSON)
-- KEYS[3]  bm:ladder:{<id>}:setleft  (hash: set -> games not yet recorded)
-- ARGV[1]  the counter the caller read
-- ARGV[2]  games planned in all after these
-- ARGV[3]  sets planned in all after these
-- ARGV[4]  n: the number of game specs that follow
-- ARGV[5 .. 4+n]  game specs (JSON)
-- ARGV[5+n ..]    pairs of (set, games of that set)
--
-- Returns 1 when written, 0 when another process paired first.

if redis.call('HGET', KEYS[1], 'stage') ~= ARGV[1] then
  return 0
end
local n = tonumber(ARGV[4])
for i = 5, 4 + n do
  redis.call('RPUSH', KEYS[2], ARGV[i])
end
for i = 5 + n, #ARGV, 2 do
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
end
redis.call('HSET', KEYS[1], 'stage', tostring(tonumber(ARGV[1]) + 1), 'games', ARGV[2], 'sets', ARGV[3])
return 1
