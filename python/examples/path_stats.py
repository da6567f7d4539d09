#!/usr/bin/python3
"""Per-entity path length and peak speed of a pose cache.

    python3 path_stats.py CACHE.ospc

Distances are in the cache's units (and metres when it gives metres_per_unit); a speed is
the distance between two consecutive frames where the entity is present, per step. Frames
where an entity is absent break its path: no distance is counted across a gap.
"""

import sys

import numpy as np

import onescope


def path_stats(cache: onescope.PoseCache):
    """(length, peak speed) per entity, as two arrays."""
    pos = cache.positions.astype(np.float64)  # the view, widened for the sums
    present = cache.present
    step = np.linalg.norm(np.diff(pos, axis=0), axis=2)  # frames-1 x entities
    both = present[1:] & present[:-1]
    step = np.where(both, step, 0.0)
    return step.sum(axis=0), step.max(axis=0, initial=0.0)


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        cache = onescope.PoseCache.open(argv[1])
    except onescope.FormatError as e:
        print(e, file=sys.stderr)
        return 1
    length, peak = path_stats(cache)
    unit = cache.unit_name or "units"
    metres = cache.metres_per_unit
    print(f"{cache.name}: {cache.entity_count} entities, {cache.frame_count} frames")
    print(f"{'id':>6}  {'name':<16} {'path (' + unit + ')':>14} {'peak (' + unit + '/step)':>18}"
          + ("  path (m)" if metres else ""))
    for e, n, p in zip(cache.entities, length, peak):
        extra = f"  {n * metres:8.3f}" if metres else ""
        print(f"{e.id:>6}  {e.name[:16]:<16} {n:14.3f} {p:18.3f}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
