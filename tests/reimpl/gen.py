#!/usr/bin/env python3
"""Writes OSTM v1 test inputs (without hash rows) from docs/test-module.md, sections 6 and 8:
boundary cases and seeded random files, for tests/reimpl/run.sh.
usage: gen.py OUTDIR [random_count]"""
import os, random, struct, sys

I32MIN, I32MAX = -2**31, 2**31 - 1

def imp(b, dx, dy, dz=0): return struct.pack('<BBiii', 1, b, dx, dy, dz)
def tel(b, x, y, z=0): return struct.pack('<BBiii', 2, b, x, y, z)
def rem(b): return struct.pack('<BB', 3, b)
def grav(g): return struct.pack('<Bi', 4, g)
def spawn(x, y, z=0): return struct.pack('<Biii', 5, x, y, z)

def snap(step, g, bodies):
    out = struct.pack('<Qi', step, g)
    for b in bodies:
        out += struct.pack('<8i', *b)
    return out

def ostm(dims, count, seed, steps, link=None, snapshot=None):
    flags = (2 if snapshot is not None else 0) | (4 if link else 0)
    out = b'OSTM' + struct.pack('<HHI', 1, flags, 10 if link else 6)
    out += struct.pack('<BBI', dims, count, seed)
    if link:
        out += struct.pack('<BBH', *link)
    out += struct.pack('<I', len(steps))
    if snapshot is not None:
        out += struct.pack('<I', len(snapshot)) + snapshot
    for s in steps:
        assert len(s) <= 65535
        out += struct.pack('<H', len(s)) + s
    return out

EDGE_I = [I32MIN, I32MIN + 1, -1001, -1000, -999, -200, -1, 0, 1, 7, 8, 9, 200, 999, 1000, 1001,
          I32MAX - 1, I32MAX]
EDGE_P = [I32MIN, -10001, -1, 0, 1, 624, 625, 1249, 1250, 1251, 4999, 5000, 9999, 10000, 10001,
          20000, I32MAX]

def rnd_val(r, edges, lo, hi):
    x = r.random()
    if x < 0.4: return r.choice(edges)
    if x < 0.9: return r.randint(lo, hi)
    return r.randint(I32MIN, I32MAX)

def rnd_op(r, dims, maxbody):
    c = r.choices([1, 2, 3, 4, 5], weights=[5, 4, 1, 2, 2])[0]
    z = lambda v: v if dims == 3 else 0
    b = r.randint(0, maxbody)
    if c == 1:
        return imp(b, rnd_val(r, EDGE_I, -1200, 1200), rnd_val(r, EDGE_I, -1200, 1200), z(rnd_val(r, EDGE_I, -1200, 1200)))
    if c == 2:
        return tel(b, rnd_val(r, EDGE_P, -100, 10100), rnd_val(r, EDGE_P, -100, 10100), z(rnd_val(r, EDGE_P, -100, 10100)))
    if c == 3:
        return rem(b)
    if c == 4:
        return grav(rnd_val(r, EDGE_I, -1100, 1100))
    return spawn(rnd_val(r, EDGE_P, -100, 10100), rnd_val(r, EDGE_P, -100, 10100), z(rnd_val(r, EDGE_P, -100, 10100)))

def rnd_body(r, dims):
    z = lambda v: v if dims == 3 else 0
    P = lambda: r.choice([0, 1, 10000, 9999, r.randint(0, 10000), r.randint(0, 10000)])
    V = lambda: r.choice([-1000, 1000, -999, 0, 7, -7, 8, -8, 9, -9, r.randint(-1000, 1000), r.randint(-1000, 1000)])
    S = r.choice([0, 1, 2147483646, 2147483647, r.randint(0, 2147483647)])
    return [r.choice([0, 1, 1, 1]), S, P(), P(), z(P()), V(), V(), z(V())]

def write(d, name, data):
    with open(os.path.join(d, name + '.ostm'), 'wb') as f:
        f.write(data)

def main():
    d = sys.argv[1]
    nrand = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    os.makedirs(d, exist_ok=True)
    # ---- hand-written boundary cases
    for dims in (2, 3):
        z = 1 if dims == 3 else 0
        D = f'{dims}d'
        # empty, 1 body and 64 bodies
        write(d, f'{D}_empty_1', ostm(dims, 1, 1, [b''] * 50))
        write(d, f'{D}_empty_64', ostm(dims, 64, 0xFFFFFFFF, [b''] * 50))
        write(d, f'{D}_n0', ostm(dims, 5, 7, []))
        # impulses at extremes
        steps = [imp(0, I32MIN, I32MIN, I32MIN * z), imp(0, I32MAX, I32MAX, I32MAX * z), b'',
                 imp(0, I32MAX, I32MIN, I32MAX * z) + imp(0, I32MAX, I32MIN, I32MAX * z),
                 imp(1, -1000, 1000, -1000 * z), imp(2, 1001, -1001, 1001 * z)] + [b''] * 40
        write(d, f'{D}_impulse_extremes', ostm(dims, 3, 42, steps))
        # teleports outside the box
        steps = [tel(0, -1, -1, -1 * z), tel(0, 10001, 10001, 10001 * z), tel(1, I32MIN, I32MAX, I32MIN * z),
                 tel(2, I32MAX, I32MIN, I32MAX * z) + tel(2, 0, 0, 0), tel(0, 10000, 0, 10000 * z),
                 b'', tel(0, 5000, 5000, 5000 * z)]
        # teleport away and back within one step (counts as still after resetting v)
        steps += [imp(1, -2000, -2000, -2000 * z) + imp(1, 0, 0, 0)]
        steps += [b''] * 5
        write(d, f'{D}_teleport', ostm(dims, 3, 43, steps))
        # still count: stop a body on the floor with gravity 0 and zero velocity
        steps = [grav(0) + tel(0, 5000, 5000, 5000 * z) + imp(0, I32MIN, I32MIN, I32MIN * z) + imp(0, 1000, 1000, 1000 * z)]
        steps += [b''] * 30
        steps += [tel(0, 1, 1, 1 * z) + tel(0, 5000, 5000, 5000 * z)] + [b''] * 5
        steps += [imp(0, 1, 0, 0)] + [imp(0, -1, 0, 0)] + [b''] * 5 + [rem(0)] + [b''] * 3
        write(d, f'{D}_still', ostm(dims, 2, 44, steps))
        # remove then operate on removed body, nonexistent bodies, body 63
        steps = [rem(0) + imp(0, 100, 100, 100 * z) + tel(0, 1, 1, 1 * z) + rem(0),
                 imp(63, 5, 5, 5 * z) + tel(63, 5, 5, 5 * z) + rem(63) + imp(4, 1, 1, z) + rem(5),
                 rem(1)] + [b''] * 10
        write(d, f'{D}_remove', ostm(dims, 4, 45, steps))
        # gravity changes incl. extremes
        steps = [grav(I32MAX), b'', b'', grav(I32MIN), b'', b'', grav(1000), grav(-1000), b'',
                 grav(1001), b'', grav(-1001), b'', grav(0), grav(7), b'', grav(-1) + grav(1) + grav(-8)]
        steps += [b''] * 40
        write(d, f'{D}_gravity', ostm(dims, 6, 46, steps))
        # spawn up to and past 64
        s1 = b''.join(spawn(i * 150, 10000 - i * 150, (i * 77) * z) for i in range(62))
        steps = [s1, spawn(-5, 20000, -5 * z) + spawn(10000, 10000, 10000 * z), spawn(1, 1, z),
                 spawn(2, 2, 2 * z) + imp(63, 1000, 1000, 1000 * z), tel(63, 0, 0, 0), rem(62)]
        steps += [b''] * 20
        write(d, f'{D}_spawn', ostm(dims, 1, 47, steps))
        # spawn then teleport the new body back to its spawn point in the same step
        steps = [spawn(100, 100, 100 * z) + tel(1, 100, 100, 100 * z) + imp(1, 0, 10, 0), b'', b'']
        steps += [grav(0), tel(1, 300, 300, 300 * z) + imp(1, 0, 0, 0)] + [b''] * 5
        write(d, f'{D}_spawn_still', ostm(dims, 1, 48, steps))
        # spawn past 64 from 64 setup bodies
        write(d, f'{D}_spawn_full', ostm(dims, 64, 49, [spawn(1, 2, 3 * z)] * 3 + [b''] * 3))
        # links
        for role in (1, 2):
            for T in (0, 1, 2, 5, 30, 65535):
                steps = [imp(1, 500, 500, 500 * z), tel(1, 1, 1, z), rem(1) if T == 5 else b''] + [b''] * 9
                write(d, f'{D}_link{role}_T{T}', ostm(dims, 3, 50 + T, steps, link=(role, 1, T)))
            write(d, f'{D}_link{role}_b0_T3', ostm(dims, 1, 60, [b''] * 6, link=(role, 0, 3)))
            write(d, f'{D}_link{role}_b63_T0', ostm(dims, 64, 61, [b''] * 6, link=(role, 63, 0)))
        write(d, f'{D}_link3', ostm(dims, 5, 62, [imp(0, 5, 5, 5 * z)] + [b''] * 6, link=(3, 0, 0)))
        # start snapshots
        r = random.Random(1000 + dims)
        bodies = [[1, 0, 0, 0, 0, -1000, -1000, -1000 * z], [1, 2147483646, 10000, 10000, 10000 * z, 1000, 1000, 1000 * z],
                  [0, 5, 100, 100, 100 * z, 7, 7, 7 * z], [1, 2147483647, 5000, 0, 5000 * z, 0, 0, 0],
                  [1, 0, 100, 50, 100 * z, -30, -70, -30 * z]]
        for g in (0, 10, -1000, 1000):
            steps = [b''] * 20
            write(d, f'{D}_snap_g{g}', ostm(dims, 2, 70, steps, snapshot=snap(12345, g, bodies)))
        write(d, f'{D}_snap_gmin_stillstep', ostm(dims, 5, 70, [grav(0)] + [b''] * 4, snapshot=snap(0, 0, bodies)))
        # host step wrap
        write(d, f'{D}_snap_wrap', ostm(dims, 1, 71, [b''] * 4, snapshot=snap(2**64 - 2, 10, bodies)))
        write(d, f'{D}_snap_max', ostm(dims, 1, 71, [b''] * 2, snapshot=snap(2**64 - 1, 10, bodies[:1])))
        # snapshot with 64 bodies
        big = [rnd_body(r, dims) for _ in range(64)]
        write(d, f'{D}_snap_64', ostm(dims, 1, 72, [spawn(1, 1, z), b''] + [b''] * 20, snapshot=snap(9, 3, big)))
        # link + snapshot: snapshot before T, at T, after T; receiver body alive in snapshot before T
        for role in (1, 2):
            for sstep, T in ((0, 3), (2, 3), (3, 3), (4, 3), (10, 0), (2**64 - 2, 0), (2**64 - 3, 1), (65534, 65535)):
                b5 = [list(x) for x in bodies]
                write(d, f'{D}_snaplink{role}_s{sstep}_T{T}', ostm(dims, 3, 73, [b''] * 6, link=(role, 1, T),
                                                               snapshot=snap(sstep, 10, b5)))
                b5[1][0] = 0
                write(d, f'{D}_snaplink{role}_s{sstep}_T{T}_dead', ostm(dims, 3, 73, [imp(1, 9, 9, 9 * z)] * 6, link=(role, 1, T),
                                                                    snapshot=snap(sstep, 10, b5)))
        write(d, f'{D}_snaplink3', ostm(dims, 3, 74, [b''] * 3, link=(3, 0, 0), snapshot=snap(7, 10, bodies)))
        # bounce example from section 11
        write(d, f'{D}_bounce_example', ostm(dims, 1, 75, [b''] * 3,
                                             snapshot=snap(0, 10, [[1, 0, 100, 50, 100 * z, -30, -70, -30 * z]])))
        # velocities small (|m| < 8) bouncing at walls
        bb = [[1, 0, 3, 2, 5 * z, -7, -5, -6 * z], [1, 0, 9996, 9998, 9995 * z, 7, 5, 6 * z],
              [1, 0, 0, 10000, 0, -1, 1, -1 * z], [1, 0, 10000, 0, 10000 * z, 1000, -1000, 1000 * z],
              [1, 0, 999, 1, 9001 * z, -1000, -1000, 1000 * z]]
        write(d, f'{D}_walls', ostm(dims, 1, 76, [grav(0)] + [b''] * 60, snapshot=snap(0, 0, bb)))
    # ---- random files
    r = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 12345)
    for k in range(nrand):
        dims = r.choice((2, 3))
        count = r.choice([1, 2, 3, 8, 31, 63, 64, r.randint(1, 64)])
        seed = r.choice([0, 1, 0xFFFFFFFF, r.randint(0, 2**32 - 1)])
        link = None
        if r.random() < float(os.environ.get('LINKP', '0.4')):
            role = r.choice((1, 2, 3))
            link = (3, 0, 0) if role == 3 else (role, r.randint(0, count - 1), r.choice([0, 1, 2, r.randint(0, 60), 65535]))
        snapshot = None
        if r.random() < float(os.environ.get('SNAPP', '0.3')):
            n = r.randint(count, 64)
            snapshot = snap(r.choice([0, 1, 5, r.randint(0, 2**64 - 1), 2**64 - 1, 2**64 - 10]),
                            r.choice([-1000, 1000, 0, 10, r.randint(-1000, 1000)]),
                            [rnd_body(r, dims) for _ in range(n)])
        N = r.choice([0, 1, 10, 50, 100, 200])
        steps = []
        maxbody = r.choice([63, 64 if False else 63, count + 2])
        maxbody = min(maxbody, 63)
        for _ in range(N):
            x = r.random()
            if x < 0.5:
                steps.append(b'')
            else:
                steps.append(b''.join(rnd_op(r, dims, maxbody) for _ in range(r.randint(1, 8))))
        write(d, f'rand_{k:04d}', ostm(dims, count, seed, steps, link, snapshot))

main()
