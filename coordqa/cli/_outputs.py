"""Option callbacks that check an output path when the command line is parsed, before any work.

Every option that names where a command writes (``--out``, ``--export``, ``--work-dir``) takes
``callback=output_folder`` or ``callback=output_file(EXAMPLE)``: a path of the wrong kind, under
a file or in a folder that is not writable is one ``error:`` line naming the option, exit status 2,
and nothing run or written (the rules: :mod:`coordqa.outputs`). An option naming a folder of
generated output takes ``callback=generated_folder(WRITER)`` instead, which also refuses a folder
holding anything but that command's earlier output.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer

from coordqa.outputs import (
    check_generated_folder,
    check_output_file,
    check_output_folder,
    check_run_output,
)

OptionCallback = Callable[[typer.CallbackParam, Path | None], Path | None]


def output_folder(param: typer.CallbackParam, value: Path | None) -> Path | None:
    """Check the folder option ``param`` names (:func:`~coordqa.outputs.check_output_folder`)."""
    if value is not None:
        check_output_folder(value, _option_name(param))
    return value


def run_folder(param: typer.CallbackParam, value: Path | None) -> Path | None:
    """Check the folder a command writes one run into: missing, empty or a run, not a set's.

    The rules: :func:`~coordqa.outputs.check_run_output`, then the set's refusal.
    """
    from coordqa.store import refuse_set_folder

    if value is not None:
        check_run_output(value, "run", _option_name(param))
        refuse_set_folder(value)
    return value


def generated_folder(writer: str) -> OptionCallback:
    """The callback of a folder option ``writer`` fills with generated output.

    It checks the folder as the writer will (:func:`~coordqa.outputs.check_generated_folder`).
    """

    def check(param: typer.CallbackParam, value: Path | None) -> Path | None:
        if value is not None:
            check_generated_folder(value, writer, _option_name(param))
        return value

    return check


def output_file(example: str) -> OptionCallback:
    """The callback of a file option, checking it (:func:`~coordqa.outputs.check_output_file`).

    ``example`` names the new file a folder given instead is refused with (``bundle.json``).
    """

    def check(param: typer.CallbackParam, value: Path | None) -> Path | None:
        if value is not None:
            check_output_file(value, _option_name(param), example)
        return value

    return check


def _option_name(param: typer.CallbackParam) -> str:
    """The option as a user types it: its long name (``--out``, not ``-o``)."""
    return max(param.opts, key=len)
