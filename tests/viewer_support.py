"""Test and benchmark helpers: real run directories full of hostile model output, a live viewer.

The runs are written by the library itself (:func:`coordqa.evaluate`,
:func:`coordqa.agentic.run_grid`) against a local OpenAI-compatible server
(:class:`coordqa.llm.testing.LocalOpenAIServer`), so the viewer is tested on exactly what coordqa
writes today. The server's replies are chosen by rule, so a test can say what to expect before
it looks:

QA (:func:`make_hostile_qa_run`), by question type: EC replies carry a ``<script>`` tag and end
``Answer: A``; ToM replies are ``Answer: A or B`` (ambiguous); JP replies name nothing and carry a
``<script>`` tag (no_answer); the very first call fails with HTTP 500 (an error sample).

The HM run (:func:`make_hm_run`) uses the offline ``scripted`` model.

Agentic (:func:`make_hostile_agentic_run`): one CAC agent (seat 0) with a scripted partner on
Collab Capture. ToM replies carry markup; at the agent's first model decision the verifier
rejects the first proposal (then accepts); at the second, every action reply is unreadable, so
the agent falls back; otherwise the action is ``A`` and the verifier accepts.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from coordqa.local_servers import CommandServer

__all__ = [
    "HOSTILE",
    "LiveViewer",
    "make_hostile_agentic_run",
    "make_hostile_qa_run",
    "make_hm_run",
]

HOSTILE = "<script>alert('viewer')</script>"
"""Markup that must appear on every page as text, never as an element."""

QA_REPLIES = {
    "EC": f"{HOSTILE} The state says so.\nAnswer: A",
    "ToM": "Answer: A or B",
    "JP": f"I would rather not say. {HOSTILE}",
}
"""The hostile QA server's reply to each question type."""


@contextmanager
def _dummy_key() -> Any:
    """A dummy OPENAI_API_KEY for ``openai/...`` models pointed at the local server."""
    old = os.environ.get("OPENAI_API_KEY")
    os.environ["OPENAI_API_KEY"] = "sk-viewer-test"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("OPENAI_API_KEY", None)
        else:
            os.environ["OPENAI_API_KEY"] = old


def _qa_reply(body: Mapping[str, Any], index: int) -> str:
    from coordqa.prompts import DIRECTIVES

    system = body["messages"][0]["content"]
    # the question type whose directive the system message starts like (a game may word its
    # own, and v1.2's questions add a sentence)
    kind = max(DIRECTIVES, key=lambda k: len(os.path.commonprefix([DIRECTIVES[k], system])))
    return QA_REPLIES[kind]


def make_hostile_qa_run(out: Path, *, dataset: str = "example", trials: int = 2) -> Path:
    """A QA run of ``dataset`` with the hostile replies above (questions asked in order)."""
    import coordqa
    from coordqa.llm import CallPolicy
    from coordqa.llm.testing import Fault, LocalOpenAIServer

    policy = CallPolicy(concurrency=1, max_attempts=1, timeout_s=30.0)
    with _dummy_key(), LocalOpenAIServer(_qa_reply, faults={0: Fault.error(500)}) as server:
        config = coordqa.EvalConfig(
            model="openai/viewer-test",
            api_base=server.base_url,
            dataset=dataset,
            trials=trials,
            cache=False,
            out=out,
            policy=policy,
            max_error_rate=0.5,  # the one failed call is part of the test, not a failure
        )
        return coordqa.evaluate(config).run_dir


class _AgentScript:
    """The hostile agentic server's replies, by role and by the agent's decision count."""

    def __init__(self) -> None:
        self.decision = 0
        self.verdicts = 0
        self.lock = threading.Lock()

    def __call__(self, body: Mapping[str, Any], index: int) -> str:
        system = body["messages"][0]["content"]
        with self.lock:
            if system.startswith("You are the Theory of Mind module"):
                self.decision += 1
                self.verdicts = 0
                return f"Partner Action Explanation: {HOSTILE}\nPartner Needs: <b>nothing</b>"
            if system.startswith("You are the Verifier"):
                self.verdicts += 1
                if self.decision == 1 and self.verdicts == 1:
                    return "Explanation: <i>too risky</i>.\nVerification: Not Okay"
                return "Explanation: fine.\nVerification: Okay"
            if self.decision == 2:
                return f"{HOSTILE} I cannot tell."
            return "Explanation: first option.\nAction: A"


def make_hostile_agentic_run(out: Path, *, seed: int = 0) -> Path:
    """An agentic run: CAC (seat 0) with ``capture-greedy`` on Collab Capture, hostile replies."""
    from coordqa.agentic import GridConfig, run_grid
    from coordqa.llm.testing import LocalOpenAIServer

    with _dummy_key(), LocalOpenAIServer(_AgentScript()) as server:
        config = GridConfig.model_validate(
            {
                "name": "viewer-test",
                "agents": ["cac"],
                "models": ["openai/viewer-test"],
                "api_base": server.base_url,
                "partners": ["capture-greedy"],
                "games": [{"game": "collab_capture", "seeds": [seed]}],
                "runtime": {"parallel_episodes": 1, "concurrency": 1},
            }
        )
        run_grid(config, out)
    return out


def make_hm_run(out: Path, *, seed: int = 0) -> Path:
    """An agentic run of HM (``--model scripted``) in self-play on Collab Capture.

    HM values its hypotheses by their predictions, so its episode page has a hypothesis chart.
    """
    from coordqa.agentic import GridConfig, run_grid

    config = GridConfig.model_validate(
        {
            "name": "hm",
            "agents": ["hm"],
            "models": ["scripted"],
            "games": [{"game": "collab_capture", "seeds": [seed]}],
            "runtime": {"parallel_episodes": 1},
        }
    )
    run_grid(config, out)
    return out


class LiveViewer(CommandServer):
    """``coordqa view RUN ...`` in a subprocess on 127.0.0.1 and a free port.

    The URL is the one the command prints, so using this tests what a user is told.
    """

    def __init__(self, runs: list[Path], log: Path) -> None:
        """Prepare (not start) a viewer of ``runs``; ``log`` receives its output."""
        self.runs = runs
        self.log = log
        self.url = ""

    def start(self) -> LiveViewer:
        """Start the viewer and wait (bounded) until it prints its URL."""
        with open(self.log, "wb") as output:
            process = self._launch(["view", *map(str, self.runs), "--port", "0"], output)

        def printed_url() -> bool:
            found = re.search(r"http://127\.0\.0\.1:\d+", self.log.read_text(errors="replace"))
            if found:
                self.url = found.group(0)
            return found is not None

        self._wait_until(
            process,
            printed_url,
            lambda: f"coordqa view exited: {self.log.read_text(errors='replace')}",
            "coordqa view printed no URL",
        )
        return self
