"""Build the Cython core of fastbg.

Environment switches
--------------------
FASTBG_CYTHON_DEBUG=1
    Turn bounds, wraparound and initialisation checks back on and build with -O0 -g.
FASTBG_ANNOTATE=1
    Write Cython's annotated HTML next to each .pyx (hot loops should show no
    Python interaction).
"""
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("FASTBG_CYTHON_DEBUG") == "1"
ANNOTATE = os.environ.get("FASTBG_ANNOTATE") == "1"

MODULES = ["board", "features", "movegen", "eval", "bearoffdb", "racedb", "nn", "evaluator", "policies", "rollout", "cubeful"]

# -ffp-contract=off: no fused multiply-add, so floating sums are the same on every
# machine (the policies use exact integer scores anyway, this is belt and braces).
compile_args = ["-O0", "-g"] if DEBUG else ["-O3", "-ffp-contract=off"]

extensions = [
    Extension(
        f"fastbg._core.{name}",
        [os.path.join("pyx", "fastbg", "_core", f"{name}.pyx")],
        include_dirs=[np.get_include(), os.path.join("pyx", "fastbg", "_core")],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=compile_args,
        # C headers: hand-written kernels (nn_kernels.h: AVX2 + baseline clones) and
        # the evaluator's per-thread workspace (thread_workspace.h)
        depends=[os.path.join("pyx", "fastbg", "_core", h)
                 for h in ("nn_kernels.h", "thread_workspace.h")],
    )
    for name in MODULES
]

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": True,
    "embedsignature": True,
}

setup(
    ext_modules=cythonize(
        extensions,
        include_path=["pyx"],
        compiler_directives=directives,
        annotate=ANNOTATE,
        force=ANNOTATE,  # regenerate the HTML even when the .c files are current
    ),
)
