# lit configuration for tg's FileCheck tests.
import os
import lit.formats

config.name = "tg"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tg_obj_root, "tests", "lit")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "Inputs"]

# tg-opt and tgc from the build; FileCheck, not, count from LLVM 22.
config.environment["PATH"] = os.pathsep.join(
    [config.tg_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])

# %limit_memory_4g caps what the rest of a `sh -c` command may allocate at about 4 GB:
# `ulimit -v`, except under AddressSanitizer, whose shadow memory needs terabytes of address
# space; there ASan's own limits end a process that goes past it.
if getattr(config, "tg_asan", False):
    config.available_features.add("asan")
    config.substitutions.append(("%limit_memory_4g",
        'export ASAN_OPTIONS="$ASAN_OPTIONS:hard_rss_limit_mb=4000:max_allocation_size_mb=4000"'))
else:
    config.substitutions.append(("%limit_memory_4g", "ulimit -v 4000000"))
