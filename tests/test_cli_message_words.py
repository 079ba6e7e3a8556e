"""The words and order of the CLI's messages (walkthrough 7, #169 and #184).

A cause is said before what it caused, counts read as sentences ("1 attempt", "1 sample is an
error"), and a refusal says where its list of names comes from.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from rich.console import Console

from coordqa.cli._progress import PlainProgress, attempt_lines
from coordqa.evaluation import EvalProgress
from coordqa.llm import CallPolicy, RetryDecision, UsageTotals, retry
from coordqa.llm.retry import call_with_retries


def console_text() -> tuple[Console, io.StringIO]:
    text = io.StringIO()
    return Console(file=text, width=200, no_color=True, soft_wrap=True), text


def test_the_attempt_that_timed_out_is_said_before_the_error_it_caused(tmp_path: Path) -> None:
    """#184: ``error (first of its kind): gave up after 1 attempts`` came before the
    ``warning: ... attempt 1 of 1 timed out`` line that caused it: the warning waited to be
    grouped with others while the error was printed at once."""
    console, text = console_text()
    display = PlainProgress(console, quiet=True)
    attempt = "attempt 1 of 1 timed out after 3 s (--timeout); stopping"
    with attempt_lines(console):
        retry.log.warning("%s", attempt, extra={"call": "q1 trial 0", "attempt": attempt})
        display(
            EvalProgress(
                run_dir=tmp_path,
                total=1,
                done=1,
                resumed=0,
                calls=UsageTotals(),
                errors=1,
                elapsed_s=3.0,
                new_error="gave up after 1 attempt (--max-attempts); last error: timed out",
            )
        )
        said = text.getvalue()  # before the grouping delay has passed
    assert said.index("q1 trial 0: attempt 1 of 1 timed out") < said.index("first of its kind")
    assert said.count("timed out after 3 s") == 1  # said once, not again when the group ends


@pytest.mark.parametrize("attempts", [1, 2])
def test_gave_up_counts_its_attempts_as_a_sentence(attempts: int) -> None:
    """#184: "gave up after 1 attempts"."""
    policy = CallPolicy(timeout_s=5, max_attempts=attempts, backoff_initial_s=0.0)

    async def failing(timeout_s: float) -> str:
        raise OSError("refused")

    outcome = asyncio.run(
        call_with_retries(failing, lambda exc: RetryDecision("transient"), policy)
    )
    word = "attempt" if attempts == 1 else "attempts"  # the rule, written before the run
    assert f"gave up after {attempts} {word} (--max-attempts)" in str(outcome.error)


def test_a_run_with_one_error_sample_and_one_missing_says_it_in_the_singular(
    tmp_path: Path,
) -> None:
    """The walkthrough's "1 samples are errors" under a run's tables."""
    from cli_support import coordqa
    from qa_run_support import outcome_rows, write_qa_run

    outcomes = {"s0-ec": ["error"], "s0-tom": ["right"]}
    run = write_qa_run(tmp_path / "run", "m", outcome_rows(outcomes), trials=1, questions=3)
    said = " ".join(coordqa("score", run).stderr.split())
    assert "1 sample is an error (a call that failed after retries)" in said, said
    assert "1 sample was never stored" in said, said


def test_an_unknown_chat_format_says_whose_names_it_lists() -> None:
    """#169: "chat_format=gemmma is not a format of gemma-3-270m-q4_k_m.gguf" listed
    llama-cpp-python's names, not the file's: the file carries no template at all."""
    from coordqa.errors import ConfigError
    from coordqa.llm.chat_formats import chosen_format

    with pytest.raises(ConfigError) as refused:
        chosen_format("gemmma", None, ["chatml", "gemma", "llama-2"], "m.gguf")
    said = str(refused.value)
    assert "is not a chat format llama-cpp-python knows" in said and "not a format of" not in said
    assert "Did you mean 'gemma'?" in said and "(chatml, gemma, llama-2)" in said
