"""Behaviour-cloned Overcooked partners: BC (human train split) and human proxy HP (test split).

Training follows the reproduction of Carroll et al. (2019) in the overcooked_ai repository: an
MLP 96 -> 64 -> 64 -> 6 on ``featurize_state`` features, cross-entropy, Adam 1e-3, batch 64, up
to 100 epochs, early stopping on a 15% validation split, torch on one CPU thread. The result is
saved as a small ``.npz`` (weights plus JSON metadata): playing needs only numpy, so a trained
partner plays even where torch is not installed, and the file is independent of torch versions.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import time
import zipfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from coordqa.agentic.partners.overcooked_data import (
    ACTION_NAMES,
    SPLIT_FILES,
    check_layout,
    check_split,
    load_human_data,
)
from coordqa.agentic.partners.paths import data_dir
from coordqa.errors import ConfigError, MissingDependencyError
from coordqa.files import atomic_write_bytes
from coordqa.jsonvalues import JSONObject
from coordqa.words import format_list

PACKAGED_DIR = Path(__file__).parent / "checkpoints"
"""Checkpoints shipped with coordqa (used when the user has not trained their own)."""

KIND_OF_SPLIT = {"train": "bc", "test": "hp"}
"""Which partner kind each human-data split trains."""


def partner_name(layout: str, split: str) -> str:
    """``bc-<layout>`` for the train split, ``hp-<layout>`` for the test split."""
    return f"{KIND_OF_SPLIT[split]}-{layout}"


@dataclass(frozen=True)
class TrainConfig:
    """What to train and how (defaults are the published recipe)."""

    layout: str
    """Overcooked layout (our name, e.g. ``forced_coordination``)."""
    split: str = "train"
    """``train`` -> BC partner, ``test`` -> human proxy."""
    seed: int = 0
    """Seeds the validation split, initial weights and batch order."""
    max_epochs: int = 100
    """Upper bound on epochs; early stopping usually ends sooner."""
    patience: int = 10
    """Stop after this many epochs without a better validation loss (best weights are kept)."""
    batch_size: int = 64
    """Minibatch size."""
    learning_rate: float = 1e-3
    """Adam learning rate."""
    validation_fraction: float = 0.15
    """Share of samples held out for early stopping."""
    hidden: int = 64
    """Width of both hidden layers."""
    limit: int | None = None
    """Use only the first ``limit`` timesteps of the layout (quick tests)."""

    def __post_init__(self) -> None:
        """Refuse a layout without human data or an unknown split when made, before any work."""
        check_layout(self.layout)
        check_split(self.split)


@dataclass(frozen=True)
class EpochReport:
    """Progress of one finished epoch, handed to the training callback."""

    epoch: int
    """1-based epoch number."""
    max_epochs: int
    """The configured upper bound."""
    train_loss: float
    """Mean training cross-entropy of the epoch."""
    val_loss: float
    """Validation cross-entropy after the epoch."""
    val_accuracy: float
    """Validation accuracy after the epoch."""


@dataclass
class BCCheckpoint:
    """Weights of a trained MLP and the metadata that says how it was made."""

    weights: list[np.ndarray]
    """``[w1, b1, w2, b2, w3, b3]`` with ``w`` shaped ``[in, out]``."""
    meta: dict[str, Any]
    """name, layout, split, seed, epochs, val_accuracy, data_hash, samples, train_seconds..."""

    def save(self, path: Path) -> None:
        """Write atomically as ``.npz`` (arrays plus a JSON ``meta`` string)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays = {f"p{i}": w for i, w in enumerate(self.weights)}
        buffer = io.BytesIO()
        np.savez(buffer, meta=np.array(json.dumps(self.meta)), **arrays)
        atomic_write_bytes(path, buffer.getvalue())

    @classmethod
    def load(cls, path: Path) -> BCCheckpoint:
        """Read a checkpoint written by :meth:`save`."""
        with np.load(path) as data:
            count = sum(1 for key in data.files if key.startswith("p"))
            weights = [data[f"p{i}"] for i in range(count)]
            meta = json.loads(str(data["meta"]))
        return cls(weights, meta)

    @staticmethod
    def read_meta(path: Path) -> JSONObject:
        """Only the metadata (cheap: the weight arrays are not read)."""
        with np.load(path) as data:
            meta: dict[str, Any] = json.loads(str(data["meta"]))
        return meta

    @functools.cached_property
    def fingerprint(self) -> str:
        """Which weights these are: sha256 of their shapes and bytes (first 16 hex digits).

        Every episode records the fingerprint its BC/HP partner played (``BCPlayer.stats``), so
        a run against a retrained checkpoint is told from one against the shipped checkpoint
        before a board, which replays the shipped one, fails it (walkthrough 15 R7).
        """
        digest = hashlib.sha256()
        for weight in self.weights:
            array = np.ascontiguousarray(weight, dtype="<f4")
            digest.update(f"{array.shape};".encode())
            digest.update(array.tobytes())
        return digest.hexdigest()[:16]

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """Softmax action probabilities for a ``[96]`` or ``[n, 96]`` feature array."""
        hidden = features
        layers = list(zip(self.weights[::2], self.weights[1::2], strict=True))
        for index, (weight, bias) in enumerate(layers):
            hidden = hidden @ weight + bias
            if index < len(layers) - 1:
                hidden = np.maximum(hidden, 0.0)
        shifted = np.exp(hidden - hidden.max(axis=-1, keepdims=True))
        probs: np.ndarray = shifted / shifted.sum(axis=-1, keepdims=True)
        return probs


@functools.cache
def shipped_fingerprint(name: str) -> str | None:
    """The fingerprint of the checkpoint coordqa ships for partner ``name`` (None: none)."""
    path = PACKAGED_DIR / f"{name}.npz"
    return BCCheckpoint.load(path).fingerprint if path.is_file() else None


def user_checkpoint(name: str) -> Path:
    """Where ``coordqa partners train-bc`` writes the checkpoint of partner ``name``."""
    return data_dir() / f"{name}.npz"


def refuse_replacing(names: Iterable[str]) -> None:
    """Refuse to train partners ``names`` over checkpoints of the user's (``--replace`` does).

    Runs may have played such a checkpoint (each episode records its fingerprint), and a run
    resumed or submitted then meets other weights: train-bc replaced a seed-1 checkpoint a run
    had played without a word (walkthrough 29). Said before any training.

    Raises:
        ConfigError: a checkpoint of the user's is there for one of ``names``.
    """
    found = [(name, user_checkpoint(name)) for name in names if user_checkpoint(name).is_file()]
    if not found:
        return
    (name, path), others = found[0], [other for other, _ in found[1:]]
    also = f" (and so do {format_list(others)})" if others else ""
    raise ConfigError(
        f"{name} already has a checkpoint of yours ({_described(path)}) at {path}{also}, which "
        "runs may have played: give --replace to train a new one in its place, or move it aside"
    )


def _described(path: Path) -> str:
    """``seed 1, weights 8ee623f16ce6e9a7``: which checkpoint ``path`` holds, as runs name it."""
    try:
        checkpoint = BCCheckpoint.load(path)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        return "unreadable"
    return f"seed {checkpoint.meta.get('seed', '?')}, weights {checkpoint.fingerprint}"


def user_checkpoint_played(name: str, fingerprint: str) -> Path | None:
    """The user's checkpoint of partner ``name`` if its weights are ``fingerprint``'s, else None.

    ``submit`` names this file as the one to move aside; but the data folder of the shell that
    submits may be another than the one the run played from, or hold a checkpoint trained
    since (walkthrough 20 B2: a file that did not exist was named), so a path is named only
    when its weights are the ones played. An unreadable file is not the one played.
    """
    path = user_checkpoint(name)
    if not path.is_file():
        return None
    try:
        found = BCCheckpoint.load(path).fingerprint
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        return None
    return path if found == fingerprint else None


_SHIPPED_ONLY: ContextVar[bool] = ContextVar("shipped_checkpoints_only", default=False)


@contextmanager
def shipped_checkpoints_only() -> Iterator[None]:
    """Within it, every BC/HP partner plays the checkpoint coordqa ships, never a local one.

    A board replays submitted episodes with it: ``submit`` asks a run to have played the
    shipped checkpoints, so a board whose admin retrained a partner on its machine must not
    replay with that one (it refused honest runs). A context rather than an argument, because
    partners are built by name through the player registry, which knows no checkpoints.
    """
    token = _SHIPPED_ONLY.set(True)
    try:
        yield
    finally:
        _SHIPPED_ONLY.reset(token)


def find_checkpoint(name: str) -> Path | None:
    """The checkpoint partner ``name`` plays with: the user's own, else the packaged one.

    Within :func:`shipped_checkpoints_only`, only the packaged one.
    """
    local = () if _SHIPPED_ONLY.get() else (user_checkpoint(name),)
    for path in (*local, PACKAGED_DIR / f"{name}.npz"):
        if path.is_file():
            return path
    return None


def train_bc(
    config: TrainConfig,
    progress: Callable[[EpochReport], None] | None = None,
    output: Path | None = None,
    *,
    replace: bool = False,
) -> tuple[Path, JSONObject]:
    """Train one BC/HP partner and save it; return the checkpoint path and its metadata.

    Args:
        config: layout, split, seed and hyper-parameters.
        progress: called after every epoch (the CLI draws its progress bar from it).
        output: checkpoint path; defaults to :func:`user_checkpoint` of the partner's name.
        replace: train over a checkpoint of the user's there (:func:`refuse_replacing`).

    Raises:
        ConfigError: an unknown layout or split, or a checkpoint of the user's to replace
            without ``replace``.
    """
    torch = _import_torch()
    check_layout(config.layout)
    if config.split not in SPLIT_FILES:
        raise ConfigError(f"unknown split {config.split!r}: use train (BC) or test (HP)")
    if output is None and not replace:
        refuse_replacing([partner_name(config.layout, config.split)])
    started = time.perf_counter()
    data = load_human_data(config.layout, config.split, limit=config.limit)
    featurise_seconds = time.perf_counter() - started
    torch.set_num_threads(1)
    torch.manual_seed(config.seed)
    order = np.random.default_rng(config.seed).permutation(len(data.actions))
    n_val = max(1, int(round(config.validation_fraction * len(order))))
    features = torch.from_numpy(data.features)
    actions = torch.from_numpy(data.actions)
    val_x, val_y = features[order[:n_val]], actions[order[:n_val]]
    train_x, train_y = features[order[n_val:]], actions[order[n_val:]]
    model = _mlp(torch, features.shape[1], config.hidden, len(ACTION_NAMES))
    best, epoch = _fit(torch, model, (train_x, train_y), (val_x, val_y), config, progress)
    val_loss, val_acc, best_epoch, state = best
    weights = [
        state[key].numpy().T.copy() if key.endswith("weight") else state[key].numpy().copy()
        for key in state
    ]
    name = partner_name(config.layout, config.split)
    meta = {
        "name": name,
        "kind": KIND_OF_SPLIT[config.split],
        "layout": config.layout,
        "split": config.split,
        "seed": config.seed,
        "data_hash": data.data_hash,
        "samples": int(len(data.actions)),
        "epochs": epoch,
        "best_epoch": best_epoch,
        "val_loss": val_loss,
        "val_accuracy": val_acc,
        "featurise_seconds": round(featurise_seconds, 2),
        "train_seconds": round(time.perf_counter() - started - featurise_seconds, 2),
        "config": asdict(config),
        "torch": torch.__version__,
    }
    path = output or user_checkpoint(name)
    BCCheckpoint(weights, meta).save(path)
    return path, meta


def _fit(
    torch: Any,
    model: Any,
    train: tuple[Any, Any],
    validation: tuple[Any, Any],
    config: TrainConfig,
    progress: Callable[[EpochReport], None] | None,
) -> tuple[tuple[float, float, int, dict[str, Any]], int]:
    """Train ``model`` until the validation loss has not improved for ``patience`` epochs.

    Returns:
        the best epoch's (validation loss, validation accuracy, epoch, weights), and the
        number of epochs run.

    Raises:
        ConfigError: ``max_epochs`` below 1.
    """
    (train_x, train_y), (val_x, val_y) = train, validation
    optimiser = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
    loss_fn = torch.nn.CrossEntropyLoss()
    generator = torch.Generator().manual_seed(config.seed)
    best: tuple[float, float, int, dict[str, Any]] | None = None
    epoch = 0
    for epoch in range(1, config.max_epochs + 1):
        model.train()
        total = 0.0
        for batch in torch.randperm(len(train_y), generator=generator).split(config.batch_size):
            optimiser.zero_grad()
            loss = loss_fn(model(train_x[batch]), train_y[batch])
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(batch)
        model.eval()
        with torch.no_grad():
            logits = model(val_x)
            val_loss = float(loss_fn(logits, val_y))
            val_acc = float((logits.argmax(dim=1) == val_y).float().mean())
        if progress is not None:
            progress(EpochReport(epoch, config.max_epochs, total / len(train_y), val_loss, val_acc))
        if best is None or val_loss < best[0]:
            state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            best = (val_loss, val_acc, epoch, state)
        elif epoch - best[2] >= config.patience:
            break
    if best is None:
        raise ConfigError(f"max_epochs must be at least 1, got {config.max_epochs}")
    return best, epoch


def _mlp(torch: Any, inputs: int, hidden: int, outputs: int) -> Any:
    nn = torch.nn
    return nn.Sequential(
        nn.Linear(inputs, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, outputs),
    )


def _import_torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise MissingDependencyError(
            "training BC partners needs PyTorch: pip install 'coordqa[partners]' "
            "(for the CPU build: pip install torch --index-url https://download.pytorch.org/whl/cpu)"
        ) from exc
    return torch
