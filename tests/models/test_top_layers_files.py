"""Fine-tuned top layers saved one file per layer (docs/RESULTS.md, issue 12, "Session 16 (kgr16)"): two trained
MiniLM layers (7 MB in float16) are two files, each under the 5 MB rule, and load back as saved."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphhop.models.top_layers import load_top_layers, save_top_layers, top_files


def test_top_files_put_each_lower_layer_in_its_own_file() -> None:
    names = ["bert.encoder.layer.4.attention.self.query.weight", "bert.encoder.layer.5.output.dense.bias",
             "bert.pooler.dense.weight", "classifier.weight"]
    assert top_files(names, 6) == {"top-layer4.npz": names[:1], "top.npz": names[1:]}


def test_two_layers_save_as_two_small_files_and_load_back(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from graphhop.models.cross_encoder import load_sequence_classifier

    model, _ = load_sequence_classifier(None)
    lower = model.base_model.encoder.layer[4].output.dense.weight
    with torch.no_grad():
        lower.add_(0.25)  # a trained lower layer: must come back from top-layer4.npz, not from the base
    save_top_layers(model, tmp_path, 2)
    (tmp_path / "top-layer3.npz").write_bytes(b"")  # a stale file of an earlier save is not read (removed first)
    save_top_layers(model, tmp_path, 2)
    files = sorted(p.name for p in tmp_path.glob("*.npz"))
    assert files == ["top-layer4.npz", "top.npz"]
    assert all(p.stat().st_size < 5_000_000 for p in tmp_path.glob("*.npz"))
    back, _, config = load_top_layers(tmp_path)
    assert config["layers"] == 2
    got = back.base_model.encoder.layer[4].output.dense.weight
    assert torch.allclose(got, lower.detach(), atol=1e-2)
    assert not torch.allclose(got, load_sequence_classifier(None)[0].base_model.encoder.layer[4].output.dense.weight)
