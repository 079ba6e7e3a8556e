"""A session whose replies came from the reply cache says so, and how to ask again.

Walkthrough 10 (#7, #140): a first run against a freshly started server said only "0 calls
sent, 60 from the cache": the replies were the ones an earlier server at the same address gave
the same model name. A user who put another checkpoint behind that address and name would read
old replies as the new model's; the end of the session now says where they came from and that
``--no-cache`` asks the server again.
"""

from __future__ import annotations

from pathlib import Path

from cli_support import coordqa

from coordqa.llm.testing import LocalOpenAIServer

NOTICE = "from the reply cache"


def test_replies_from_the_cache_are_said_to_be_and_no_cache_asks_again(tmp_path: Path) -> None:
    asked = ["eval", "--model", "openai/test-model", "--limit", "2", "--trials", "1"]
    with LocalOpenAIServer() as server:
        first = coordqa(*asked, "--api-base", server.base_url, "--out", tmp_path / "a")
        again = coordqa(*asked, "--api-base", server.base_url, "--out", tmp_path / "b")
        fresh = coordqa(
            *asked, "--api-base", server.base_url, "--out", tmp_path / "c", "--no-cache"
        )
    for result in (first, again, fresh):
        assert result.returncode == 0, result.stderr
    assert NOTICE not in first.stderr  # every reply was asked
    said = " ".join(again.stderr.split())
    assert "2 replies of this session came from the reply cache" in said, said
    assert "--no-cache" in said, said
    assert NOTICE not in fresh.stderr
    assert "2 calls sent, 0 from the cache" in " ".join(fresh.stderr.split())
