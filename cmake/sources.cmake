# The library's sources, one file per module (see docs/ for each format).
set(ONESCOPE_SOURCES
  src/alloc.c
  src/bytes.c
  src/error.c
  src/file.c
  src/format.c
  src/limits.c
  src/pose_cache.c
  src/sim.c
  src/sim_input.c
  src/replay.c
  src/replay_run.c
  src/replay_writer.c
  src/ots.c
  src/ots_rules.c
  src/ots_read.c
  src/ots_write.c
  src/ots_convert.c
  src/soa_world.c
  src/live_stream.c
  src/live_viewer.c
  src/ghost.c
  src/json_pos.c
  src/soa_scene.c
  src/soa_scene_world.c
)
# src/soa_world.c is always built; without Box3D its calls return ONESCOPE_E_UNSUPPORTED.
