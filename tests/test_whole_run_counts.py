"""The whole run's call counts add up after a failed call (walkthrough #270).

After a server died and the run was resumed, the summary read "Whole run: 595 calls sent ...
cost unknown for 594 calls" with nothing to say what the one call was: the first session's
failed call, which is sent but has no usage to price. The whole run now says how many failed,
as the session does, and the cost words say they count the answered calls.
"""

from __future__ import annotations

import re
from pathlib import Path

from cli_support import coordqa

from coordqa.llm.testing import Fault, LocalOpenAIServer


def test_a_failed_call_is_counted_so_the_whole_run_adds_up(tmp_path: Path) -> None:
    out = tmp_path / "run"
    asked = ["eval", "--model", "openai/test-model", "--dataset", "example", "--trials", "1"]
    asked += ["--max-attempts", "1", "--max-error-rate", "1", "--out", str(out)]
    with LocalOpenAIServer(faults={0: Fault.error(500)}) as server:  # the first call fails
        first = coordqa(*asked, "--api-base", server.base_url, columns=400)
    assert first.returncode == 0, first.stderr  # 11 of 12 answered; the error is retried later
    assert "12 calls sent, 0 from the cache, 1 failed" in " ".join(first.stderr.split())
    with LocalOpenAIServer() as server:
        resumed = coordqa(*asked, "--api-base", server.base_url, columns=400)
    assert resumed.returncode == 0, resumed.stderr
    said = " ".join(resumed.stderr.split())
    session = "This session: 1 call sent, 0 from the cache, 0 failed; "
    assert session in said, said
    whole = re.search(
        r"Whole run: 13 calls sent, 0 from the cache, 1 failed \(asked again since\); "
        r"\d+ tokens, (.*)\. 12 of 12 samples answered\.",
        said,
    )
    assert whole is not None, said
    assert whole.group(1).startswith("cost unknown for 12 answered calls"), said  # 12 + 1 = 13


def test_failed_calls_answered_later_are_said_to_be(tmp_path: Path) -> None:
    """Issue 38: a run stopped by a server that answered 404, resumed at a working server whose
    replies to the same model were already cached (another run), ended "Whole run: 2 calls
    sent, 2 from the cache, 2 failed; 0 tokens, cost unknown for 0 answered calls": as if two
    samples had failed, and a price unknown for no call. The failed calls are now said to have
    been asked again, the samples that stand answered are counted, and nothing is unknown."""
    asked = ["eval", "--model", "openai/my-model", "--limit", "2", "--trials", "1"]
    with LocalOpenAIServer() as good:
        other = coordqa(*asked, "--api-base", good.base_url, "--out", tmp_path / "other")
        assert other.returncode == 0, other.stderr
        with LocalOpenAIServer(faults={i: Fault.error(404) for i in range(4)}) as wrong:
            failed = coordqa(*asked, "--api-base", wrong.base_url, "--out", tmp_path / "run")
        assert failed.returncode == 1, failed.stderr
        assert "0 of 2 samples are answered" in " ".join(failed.stderr.split())
        resumed = coordqa(*asked, "--api-base", good.base_url, "--out", tmp_path / "run")
    assert resumed.returncode == 0, resumed.stderr
    said = " ".join(resumed.stderr.split())
    assert "This session: 0 calls sent, 2 from the cache, 0 failed; 0 tokens, cost $0.0000." in said
    whole = (
        "Whole run: 2 calls sent, 2 from the cache, 2 failed (asked again since); "
        "0 tokens, cost $0.0000 (no call answered). 2 of 2 samples answered."
    )
    assert whole in said, said
    assert "unknown for 0" not in said
