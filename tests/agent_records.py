"""Agent records as the run store writes them, for tests that read them as JSON objects."""

from __future__ import annotations

from typing import Any

from coordqa.agentic.records import AgentRecord, Recorder


def json_recorder(target: list[dict[str, Any]]) -> Recorder:
    """A recorder that appends each typed record's stored JSON object to ``target``."""

    def record(item: AgentRecord) -> None:
        target.append(item.to_json())

    return record
