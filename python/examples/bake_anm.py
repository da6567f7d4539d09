#!/usr/bin/python3
"""Bakes an OTS .anm clip into an OSPC pose cache.

    python3 bake_anm.py CLIP.anm OUT.ospc [--world]

Every peg becomes a point entity sampled at every frame of the clip's frame_range with the
library's Bézier and slerp; parents are composed to world space unless --world says the
values already are. The same bytes as `onescope convert CLIP.anm OUT.ospc`.
"""

import sys

import onescope


def main(argv):
    args = [a for a in argv[1:] if a != "--world"]
    if len(args) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        clip = onescope.Clip.open(args[0])
        cache = clip.to_pose_cache(world_space="--world" in argv)
        cache.write(args[1])
    except onescope.FormatError as e:
        print(e, file=sys.stderr)
        return 1
    print(f"{args[1]}: {cache.entity_count} pegs x {cache.frame_count} frames "
          f"(frames {clip.frame_range[0]} to {clip.frame_range[1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
