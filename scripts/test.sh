#!/usr/bin/env bash
# The README's second command: install what is missing, build, run the whole test suite
# (lit + unit tests on the CPU; GPU tests skip without a GPU, see scripts/gpu-run.sh). In CI
# (CI=true) or with TG_SANITIZERS=1 it then runs scripts/test-sanitizers.sh: the CPU suite
# under ASan + UBSan and each fuzz target for a minute.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
ctest --test-dir "${TG_BUILD_DIR:-$root/build}" --output-on-failure -j "$(nproc)"
if [ "${CI:-}" = "true" ] || [ "${TG_SANITIZERS:-0}" = "1" ]; then
  "$root/scripts/test-sanitizers.sh"
fi
