"""Build the reader package's wheel offline and check what is inside.

    python_wheel_check.py PKG_DIR PYTHON3 PROJECT_VERSION

`pip wheel --no-deps --no-build-isolation --no-index` (Debian's setuptools and
wheel, no package index) builds a copy of PKG_DIR, twice. The wheel must hold
exactly the package's modules (every craftground_capture/*.py of the source
folder, nothing else from it but py.typed when the source has one and the
gather kernel's PTX and CUDA source, kernels/*.ptx and kernels/*.cu), its
.dist-info, and a RECORD whose SHA-256 of every file matches the file's
bytes; METADATA must name the package, its version (the CMake project's
version: one version for every artifact of a release), numpy as its only
requirement and the Python floor of pyproject.toml. The first build (C
compiler and python3-dev at hand) must add the native helper,
craftground_capture/_lease.abi3.so, tagged cp38-abi3-<platform>, which the
vector learner's loader accepts from the unpacked wheel; the second, with
CRAFTGROUND_CAPTURE_PURE=1, is the py3-none-any wheel without it.
"""
import base64
import hashlib
import os
import re
import shutil
import sysconfig
import subprocess
import sys
import tempfile
import zipfile

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL", what)


def main():
    pkg, python3, project_version = sys.argv[1:4]
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    for pure in (False, True):
        rc = build(pkg, python3, project_version, pure, plat)
        if rc:
            return rc
    return 0


def build(pkg, python3, project_version, pure, plat):
    src = os.path.join(pkg, "craftground_capture")
    want = {"craftground_capture/" + f for f in os.listdir(src) if f.endswith(".py")}
    if os.path.exists(os.path.join(src, "py.typed")):
        want.add("craftground_capture/py.typed")
    kernels = os.path.join(src, "kernels")
    if os.path.isdir(kernels):
        want |= {"craftground_capture/kernels/" + f for f in os.listdir(kernels)
                 if f.endswith((".ptx", ".cu"))}
    pyproject = open(os.path.join(pkg, "pyproject.toml"), encoding="utf-8").read()
    floor = re.search(r'^requires-python\s*=\s*"([^"]+)"', pyproject, re.M).group(1)

    with tempfile.TemporaryDirectory(prefix="wheel-check-") as tmp:
        copy = os.path.join(tmp, "python")
        shutil.copytree(pkg, copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        out = os.path.join(tmp, "dist")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON"))}
        env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
        env.pop("CRAFTGROUND_CAPTURE_PURE", None)
        if pure:
            env["CRAFTGROUND_CAPTURE_PURE"] = "1"
        else:
            want.add("craftground_capture/_lease.abi3.so")
        subprocess.run([python3, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                        "--no-index", "-w", out, copy], check=True, env=env, cwd=tmp)
        wheels = os.listdir(out)
        tag = "py3-none-any" if pure else "cp38-abi3-" + plat
        name = "craftground_capture-%s-%s.whl" % (project_version, tag)
        check(wheels == [name], "one wheel named %s, got %s" % (name, wheels))
        with zipfile.ZipFile(os.path.join(out, wheels[0])) as z:
            names = set(z.namelist())
            info = "craftground_capture-%s.dist-info/" % project_version
            modules = {n for n in names if not n.startswith(info)}
            check(modules == want, "modules: missing %s, extra %s"
                  % (sorted(want - modules), sorted(modules - want)))
            for f in ("METADATA", "WHEEL", "RECORD", "top_level.txt"):
                check(info + f in names, "%s%s in the wheel" % (info, f))
            if failures:
                print("%d check(s) failed" % len(failures))
                return 1
            meta = z.read(info + "METADATA").decode()
            fields = {}
            for line in meta.split("\n\n", 1)[0].splitlines():
                k, _, v = line.partition(": ")
                fields.setdefault(k, []).append(v)
            print("METADATA:", {k: v for k, v in fields.items() if k != "Description"})
            check(fields.get("Metadata-Version", [""])[0] in ("2.1", "2.2", "2.3", "2.4"),
                  "Metadata-Version 2.1 or later: %s" % fields.get("Metadata-Version"))
            check(fields.get("Name") == ["craftground-capture"], "Name: %s" % fields.get("Name"))
            check(fields.get("Version") == [project_version],
                  "Version %s (the CMake project's), got %s" % (project_version, fields.get("Version")))
            check(fields.get("Requires-Python") == [floor], "Requires-Python %s: %s"
                  % (floor, fields.get("Requires-Python")))
            reqs = [r for r in fields.get("Requires-Dist", []) if "extra ==" not in r]
            check(reqs == ["numpy"], "Requires-Dist numpy only: %s" % reqs)
            wheel_tags = z.read(info + "WHEEL").decode()
            purelib = "Root-Is-Purelib: %s" % ("true" if pure else "false")
            check("Tag: " + tag in wheel_tags and purelib in wheel_tags,
                  "%s wheel (WHEEL: %s)" % (tag, wheel_tags.replace("\n", "; ")))
            if not pure:
                unpacked = os.path.join(tmp, "unpacked")
                z.extractall(unpacked)
                loads(python3, unpacked)
            record = {}
            for line in z.read(info + "RECORD").decode().splitlines():
                path, digest, _size = line.rsplit(",", 2)
                record[path] = digest
            check(set(record) == names, "RECORD lists every file: %s" % sorted(set(record) ^ names))
            for path, digest in record.items():
                if path == info + "RECORD":
                    continue
                h = base64.urlsafe_b64encode(hashlib.sha256(z.read(path)).digest()).rstrip(b"=")
                check(digest == "sha256=" + h.decode(), "RECORD's hash of %s" % path)
            for m in sorted(n for n in want & names if not n.endswith(".so")):
                check(z.read(m) == open(os.path.join(pkg, m), "rb").read(), "%s as in the source" % m)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("wheel %s: %d files, metadata and RECORD ok" % (name, len(want)))
    return 0


def loads(python3, unpacked):
    """The wheel's own helper, imported from the unpacked wheel by the
    package's loader in a fresh python3: the module of the wheel, the
    version the package expects."""
    code = ("import os, craftground_capture.vector as v; m, why = v.load_native(); "
            "print(m is not None and os.path.dirname(m.__file__) == "
            "os.path.dirname(v.__file__), why)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")
           and k != "CRAFTGROUND_CAPTURE_NATIVE"}
    env["PYTHONPATH"] = unpacked
    r = subprocess.run([python3, "-c", code], capture_output=True, text=True, env=env,
                       cwd=unpacked)
    check(r.returncode == 0 and r.stdout.startswith("True"),
          "the wheel's _lease.abi3.so loads as the package's helper: %s%s"
          % (r.stdout.strip(), r.stderr[-500:]))


if __name__ == "__main__":
    sys.exit(main())
