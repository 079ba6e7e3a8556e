"""llama.cpp's own log lines: its errors on stderr, nothing else.

llama.cpp logs through one callback per process (``llama_log_set``). llama-cpp-python's
(``llama_cpp._logger``) maps the levels of an older llama.cpp (1 INFO, 2 WARN, 3 ERROR, 4
DEBUG), while the llama.cpp it ships numbers them 1 DEBUG, 2 INFO, 3 WARN, 4 ERROR (ggml.h);
so with ``verbose=False`` every warning was printed as an error (``llama_kv_cache_iswa: using
full-size SWA cache``, ``decode: removing memory module entries`` after an interruption) and
every real error was dropped as debug output. :func:`errors_only` installs a callback that
prints llama.cpp's errors, with their continuation lines, and nothing else; and not those of a
generation coordqa aborted itself (Ctrl-C, a timeout: :func:`quiet_while`), whose
"failed to decode" is the abort asked for, said by coordqa's own message.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

__all__ = ["ERROR_LEVEL", "errors_only", "quiet_while"]

ERROR_LEVEL = 4
"""``GGML_LOG_LEVEL_ERROR`` in ggml.h."""
_CONTINUED = 5
"""``GGML_LOG_LEVEL_CONT``: more of the line before, at its level."""

_installed: list[Any] = []
"""The ctypes callbacks given to llama.cpp: kept alive here, since it holds only an address."""
_last_level = [0]
_aborting: list[Callable[[], bool]] = []
"""Whether each loaded model's running generation is being aborted by coordqa."""


def _print_errors(level: int, text: bytes, _user_data: object) -> None:
    """Print an error line (or the rest of one) on stderr; drop every other level."""
    if level != _CONTINUED:
        _last_level[0] = level
    if _last_level[0] == ERROR_LEVEL and not any(aborting() for aborting in _aborting):
        sys.stderr.write(text.decode("utf-8", errors="replace"))
        sys.stderr.flush()


def errors_only() -> None:
    """Make llama.cpp print only its errors in this process, from now on.

    Called before each model is loaded (once per file): ``import llama_cpp`` has set
    llama-cpp-python's callback by then, which this one replaces.
    """
    import ctypes

    import llama_cpp

    callback = llama_cpp.llama_log_callback(_print_errors)
    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))
    _installed.append(callback)


def quiet_while(aborting: Callable[[], bool]) -> None:
    """Drop llama.cpp's errors while ``aborting()``: a generation coordqa stops on purpose."""
    _aborting.append(aborting)
