"""Publishing a dataset folder to the Hugging Face Hub."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from coordqa.errors import ConfigError, RunFailed

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
        RunFailed: the Hub could not be reached (offline) or refused the upload, said in one
            line.
    """
    from huggingface_hub import constants

    from coordqa.dataset import dataset_path, load_dataset
    from coordqa.llm.retry import describe_error, is_connection_failure

    if not _REPO.match(repo):
        raise ConfigError(f"--repo must look like ORG/NAME, got {repo!r}")
    token = hub_token()
    folder = dataset_path(path)
    dataset = load_dataset(path)
    from huggingface_hub.errors import HfHubHTTPError

    pushing = f"cannot push {path or folder.name} to {repo}"
    try:
        _upload(dataset, folder, repo, token, private)
    except HfHubHTTPError as exc:
        raise RunFailed(f"{pushing}: {_hub_refusal(exc)}") from None
    except Exception as exc:
        # read as `dataset import-upstream` reads an offline download (walkthrough 23, h23k 1)
        if not is_connection_failure(exc):
            raise
        raise RunFailed(
            f"{pushing}: the Hugging Face Hub "
            f"({constants.ENDPOINT}) could not be reached ({describe_error(exc)}); check this "
            "machine's network (and HF_ENDPOINT, if set), then run the command again"
        ) from None
    return f"https://huggingface.co/datasets/{repo}"


def _hub_refusal(error: Any) -> str:
    """What the Hub's answer means and what to do, from its status alone (never its body)."""
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    if status in (401, 403):
        return (
            f"the Hugging Face Hub refused the token ({status}); give a token that may write "
            "to that organisation (HF_TOKEN or `huggingface-cli login`), then run the command again"
        )
    return (
        f"the Hugging Face Hub answered {status or 'an error'}; check --repo (and HF_ENDPOINT, "
        "if set), then run the command again"
    )


def _upload(dataset: Any, folder: Path, repo: str, token: str, private: bool) -> None:
    """Push ``dataset`` and one config per question type, then the folder's card, to ``repo``."""
    from huggingface_hub import HfApi

    from coordqa.dataset import CARD_FILE, QUESTION_TYPES

    dataset.push_to_hub(repo, config_name="default", token=token, private=private)
    for kind in QUESTION_TYPES:
        subset = dataset.filter(lambda row, kind=kind: row["question_type"] == kind)
        subset.push_to_hub(repo, config_name=kind, token=token, private=private)
    card = folder / CARD_FILE if folder.is_dir() else None
    if card is not None and card.is_file():
        HfApi(token=token).upload_file(
            path_or_fileobj=str(card), path_in_repo="README.md", repo_id=repo, repo_type="dataset"
        )
