"""Finding the shared libraries the package calls through ctypes (libcuda,
libcudart, libatomic). Standard library only; imports nothing of the
package."""
import ctypes
import os
from typing import Callable, Sequence, Union


def load_library(env: str, names: Sequence[Union[str, Callable[[], str]]]) -> ctypes.CDLL:
    """The library named by $env when set (an unusual install), else the
    first of `names` that loads. A callable in `names` gives its name only
    when reached (ctypes.util.find_library runs ldconfig and gcc: it is not
    paid on every connect, nor at all where $env or an earlier name does).
    OSError naming every failure when none loads."""
    if os.environ.get(env):
        names = [os.environ[env]]
    errors = []
    for name in names:
        if callable(name):
            name = name()
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            errors.append(str(e))
    raise OSError("; ".join(errors) or "not found")
