"""The one part of the build pyproject.toml cannot state with Debian's setuptools
66: the optional native helper, craftground_capture._lease (native/lease.c; the
vector learner's per-game leases in C, docs/zero-copy-v2/learner.md, "The vector
learner"). One abi3 module serves every Python >= 3.8, so the wheel is tagged
cp38-abi3-<platform>. Where it cannot be built (no C compiler or no Python
headers: python3-dev) pip still installs the package, which then runs the same
rules in Python. CRAFTGROUND_CAPTURE_PURE=1 leaves it out: a py3-none-any wheel.
Everything else is in pyproject.toml.
"""
import os
import sys

from setuptools import Extension, setup

native = sys.platform.startswith("linux") and os.environ.get("CRAFTGROUND_CAPTURE_PURE") != "1"
setup(ext_modules=[Extension("craftground_capture._lease", ["native/lease.c"],
                             py_limited_api=True, optional=True,
                             extra_compile_args=["-std=c11", "-O2"])] if native else [],
      options={"bdist_wheel": {"py_limited_api": "cp38"}} if native else {})
