"""Dataset cards: the Hugging Face YAML header and the contents, computed from the rows."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from coordqa.dataset.folder import BY_TYPE_DIR, DATA_FILE, parquet_bytes
from coordqa.dataset.identity import dataset_fingerprint
from coordqa.dataset.schema import Row, features
from coordqa.errors import DatasetError
from coordqa.games.base import GAME_NAMES
from coordqa.records import QUESTION_TYPES


def question_counts(rows: Iterable[Row]) -> dict[str, dict[str, int]]:
    """Questions per game, then per type, in schema order.

    The paper's games come first, then the others by name; games without questions are left out.
    """
    counts = Counter((row["game"], row["question_type"]) for row in rows)
    others = sorted({game for game, _ in counts} - set(GAME_NAMES))
    per_game: dict[str, dict[str, int]] = {
        game: {kind: counts[(game, kind)] for kind in QUESTION_TYPES}
        for game in (*GAME_NAMES, *others)
    }
    return {game: by_type for game, by_type in per_game.items() if sum(by_type.values())}


def _counts_table(rows: Sequence[Row]) -> str:
    lines = [
        "| game | " + " | ".join(QUESTION_TYPES) + " | total |",
        "|---" * (len(QUESTION_TYPES) + 2) + "|",
    ]
    for game, by_type in question_counts(rows).items():
        cells = " | ".join(str(count) for count in by_type.values())
        lines.append(f"| {game} | {cells} | {sum(by_type.values())} |")
    return "\n".join(lines)


SPLIT = "test"
"""The one split of every dataset folder, as the card's configs name it: CoordinationQA is for
evaluation only, and evaluation-only benchmarks on the Hugging Face Hub call their split ``test``.
Earlier cards named it ``train`` (:data:`SPLIT_NOTE` says what that changes for loaders)."""

SPLIT_NOTE = (
    "Format note: the split is named `test` (evaluation only); earlier cards named it "
    '`train`. `datasets.load_dataset(folder, split="train")` now fails, '
    'so load `split="test"`, or the file itself, as before: '
    '`datasets.load_dataset("parquet", data_files="data.parquet", split="train")`.'
)
"""The changelog line every card carries about the split's name; loading the file keeps working."""


def _config_files(by_type: bool) -> dict[str, str]:
    """Each Hugging Face config of a dataset folder, with its parquet file."""
    files = {"default": DATA_FILE}
    if by_type:
        files.update({kind: f"{BY_TYPE_DIR}/{kind}.parquet" for kind in QUESTION_TYPES})
    return files


def _split_info(rows: Sequence[Row]) -> dict[str, Any]:
    """The card's ``splits`` entry of ``rows``: name, examples, and bytes.

    Bytes as ``datasets`` counts them: the Arrow size of the table read back from the parquet
    file written for ``rows``.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(pa.BufferReader(parquet_bytes(rows)))
    return {"name": SPLIT, "num_bytes": int(table.nbytes), "num_examples": len(rows)}


def card_header(
    rows: Sequence[Row], *, pretty_name: str, license: str = "mit", by_type: bool = False
) -> dict[str, Any]:
    """The YAML header of a dataset card, computed from ``rows``.

    One config per parquet file (``default``, and with ``by_type`` one per question type), each
    with the one split :data:`SPLIT`; ``dataset_info`` lists every config with its features and
    split sizes, which is what ``datasets.load_dataset(folder, config)`` reads (without it, or
    with a split lacking ``num_bytes``, it warns that the card is malformed).
    """
    files = _config_files(by_type)
    of_config = {
        name: [row for row in rows if name == "default" or row["question_type"] == name]
        for name in files
    }
    return {
        "license": license,
        "pretty_name": pretty_name,
        "language": ["en"],
        "task_categories": ["multiple-choice", "question-answering"],
        "tags": ["coordination", "theory-of-mind", "multi-agent", "llm-evaluation"],
        "size_categories": ["n<1K" if len(rows) < 1000 else "1K<n<10K"],
        "configs": [
            {"config_name": name, "data_files": [{"split": SPLIT, "path": path}]}
            for name, path in files.items()
        ],
        "dataset_info": [
            {
                "config_name": name,
                # Private helper, but the only way to write features exactly as the installed
                # datasets version reads them back.
                "features": features()._to_yaml_list(),
                "splits": [_split_info(of_config[name])],
            }
            for name in files
        ],
    }


def _front_matter(header: Mapping[str, Any]) -> str:
    import yaml

    return f"---\n{yaml.safe_dump(dict(header), sort_keys=False, allow_unicode=True)}---\n"


def with_current_header(card: str, rows: Sequence[Row]) -> str:
    """``card`` with its YAML header recomputed from ``rows`` and its text left as it is.

    For cards whose text is frozen (a release shipped as an earlier coordqa built it): the
    header follows the current format (:func:`card_header`), keeping the card's own
    ``pretty_name`` and ``license`` and its per-type configs if it had them.

    Raises:
        DatasetError: ``card`` has no YAML header.
    """
    import yaml

    match = re.match(r"---\n(.*?\n)---\n", card, flags=re.DOTALL)
    if match is None:
        raise DatasetError("the card has no YAML header (a first line '---' and a closing one)")
    old = yaml.safe_load(match.group(1))
    by_type = any(c.get("config_name") != "default" for c in old.get("configs", ()))
    header = card_header(
        rows, pretty_name=old["pretty_name"], license=old.get("license", "mit"), by_type=by_type
    )
    return _front_matter(header) + card[match.end() :]


def dataset_card(
    rows: Sequence[Row],
    *,
    pretty_name: str,
    body: str,
    license: str = "mit",
    by_type: bool = False,
    appendix: str = "",
) -> str:
    """A dataset card: Hugging Face YAML header, ``body``, a contents section, ``appendix``.

    The header (:func:`card_header`) and the contents (counts per game and type, fingerprint,
    the split's name) are computed from ``rows``, so a card can never disagree with the data it
    describes.
    """
    header = card_header(rows, pretty_name=pretty_name, license=license, by_type=by_type)
    scenarios = len({row["scenario_id"] for row in rows})
    contents = (
        f"## Contents\n\n{len(rows)} questions from {scenarios} scenarios.\n\n"
        f"{_counts_table(rows)}\n\n"
        f"Content fingerprint (`coordqa.dataset.dataset_fingerprint`): "
        f"`{dataset_fingerprint(rows)}`\n\n{SPLIT_NOTE}\n"
    )
    tail = f"\n{appendix.strip()}\n" if appendix.strip() else ""
    return f"{_front_matter(header)}\n{body.strip()}\n\n{contents}{tail}"
