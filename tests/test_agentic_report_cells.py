"""Agentic report cells on small hand-made fixtures, with every expected cell worked out by hand.

Each expectation below was computed on paper from the fixture before the code was run, from the
definitions the report states: the mean; the standard error, sample sd (ddof=1) / sqrt(n); and
the 95% percentile bootstrap interval of the mean. The intervals are chosen so that the hand
derivation is exact: with n values, the resampled mean equals the smallest (largest) value only
when every draw is that value, with probability (k/n)^n for k copies of it; whenever that mass
exceeds 2.5%, the interval's end is that value. For two distinct values that is 1/4, for three
values 1/27 = 3.7% (about 74 of the 2,000 resamples, so it holds for any seed).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pandas as pd

from coordqa.agentic import EpisodeSpec
from coordqa.agentic.report import (
    AGREEMENT_COLUMNS,
    COUNT_COLUMNS,
    SUM_COLUMNS,
    cross_play_by_seat,
    hm_validation,
    per_decision,
    plan_optimality,
    summary,
    won,
)
from coordqa.games import game_profile

ESCAPE = {"collab_escape": game_profile("collab_escape")}
CAPTURE = {"collab_capture": game_profile("collab_capture")}


def test_a_cell_shows_n_mean_se_and_interval_and_leaves_blanks_out() -> None:
    # 1, 2, 3: mean 2; sd 1, SE 1/sqrt(3) = 0.577; ends 1 and 3 (each 1/27 of resamples)
    values = pd.Series([1.0, 2.0, None, 3.0])
    moves = pd.Series(["a", "b", "c", "d"])
    assert summary(values, moves) == "2.00 ± 0.58 [1.00, 3.00] n=3"
    assert summary(pd.Series([5.0]), pd.Series(["a"])) == "5.00 (n=1)"
    assert summary(pd.Series([None, None]), pd.Series(["a", "b"])) == ""


def test_one_episode_replayed_is_one_distinct_episode_not_zero_error() -> None:
    # Collab Capture is deterministic: three seeds of a deterministic model play one episode
    frame = _collab("collab_capture", "captured", [1.0, 1.0, 1.0], [4, 4, 4], ["same"] * 3)
    row = won(frame, CAPTURE).iloc[0]
    assert row["captures"] == "captured 3/3 (1 distinct episode)"
    assert row["turns to capture"] == "4.00 (1 distinct episode, n=3)"


def test_escape_wins_beside_turns_over_the_won_episodes() -> None:
    # 2 of 3 escaped: rate 0.67, Wilson 95% interval 0.573 -+ 0.365 = [0.21, 0.94] (z = 1.96:
    # centre (2/3 + z^2/6) / (1 + z^2/3), half z sqrt(2/27 + z^2/36) / (1 + z^2/3));
    # turns over the two escapes, 10 and
    # 14: mean 12, sd 2.83, SE 2.00, ends 10 and 14 (1/4 each); the loss's 30 turns are not in it
    frame = _collab("collab_escape", "escaped", [1.0, 1.0, 0.0], [10, 14, 30], ["a", "b", "c"])
    row = won(frame, ESCAPE).iloc[0]
    assert row["escapes"] == "escaped 2/3 [0.21, 0.94]"
    assert row["turns to escape"] == "12.00 ± 2.00 [10.00, 14.00] n=2"


def test_no_escape_in_five_is_not_a_zero_width_interval() -> None:
    """0 of 5 escaped was '[0.00, 0.00]' (a bootstrap of five zeros cannot spread); Wilson's
    interval: centre (z^2/10) / (1 + z^2/5) = 0.217, half z sqrt(z^2/100) / (1 + z^2/5) =
    0.217: [0.00, 0.43]."""
    turns = [50, 50, 50, 50, 50]
    frame = _collab("collab_escape", "escaped", [0.0] * 5, turns, ["a", "b", "c", "d", "e"])
    assert won(frame, ESCAPE).iloc[0]["escapes"] == "escaped 0/5 [0.00, 0.43]"


def test_collab_partners_are_rows_of_their_own() -> None:
    alone = _collab("collab_escape", "escaped", [1.0, 1.0], [10, 12], ["a", "b"])
    greedy = _collab("collab_escape", "escaped", [0.0, 1.0], [40, 20], ["c", "d"])
    table = won(pd.concat([alone, greedy.assign(partner="escape-greedy")]), ESCAPE)
    rows = table.set_index("partner")
    # Wilson 95%: 2/2 -> centre 0.671, half 0.329: [0.34, 1.00]; 1/2 -> 0.5 -+ 0.405
    assert rows.loc["self", "escapes"] == "escaped 2/2 [0.34, 1.00]"
    assert rows.loc["escape-greedy", "escapes"] == "escaped 1/2 [0.09, 0.91]"
    assert rows.loc["escape-greedy", "turns to escape"] == "20.00 (n=1)"


def test_per_decision_keeps_self_play_and_cross_play_apart() -> None:
    # the case: prediction accuracy 1.0 in self-play and 0.5 and 0.75 with escape-greedy
    # were reported as one 0.8125; per partner: 1.000 and 0.625 (SE 0.125, ends 0.5 and 0.75)
    frame = pd.DataFrame(
        [
            _decision_row("self", "a", decisions=4, llm_calls=8, predicted=(4, 4)),
            _decision_row("self", "b", decisions=3, llm_calls=6, predicted=(3, 3)),
            _decision_row(
                "escape-greedy", "c", decisions=2, llm_calls=2, predicted=(1, 2), fallbacks=1
            ),
            _decision_row("escape-greedy", "d", decisions=4, llm_calls=12, predicted=(3, 4)),
        ]
    )
    table = per_decision(frame).set_index("partner")
    assert sorted(table.index) == ["escape-greedy", "self"]
    assert table.loc["self", "decisions"] == 7
    assert table.loc["escape-greedy", "decisions"] == 6
    assert table.loc["self", "pred acc"] == "1.000 ± 0.000 [1.000, 1.000] n=2"
    assert table.loc["escape-greedy", "pred acc"] == "0.625 ± 0.125 [0.500, 0.750] n=2"
    # calls per decision 1 and 3: mean 2, SE 1; fallbacks 1/2 and 0/4: mean 0.25, SE 0.25
    assert table.loc["escape-greedy", "calls/dec"] == "2.000 ± 1.000 [1.000, 3.000] n=2"
    assert table.loc["escape-greedy", "fallback"] == "0.250 ± 0.250 [0.000, 0.500] n=2"
    # no verifier call was made: the rate does not apply (blank), it is not 0
    assert table.loc["self", "verifier reject"] == ""
    assert not table.apply(lambda column: column.astype(str).str.contains("0.812")).any().any()


def test_cross_play_cells_give_each_seat_its_own_n() -> None:
    # seat 0 scored 20 and 40 (mean 30, sd 14.14, SE 10, ends 20 and 40); seat 1 once, 20
    frame = pd.DataFrame(
        {
            "label": ["cac[m]"] * 3,
            "partner": ["greedy_human"] * 3,
            "layout": ["cramped_room"] * 3,
            "position": [0, 0, 1],
            "score": [20.0, 40.0, 20.0],
            "moves": ["a", "b", "c"],
        }
    )
    cell = cross_play_by_seat(frame, {}).iloc[0]["cramped_room"]
    assert cell == "30.0 ± 10.0 [20.0, 40.0] n=2 / 20.0 (n=1)"


def test_plan_optimality_against_the_real_partner_counts_reached_episodes() -> None:
    # three Escape episodes with escape-greedy: escaped in 36 and 40 turns, then not at all;
    # the policy with the same partner from the same starts took 37, 40 and 44 turns.
    # goal reached 1, 1, 0: mean 0.67, sd 0.577, SE 0.33, ends 0 (1/27) and 1 (8/27);
    # steps 36, 40: mean 38.0, SE 2.0; reference 37, 40, 44: mean 40.33, sd 3.51, SE 2.03, ends
    # 37 and 44 (1/27 each); ratio 36/37 = 0.973 and 1: mean 0.986, SE 0.0135
    frame = pd.DataFrame(
        {
            "label": ["cac[m]"] * 3,
            "partner": ["escape-greedy"] * 3,
            "game": ["collab_escape"] * 3,
            "layout": ["default"] * 3,
            "reached_goal": [1.0, 1.0, 0.0],
            "steps_to_goal": [36.0, 40.0, None],
            "reference_steps": [37.0, 40.0, 44.0],
            "steps_over_reference": [36 / 37, 1.0, None],
            "moves": ["a", "b", "c"],
        }
    )
    row = plan_optimality(frame).iloc[0]
    assert row["goal reached"] == "0.67 ± 0.33 [0.00, 1.00] n=3"
    assert row["steps"] == "38.0 ± 2.0 [36.0, 40.0] n=2"
    assert row["reference steps"] == "40.3 ± 2.0 [37.0, 44.0] n=3"
    assert row["steps / reference"] == "0.99 ± 0.01 [0.97, 1.00] n=2"


def test_hm_validation_gives_the_hypothesis_its_turn_and_reward_around_it() -> None:
    # rewards per turn 0, 0, 1, 0, 1, 1; seat 0 validated hypothesis 1 at decision 2, turn 3:
    # reward per step before (turns 0-2) 1/3 = 0.333, from it on (turns 3-5) 2/3 = 0.667.
    # Seat 1 (self-play) never validated one: a row of blanks that still counts its hypotheses
    hypotheses = [{"id": 0, "text": "goes to the exit"}, {"id": 1, "text": "follows me"}]
    episode = SimpleNamespace(
        spec=EpisodeSpec(game="collab_escape", layout="default", seed=7, agent="hm", model="m"),
        agent_stats={
            0: {
                "hypotheses": hypotheses,
                "first_validated": 1,
                "first_validation_decision": 2,
                "first_validation_turn": 3,
            },
            1: {"hypotheses": hypotheses[:1]},
        },
        trajectory=SimpleNamespace(
            steps=[SimpleNamespace(reward=r) for r in (0.0, 0.0, 1.0, 0.0, 1.0, 1.0)]
        ),
    )
    table = hm_validation([episode])  # type: ignore[list-item]
    first, second = (row for _, row in table.iterrows())
    assert (first["seat"], first["hypotheses"], first["validated"]) == (0, 2, "follows me")
    assert (first["decision"], first["turn"]) == ("2", "3")
    assert (first["reward/step before"], first["reward/step after"]) == ("0.333", "0.667")
    assert (second["seat"], second["hypotheses"], second["validated"], second["turn"]) == (
        1,
        1,
        "",
        "",
    )


def _collab(
    game: str, metric: str, wins: list[float], turns: list[int], moves: list[str]
) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "label": "cac[m]",
            "partner": "self",
            "game": game,
            f"metric_{metric}": wins,
            "metric_turns": [float(t) for t in turns],
            "moves": moves,
        }
    )


def _decision_row(
    partner: str,
    moves: str,
    *,
    decisions: int,
    llm_calls: int,
    predicted: tuple[int, int],
    fallbacks: int = 0,
) -> dict[str, Any]:
    """An episode row as episode_frame makes it; measures not set are unknown (None)."""
    row: dict[str, Any] = dict.fromkeys((*COUNT_COLUMNS, *SUM_COLUMNS, *AGREEMENT_COLUMNS))
    row.update(
        label="hm[m]",
        game="collab_escape",
        agent="hm",
        partner=partner,
        moves=moves,
        decisions=decisions,
        llm_calls=llm_calls,
        prompt_tokens=10 * llm_calls,
        completion_tokens=llm_calls,
        verifier_calls=0,
        verifier_rejections=0,
        fallbacks=fallbacks,
        predictions_correct=predicted[0],
        predictions_scored=predicted[1],
    )
    return row
