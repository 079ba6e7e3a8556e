"""Every prompt of the bundled agents and of the bundled datasets, pinned.

The pins were taken from coordqa at 94381d7 (before the architecture moves of issue 36: game
knowledge into the games, the agents' records into the agentic track, options parsed once), so
that moving code can be shown to change no prompt. Each value is ``<calls>:<hash>``: how many
model calls the case's episode made, and a hash of every message of every call, with its role,
in order (``tests/prompt_pins_support.py``; an episode's later prompts depend on its earlier
moves, so a pin also holds the moves). A release's value is its questions and a hash of every
question's prompt hash in both layouts.

A failing pin is a prompt change: if it is meant, bump the agent's ``version`` (or the dataset's),
say so in CHANGELOG.md, and print the new table with ``python tests/prompt_pins_support.py``.
"""

from __future__ import annotations

import pytest
from prompt_pins_support import Case, cases, dataset_prompts_hash, prompts_hash

RELEASES = {
    "coordinationqa-v1": "198:c09bf024f5f39387",
    "coordinationqa-v1.1": "198:2f1551ef74cb574c",
    "coordinationqa-v1.2": "198:23288b4317e6ceae",
}
"""Per bundled CoordinationQA release: questions, and the hash of their prompt hashes."""

AGENTS = {
    "hanabi/llm/bot": "63:11a9f6a377b7d688",
    "hanabi/cac/bot": "188:f674b73b7df343fe",
    "hanabi/hm/bot": "530:92d80a5ff7d133a4",
    "hanabi/react/bot": "63:223f7d135899b9eb",
    "hanabi/reflexion/bot": "124:b6e13a180073b4a6",
    "hanabi/planreact/bot": "126:e8c94a679e9ce7e1",
    "hanabi/cac/bot/preset=paper": "188:5718afc7f119103e",
    "hanabi/hm/bot/preset=paper": "530:8e80aba3e45037fd",
    "hanabi/cac/bot/belief_state=True/tom_level=2": "377:2bc855141b0ca5a9",
    "hanabi/hm/bot/belief_state=True": "593:42d0090443b41729",
    "hanabi/cac/scripted": "11:2147c8a75c631cfa",
    "hanabi/llm/random": "11:1523803cc49e5433",
    "hanabi/cac/bot/with=hanabi-piers@1": "105:0f04cf29e52d3d11",
    "hanabi/hm/bot/with=hanabi-piers@0": "251:b430d76a71f256a0",
    "hanabi/hm/bot/variant=vmp": "63:f674be2524d045c9",
    "hanabi/hm/bot/variant=mmp": "250:4a50bcc73a1a82d1",
    "hanabi/hm/bot/variant=mmp_eval": "530:212bde887db57ec5",
    "hanabi/hm/bot/variant=he_hr": "353:b6e9c2399a6c4412",
    "overcooked/llm/bot": "26:2d3cc4df5d3efd76",
    "overcooked/cac/bot": "75:abd285168fb7d6ae",
    "overcooked/hm/bot": "58:50fde7698240d765",
    "overcooked/react/bot": "26:0b2c8363afc645dc",
    "overcooked/reflexion/bot": "50:28b8ab7eaf51bc37",
    "overcooked/planreact/bot": "35:5985f28659c22c3e",
    "overcooked/cac/bot/preset=paper": "35:06f433ee704c9bd4",
    "overcooked/hm/bot/preset=paper": "59:894dc565f257104c",
    "overcooked/cac/bot/belief_state=True/tom_level=2": "119:8ef4e1e47d54f6e2",
    "overcooked/hm/bot/belief_state=True": "84:3ca301be55cfc375",
    "overcooked/cac/scripted": "91:561d81a41ecaadb7",
    "overcooked/llm/random": "39:0cd781d2f450af3c",
    "overcooked/cac/bot/with=greedy_human@1": "28:5b6a2402423d55f7",
    "overcooked/hm/bot/with=greedy_human@0": "33:5fe23c11c0b808b7",
    "overcooked/hm/bot/variant=vmp": "26:3a3434752fd92569",
    "overcooked/hm/bot/variant=mmp": "49:c5b5258b66f7a350",
    "overcooked/hm/bot/variant=mmp_eval": "58:c1e91656e0848b17",
    "overcooked/hm/bot/variant=he_hr": "55:7566eddbd08eb137",
    "collab_capture/llm/bot": "6:5b5d0ff6262ae183",
    "collab_capture/cac/bot": "16:5bd85e7690084690",
    "collab_capture/hm/bot": "22:9a7691a8b9e0e126",
    "collab_capture/react/bot": "6:412d83e64940e18e",
    "collab_capture/reflexion/bot": "10:c49d65dd2eed4357",
    "collab_capture/planreact/bot": "12:d869a8cfa28ff5ea",
    "collab_capture/cac/bot/preset=paper": "6:16cefc317221eb4d",
    "collab_capture/hm/bot/preset=paper": "22:4451308a4a5bf8c3",
    "collab_capture/cac/bot/belief_state=True/tom_level=2": "34:365e2c73942b68f0",
    "collab_capture/hm/bot/belief_state=True": "28:72b6f9a6b27d4f2c",
    "collab_capture/cac/scripted": "178:7dc41e6fc5966f99",
    "collab_capture/llm/random": "60:ec13f6aa74c4983b",
    "collab_capture/cac/bot/with=capture-greedy@1": "8:1661aec67a43c1ed",
    "collab_capture/hm/bot/with=capture-greedy@0": "11:c31bcda745f67ab5",
    "collab_capture/hm/bot/variant=vmp": "6:f7158c361e776bb0",
    "collab_capture/hm/bot/variant=mmp": "20:8efca5ea6532f161",
    "collab_capture/hm/bot/variant=mmp_eval": "22:6923fe0e9a843e77",
    "collab_capture/hm/bot/variant=he_hr": "18:2ead20d8f2665f68",
    "collab_escape/llm/bot": "14:80d1c61bb5100ea2",
    "collab_escape/cac/bot": "40:a90fd17da05549a4",
    "collab_escape/hm/bot": "82:8a2ddfa34847d805",
    "collab_escape/react/bot": "14:43a28bcccd232eec",
    "collab_escape/reflexion/bot": "26:4a941daed00d3dcc",
    "collab_escape/planreact/bot": "28:5a26bd87c8a8a20c",
    "collab_escape/cac/bot/preset=paper": "26:41411041fd6a625d",
    "collab_escape/hm/bot/preset=paper": "82:8a2ddfa34847d805",
    "collab_escape/cac/bot/belief_state=True/tom_level=2": "82:559ef4f93c37b532",
    "collab_escape/hm/bot/belief_state=True": "96:639449ebef5cbf43",
    "collab_escape/cac/scripted": "46:dc6cbe87220b6d10",
    "collab_escape/llm/random": "10:4f1693271fe64769",
    "collab_escape/cac/bot/with=escape-greedy@1": "23:386ecb41bbc39bcf",
    "collab_escape/hm/bot/with=escape-greedy@0": "11:ffbc05c6f8db853d",
    "collab_escape/hm/bot/variant=vmp": "14:01ae760e891d909d",
    "collab_escape/hm/bot/variant=mmp": "52:ada2a7adc5de8bff",
    "collab_escape/hm/bot/variant=mmp_eval": "82:82a7f071d8607f5d",
    "collab_escape/hm/bot/variant=he_hr": "90:db54d2fbf232e21d",
    "hanabi/cac/bot/tom_ladder=3": "320:31d0162e2acfc7cb",
    "hanabi/hm/bot/tom_ladder=2": "722:ac8b86ffb95d17a5",
    "overcooked/cac/bot/partner_info=False": "75:806317eb6f437e1a",
    "overcooked/cac/bot/partner_info=False/preset=paper": "35:2344887c1b086d74",
}
"""Per case (``Case.name``): model calls, and the hash of their messages."""


@pytest.mark.parametrize("release", sorted(RELEASES))
def test_the_prompts_of_every_bundled_release_are_unchanged(release: str) -> None:
    assert dataset_prompts_hash(release) == RELEASES[release]


def test_every_case_has_a_pin() -> None:
    assert sorted(case.name for case in cases()) == sorted(AGENTS)


@pytest.mark.parametrize("case", cases(), ids=lambda case: case.name)
def test_the_prompts_of_every_bundled_agent_are_unchanged(case: Case) -> None:
    assert prompts_hash(case) == AGENTS[case.name]
