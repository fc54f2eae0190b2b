"""The C parts of the package, both optional: the matcher (extractor/match/_cscan.c, built from
extractor/match/cscan/) and the mention table with the merge's grouping
(extractor/pipeline/_ctable.c, from extractor/pipeline/ctable/). Where they cannot be compiled
(no compiler, no Python headers) the build warns and the package installs without them, using
the same rules in Python. Everything else is declared in pyproject.toml; setuptools needs this
file for an extension.

DOI_EXTRACTOR_SANITIZE at build time instruments the C parts:
- `address` (or `1`): AddressSanitizer and UndefinedBehaviorSanitizer, every UB report fatal
  (scripts/sanitize builds this way and runs the C tests under it);
- `fuzz`: clang's coverage for libFuzzer, so that atheris sees the C code (fuzz/README.md).
"""

import os
from glob import glob

from setuptools import Extension, setup

# -Wextra -Wconversion: the parts build clean under both (a warning is a defect to mend).
FLAGS = ["-std=c11", "-Wall", "-Wextra", "-Wconversion"]
SANITIZERS = {
    "": ([], []),
    "0": ([], []),
    "1": (
        ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer", "-O1", "-g"],
        ["-fsanitize=address,undefined"],
    ),
    "fuzz": (["-fsanitize=fuzzer-no-link,address", "-fno-omit-frame-pointer", "-g"], ["-fsanitize=address"]),
}
SANITIZERS["address"] = SANITIZERS["1"]
mode = os.environ.get("DOI_EXTRACTOR_SANITIZE", "")
if mode not in SANITIZERS:
    raise SystemExit(f"DOI_EXTRACTOR_SANITIZE must be one of {sorted(SANITIZERS)}, not {mode!r}")
compile_extra, link_extra = SANITIZERS[mode]


def part(name: str, source: str, folder: str) -> Extension:
    """One C part: a unity file that includes the files of its folder (their changes rebuild it)."""
    return Extension(
        name,
        [source],
        depends=sorted(glob(f"{folder}/*.[ch]")) + sorted(glob("extractor/match/cscan/*.h")),
        extra_compile_args=FLAGS + compile_extra,
        extra_link_args=link_extra,
        optional=not mode,  # an instrumented build that fails is an error, not a fallback
    )


setup(
    ext_modules=[
        part("extractor.match._cscan", "extractor/match/_cscan.c", "extractor/match/cscan"),
        part("extractor.pipeline._ctable", "extractor/pipeline/_ctable.c", "extractor/pipeline/ctable"),
        part("extractor.pipeline.formats._cjsonl", "extractor/pipeline/formats/_cjsonl.c", "extractor/pipeline/formats"),
    ]
)
