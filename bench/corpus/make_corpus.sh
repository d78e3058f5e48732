#!/usr/bin/env bash
# Regenerates the PNG corpus in this folder: real Minetest frames rendered
# headlessly (Xvfb + Mesa llvmpipe). Not run by CI; needs, as root on Debian 12:
#   apt-get install minetest minetest-data xvfb libx11-dev python3-pil
# Usage: bash bench/corpus/make_corpus.sh [output-dir]   (default: this folder)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
mt=/usr/games/minetest
for tool in "$mt" Xvfb cc; do
  command -v "$tool" >/dev/null || { echo "make_corpus: $tool is missing (see the header)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/xgrab" "$here/xgrab.c" -lX11

# session NAME WIDTH HEIGHT VIEWING_RANGE MAPGEN VIEWS...
# Each view: "name target radius back height yaw_deg pitch_deg timeofday"
# (target: the node to look at, found near the origin; see corpus_views/init.lua).
session() {
  local name=$1 w=$2 h=$3 range=$4 mapgen=$5
  shift 5
  local world=$work/$name/world shots=$work/$name/shots
  mkdir -p "$world/worldmods" "$shots"
  cp -r "$here/corpus_views" "$world/worldmods/"
  printf '%s\n' "$@" >"$world/corpus_views.txt"
  printf 'gameid = minetest\nbackend = sqlite3\n' >"$world/world.mt"
  cat >"$work/$name/minetest.conf" <<CONF
screen_w = $w
screen_h = $h
viewing_range = $range
fixed_map_seed = 20240611
mg_name = $mapgen
screenshot_path = $shots
screenshot_format = png
enable_damage = false
creative_mode = true
enable_clouds = true
enable_shaders = true
smooth_lighting = true
pause_on_lost_focus = false
fps_max = 30
fps_max_unfocused = 30
show_debug = false
enable_minimap = false
name = corpus
CONF
  local disp=:$((80 + RANDOM % 100))
  Xvfb "$disp" -screen 0 "${w}x${h}x24" -nolisten tcp >"$work/$name/xvfb.txt" 2>&1 &
  local xpid=$!
  sleep 2
  DISPLAY=$disp HOME=$work/$name LIBGL_ALWAYS_SOFTWARE=1 \
    "$mt" --config "$work/$name/minetest.conf" --world "$world" --gameid minetest --go \
    >"$work/$name/log.txt" 2>&1 &
  local pid=$! waited=0
  while [[ ! -e $world/corpus_done ]]; do
    sleep 1
    waited=$((waited + 1))
    if ((waited > 900)) || ! kill -0 "$pid" 2>/dev/null; then
      echo "make_corpus: session $name stopped early; log:" >&2
      tail -20 "$work/$name/log.txt" >&2
      kill "$pid" "$xpid" 2>/dev/null || true
      return 1
    fi
    [[ -e $world/corpus_request ]] || continue
    local view
    view=$(cat "$world/corpus_request")
    DISPLAY=$disp "$work/xgrab" "$work/shot.ppm"
    /usr/bin/python3 -c 'import sys; from PIL import Image; Image.open(sys.argv[1]).convert("RGB").save(sys.argv[2], optimize=True)' \
      "$work/shot.ppm" "$out/${view}_${w}x${h}.png"
    echo "make_corpus: ${view}_${w}x${h}.png"
    rm -f "$world/corpus_request"
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  kill "$xpid" 2>/dev/null || true
}

# v7, seed 20240611: the spawn is a snowy pine island in an ocean. A target
# not found within the radius leaves the view at the spawn, looking along
# yaw/pitch (jungle, hills and the valleys views below).
session small 640 360 120 v7 \
  "forest default:pine_tree 120 10 3 30 10 0.5" \
  "ocean default:water_source 120 16 6 200 20 0.45" \
  "beach default:sand 120 12 4 120 12 0.55" \
  "sky none 0 0 6 70 -35 0.6" \
  "night default:pine_tree 120 10 3 30 10 0.0"
session medium 854 480 120 v7 \
  "snow default:dirt_with_snow 120 12 4 250 15 0.5" \
  "sunset default:water_source 120 10 4 100 5 0.77" \
  "jungle default:jungletree 150 12 6 160 10 0.5" \
  "hills default:stone 120 30 30 45 25 0.45"
session large 1920 1080 140 v7 \
  "landscape none 0 0 30 120 20 0.5" \
  "forest default:pine_tree 120 8 3 200 5 0.5" \
  "shore default:sand 120 10 3 60 8 0.65"
session fog 1920 1080 20 v7 \
  "fog default:pine_tree 120 12 3 30 10 0.5"
session fogsmall 640 360 20 v7 \
  "fog default:dirt_with_grass 120 14 5 300 15 0.4"
# valleys: the same seed's spawn is inland, in a snowy pine forest
session vsmall 640 360 120 valleys \
  "treetops default:dirt_with_grass 120 14 5 300 15 0.4" \
  "river default:river_water_source 150 12 5 100 15 0.55" \
  "dusk default:dirt_with_grass 120 14 5 120 10 0.78"
session vlarge 1920 1080 140 valleys \
  "valley none 0 0 20 30 15 0.45" \
  "pines none 0 12 4 200 10 0.5"
