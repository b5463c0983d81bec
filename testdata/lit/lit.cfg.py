# lit configuration for fakeprop's golden tests: each .test file holds RUN
# lines and FileCheck patterns (many small cases per file).
import os

import lit.formats

config.name = "fakeprop"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(lit_config.params.get("build_dir", "."), "lit")

build_dir = lit_config.params["build_dir"]
llvm_bin = lit_config.params.get("llvm_bin", "/usr/lib/llvm-14/bin")
testdata = os.path.dirname(config.test_source_root)

config.substitutions.append(("%fakeprop", os.path.join(build_dir, "fakeprop")))
config.substitutions.append(("%FileCheck", os.path.join(llvm_bin, "FileCheck")))
config.substitutions.append(("%not", os.path.join(llvm_bin, "not")))
config.substitutions.append(("%samples", os.path.join(testdata, "samples")))
config.substitutions.append(("%testdata", testdata))
config.substitutions.append(("%python", "/usr/bin/python3"))
config.substitutions.append(("%schemas", os.path.join(os.path.dirname(testdata), "schemas")))
config.substitutions.append(("%scripts", os.path.join(os.path.dirname(testdata), "scripts")))
# The trace must not depend on the caller's environment.
for var in ["TORCH_LOGS", "TORCH_TRACE", "TORCHDYNAMO_EXTENDED_DEBUG_GUARD_ADDED", "TORCHDYNAMO_EXTENDED_DEBUG_CREATE_SYMBOL", "TORCH_COMPILE_DYNAMIC_SOURCES", "TORCH_COMPILE_UNBACKED_SOURCES",
            "TORCH_COMPILE_STATIC_SOURCES"]:
    config.environment.pop(var, None)
