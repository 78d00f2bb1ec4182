"""A partly fine-tuned MiniLM cross-encoder shipped as its trained parameters only, loaded over the bundled MiniLM.

A cross-encoder whose lower layers stayed frozen in training (:func:`graphhop.train.leaf_reranker.freeze_below`)
differs from the bundled MiniLM only in its top layers, pooler and one-logit head. :func:`save_top_layers` writes
those parameters as float16 ``.npz`` shards (each under ``shard_mb``, so every tracked file stays small) and a
``config.json``; :func:`load_top_layers` rebuilds the model: the bundled MiniLM with a fresh head, then the saved
parameters over it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["save_top_layers", "load_top_layers", "trained_names"]


def trained_names(model: Any) -> list[str]:
    """Names of the parameters of ``model`` that training moves (``requires_grad``), in state-dict order."""
    return [n for n, p in model.named_parameters() if p.requires_grad]


def save_top_layers(model: Any, out: str | Path, config: dict[str, Any], names: list[str] | None = None,
                    shard_mb: float = 4.5) -> list[Path]:
    """Write ``names`` (default: :func:`trained_names`) of ``model`` as float16 shards ``top-<i>.npz`` under ``out`` plus
    ``config.json`` (``config`` with the shard list); returns the files written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    state = model.state_dict()
    shards: list[dict[str, np.ndarray]] = [{}]
    size = 0.0
    for name in names or trained_names(model):
        arr = state[name].detach().cpu().float().numpy().astype(np.float16)
        if shards[-1] and size + arr.nbytes / 2**20 > shard_mb:
            shards.append({})
            size = 0.0
        shards[-1][name] = arr
        size += arr.nbytes / 2**20
    files = []
    for i, shard in enumerate(shards):
        files.append(out / f"top-{i}.npz")
        np.savez_compressed(files[-1], **shard)
    (out / "config.json").write_text(json.dumps({**config, "shards": [f.name for f in files]}, indent=1) + "\n",
                                     encoding="utf-8")
    return files + [out / "config.json"]


def load_top_layers(path: str | Path) -> tuple[Any, Any, dict[str, Any]]:
    """``(model, tokenizer, config)``: the bundled MiniLM cross-encoder with the parameters saved under ``path``."""
    import torch

    from graphhop.core import GraphhopError
    from graphhop.models.cross_encoder import load_sequence_classifier
    from graphhop.models.encoder import _quiet_transformers

    _quiet_transformers()
    path = Path(path)
    if not (path / "config.json").exists():
        raise GraphhopError(f"{path}: no config.json (not a directory written by save_top_layers)")
    config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    model, tokenizer = load_sequence_classifier(None)
    state = model.state_dict()
    for shard in config["shards"]:
        with np.load(path / shard) as data:
            for name in data.files:
                if name not in state or tuple(state[name].shape) != data[name].shape:
                    raise GraphhopError(f"{path / shard}: {name} does not fit the bundled MiniLM")
                state[name] = torch.from_numpy(data[name].astype(np.float32))
    model.load_state_dict(state)
    model.eval()
    return model, tokenizer, config
