#!/usr/bin/env bash
# The README's first command: install what is missing, build, run the demo.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
"${TG_BUILD_DIR:-$root/build}/examples/mlp_block"
