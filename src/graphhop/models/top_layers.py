"""Fine-tuned top layers over the bundled MiniLM: save only what was trained, load it back over the base.

A cross-encoder fine-tuned from the bundled MiniLM with its lower layers frozen differs from the base only in
its top ``layers`` transformer layers, the pooler and the one-logit classifier. :func:`save_top_layers` writes
those tensors as float16 ``top.npz`` (+ ``config.json``), a few MB instead of 90: the top layer, the pooler and the
classifier in ``top.npz``, each lower trained layer ``i`` in its own ``top-layer<i>.npz`` (one MiniLM layer is about
3.5 MB, so every file stays under 5 MB); :func:`load_top_layers` loads the base
(:func:`graphhop.models.cross_encoder.load_sequence_classifier`) and puts them back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from graphhop.core import GraphhopError
from graphhop.io import atomic_file, atomic_write_text

__all__ = ["trained_names", "top_files", "save_top_layers", "load_top_layers"]

_FILE, _CONFIG = "top.npz", "config.json"


def trained_names(model: Any, layers: int) -> list[str]:
    """State-dict names of the top ``layers`` encoder layers, the pooler and the classifier of ``model``."""
    n = len(model.base_model.encoder.layer)
    prefixes = tuple(f"encoder.layer.{i}." for i in range(n - layers, n)) + ("pooler.",)
    return [k for k in model.state_dict() if k.startswith("classifier.")
            or k.split(".", 1)[-1].startswith(prefixes)]


def top_files(names: list[str], n: int) -> dict[str, list[str]]:
    """File name -> the trained tensor ``names`` it holds: the top layer, pooler and classifier in ``top.npz``; each
    lower trained layer ``i`` (of ``n``) in ``top-layer<i>.npz``."""
    files: dict[str, list[str]] = {}
    for name in names:
        parts = name.split(".")
        at = parts.index("layer") + 1 if "encoder" in parts and "layer" in parts else -1
        layer = int(parts[at]) if at > 0 else n - 1
        files.setdefault(_FILE if layer == n - 1 else f"top-layer{layer}.npz", []).append(name)
    return files


def save_top_layers(model: Any, folder: str | Path, layers: int, extra: dict[str, Any] | None = None) -> Path:
    """Write the top ``layers`` layers + pooler + classifier of ``model`` (float16) and a config to ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    state = model.state_dict()
    names = trained_names(model, layers)
    files = top_files(names, len(model.base_model.encoder.layer))
    for file, part in files.items():  # each file through a temp sibling: a reader never sees half of one
        with atomic_file(folder / file, "wb") as fh:
            np.savez_compressed(fh, **{k: state[k].detach().cpu().numpy().astype(np.float16) for k in part})
    for stale in folder.glob("top-layer*.npz"):  # an earlier save's deeper layers, removed only once the new are in
        if stale.name not in files:
            stale.unlink()
    config = {"base": "all-MiniLM-L6-v2", "layers": layers, **(extra or {})}
    atomic_write_text(folder / _CONFIG, json.dumps(config, indent=1) + "\n")
    return folder


def load_top_layers(folder: str | Path) -> tuple[Any, Any, dict[str, Any]]:
    """``(model, tokenizer, config)``: the bundled MiniLM with the saved top layers put back, in eval mode."""
    import torch

    from graphhop.models.cross_encoder import load_sequence_classifier

    folder = Path(folder)
    if not (folder / _FILE).is_file():
        raise GraphhopError(f"{folder}: no {_FILE} (write one with save_top_layers)")
    config = json.loads((folder / _CONFIG).read_text(encoding="utf-8"))
    from transformers.utils import logging as hf_logging

    level, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()  # the base's classifier is "newly initialized": it is replaced just below
    hf_logging.disable_progress_bar()
    try:
        model, tokenizer = load_sequence_classifier(None)
    finally:
        hf_logging.set_verbosity(level)
        if bars:
            hf_logging.enable_progress_bar()
    tensors = {}
    for path in [folder / _FILE, *sorted(folder.glob("top-layer*.npz"))]:
        with np.load(path) as saved:
            tensors.update({k: torch.from_numpy(saved[k].astype(np.float32)) for k in saved.files})
    missing = sorted(set(trained_names(model, int(config["layers"]))) - set(tensors))
    if missing:
        raise GraphhopError(f"{folder}: {_FILE} lacks {missing[0]}")
    model.load_state_dict(tensors, strict=False)
    model.eval()
    return model, tokenizer, config
