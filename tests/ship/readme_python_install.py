"""Run one of README.md's Python install recipes exactly as written, in a fresh
folder, and import the package from the venv it made.

    readme_python_install.py README PKG_DIR PYTHON3 BLOCK INSTALL_DEPS

BLOCK names the recipe: the shell lines of the fenced block between
"<!-- readme-test: BLOCK -->" and "<!-- /readme-test -->" in README. They run
in a new temporary folder holding a copy of PKG_DIR as ./python (the
repository root as the reader sees it), with PYTHON3 as the python3 on PATH
(the system Python, not a pyenv one). An `apt-get install` line is not run
(no root, no network in CI): it must not stop at a prompt or pull recommends
(`-y`, `--no-install-recommends`), and each package it names must be
installed (dpkg-query) and in install-deps' test profile. Exit 0 when the recipe
installed the package into the venv and `import craftground_capture` there
finds the venv's copy; 77 when a Debian package the offline emulation needs
is missing; 1 otherwise.

The online recipe ("python-install-online") needs a package index: here
PIP_NO_INDEX / PIP_FIND_LINKS stand in for it with Debian's wheels of
setuptools and wheel (/usr/share/python-wheels), PIP_NO_DEPS leaves numpy to
Debian's (PYTHONPATH, for the import only). The lines themselves are the
README's, unchanged.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile


def block(readme, name):
    text = open(readme, encoding="utf-8").read()
    m = re.search(r"<!-- readme-test: %s -->\s*```sh\n(.*?)```\s*<!-- /readme-test -->"
                  % re.escape(name), text, re.S)
    if not m:
        sys.exit("no block '%s' (<!-- readme-test: %s --> ```sh ... ``` <!-- /readme-test -->) in %s"
                 % (name, name, readme))
    return m.group(1).splitlines()


def apt_packages(line):
    words = shlex.split(line, comments=True)
    if words[:1] == ["sudo"]:
        words = words[1:]
    if words[:2] != ["apt-get", "install"]:
        return None
    flags = [w for w in words[2:] if w.startswith("-")]
    for need, why in (("-y", "it stops at a prompt"), ("--no-install-recommends",
                                                       "it pulls recommends")):
        if need not in flags and not (need == "-y" and "--yes" in flags):
            sys.exit("README's apt-get line has no %s: %s (%s)" % (need, why, line.strip()))
    return [w for w in words[2:] if not w.startswith("-")]


def main():
    readme, pkg, python3, name, install_deps = sys.argv[1:6]
    lines = block(readme, name)
    profile = subprocess.run(["bash", install_deps, "--list", "test"], check=True,
                             capture_output=True, text=True).stdout.split()
    script = []
    for line in lines:
        pkgs = apt_packages(line)
        if pkgs is None:
            script.append(line)
            continue
        for p in pkgs:
            if p not in profile:
                sys.exit("README's apt-get line names %s, which install-deps' test profile lacks" % p)
            st = subprocess.run(["dpkg-query", "-W", "-f=${Status}", p], capture_output=True, text=True)
            if "install ok installed" not in st.stdout:
                sys.exit("%s (README's apt-get line) is not installed: run scripts/install-deps.sh test" % p)
    if not any(l.strip() and not l.lstrip().startswith("#") for l in script):
        sys.exit("block '%s' has no line to run" % name)

    env = dict(os.environ)
    for k in list(env):
        if k.startswith(("PIP_", "PYTHON", "VIRTUAL_ENV")):
            del env[k]
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    if name == "python-install-online":
        wheels = "/usr/share/python-wheels"
        have = os.listdir(wheels) if os.path.isdir(wheels) else []
        for want in ("setuptools-", "wheel-"):
            if not any(f.startswith(want) and f.endswith(".whl") for f in have):
                print("SKIP: no %s*.whl in %s (Debian's python3-%swhl; install-deps test profile)"
                      % (want, wheels, want.rstrip("-") + "-"))
                return 77
        env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=wheels, PIP_NO_DEPS="1",
                   PYTHONPATH="/usr/lib/python3/dist-packages")

    with tempfile.TemporaryDirectory(prefix="readme-python-") as tmp:
        shutil.copytree(pkg, os.path.join(tmp, "python"),
                        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        bindir = os.path.join(tmp, ".bin")
        os.mkdir(bindir)
        os.symlink(python3, os.path.join(bindir, "python3"))
        env["PATH"] = bindir + ":/usr/bin:/bin"
        env["HOME"] = tmp
        print("running README's '%s' lines in %s:" % (name, tmp))
        print("\n".join("  " + l for l in script))
        r = subprocess.run(["bash", "-euo", "pipefail", "-c", "\n".join(script)], cwd=tmp, env=env)
        if r.returncode != 0:
            sys.exit("README's '%s' lines failed (exit %d)" % (name, r.returncode))
        venv_python = os.path.join(tmp, ".venv", "bin", "python")
        if not os.path.exists(venv_python):
            sys.exit("the lines made no venv at .venv (the checks below expect README's .venv)")
        r = subprocess.run([venv_python, "-c",
                            "import craftground_capture as c, importlib.metadata as m; "
                            "print(c.__file__); print(m.version('craftground-capture'))"],
                           cwd="/", env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("import from the venv failed:\n" + r.stderr)
        where, version = r.stdout.split()
        if not where.startswith(os.path.join(tmp, ".venv") + os.sep):
            sys.exit("craftground_capture came from %s, not from the venv" % where)
        print("imported %s from %s" % (version, where))
    return 0


if __name__ == "__main__":
    sys.exit(main())
