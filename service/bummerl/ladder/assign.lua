-- Hand one seat of a ladder match to its bot, once (bummerl.ladder.service.LadderService._assign).
--
-- KEYS[1]  bm:botq:{<bot id>}                               (stream of assignments)
-- KEYS[2]  bm:botq:{<bot id>}:assigned:<match id>:<seat>    (string: set when the assignment was sent;
--          the bot's hash tag keeps both keys in one Redis Cluster slot)
-- ARGV[1]  assignment JSON
-- ARGV[2]  time to live of KEYS[2], ms
--
-- Returns 1 when appended, 0 when that seat was assigned before (another process starting the
-- same game after its claim lease).

if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) then
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', '10000', '*', 'a', ARGV[1])
  return 1
end
return 0
