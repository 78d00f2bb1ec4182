"""Fixtures of the dataset tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tiny_t5(tmp_path_factory):
    """A tiny random T5 with MiniLM's tokenizer, saved locally (a data-to-text model that loads offline)."""
    import torch
    from transformers import AutoTokenizer, T5Config, T5ForConditionalGeneration

    from graphhop.models.encoder import resolve_model

    out = tmp_path_factory.mktemp("t5") / "t5"
    tok = AutoTokenizer.from_pretrained(resolve_model(None))
    torch.manual_seed(0)
    config = T5Config(vocab_size=tok.vocab_size, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_heads=2,
                      decoder_start_token_id=tok.pad_token_id, pad_token_id=tok.pad_token_id, eos_token_id=tok.sep_token_id)
    T5ForConditionalGeneration(config).save_pretrained(out)
    tok.save_pretrained(out)
    return out
