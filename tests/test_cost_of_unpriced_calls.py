"""A run's cost: free calls count as $0, unpriced ones are counted, the known part is kept.

Walkthrough 3: the whole run read "cost unknown" after a session that cost $0.0000. Not a sum
that lost a $0 (below: a free session keeps the run's $0), but the earlier session's calls to a
model litellm has no price for; the words now say how many calls have no price, and what the
priced ones cost.
"""

from __future__ import annotations

import re
from pathlib import Path

from cli_support import coordqa

from coordqa.llm import UsageTotals
from coordqa.llm.testing import LocalOpenAIServer
from coordqa.llm.types import Usage


def test_sums_keep_the_known_cost_and_count_the_unpriced_calls() -> None:
    free, unpriced, paid = Usage(3, 1, 0.0, 1), Usage(3, 1, None, 1), Usage(3, 1, 0.25, 1)
    total = free + unpriced + paid + unpriced
    assert total.cost is None  # unknown as a whole: never a made-up number
    assert (total.unpriced, total.priced_cost, total.calls) == (2, 0.25, 4)
    assert (free + free).cost == 0.0 and (free + free).unpriced == 0
    assert (Usage() + unpriced).unpriced == 1 and (unpriced + Usage()).unpriced == 1


def test_the_words_for_a_cost() -> None:
    from coordqa.cli._progress import cost_words

    def totals(*usages: Usage) -> UsageTotals:
        return UsageTotals(sum(usages, Usage()), requests=len(usages))

    assert cost_words(totals(Usage(1, 1, 0.0, 1))) == "cost $0.0000"
    assert cost_words(totals(Usage(1, 1, None, 1), Usage(1, 1, None, 1))) == (
        "cost unknown for 2 calls"
    )
    mixed = totals(Usage(1, 1, 0.5, 1), Usage(1, 1, None, 1))
    assert cost_words(mixed) == "cost $0.5000 + unknown for 1 call"
    assert (mixed.to_json()["unpriced_calls"], mixed.to_json()["known_cost"]) == (1, 0.5)


def test_calls_that_all_failed_are_not_called_unknown() -> None:
    """Two calls sent, both refused (a 404): nothing was answered, so nothing has a price to
    be unknown. The words said "cost unknown for 0 answered calls" (issue 38)."""
    from coordqa.cli._progress import cost_words

    refused = UsageTotals(Usage(), requests=2, errors=2)
    assert cost_words(refused) == "cost $0.0000 (no call answered)"


def test_a_free_session_keeps_the_run_at_zero_and_an_unpriced_run_says_how_many(
    tmp_path: Path,
) -> None:
    args = ("eval", "--model", "random", "--dataset", "example", "--trials")
    assert coordqa(*args, "1", "--out", tmp_path / "free").returncode == 0
    more = coordqa(*args, "2", "--out", tmp_path / "free", columns=400)
    assert more.returncode == 0, more.stderr
    said = " ".join(more.stderr.split())
    assert re.search(r"This session: [^.]*cost \$0\.0000\. Whole run: [^.]*cost \$0\.0000\.", said)
    with LocalOpenAIServer() as server:  # openai/test-model: litellm knows no price for it
        asked = (
            "eval", "--model", "openai/test-model", "--api-base", server.base_url,
            "--dataset", "example", "--trials", "1", "--out", tmp_path / "stub",
        )  # fmt: skip
        unpriced = coordqa(*asked, columns=400)
    assert unpriced.returncode == 0, unpriced.stderr
    said = " ".join(unpriced.stderr.split())
    unknown = "cost unknown for 12 calls"
    assert re.search(rf"{unknown}\. Whole run: [^.]*{unknown}\.", said), said
