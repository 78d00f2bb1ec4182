"""Shared training pieces: freezing all but the top transformer layers."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("train_layers, trained", [(1, {1}), (2, {0, 1}), (0, set()), (5, {0, 1})])
def test_freeze_lower_layers_trains_exactly_the_top_layers(tiny_model, train_layers, trained):
    from transformers import BertModel

    from graphhop.train.common import freeze_lower_layers

    bert = BertModel.from_pretrained(tiny_model)                          # 2 layers
    for p in bert.encoder.layer[1].parameters():
        p.requires_grad = False                                           # a frozen top layer is made trainable
    freeze_lower_layers(bert, train_layers)
    for i, layer in enumerate(bert.encoder.layer):
        assert all(p.requires_grad == (i in trained) for p in layer.parameters()), (train_layers, i)
    assert not any(p.requires_grad for p in bert.embeddings.parameters())
    assert all(p.requires_grad for p in bert.pooler.parameters())        # the rest is left as it was
