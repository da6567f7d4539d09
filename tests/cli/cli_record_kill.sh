# The kill test: a recorder appending frames is SIGKILLed after a few hundred frames at many
# random points, once per durability setting, and every partial it leaves recovers to a
# valid cache holding at least what that setting promises, each frame as written
# (tests/record_kill.c checks each one; docs/pose-cache.md, "Recording", states the
# promises). "close" kills inside close; "replay" is the replay writer. Then once through
# the CLI: recover and validate.
# $4: the record_kill program.
. "$(dirname "$0")/common.sh"
RECORD_KILL=$4

for mode in frame every16 ms default close replay; do
    expect_exit 0 "$RECORD_KILL" kill "$SCRATCH" 20 "${ONESCOPE_KILL_SEED:-12345}" "$mode"
    cat "$SCRATCH/out"
done

for delay in 0.02 0.1; do
    rm -f "$SCRATCH/cli.ospc" "$SCRATCH/cli.ospc.partial"
    "$RECORD_KILL" record "$SCRATCH/cli.ospc" &
    pid=$!
    # No timing guess: wait until frames are on disk (a few KB), then a little more.
    for _ in $(seq 1000); do
        [ "$(stat -c %s "$SCRATCH/cli.ospc.partial" 2>/dev/null || echo 0)" -gt 4096 ] && break
        sleep 0.01
    done
    sleep "$delay"
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    # validate names the partial as one, and recover, in one line
    expect_exit 1 "$ONESCOPE" validate "$SCRATCH/cli.ospc.partial"
    expect_grep "cli.ospc.partial: offset 16: frame count: .*a partial recording (onescope recover" "$SCRATCH/err"
    [ "$(wc -l <"$SCRATCH/err")" -eq 1 ] && ok || bad "more than one line: $(cat "$SCRATCH/err")"
    expect_exit 0 "$ONESCOPE" recover "$SCRATCH/cli.ospc.partial"
    expect_grep "cli.ospc.partial: kept [0-9]* complete frames" "$SCRATCH/out"
    expect_exit 0 "$ONESCOPE" validate "$SCRATCH/cli.ospc"
done
finish
