"""Publishing a dataset folder to the Hugging Face Hub."""

from __future__ import annotations

import os
import re

from coordqa.errors import ConfigError

_REPO = re.compile(r"^[\w.-]+/[\w.-]+$")


def hub_token() -> str:
    """The Hugging Face token from ``HF_TOKEN`` or a saved ``huggingface-cli login``.

    Raises:
        ConfigError: no token is available, saying how to provide one.
    """
    from huggingface_hub import get_token

    token = os.environ.get("HF_TOKEN") or get_token()
    if not token:
        raise ConfigError(
            "no Hugging Face token: set HF_TOKEN or run `huggingface-cli login`, then retry"
        )
    return token


def push_dataset(path: str | None, repo: str, *, private: bool = False) -> str:
    """Upload a validated dataset folder to ``repo`` and return the repository URL.

    Each question type is pushed as its own config with ``Dataset.push_to_hub`` (matching the
    card's configs), then the dataset card itself replaces the card ``push_to_hub`` writes.

    Raises:
        ConfigError: a malformed repository name or no token (checked before any upload).
    """
    from huggingface_hub import HfApi

    from coordqa.dataset import CARD_FILE, QUESTION_TYPES, dataset_path, load_dataset

    if not _REPO.match(repo):
        raise ConfigError(f"--repo must look like ORG/NAME, got {repo!r}")
    token = hub_token()
    folder = dataset_path(path)
    dataset = load_dataset(path)
    dataset.push_to_hub(repo, config_name="default", token=token, private=private)
    for kind in QUESTION_TYPES:
        subset = dataset.filter(lambda row, kind=kind: row["question_type"] == kind)
        subset.push_to_hub(repo, config_name=kind, token=token, private=private)
    card = folder / CARD_FILE if folder.is_dir() else None
    if card is not None and card.is_file():
        HfApi(token=token).upload_file(
            path_or_fileobj=str(card), path_in_repo="README.md", repo_id=repo, repo_type="dataset"
        )
    return f"https://huggingface.co/datasets/{repo}"
