# The kill test: a recorder appending frames forever is SIGKILLed at many random points, and
# every partial it leaves recovers to a valid cache of exactly the frames written before the
# kill (tests/record_kill.c checks each one). Then once through the CLI: recover and validate.
# $4: the record_kill program.
. "$(dirname "$0")/common.sh"
RECORD_KILL=$4

expect_exit 0 "$RECORD_KILL" kill "$SCRATCH" 60 "${ONESCOPE_KILL_SEED:-12345}"
cat "$SCRATCH/out"

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
    expect_exit 0 "$ONESCOPE" recover "$SCRATCH/cli.ospc.partial"
    expect_grep "cli.ospc.partial: kept [0-9]* complete frames" "$SCRATCH/out"
    expect_exit 0 "$ONESCOPE" validate "$SCRATCH/cli.ospc"
done
finish
