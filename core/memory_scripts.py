"""The Lua scripts of :mod:`core.memories`: every write of a memory, its caps checked in the same script.

Sizes are byte lengths (Lua's ``#`` on the UTF-8 strings Redis holds): an entry takes its normalised
source (the field) plus its JSON ``[source, target]`` (the value); the memory takes its entries plus the
fixed size of its record (``meta_bytes``). A refusal is ``{cap name, held, adding}``; nothing is written
before every cap has been checked.
"""

from __future__ import annotations

# Helpers: commands take a few hundred entries at a time (far fewer calls than one per entry, and under Lua's
# limit on unpacked values). write(entries, order, list, from): HSET and ZADD the field/value pairs list[from..];
# read(entries, list, from): the stored values (false: none) of the fields list[from], list[from + 2], ...
_HELPERS = """
local BATCH = 1000
local function write(entries, order, list, from)
  for i = from, #list, BATCH do
    local last = math.min(i + BATCH - 1, #list)
    redis.call('HSET', entries, unpack(list, i, last))
    local members = {}
    for j = i, last, 2 do
      members[#members + 1] = 0
      members[#members + 1] = list[j]
    end
    redis.call('ZADD', order, unpack(members))
  end
end
local function read(entries, list, from)
  local values = {}
  for i = from, #list, BATCH do
    local fields = {}
    for j = i, math.min(i + BATCH - 1, #list), 2 do fields[#fields + 1] = list[j] end
    for _, value in ipairs(redis.call('HMGET', entries, unpack(fields))) do values[#values + 1] = value end
  end
  return values
end
"""

# KEYS: account index, account byte counter, account names, record, entries, order.
# ARGV: memory id, name, created, memories cap, account bytes cap, memory size,
#       number of record fields n, n field/value pairs, then entry field/value pairs.
# Returns {'ok'}, {'name'} or {cap name, held, adding}.
CREATE = (
    _HELPERS
    + """
if redis.call('HEXISTS', KEYS[3], ARGV[2]) == 1 then return {'name'} end
local count = redis.call('ZCARD', KEYS[1])
local cap = tonumber(ARGV[4])
if cap >= 0 and count >= cap then return {'memories', count, 1} end
local size = tonumber(ARGV[6])
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
cap = tonumber(ARGV[5])
if cap >= 0 and used + size > cap then return {'memory_total_bytes', used, size} end
local fields = tonumber(ARGV[7])
for i = 8, 7 + 2 * fields, 2 do redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 1]) end
write(KEYS[5], KEYS[6], ARGV, 8 + 2 * fields)
redis.call('HSET', KEYS[3], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('INCRBY', KEYS[2], size)
return {'ok'}
"""
)

# KEYS: record, entries, order, account byte counter.
# ARGV: updated, entries cap, memory bytes cap, account bytes cap, then entry field/value pairs (unique fields).
# Returns {'ok', added, replaced, revision}, {'missing'} or {cap name, held, adding}.
PUT = (
    _HELPERS
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local added, replaced, delta, change = 0, 0, 0, {}
for n, old in ipairs(read(KEYS[2], ARGV, 5)) do
  local field, value = ARGV[3 + 2 * n], ARGV[4 + 2 * n]
  if not old then
    added = added + 1
    delta = delta + #field + #value
  elseif old ~= value then
    replaced = replaced + 1
    delta = delta + #value - #old
  end
  if old ~= value then
    change[#change + 1] = field
    change[#change + 1] = value
  end
end
local count = tonumber(redis.call('HGET', KEYS[1], 'entry_count'))
local size = tonumber(redis.call('HGET', KEYS[1], 'bytes'))
local cap = tonumber(ARGV[2])
if cap >= 0 and added > 0 and count + added > cap then return {'memory_entries', count, added} end
cap = tonumber(ARGV[3])
if cap >= 0 and delta > 0 and size + delta > cap then return {'memory_bytes', size, delta} end
local used = tonumber(redis.call('GET', KEYS[4]) or '0')
cap = tonumber(ARGV[4])
if cap >= 0 and delta > 0 and used + delta > cap then return {'memory_total_bytes', used, delta} end
if #change == 0 then return {'ok', 0, 0, tonumber(redis.call('HGET', KEYS[1], 'revision'))} end
write(KEYS[2], KEYS[3], change, 1)
local revision = redis.call('HINCRBY', KEYS[1], 'revision', 1)
redis.call('HSET', KEYS[1], 'entry_count', count + added, 'bytes', size + delta, 'updated', ARGV[1])
redis.call('INCRBY', KEYS[4], delta)
return {'ok', added, replaced, revision}
"""
)

# KEYS: record, entries, order, account byte counter.
# ARGV: updated, memory bytes cap, account bytes cap, bytes of the new entries, then entry field/value pairs.
# Returns {'ok', revision}, {'missing'} or {cap name, held, adding}.
REPLACE = (
    _HELPERS
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local old = tonumber(redis.call('HGET', KEYS[1], 'bytes'))
local size = tonumber(redis.call('HGET', KEYS[1], 'meta_bytes')) + tonumber(ARGV[4])
local cap = tonumber(ARGV[2])
if cap >= 0 and size > cap then return {'memory_bytes', size, -1} end
local used = tonumber(redis.call('GET', KEYS[4]) or '0')
cap = tonumber(ARGV[3])
if cap >= 0 and size > old and used + size - old > cap then return {'memory_total_bytes', used, size - old} end
redis.call('UNLINK', KEYS[2], KEYS[3])
write(KEYS[2], KEYS[3], ARGV, 5)
local revision = redis.call('HINCRBY', KEYS[1], 'revision', 1)
redis.call('HSET', KEYS[1], 'entry_count', (#ARGV - 4) / 2, 'bytes', size, 'updated', ARGV[1])
redis.call('INCRBY', KEYS[4], size - old)
return {'ok', revision}
"""
)

# KEYS: record, entries, order, account byte counter. ARGV: updated, then normalised sources (unique).
# Returns {'ok', deleted, revision} or {'missing'}.
DELETE_ENTRIES = (
    _HELPERS
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local gone, delta = {}, 0
local sources = {ARGV[1]}  -- read() takes every other item: pad the sources into (field, unused) pairs
for i = 2, #ARGV do
  sources[#sources + 1] = ARGV[i]
  sources[#sources + 1] = ''
end
for n, old in ipairs(read(KEYS[2], sources, 2)) do
  if old then
    gone[#gone + 1] = ARGV[n + 1]
    delta = delta + #ARGV[n + 1] + #old
  end
end
if #gone == 0 then return {'ok', 0, tonumber(redis.call('HGET', KEYS[1], 'revision'))} end
for i = 1, #gone, BATCH do
  local last = math.min(i + BATCH - 1, #gone)
  redis.call('HDEL', KEYS[2], unpack(gone, i, last))
  redis.call('ZREM', KEYS[3], unpack(gone, i, last))
end
local revision = redis.call('HINCRBY', KEYS[1], 'revision', 1)
redis.call('HINCRBY', KEYS[1], 'entry_count', -#gone)
redis.call('HINCRBY', KEYS[1], 'bytes', -delta)
redis.call('HSET', KEYS[1], 'updated', ARGV[1])
redis.call('DECRBY', KEYS[4], delta)
return {'ok', #gone, revision}
"""
)

# KEYS: account index, account byte counter, account names, record, entries, order. ARGV: memory id.
# Returns 1, or 0 when the memory was already gone.
DELETE = """
local size = redis.call('HGET', KEYS[4], 'bytes')
if not size then return 0 end
local name = redis.call('HGET', KEYS[4], 'name')
redis.call('UNLINK', KEYS[4], KEYS[5], KEYS[6])
redis.call('ZREM', KEYS[1], ARGV[1])
if name and redis.call('HGET', KEYS[3], name) == ARGV[1] then redis.call('HDEL', KEYS[3], name) end
redis.call('DECRBY', KEYS[2], tonumber(size))
return 1
"""
