# The library's sources, one file per module (see docs/ for each format).
set(ONESCOPE_SOURCES
  src/alloc.c
  src/bytes.c
  src/error.c
  src/file.c
  src/pose_cache.c
  src/sim.c
  src/replay.c
  src/ots.c
  src/ots_convert.c
  src/soa_world.c
)
if(ONESCOPE_HAVE_BOX3D)
  list(APPEND ONESCOPE_SOURCES)
endif()
