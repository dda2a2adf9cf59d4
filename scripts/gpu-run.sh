#!/usr/bin/env bash
# The GPU run: build here, run there, bring the logs back. Two halves:
#
#   scripts/gpu-run.sh prepare
#       On the build machine (no GPU needed): builds the static binaries and stages them,
#       stripped, with the Python benchmark scripts, into .gpu/ (git-ignored; about 80 MB),
#       and packs that into .gpu.tgz (about 31 MB: what travels to the GPU machine, whose
#       working tree may carry 64 MiB; remote unpacks it when there is no .gpu/).
#   scripts/gpu-run.sh remote [tests] [sanitize] [sass] [bench] [runtime] [gemm] [gemm-smoke]
#                             [torch] [demo] [decoder] [pdl] [sweep] [rowsweep] [versus] [fuzz]
#                             (default: tests sass bench runtime gemm torch demo)
#       On the GPU machine, in a checkout holding that .gpu/ (it needs the NVIDIA driver; the
#       sanitize and sass stages the CUDA toolkit's compute-sanitizer and cuobjdump, torch and
#       versus PyTorch). Runs the GPU tests, the compute-sanitizer tools, the SASS checks, the
#       benchmarks (runtime: compile, warm start, per-call cost, CUDA graphs; gemm: tg's
#       matmuls against cuBLAS), PyTorch's numbers and the random programs, writes logs and
#       JSON under $OUT (default /tmp/tg-out) and prints a summary last.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
stage="$root/.gpu"

prepare() {
  set -e
  "$root/scripts/build.sh"
  local build="${TG_BUILD_DIR:-$root/build}"
  rm -rf "$stage" && mkdir -p "$stage"
  for bin in tests/gpu/tg_gpu_tests tests/random/tg_random_programs benchmarks/tg_bench benchmarks/tg_bench_runtime tools/tgc examples/mlp_block examples/graph_break examples/llama_decoder; do
    cp "$build/$bin" "$stage/"
  done
  # Built only where the toolkit has cuBLAS. It links libcublas dynamically; cuBLAS itself
  # (about 600 MB) does not travel: remote finds the copy on the GPU machine.
  if [[ -f "$build/benchmarks/tg_bench_gemm" ]]; then cp "$build/benchmarks/tg_bench_gemm" "$stage/"; fi
  strip "$stage"/* 2>/dev/null || true
  # Google Benchmark is a shared library on Debian; the GPU machine has none.
  cp -L /usr/lib/x86_64-linux-gnu/libbenchmark.so.1debian "$stage/" 2>/dev/null || true
  cp "$root/benchmarks/compare_torch.py" "$root/benchmarks/report.py" "$stage/"
  if [[ -f "$root/benchmarks/decoder_torch.py" ]]; then cp "$root/benchmarks/decoder_torch.py" "$stage/"; fi
  tar -C "$root" -czf "$root/.gpu.tgz" .gpu
  du -sh "$stage" "$root/.gpu.tgz"
}

# The directory holding libcublas.so.13 (and libcublasLt.so.13 next to it) on this machine:
# torch's pip wheels (nvidia-cublas, under nvidia/ in any site-packages directory) first, then
# the toolkit's lib64. Prints nothing when there is none.
cublas_dir() {
  python3 - <<'PY' 2>/dev/null
import glob, os, site, sys
roots = []
for get in (site.getsitepackages, lambda: [site.getusersitepackages()]):
    try:
        roots += get()
    except Exception:
        pass
roots += [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
patterns = [os.path.join(r, "nvidia", "**", "libcublas.so.13") for r in dict.fromkeys(roots)]
patterns += ["/usr/local/cuda*/lib64/libcublas.so.13", "/usr/local/cuda*/targets/*/lib/libcublas.so.13"]
for pattern in patterns:
    for lib in sorted(glob.glob(pattern, recursive=True)):
        d = os.path.dirname(lib)
        if os.path.exists(os.path.join(d, "libcublasLt.so.13")):
            print(d)
            sys.exit(0)
PY
}

remote() {
  local what="${*:-tests sass bench runtime gemm torch demo}"
  local out="${OUT:-/tmp/tg-out}"
  mkdir -p "$out"
  if [[ ! -d "$stage" && -f "$root/.gpu.tgz" ]]; then tar -C "$root" -xzf "$root/.gpu.tgz"; fi
  cd "$stage" || { echo "no .gpu/ here: run 'scripts/gpu-run.sh prepare' and carry .gpu.tgz (or .gpu)"; exit 1; }
  export LD_LIBRARY_PATH="$stage${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local logs="$out/logs"
  mkdir -p "$logs"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv \
    | tee "$logs/gpu.txt"
  local summary=""
  # The GPU tests in TG_GPU_TEST_SHARDS processes at once (default: 8, or one per two cores),
  # gtest's shards, each with its own log; their logs are then joined into $logs/$1.log. Most
  # of the suite's time is NVRTC compiling (CPU), and the tests compare only the memory their
  # own process holds, so the shards run side by side. TG_GPU_TEST_FILTER: a gtest filter
  # (default: every test). Prints the summary line; returns the worst shard's exit status.
  sharded_tests() {
    local name="$1" shards="${TG_GPU_TEST_SHARDS:-$(( $(nproc) / 2 < 8 ? ($(nproc) + 1) / 2 : 8 ))}" i rc=0
    local pids=()
    for ((i = 0; i < shards; i++)); do
      GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i ./tg_gpu_tests --gtest_filter="${TG_GPU_TEST_FILTER:-*}" \
        --gtest_output="json:$logs/${name}_$i.json" > "$logs/${name}_$i.log" 2>&1 &
      pids+=($!)
    done
    for i in "${!pids[@]}"; do wait "${pids[$i]}" || rc=$?; done
    cat "$logs/${name}"_[0-9]*.log > "$logs/$name.log"
    local passed failed
    passed=$(grep -hE '^\[  PASSED  \] [0-9]+ test' "$logs/${name}"_[0-9]*.log | awk '{n += $4} END {print n + 0}')
    failed=$(grep -hE '^\[  FAILED  \] [A-Za-z0-9_/.]+ \(' "$logs/$name.log" | sed 's/ (.*//; s/^\[  FAILED  \] //' | tr '\n' ' ')
    echo "exit $rc | $passed passed in $shards shards${failed:+ | FAILED: $failed}"
    return $rc
  }
  if [[ " $what " == *" tests "* ]]; then
    summary+="gpu tests: $(sharded_tests gpu_tests)\n"
    grep -hE '^\[  FAILED  \] [A-Za-z0-9_/.]+ \(' "$logs/gpu_tests.log" | head -20
  fi
  if [[ " $what " == *" pdl "* ]]; then
    # The GPU tests again with programmatic dependent launch (TG_PDL=1: every kernel waits for
    # its predecessor itself; launches and graph edges let it start early), then the decoder.
    summary+="gpu tests (TG_PDL=1): $(TG_PDL=1 sharded_tests gpu_tests_pdl)\n"
    grep -hE '^\[  FAILED  \] [A-Za-z0-9_/.]+ \(' "$logs/gpu_tests_pdl.log" | head -20
    TG_PDL=1 ./llama_decoder > "$logs/decoder_pdl.log" 2>&1
    summary+="decoder (TG_PDL=1): exit $? | $(grep -E '^jit on|^decode graph|^tokens' "$logs/decoder_pdl.log" | tr '\n' ' ' | cut -c1-600)\n"
  fi
  if [[ " $what " == *" sanitize "* ]]; then
    # compute-sanitizer over the whole GPU suite, with every allocation going to the driver
    # (TG_NO_MEMORY_CACHING: the caching allocator would hide out-of-bounds accesses inside its
    # slabs; tests of the allocator itself skip). memcheck also checks leaks at exit. API errors
    # are not reported: tg checks every driver call's result itself, and the out-of-memory
    # tests provoke failing ones on purpose. TG_SANITIZE_TOOLS picks the tools,
    # TG_SANITIZE_FILTER a gtest filter, TG_SANITIZE_JOBS how many tools run at once (default:
    # all; the tests compare only the memory their own process holds, Gpu::bytesFromDriver).
    local tools="${TG_SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}"
    local jobs="${TG_SANITIZE_JOBS:-4}" running=0 tool
    for tool in $tools; do
      local extra="" direct=0
      [[ "$tool" == memcheck ]] && extra="--leak-check full"
      # initcheck does not see writes by the TMA unit: every result a wgmma kernel stores by
      # TMA would read as uninitialized (seen on the H200: 413,320 reports over the suite,
      # 87,548 from GpuEager.Matmul alone, whose values were right; 0 with direct stores). It
      # checks the direct-store epilogue instead; memcheck and racecheck cover the TMA one.
      [[ "$tool" == initcheck ]] && direct=1
      ( start=$SECONDS
        TG_GEMM_DIRECT_STORE=$direct TG_NO_MEMORY_CACHING=1 compute-sanitizer --tool "$tool" $extra \
          --report-api-errors no --print-limit 50 --error-exitcode 86 \
          ./tg_gpu_tests --gtest_filter="${TG_SANITIZE_FILTER:-*}" > "$logs/sanitize_$tool.log" 2>&1
        echo "exit $? after $((SECONDS - start)) s" >> "$logs/sanitize_$tool.log" ) &
      running=$((running + 1))
      if (( running >= jobs )); then wait -n; running=$((running - 1)); fi
    done
    wait
    for tool in $tools; do
      summary+="sanitize $tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$logs/sanitize_$tool.log" | tr '\n' ' ')| $(grep -E '^\[  (PASSED|FAILED)  \]' "$logs/sanitize_$tool.log" | tr '\n' ' ')| $(tail -2 "$logs/sanitize_$tool.log" | tr '\n' ' ')\n"
    done
  fi
  if [[ " $what " == *" sass "* ]]; then
    # The fused chain's kernel must use 16-byte loads (LDG.E.128) in its machine code.
    mkdir -p "$logs/sass"
    # The fused MLP layer (bf16 matmul + bias + gelu) must run on tensor cores: HGMMA.
    # The row softmax (a row kernel): its registers and stack (spills), from the cubin.
    for ex in chain8 chain8_bf16 bias_gelu mlp softmax; do
      ./tgc dump "$ex" --stage=plan --out-dir="$logs/sass/$ex" > "$logs/sass/$ex.plan.txt" 2>&1
      for c in "$logs/sass/$ex"/*.cubin; do
        cuobjdump --dump-sass "$c" > "${c%.cubin}.sass" 2>&1
        summary+="sass $ex $(basename "$c"): $(grep -c 'LDG.E.128' "${c%.cubin}.sass") LDG.E.128, $(grep -c 'STG.E.128' "${c%.cubin}.sass") STG.E.128, $(grep -c 'MUFU' "${c%.cubin}.sass") MUFU, $(grep -c 'HGMMA' "${c%.cubin}.sass") HGMMA, $(cuobjdump --dump-resource-usage "$c" 2>&1 | grep -o 'REG:[0-9]*\|STACK:[0-9]*' | tr '\n' ' ')\n"
      done
    done
  fi
  if [[ " $what " == *" demo "* ]]; then
    ./mlp_block > "$logs/demo.log" 2>&1
    summary+="demo: exit $? | $(tail -2 "$logs/demo.log" | tr '\n' ' ')\n"
    ./graph_break > "$logs/graph_break.log" 2>&1
    summary+="graph_break: exit $? | $(tail -1 "$logs/graph_break.log")\n"
  fi
  if [[ " $what " == *" bench "* ]]; then
    # TG_BENCH_FILTER: Google Benchmark's --benchmark_filter (default: every case).
    ./tg_bench --benchmark_filter="${TG_BENCH_FILTER:-.}" --benchmark_format=json \
      --benchmark_out="$out/tg_bench.json" --benchmark_out_format=json > "$logs/tg_bench.log" 2>&1
    summary+="tg bench: exit $?\n"
  fi
  if [[ " $what " == *" runtime "* ]]; then
    # Cold compile, warm start (fresh processes), in-memory hit, host us per call, and the
    # 32-op chain's device time with and without CUDA graphs (benchmarks/bench_runtime.cpp).
    ./tg_bench_runtime --benchmark_format=json --benchmark_out="$out/tg_bench_runtime.json" \
      --benchmark_out_format=json > "$logs/tg_bench_runtime.log" 2>&1
    summary+="tg bench runtime: exit $? | $(python3 -c "import json;d=json.load(open('$out/tg_bench_runtime.json'));x=lambda b: ''.join(' %s=%.2f' % (k, b[k]) for k in ('param_updates', 'node_set_params_us', 'alloc_free_us', 'launch_kernel_us') if k in b);print(' '.join('%s=%.2fus%s' % (b['name'].split('/iter')[0], b.get('median_us', 0), x(b)) for b in d['benchmarks']))" 2>&1)\n"
  fi
  if [[ " $what " == *" gemm "* ]]; then
    # tg's matmuls next to cuBLAS in one binary (benchmarks/bench_matmul.cpp). TG_GEMM_FILTER
    # (a --benchmark_filter regex, e.g. 'tf32') limits the cases.
    local cudir
    cudir="$(cublas_dir)"
    if [[ ! -x ./tg_bench_gemm ]]; then
      summary+="tg bench gemm: not staged (no cuBLAS in the toolkit where it was built)\n"
    elif ! LD_LIBRARY_PATH="$cudir${cudir:+:}$LD_LIBRARY_PATH" ldd ./tg_bench_gemm | grep -q 'libcublas.so.13 => /'; then
      summary+="tg bench gemm: skipped: no libcublas.so.13 in python3's site-packages or /usr/local/cuda*\n"
    else
      LD_LIBRARY_PATH="$cudir${cudir:+:}$LD_LIBRARY_PATH" ./tg_bench_gemm --benchmark_format=json \
        --benchmark_filter="${TG_GEMM_FILTER:-.}" \
        --benchmark_out="$out/tg_bench_gemm.json" --benchmark_out_format=json > "$logs/tg_bench_gemm.log" 2>&1
      summary+="tg bench gemm: exit $? (cuBLAS from ${cudir:-the default search path}) | $(python3 -c "import json;d=json.load(open('$out/tg_bench_gemm.json'));print(' '.join('%s=%s' % (b['name'].split('/iter')[0], 'ERROR' if b.get('error_occurred') else ('%.1fus/%.0f%%roof' % (b.get('median_us', 0), b['roofline_pct']) if 'roofline_pct' in b else '%.0fTF' % b.get('tflops', 0)) + ('(%.2fx)' % b['vs_cublas'] if 'vs_cublas' in b else '')) for b in d['benchmarks']))" 2>&1)\n"
    fi
  fi
  if [[ " $what " == *" gemm-smoke "* ]]; then
    # Matmul shapes through `tgc run` against a float64 numpy reference, and TFLOP/s.
    TGC=./tgc python3 "$root/scripts/dev/gemm_smoke.py" --bench > "$logs/gemm_smoke.log" 2>&1
    summary+="gemm smoke: exit $? | $(grep -E 'TFLOP|FAIL|passed' "$logs/gemm_smoke.log" | tr '\n' ';')\n"
  fi
  if [[ " $what " == *" sweep "* ]]; then
    # Launch-shape sweep of the elementwise kernels: threads per block (TG_BLOCK), vector steps
    # per thread (TG_UNROLL) and the cache operator (TG_CACHE_HINT, prelude.cuh). Earlier sweeps
    # of TG_BLOCKS_PER_SM are in benchmarks/RESULTS.md. TG_SWEEP overrides the list.
    local configs="${TG_SWEEP:-256,2,0 128,2,0 128,4,0 512,2,0 256,1,0 256,4,0 256,2,1 128,2,1 256,2,2}"
    local filter="${TG_SWEEP_FILTER:-copy|chain8/.*/fused}"
    for c in $configs; do
      IFS=, read -r blk unr hint <<< "$c"
      TG_BLOCK=$blk TG_UNROLL=$unr TG_CACHE_HINT=$hint ./tg_bench --benchmark_filter="$filter" \
        --benchmark_format=json --benchmark_out="$logs/sweep_$c.json" > "$logs/sweep_$c.log" 2>&1
      summary+="sweep block=$blk unroll=$unr hint=$hint: $(python3 -c "import json;d=json.load(open('$logs/sweep_$c.json'));print(' '.join('%s=%.1fus' % (b['name'].split('/iter')[0], b.get('median_us', 0)) for b in d['benchmarks']))")\n"
    done
  fi
  if [[ " $what " == *" rowsweep "* ]]; then
    # Plans of the row kernels (EmitRow.cpp's planRows): registers of held values per thread
    # (TG_ROW_REGISTERS), threads per block for wide rows (TG_ROW_MAX_GROUP) and per block of
    # a cluster (TG_ROW_CLUSTER_GROUP). TG_ROW_SWEEP overrides the list, TG_ROW_SWEEP_FILTER
    # the cases (default: the rows of 1024 to 262,144 of softmax, layer_norm and RMSNorm).
    local configs="${TG_ROW_SWEEP:-32,512,256 32,512,512 64,512,256 48,512,256}"
    local filter="${TG_ROW_SWEEP_FILTER:-copy|/(65536x1024|131072x1024|16384x4096|32768x4096|4096x16384|8192x16384|1024x65536|2048x65536|256x262144|512x262144)/fused}"
    for c in $configs; do
      IFS=, read -r regs group cgroup <<< "$c"
      TG_ROW_REGISTERS=$regs TG_ROW_MAX_GROUP=$group TG_ROW_CLUSTER_GROUP=$cgroup ./tg_bench \
        --benchmark_filter="$filter" --benchmark_format=json --benchmark_out="$logs/rowsweep_$c.json" \
        > "$logs/rowsweep_$c.log" 2>&1
      summary+="rowsweep registers=$regs group=$group cluster_group=$cgroup: $(python3 -c "import json;d=json.load(open('$logs/rowsweep_$c.json'));print(' '.join('%s=%.1f%%' % (b['name'].split('/iter')[0], b.get('roofline_pct', 0)) for b in d['benchmarks']))")\n"
    done
  fi
  if [[ " $what " == *" versus "* ]]; then
    # tg against torch.compile on the 8-op chains, in alternating processes (TG_VERSUS_ROUNDS
    # rounds, default 4), so drift between the two falls on both: each round prints both
    # medians and the ratio (>1: tg faster).
    local r
    for ((r = 1; r <= ${TG_VERSUS_ROUNDS:-4}; ++r)); do
      ./tg_bench --benchmark_filter='chain8/.*/fused' --benchmark_format=json \
        --benchmark_out="$logs/versus_tg_$r.json" > "$logs/versus_tg_$r.log" 2>&1
      PYTHONUNBUFFERED=1 python3 compare_torch.py --cases chain8 --out "$logs/versus_torch_$r.json" \
        > "$logs/versus_torch_$r.log" 2>&1
      summary+="versus round $r: $(python3 - "$logs/versus_tg_$r.json" "$logs/versus_torch_$r.json" <<'PY' 2>&1
import json, sys
tg = {b["name"].split("/fused")[0]: b["median_us"] for b in json.load(open(sys.argv[1]))["benchmarks"]}
th = {r["name"].split("/compile")[0]: r["median_us"] for r in json.load(open(sys.argv[2]))["results"]
      if r["name"].endswith("/compile")}
print(" ".join("%s tg=%.1fus compile=%.1fus (%.3fx)" % (k, tg[k], th[k], th[k] / tg[k])
               for k in sorted(tg) if k in th))
PY
)\n"
    done
  fi
  if [[ " $what " == *" fuzz "* ]]; then
    # Random programs at scale (tests/random/tg_random_programs.cpp): TG_FUZZ_COUNT (10,000)
    # seeded programs from TG_FUZZ_FIRST_SEED (1), each jit fused and unfused on the GPU and
    # compared with the interpreter within its modelled tolerance, in one worker process per
    # core (each compiles its own kernels). A fresh kernel cache: nothing compiled earlier is
    # reused. TG_FUZZ_DEADLINE (seconds) stops handing out seeds then, so that a run cut short
    # by the device's time limit still reports the seeds it ran (the first ones). The summary
    # gets the counts; logs/ the failure lines (seed, kind, the command that reproduces it) and
    # the JSON.
    local cache rc
    cache="$(mktemp -d /tmp/tg-fuzz-cache.XXXXXX)"
    TG_CACHE_DIR="$cache" ./tg_random_programs --device cuda --count "${TG_FUZZ_COUNT:-10000}" \
      --first-seed "${TG_FUZZ_FIRST_SEED:-1}" --jobs "${TG_FUZZ_JOBS:-$(nproc)}" --json "$logs/fuzz.json" \
      ${TG_FUZZ_DEADLINE:+--deadline "$TG_FUZZ_DEADLINE"} \
      > "$logs/fuzz.log" 2> "$logs/fuzz.stderr.log"
    rc=$?
    rm -rf "$cache"
    grep -E '^  seed [0-9]+: ' "$logs/fuzz.log" > "$logs/fuzz_failures.txt"
    head -20 "$logs/fuzz_failures.txt"
    summary+="fuzz: exit $rc | $(grep -E '^random programs:' "$logs/fuzz.log" || tail -1 "$logs/fuzz.stderr.log")\n"
    summary+="fuzz: $(grep -E '^  [0-9.]+ ms per program|^  simulated miscompiles' "$logs/fuzz.log" | tr -s ' ' | tr '\n' ';')\n"
  fi
  if [[ " $what " == *" decoder "* ]]; then
    # The Llama-style decoder (examples/llama_decoder.cpp, big configuration) with a cold kernel
    # cache, then again warm; with PyTorch there, the same model in eager and torch.compile
    # (benchmarks/decoder_torch.py) on the weights the first run saved.
    local dcache dsave
    dcache="$(mktemp -d)" dsave="$(mktemp -d)"
    TG_CACHE_DIR="$dcache" ./llama_decoder --save "$dsave" > "$logs/decoder.log" 2>&1
    summary+="decoder (cold cache): exit $? | $(grep -E '^jit on|^decode' "$logs/decoder.log" | tr '\n' ' ')\n"
    TG_CACHE_DIR="$dcache" ./llama_decoder > "$logs/decoder_warm.log" 2>&1
    summary+="decoder (warm cache): exit $? | $(grep -E '^jit on|^decode graph|^tokens' "$logs/decoder_warm.log" | tr '\n' ' ' | cut -c1-600)\n"
    # Eager execution (op by op, each op's kernels cached after its first use), 8 tokens.
    TG_CACHE_DIR="$dcache" timeout 240 ./llama_decoder --eager --generate 8 > "$logs/decoder_eager.log" 2>&1
    summary+="decoder (eager): exit $? | $(grep -E '^eager' "$logs/decoder_eager.log" | tr '\n' ' ' | cut -c1-600)\n"
    if [[ -f decoder_torch.py ]]; then
      PYTHONUNBUFFERED=1 python3 decoder_torch.py --dir "$dsave" --out "$out/decoder_torch.json" \
        > "$logs/decoder_torch.log" 2>&1
      summary+="decoder_torch: exit $? | $(tail -12 "$logs/decoder_torch.log" | tr '\n' ' ')\n"
    fi
    rm -rf "$dcache" "$dsave"
  fi
  if [[ " $what " == *" torch "* ]]; then
    # TG_TORCH_CASES (compare_torch.py's --cases, e.g. "mlp,gemm") limits the cases.
    PYTHONUNBUFFERED=1 python3 compare_torch.py --out "$out/torch.json" \
      ${TG_TORCH_CASES:+--cases "$TG_TORCH_CASES"} > "$logs/torch.log" 2>&1
    summary+="torch: exit $?\n"
  fi
  if [[ -f "$out/tg_bench.json" || -f "$out/tg_bench_gemm.json" ]]; then
    local inputs=()
    [[ -f "$out/tg_bench.json" ]] && inputs+=(--tg "$out/tg_bench.json")
    [[ -f "$out/tg_bench_gemm.json" ]] && inputs+=(--tg-gemm "$out/tg_bench_gemm.json")
    python3 report.py "${inputs[@]}" --torch "$out/torch.json" \
      --results "$out/RESULTS.section.md" --png "$out/results.png" \
      --commit "${TG_COMMIT:-unknown}" --command "scripts/gpu-run.sh remote $what" \
      > "$logs/report.log" 2>&1
    cat "$out/RESULTS.section.md" 2>/dev/null | tail -40
  fi
  tar -C "$out" -czf "$out/logs.tgz" logs && rm -rf "$logs"
  echo "==== summary ====" | tee "$out/summary.txt"
  printf "%b" "$summary" | tee -a "$out/summary.txt"
}

case "${1:-}" in
  prepare) prepare ;;
  remote) shift; remote "$@" ;;
  *) echo "usage: scripts/gpu-run.sh prepare | remote [tests] [sanitize] [sass] [bench] [runtime] [gemm] [gemm-smoke] [torch] [demo] [decoder] [pdl] [sweep] [rowsweep] [versus] [fuzz]"; exit 2 ;;
esac
