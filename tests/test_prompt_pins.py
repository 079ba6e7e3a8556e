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
    "hanabi/cac/bot": "188:8067eac63e3e2855",
    "hanabi/hm/bot": "467:83b07d7bee7d8aaa",
    "hanabi/react/bot": "63:c581923089b5ab45",
    "hanabi/reflexion/bot": "124:b9946b2c0822a51e",
    "hanabi/planreact/bot": "63:19459a30b0747ef8",
    "hanabi/cac/bot/preset=paper": "188:17e351e8d4175985",
    "hanabi/hm/bot/preset=paper": "467:23603c37170c0a11",
    "hanabi/cac/bot/belief_state=True/tom_level=2": "377:195f0212b0ef22b3",
    "hanabi/hm/bot/belief_state=True": "530:948d6b215ba05019",
    "hanabi/cac/scripted": "11:00be003f7ec7b59a",
    "hanabi/llm/random": "11:1523803cc49e5433",
    "hanabi/cac/bot/with=hanabi-piers@1": "105:c640edf960d38173",
    "hanabi/hm/bot/with=hanabi-piers@0": "216:3ae45a538dafce72",
    "hanabi/hm/bot/variant=vmp": "63:5916f5b67e9d89c5",
    "hanabi/hm/bot/variant=mmp": "187:dfefd2c9cde1de0b",
    "hanabi/hm/bot/variant=mmp_eval": "467:61c7e4ffd2f16962",
    "hanabi/hm/bot/variant=he_hr": "290:e3d6691cb1bf85ce",
    "overcooked/llm/bot": "26:2d3cc4df5d3efd76",
    "overcooked/cac/bot": "75:e0cefd457201d95b",
    "overcooked/hm/bot": "49:496fb9746ce73d4a",
    "overcooked/react/bot": "26:86dd0358298cedad",
    "overcooked/reflexion/bot": "50:e91f7c104dc379b3",
    "overcooked/planreact/bot": "26:c5012cb6b1690dbe",
    "overcooked/cac/bot/preset=paper": "35:06f433ee704c9bd4",
    "overcooked/hm/bot/preset=paper": "49:7a115ced46978934",
    "overcooked/cac/bot/belief_state=True/tom_level=2": "119:569bb49a2519bf59",
    "overcooked/hm/bot/belief_state=True": "75:fa721326b5bbced0",
    "overcooked/cac/scripted": "91:73dee7596fce1152",
    "overcooked/llm/random": "39:0cd781d2f450af3c",
    "overcooked/cac/bot/with=greedy_human@1": "28:44a6602612ffdb57",
    "overcooked/hm/bot/with=greedy_human@0": "28:a5833495146ed58c",
    "overcooked/hm/bot/variant=vmp": "26:3a3434752fd92569",
    "overcooked/hm/bot/variant=mmp": "40:fc4e6ffbd2a067a5",
    "overcooked/hm/bot/variant=mmp_eval": "49:1850de69e26ae177",
    "overcooked/hm/bot/variant=he_hr": "46:4c326db8767c2de8",
    "collab_capture/llm/bot": "6:5b5d0ff6262ae183",
    "collab_capture/cac/bot": "16:eba41a44d4adad77",
    "collab_capture/hm/bot": "16:7895af399ed35665",
    "collab_capture/react/bot": "6:6326c7f0466a2abe",
    "collab_capture/reflexion/bot": "10:47a43643f37c63a5",
    "collab_capture/planreact/bot": "6:6373f574029ae806",
    "collab_capture/cac/bot/preset=paper": "6:16cefc317221eb4d",
    "collab_capture/hm/bot/preset=paper": "16:cefa342c21049474",
    "collab_capture/cac/bot/belief_state=True/tom_level=2": "34:e7e0309afff5ab0c",
    "collab_capture/hm/bot/belief_state=True": "22:cadc699b411c3dbe",
    "collab_capture/cac/scripted": "178:37d2836f12d5ac80",
    "collab_capture/llm/random": "60:ec13f6aa74c4983b",
    "collab_capture/cac/bot/with=capture-greedy@1": "8:c227cfeacc41c072",
    "collab_capture/hm/bot/with=capture-greedy@0": "8:f1020778e1853ae9",
    "collab_capture/hm/bot/variant=vmp": "6:f7158c361e776bb0",
    "collab_capture/hm/bot/variant=mmp": "14:18e73bf9315a022c",
    "collab_capture/hm/bot/variant=mmp_eval": "16:6a799ce8364cfa71",
    "collab_capture/hm/bot/variant=he_hr": "12:623a87b69dc9ab62",
    "collab_escape/llm/bot": "14:80d1c61bb5100ea2",
    "collab_escape/cac/bot": "40:738b28e2d022e6ef",
    "collab_escape/hm/bot": "68:dd07cdb3acbf1420",
    "collab_escape/react/bot": "14:c97cdb7fb5947472",
    "collab_escape/reflexion/bot": "26:11f20f1cc1a5a371",
    "collab_escape/planreact/bot": "14:2d9c6f59ca75f09a",
    "collab_escape/cac/bot/preset=paper": "26:41411041fd6a625d",
    "collab_escape/hm/bot/preset=paper": "68:dd07cdb3acbf1420",
    "collab_escape/cac/bot/belief_state=True/tom_level=2": "82:473e41c790588d68",
    "collab_escape/hm/bot/belief_state=True": "82:ba5c4709877cd1b1",
    "collab_escape/cac/scripted": "46:649ba4386e3d2213",
    "collab_escape/llm/random": "10:4f1693271fe64769",
    "collab_escape/cac/bot/with=escape-greedy@1": "23:19f750532f655b8c",
    "collab_escape/hm/bot/with=escape-greedy@0": "8:26402e8a381bd564",
    "collab_escape/hm/bot/variant=vmp": "14:01ae760e891d909d",
    "collab_escape/hm/bot/variant=mmp": "38:8ba512efef1a663c",
    "collab_escape/hm/bot/variant=mmp_eval": "68:07a86ccbdf7d775d",
    "collab_escape/hm/bot/variant=he_hr": "76:d693942af8a4b83a",
    "hanabi/cac/bot/tom_ladder=3": "320:503806bb5c024ded",
    "hanabi/hm/bot/tom_ladder=2": "659:a10b73cfe4fe1478",
    "overcooked/cac/bot/partner_info=False": "75:6bde3443316043e9",
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
