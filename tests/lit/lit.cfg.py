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
