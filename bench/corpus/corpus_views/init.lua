-- Drives the corpus capture (bench/corpus/make_corpus.sh). For each line of
-- <world>/corpus_views.txt ("name target radius back height yaw_deg pitch_deg
-- timeofday"), it loads the map around the origin, finds the nearest node of
-- `target` (a node name, or "none"), puts the player `back` nodes behind it and
-- `height` above the ground, looking along yaw/pitch, then writes
-- <world>/corpus_request (the view's name) and waits until the script has
-- pressed the screenshot key and removed that file.
local world = minetest.get_worldpath()
local views = {}
for line in io.lines(world .. "/corpus_views.txt") do
  local f = {}
  for w in line:gmatch("%S+") do f[#f + 1] = w end
  if #f == 8 then
    views[#views + 1] = {name = f[1], target = f[2], radius = tonumber(f[3]),
      back = tonumber(f[4]), height = tonumber(f[5]), yaw = tonumber(f[6]),
      pitch = tonumber(f[7]), time = tonumber(f[8])}
  end
end

local function exists(path)
  local fh = io.open(path, "r")
  if fh then fh:close() return true end
  return false
end

local function ground(x, z)
  for y = 80, -20, -1 do
    local n = minetest.get_node({x = x, y = y, z = z}).name
    if n ~= "air" and n ~= "ignore" and not n:find("leaves") and not n:find("tree") then return y end
  end
  return 10
end

local player_name
local state = {i = 0, phase = "idle", t = 0}

local function place(v)
  local p = minetest.get_player_by_name(player_name)
  local c = {x = 0, y = 10, z = 0}
  if v.target ~= "none" then
    local found = minetest.find_node_near({x = 0, y = 8, z = 0}, v.radius, {v.target}, true)
    if found then c = found end
    minetest.log("action", "[corpus_views] " .. v.target .. (found and " found at " .. minetest.pos_to_string(found) or " not found"))
  end
  local yaw = math.rad(v.yaw)
  -- the look direction for yaw is (-sin, cos); stand `back` nodes behind the target
  local x = math.floor(c.x + math.sin(yaw) * v.back + 0.5)
  local z = math.floor(c.z - math.cos(yaw) * v.back + 0.5)
  local gy = math.max(ground(x, z), 1)
  p:set_pos({x = x, y = gy + v.height, z = z})
  p:set_look_horizontal(yaw)
  p:set_look_vertical(math.rad(v.pitch))
  minetest.set_timeofday(v.time)
  minetest.log("action", "[corpus_views] " .. v.name .. " at " .. x .. "," .. (gy + v.height) .. "," .. z)
end

minetest.register_on_joinplayer(function(player)
  player_name = player:get_player_name()
  player:set_physics_override({gravity = 0, speed = 0, jump = 0})
  player:hud_set_flags({minimap = false, minimap_radar = false})
  state.phase = "emerge"
  minetest.emerge_area({x = -160, y = -16, z = -160}, {x = 160, y = 64, z = 160}, function(_, _, left)
    if left == 0 then state.phase = "next" end
  end)
end)

minetest.register_globalstep(function(dtime)
  if not player_name then return end
  state.t = state.t + dtime
  if state.phase == "next" then
    state.i = state.i + 1
    local v = views[state.i]
    if not v then
      local fh = io.open(world .. "/corpus_done", "w") fh:write("done\n") fh:close()
      state.phase = "idle"
      return
    end
    place(v)
    state.phase, state.t = "settle", 0
  elseif state.phase == "settle" and state.t > 12 then
    local fh = io.open(world .. "/corpus_request", "w") fh:write(views[state.i].name .. "\n") fh:close()
    state.phase = "wait"
  elseif state.phase == "wait" and not exists(world .. "/corpus_request") then
    state.phase = "next"
  end
end)
