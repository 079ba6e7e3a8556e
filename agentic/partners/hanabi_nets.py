"""The SAD and OBL Hanabi networks in plain PyTorch, loading the authors' published state dicts.

The published ``.pthw`` files are ``torch.save(state_dict)`` of TorchScript modules; the modules
here have the same parameter names, so a file loads with ``load_state_dict(strict=True)`` after
the unused auxiliary heads are dropped. The architecture (hidden size, feed-forward and LSTM
depth) is read from the tensor shapes, and every tensor is checked before loading so a file
that does not match names the offending key, its shape and the expected one.

SAD (Hu & Foerster 2020): 838 inputs -> Linear + ReLU (``net``) -> LSTM (``lstm``) -> dueling
heads ``fc_v``/``fc_a``. OBL (Hu et al. 2021): a private MLP on 658 inputs (``priv_net``) times
the output of an LSTM over a public 533-input branch (``publ_net``), then ``fc_v``/``fc_a``.
Acting uses only ``fc_a``: greedy play is the argmax of the advantages over legal moves.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coordqa.agentic.partners.hanabi_encoder import OBL_PRIVATE_SIZE, OBL_PUBLIC_SIZE, SAD_SIZE
from coordqa.agentic.partners.paths import HANABI_WEIGHTS_SOURCE
from coordqa.errors import ConfigError, MissingDependencyError

NUM_ACTIONS = 21
"""20 move uids plus the no-op (index 20) of the player not on turn."""
KINDS = ("sad", "obl")
AUXILIARY_PREFIXES = ("pred.", "pred_1st.", "pred_2nd.", "pred_t.", "core_ffn.")
"""Heads used only for auxiliary training losses; dropped on load."""
WRAPPER_PREFIXES = ("online_net.", "module.")
"""Prefixes some saving code puts in front of the network's own parameter names."""


class WeightsError(ConfigError):
    """A weights file cannot be read or does not fit the SAD/OBL architecture."""


@dataclass(frozen=True)
class NetShape:
    """Architecture of a loaded network, as read from its tensors."""

    kind: str
    """``sad`` or ``obl``."""
    hidden: int
    """Width of every hidden layer and of the LSTM."""
    ff_layers: int
    """Feed-forward layers before the LSTM (SAD ``net``; 1 for OBL's ``publ_net``)."""
    lstm_layers: int
    """Stacked LSTM layers."""


def import_torch() -> Any:
    """Import torch, or explain how to install it."""
    try:
        import torch
    except ImportError as exc:
        raise MissingDependencyError(
            "SAD/OBL partners need PyTorch: pip install 'coordqa[partners]' "
            "(for the CPU build: pip install torch --index-url https://download.pytorch.org/whl/cpu)"
        ) from exc
    return torch


def unreadable_checkpoint(path: Path) -> str:
    """Why ``path`` cannot be loaded, and what to do: torch's own words are no help.

    torch.load says what its unpickler tripped on (a junk file gave ``KeyError: 174812789``),
    which names neither the file's problem nor a fix; the file's size tells a truncated or
    empty download at a glance.
    """
    size = path.stat().st_size
    return (
        f"weights file {path} ({size:,} bytes) is not a PyTorch checkpoint torch can read: it is "
        "truncated, corrupt or in another format. SAD/OBL partners take the authors' .pthw files: "
        f"get the file again from {HANABI_WEIGHTS_SOURCE}, then add it again"
    )


def read_state_dict(path: Path) -> dict[str, Any]:
    """The tensors of a ``.pthw`` file, with wrapper prefixes and auxiliary heads removed."""
    torch = import_torch()
    if not path.is_file():
        raise WeightsError(f"weights file {path} does not exist")
    try:
        raw = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many unrelated types for a bad file
        raise WeightsError(unreadable_checkpoint(path)) from exc
    if not isinstance(raw, Mapping) or not all(torch.is_tensor(v) for v in raw.values()):
        raise WeightsError(f"{path} does not hold a state dict (a mapping of names to tensors)")
    tensors: dict[str, Any] = {}
    for key, value in raw.items():
        name = str(key)
        for prefix in WRAPPER_PREFIXES:
            name = name.removeprefix(prefix)
        if not name.startswith(AUXILIARY_PREFIXES):
            tensors[name] = value
    return tensors


def detect_kind(tensors: Mapping[str, Any], path: Path) -> str:
    """``obl`` when the file has OBL's private branch, ``sad`` when it has SAD's ``net``."""
    if "priv_net.0.weight" in tensors:
        return "obl"
    if "net.0.weight" in tensors:
        return "sad"
    raise WeightsError(
        f"{path} is neither a SAD net (no 'net.0.weight') nor an OBL net (no "
        f"'priv_net.0.weight'); its keys are: {', '.join(sorted(tensors)[:12])}"
    )


def expected_shapes(kind: str, tensors: Mapping[str, Any], path: Path) -> tuple[NetShape, dict]:
    """The architecture implied by the file, and the exact shape every key must have."""
    first = "priv_net.0.weight" if kind == "obl" else "net.0.weight"
    if first not in tensors or tensors[first].dim() != 2:
        raise WeightsError(f"{path}: {kind.upper()} weights need a 2-D {first!r}")
    hidden = int(tensors[first].shape[0])
    lstm_layers = _count(tensors, r"lstm\.weight_ih_l(\d+)")
    if lstm_layers == 0:
        raise WeightsError(f"{path}: no LSTM weights ('lstm.weight_ih_l0' is missing)")
    shapes: dict[str, tuple[int, ...]] = {}
    if kind == "sad":
        ff_layers = _count(tensors, r"net\.(\d+)\.weight", step=2)
        for index in range(ff_layers):
            shapes[f"net.{2 * index}.weight"] = (hidden, SAD_SIZE if index == 0 else hidden)
            shapes[f"net.{2 * index}.bias"] = (hidden,)
    else:
        ff_layers = 1
        for index in range(3):
            shapes[f"priv_net.{2 * index}.weight"] = (
                hidden,
                OBL_PRIVATE_SIZE if index == 0 else hidden,
            )
            shapes[f"priv_net.{2 * index}.bias"] = (hidden,)
        shapes["publ_net.0.weight"] = (hidden, OBL_PUBLIC_SIZE)
        shapes["publ_net.0.bias"] = (hidden,)
    for layer in range(lstm_layers):
        for part in ("ih", "hh"):
            shapes[f"lstm.weight_{part}_l{layer}"] = (4 * hidden, hidden)
            shapes[f"lstm.bias_{part}_l{layer}"] = (4 * hidden,)
    shapes.update(
        {
            "fc_v.weight": (1, hidden),
            "fc_v.bias": (1,),
            "fc_a.weight": (NUM_ACTIONS, hidden),
            "fc_a.bias": (NUM_ACTIONS,),
        }
    )
    return NetShape(kind, hidden, ff_layers, lstm_layers), shapes


def check_shapes(tensors: Mapping[str, Any], shapes: Mapping[str, tuple], path: Path) -> None:
    """Raise naming the first missing, extra or mis-shaped key."""
    for key, shape in shapes.items():
        if key not in tensors:
            raise WeightsError(f"{path}: missing key {key!r} (expected shape {list(shape)})")
        if tuple(tensors[key].shape) != shape:
            raise WeightsError(
                f"{path}: key {key!r} has shape {list(tensors[key].shape)}, expected "
                f"{list(shape)} (SAD takes {SAD_SIZE} inputs, OBL {OBL_PRIVATE_SIZE} private and "
                f"{OBL_PUBLIC_SIZE} public ones, both output {NUM_ACTIONS} actions)"
            )
    extra = sorted(set(tensors) - set(shapes))
    if extra:
        raise WeightsError(
            f"{path}: unexpected keys {', '.join(map(repr, extra))}: not part of a SAD/OBL net"
        )


def _count(tensors: Mapping[str, Any], pattern: str, step: int = 1) -> int:
    """How many consecutive indices 0, step, 2*step, ... have a key matching ``pattern``."""
    found = {int(m.group(1)) for key in tensors if (m := re.fullmatch(pattern, key))}
    count = 0
    while count * step in found:
        count += 1
    return count


def build_net(shape: NetShape, skip_connect: bool = False) -> Any:
    """An untrained network of the given architecture (a ``torch.nn.Module``)."""
    torch = import_torch()
    nn = torch.nn

    class HanabiNet(nn.Module):  # type: ignore[name-defined]
        """SAD or OBL: ``forward(inputs, (h, c)) -> (advantages, (h, c))`` for one step."""

        def __init__(self) -> None:
            super().__init__()
            hid = shape.hidden
            if shape.kind == "sad":
                layers: list[Any] = []
                for index in range(shape.ff_layers):
                    layers += [nn.Linear(SAD_SIZE if index == 0 else hid, hid), nn.ReLU()]
                self.net = nn.Sequential(*layers)
            else:
                self.priv_net = nn.Sequential(
                    nn.Linear(OBL_PRIVATE_SIZE, hid),
                    nn.ReLU(),
                    nn.Linear(hid, hid),
                    nn.ReLU(),
                    nn.Linear(hid, hid),
                    nn.ReLU(),
                )
                self.publ_net = nn.Sequential(nn.Linear(OBL_PUBLIC_SIZE, hid), nn.ReLU())
            self.lstm = nn.LSTM(hid, hid, num_layers=shape.lstm_layers)
            self.fc_v = nn.Linear(hid, 1)
            self.fc_a = nn.Linear(hid, NUM_ACTIONS)

        def forward(self, inputs: tuple[Any, ...], hidden: tuple[Any, Any]) -> tuple[Any, Any]:
            if shape.kind == "sad":
                features = self.net(inputs[0])
                output, hidden = self.lstm_step(features, hidden)
                if skip_connect:
                    output = output + features
            else:
                private = self.priv_net(inputs[0])
                public, hidden = self.lstm_step(self.publ_net(inputs[1]), hidden)
                output = private * public
            return self.fc_a(output), hidden

        def lstm_step(self, inputs: Any, hidden: tuple[Any, Any]) -> tuple[Any, tuple[Any, Any]]:
            """One time step of ``self.lstm`` (:func:`_lstm_step`)."""
            return _lstm_step(torch, self.lstm, shape.lstm_layers, inputs, hidden)

    return HanabiNet()


def _lstm_step(
    torch: Any, lstm: Any, layers: int, inputs: Any, hidden: tuple[Any, Any]
) -> tuple[Any, tuple[Any, Any]]:
    """One time step of the ``layers``-layer ``lstm``, written out with its own parameters.

    Equal to ``lstm(inputs[None], hidden)``, but ``nn.LSTM`` on one CPU sample goes through
    oneDNN and takes about ten times longer than these eight matrix products.
    """
    linear = torch.nn.functional.linear
    h_all, c_all = hidden
    h_out, c_out = [], []
    layer_input = inputs
    for layer in range(layers):
        gates = linear(
            layer_input,
            getattr(lstm, f"weight_ih_l{layer}"),
            getattr(lstm, f"bias_ih_l{layer}"),
        ) + linear(
            h_all[layer],
            getattr(lstm, f"weight_hh_l{layer}"),
            getattr(lstm, f"bias_hh_l{layer}"),
        )
        gate_in, gate_forget, cell, gate_out = gates.chunk(4, dim=1)
        c_new = gate_forget.sigmoid() * c_all[layer] + gate_in.sigmoid() * cell.tanh()
        layer_input = gate_out.sigmoid() * c_new.tanh()
        h_out.append(layer_input)
        c_out.append(c_new)
    return layer_input, (torch.stack(h_out), torch.stack(c_out))


def published_shapes(kind: str, hidden: int = 512, lstm_layers: int = 2) -> dict[str, tuple]:
    """Key names and shapes of the authors' published files (auxiliary head included).

    Used to write stand-in files with random weights for tests and benchmarks, since the real
    files cannot be downloaded on every machine.
    """
    if kind not in KINDS:
        raise ConfigError(f"unknown Hanabi net kind {kind!r}: use one of {', '.join(KINDS)}")
    first = "priv_net.0.weight" if kind == "obl" else "net.0.weight"
    seed = {first: _Shape((hidden, 1))}
    seed.update({f"lstm.weight_ih_l{i}": _Shape((1,)) for i in range(lstm_layers)})
    if kind == "sad":
        seed["net.0.weight"] = _Shape((hidden, SAD_SIZE))
    _, shapes = expected_shapes(kind, seed, Path(f"<{kind}>"))
    auxiliary = "pred" if kind == "sad" else "pred_1st"
    shapes[f"{auxiliary}.weight"] = (3 * 5, hidden)
    shapes[f"{auxiliary}.bias"] = (3 * 5,)
    return shapes


@dataclass(frozen=True)
class _Shape:
    """Just enough of a tensor (``shape``, ``dim()``) to drive :func:`expected_shapes`."""

    shape: tuple[int, ...]

    def dim(self) -> int:
        return len(self.shape)


@dataclass
class LoadedNet:
    """A network ready to act, with its architecture."""

    module: Any
    """The ``torch.nn.Module`` in eval mode."""
    shape: NetShape
    """Architecture read from the file."""


def load_hanabi_net(path: Path, kind: str | None = None, skip_connect: bool = False) -> LoadedNet:
    """Load a published SAD or OBL weights file (kind detected from its keys when None).

    Raises:
        WeightsError: unreadable file, wrong kind, or a key/shape that does not fit.
        MissingDependencyError: torch is not installed.
    """
    if kind is not None and kind not in KINDS:
        raise ConfigError(f"unknown Hanabi net kind {kind!r}: use one of {', '.join(KINDS)}")
    tensors = read_state_dict(path)
    found = detect_kind(tensors, path)
    if kind is not None and kind != found:
        raise WeightsError(f"{path} holds a network of kind {found!r}, not {kind!r}")
    shape, shapes = expected_shapes(found, tensors, path)
    check_shapes(tensors, shapes, path)
    module = build_net(shape, skip_connect=skip_connect)
    module.load_state_dict(tensors, strict=True)
    module.eval()
    return LoadedNet(module, shape)
