"""The installed coordqa version, in a module that imports nothing of coordqa.

The package root re-exports it as ``coordqa.__version__``; modules the root loads (the run store)
read it from here, so that no module of coordqa imports the package root back.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("coordqa")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"
