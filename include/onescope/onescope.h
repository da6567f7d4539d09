/* libonescope: record, check and replay simulations. Includes every public header. */
#ifndef ONESCOPE_H
#define ONESCOPE_H

#include "onescope/version.h"
#include "onescope/common.h"
#include "onescope/error.h"
#include "onescope/file.h"
#include "onescope/format.h"
#include "onescope/pose_cache.h"
#include "onescope/sim.h"
#include "onescope/module.h"
#include "onescope/replay.h"
#include "onescope/recording.h"
#include "onescope/ots.h"
#include "onescope/soa_world.h"
#include "onescope/soa_scene.h"
#include "onescope/live.h"
#include "onescope/ghost.h"
#include "onescope/diff.h"

#endif
