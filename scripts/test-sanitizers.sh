#!/usr/bin/env bash
# The CPU test suite under AddressSanitizer + UndefinedBehaviorSanitizer, then each libFuzzer
# target for a bounded time. scripts/test.sh runs this in CI (CI=true) or when
# TG_SANITIZERS=1; run it alone with ./scripts/test-sanitizers.sh.
#
# A second build directory (build-san/, or $TG_SAN_BUILD_DIR) built with Debian's clang-22 for
# the same LLVM: -fsanitize=address,undefined -fno-sanitize-recover=all, plus
# -fsanitize=fuzzer-no-link so that the same objects link the fuzz targets; -O1 with line
# tables and NDEBUG, as Debian built LLVM: LLVM's headers change class layouts without it
# (llvm::Statistic becomes a TrackingStatistic, which UBSan then finds reading a bool from
# the library's NoopStatistic); MLIR linked against the shared libLLVM
# (TG_STATIC_LLVM=OFF: links faster); only what the CPU suite needs (no benchmarks, examples
# or GPU test binary). ccache serves it like build/.
#
# Runtime options: any finding aborts its process (halt_on_error, abort_on_error), so a test
# fails, also under lit's `not`. Debian's MLIR libraries are not instrumented and LLVM's
# allocator poisons and unpoisons its slabs itself, which ASan then reports as a
# use-after-poison in every MLIRContext; allow_user_poisoning=0 ignores that manual poisoning
# and still catches real heap, stack and global errors. allocator_may_return_null=1 makes an
# impossible allocation throw std::bad_alloc (what tg turns into a tg::Error) instead of
# ending the process.
#
# Environment: TG_FUZZ_SECONDS (default 60) per fuzz target; TG_SAN_JOBS (default: nproc).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TG_SAN_BUILD_DIR:-$root/build-san}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
jobs="${TG_SAN_JOBS:-$(nproc)}"
fuzz_seconds="${TG_FUZZ_SECONDS:-60}"

"$root/scripts/install-deps.sh" --sanitizers

export ASAN_OPTIONS="allow_user_poisoning=0:halt_on_error=1:abort_on_error=1:detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"

flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link -fno-omit-frame-pointer"
start=$(date +%s)
# (Full compiler paths: a name CMake has resolved differently counts as a new compiler, and
# CMake then drops the cache and every -D of this command with it.)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_COMPILER="$(command -v clang-22)" -DCMAKE_CXX_COMPILER="$(command -v clang++-22)" \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only -DNDEBUG" \
  -DCMAKE_C_FLAGS_DEBUG="-O1 -gline-tables-only -DNDEBUG" \
  "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_C_FLAGS=$flags" \
  "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" \
  -DTG_STATIC_LLVM=OFF -DTG_BUILD_BENCHMARKS=OFF -DTG_BUILD_EXAMPLES=OFF -DTG_BUILD_GPU_TESTS=OFF \
  -DCMAKE_PREFIX_PATH=/usr/lib/llvm-22 -DCUDAToolkit_ROOT="$cuda" >/dev/null
ninja -C "$build" -j "$jobs" tg-opt tgc tg_unit_tests tg_random_programs tg_worker_pool_tests tg_fuzz_ir tg_fuzz_npy
echo "tg: sanitizer build took $(( $(date +%s) - start )) s"

# The CPU suite: lit (tg-opt, tgc), the unit tests and 200 random programs
# (random_programs_cpu); GPU tests are not built here.
ctest --test-dir "$build" --output-on-failure -j "$jobs" -L 'lit|unit'

# Each fuzz target for a bounded time on a copy of its seed corpus (new inputs stay out of the
# repository). A crash, a sanitizer finding, an input slower than -timeout seconds or a process
# past -rss_limit_mb (or one allocation past it) fails, printing the input that did it.
# A fixed -seed (TG_FUZZ_SEED, default 1; 0 lets libFuzzer pick) makes CI's runs repeat the
# same mutations, so a finding there can be reproduced and does not come and go by chance.
for target in ir npy; do
  work="$(mktemp -d)"
  mkdir "$work/corpus"
  cp "$root/tests/fuzz/corpus/$target/"* "$work/corpus/"
  dict=()
  [ -f "$root/tests/fuzz/$target.dict" ] && dict=("-dict=$root/tests/fuzz/$target.dict")
  echo "tg: fuzzing $target for ${fuzz_seconds} s"
  if ! (cd "$work" && "$build/tests/fuzz/tg_fuzz_$target" "$work/corpus" "${dict[@]}" \
          -seed="${TG_FUZZ_SEED:-1}" -max_total_time="$fuzz_seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
          -print_final_stats=1 -artifact_prefix="$work/" >"$work/log" 2>&1); then
    tail -n 60 "$work/log"
    for a in "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-*; do
      [ -f "$a" ] && { echo "tg: fuzz input $a (base64):"; base64 "$a"; }
    done
    echo "tg: fuzz target tg_fuzz_$target failed (files kept in $work)" >&2
    exit 1
  fi
  grep -E "^(Done|#[0-9]+ +DONE)|stat::number_of_executed_units|stat::peak_rss_mb|cov:" "$work/log" | tail -n 4
  rm -rf "$work"
done
echo "tg: sanitizer suite and fuzzing passed in $(( $(date +%s) - start )) s"
