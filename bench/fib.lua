-- The same naive recursion in Lua 5.4; prints the result and the seconds
-- the call took (os.clock around the call only, like Flux's duration_ms).
local function fib(n)
  if n == 0 then return 0 elseif n == 1 then return 1 else return fib(n - 1) + fib(n - 2) end
end
local n = tonumber(arg[1])
local t = os.clock()
local r = fib(n)
print(r, os.clock() - t)
