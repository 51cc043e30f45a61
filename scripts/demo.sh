#!/bin/sh
# The demo: joulestat on a simulated GPU (tests/sim) playing a short
# "training" scenario that steps through P-states, reached through
# --nvml-lib exactly like a real libnvidia-ml.so.1.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
scenario=tests/sim/scenarios/demo.scn
echo "\$ NVSIM_SCENARIO=$scenario $BUILD/joulestat --nvml-lib=$BUILD/sim/libnvidia-ml.so.1 -i 50 -- $BUILD/tests/js-work spin 4s"
NVSIM_SCENARIO=$scenario "$BUILD/joulestat" --nvml-lib="$BUILD/sim/libnvidia-ml.so.1" -i 50 -- \
    "$BUILD/tests/js-work" spin 4s
