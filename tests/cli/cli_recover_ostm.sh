# onescope recover on replay partials (the OSTM branch of cmd_recover: recover_ostm.c).
# The partials are the committed fuzz seeds that the streaming writer made.
. "$(dirname "$0")/common.sh"
SEEDS="$SRC/tests/fuzz/corpus/ostm_recover"

cp "$SEEDS/partial-2d" "$SCRATCH/run.ostm.partial"
expect_exit 0 "$ONESCOPE" recover "$SCRATCH/run.ostm.partial"
expect_grep "kept 6 complete steps in $SCRATCH/run.ostm" "$SCRATCH/out"
expect_exit 0 "$ONESCOPE" validate "$SCRATCH/run.ostm"
expect_exit 0 "$ONESCOPE" verify "$SCRATCH/run.ostm"
if cmp -s "$SEEDS/partial-2d" "$SCRATCH/run.ostm.partial"; then ok; else bad "partial changed"; fi

# A torn last step is dropped; an explicit OUT.
cp "$SEEDS/partial-torn" "$SCRATCH/torn.partial"
expect_exit 0 "$ONESCOPE" recover "$SCRATCH/torn.partial" "$SCRATCH/torn.ostm"
expect_grep "kept 5 complete steps" "$SCRATCH/out"
expect_exit 0 "$ONESCOPE" verify "$SCRATCH/torn.ostm"

# Given hashes: valid, though verify finds they are not the world's.
cp "$SEEDS/partial-3d-given-hashes" "$SCRATCH/given.ostm.partial"
expect_exit 0 "$ONESCOPE" -q recover "$SCRATCH/given.ostm.partial"
if [ -s "$SCRATCH/out" ]; then bad "-q printed"; else ok; fi
expect_exit 0 "$ONESCOPE" validate "$SCRATCH/given.ostm"
expect_exit 1 "$ONESCOPE" verify "$SCRATCH/given.ostm"

# A finished replay is not a partial: one line naming it and the offset, no output.
cp "$SEEDS/finished-replay" "$SCRATCH/done.ostm.partial"
expect_exit 1 "$ONESCOPE" recover "$SCRATCH/done.ostm.partial"
expect_grep "done.ostm.partial: offset [0-9]*: partial recording mark" "$SCRATCH/err"
if [ "$(wc -l <"$SCRATCH/err")" -eq 1 ]; then ok; else bad "more than one error line"; fi
if [ -e "$SCRATCH/done.ostm" ]; then bad "output made for a bad partial"; else ok; fi

# OUT may not be the partial.
expect_exit 1 "$ONESCOPE" recover "$SCRATCH/run.ostm.partial" "$SCRATCH/run.ostm.partial"
if cmp -s "$SEEDS/partial-2d" "$SCRATCH/run.ostm.partial"; then ok; else bad "partial changed"; fi

finish
