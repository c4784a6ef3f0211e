# Sourced by the ci-*.sh conformance scripts: which proptest seed draws the
# sequences compared with the real server.
#
# CI uses a fixed seed, so that a run of the same commit compares the same
# sequences and its verdict does not depend on the draw. New sequences are
# the job of a soak run: LOCKSMITH_CONFORMANCE_SEED=random lets proptest
# draw a fresh seed, and any other whole number is used as the seed. A
# disagreement's seed is stored in the test's .proptest-regressions file
# and replayed first by every later run, fixed seed or not.
seed="${LOCKSMITH_CONFORMANCE_SEED:-20261125}"
if [ "$seed" = random ]; then
    unset PROPTEST_RNG_SEED
    echo "conformance: proptest draws a fresh seed (LOCKSMITH_CONFORMANCE_SEED=random)" >&2
elif [[ "$seed" =~ ^[0-9]+$ ]]; then
    export PROPTEST_RNG_SEED="$seed"
    echo "conformance: proptest seed $seed (LOCKSMITH_CONFORMANCE_SEED; 'random' for a fresh one)" >&2
else
    echo "conformance: LOCKSMITH_CONFORMANCE_SEED=$seed is neither a whole number nor 'random'" >&2
    exit 2
fi
