"""What ``coordqa eval``'s progress shows of a resumed run (walkthrough 22, R5).

A run whose every sample was already answered showed ``594/594 | 0.0 samples/s | eta ?``, which
reads like a stall; it now says there was nothing to ask, on a terminal and in a log. A run
resumed part-way counts its rate over this session's samples only, on both.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from coordqa.cli._progress import PlainProgress, ProgressBar
from coordqa.evaluation import EvalProgress
from coordqa.llm import UsageTotals


def snapshot(run_dir: Path, *, done: int, resumed: int, total: int = 594) -> EvalProgress:
    return EvalProgress(
        run_dir=run_dir,
        total=total,
        done=done,
        resumed=resumed,
        calls=UsageTotals(),
        errors=0,
        elapsed_s=2.0,
    )


def console(*, terminal: bool) -> tuple[Console, io.StringIO]:
    text = io.StringIO()
    return Console(file=text, width=200, color_system=None, force_terminal=terminal), text


@pytest.mark.parametrize("display_kind", [PlainProgress, ProgressBar])
def test_a_run_with_every_sample_answered_says_nothing_was_left_to_ask(
    tmp_path: Path, display_kind: type[PlainProgress | ProgressBar]
) -> None:
    out, text = console(terminal=display_kind is ProgressBar)
    display = display_kind(out)
    display(snapshot(tmp_path, done=594, resumed=594))
    display.stop()
    said = text.getvalue()
    assert "all 594 samples already answered; nothing to ask" in said, said
    assert "samples/s" not in said and "eta" not in said, said
    assert said.count("already answered") == 1, said


def test_one_answered_sample_is_said_in_the_singular(tmp_path: Path) -> None:
    out, text = console(terminal=False)
    display = PlainProgress(out)
    display(snapshot(tmp_path, done=1, resumed=1, total=1))
    display.stop()
    assert "the 1 sample already answered; nothing to ask" in text.getvalue(), text.getvalue()


def test_a_resumed_run_in_a_log_counts_its_rate_over_this_sessions_samples(
    tmp_path: Path,
) -> None:
    out, text = console(terminal=False)
    display = PlainProgress(out)
    display(snapshot(tmp_path, done=500, resumed=500))
    display(snapshot(tmp_path, done=594, resumed=500))  # 94 new in 2 s
    display.stop()
    said = text.getvalue()
    assert "resuming: 500 samples already answered" in said, said
    assert "eval 594/594 (100%) | 47.0 samples/s" in said, said


def test_a_resumed_runs_bar_counts_its_speed_over_this_sessions_samples(tmp_path: Path) -> None:
    """The bar's speed (and so its eta) came from every step it moved, the jump from 0 to the
    500 resumed samples included: 501 samples in the time one took."""
    out, _text = console(terminal=True)
    display = ProgressBar(out)
    display(snapshot(tmp_path, done=500, resumed=500))
    display(snapshot(tmp_path, done=501, resumed=500))
    display.stop()
    (task,) = display.progress.tasks
    assert task.completed == 501
    assert sum(sample.completed for sample in task._progress) == 1
