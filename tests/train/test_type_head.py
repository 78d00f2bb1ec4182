"""Training side of the type head: the torch model and the numpy head agree; the pairwise measure; the
schema KBs' types; the held-out groups share no KB; bad CLI options are one line."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from graphhop.cli import app
from graphhop.core import Fact
from graphhop.kb.store import KGStore
from graphhop.train.type_head import GROUPS, TypeKB, _head_of, _model, _schema_kb, pair_accuracy, pairs


def test_numpy_head_equals_the_torch_model() -> None:
    import torch

    torch.manual_seed(0)
    model = _model(8, 5)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.3)  # no zero weights: every term of the logit counts
    head = _head_of(model.eval(), {"dim": 8, "width": 5})
    rng = np.random.default_rng(1)
    unit = lambda *s: (x := rng.normal(size=s).astype(np.float32)) / np.linalg.norm(x, axis=-1, keepdims=True)  # noqa: E731
    noun, name, rels = unit(8), unit(8), unit(3, 8)
    fwd = np.asarray([1.0, 0.0, 1.0], dtype=np.float32)
    mask = np.ones(3, dtype=np.float32)
    with torch.no_grad():
        want = model(*(torch.from_numpy(a)[None] for a in (noun, rels, fwd, mask, name))).item()
    assert head.logit(noun, rels, fwd, name) == pytest.approx(want, abs=1e-5)
    assert 0.0 < head.prob(noun, rels, fwd, name) < 1.0


def test_pairs_and_pair_accuracy() -> None:
    store = KGStore.from_facts([Fact("Ana", "born in", "Kesh"), Fact("Kesh", "located in", "Norvania"),
                                Fact("Ben", "born in", "Loma"), Fact("Loma", "located in", "Norvania")])
    ids = {n: i for i, n in enumerate(store.entities)}
    kb = TypeKB("toy", store, [(ids["Ana"], frozenset({"person"})), (ids["Ben"], frozenset({"person"})),
                               (ids["Kesh"], frozenset({"city"})), (ids["Loma"], frozenset({"city"}))], ["city", "person"])
    triples = pairs(kb, 6)
    assert len(triples) == 6 and [t[0] for t in triples] == ["city", "person"] * 3
    assert all(noun in dict(kb.items)[pos] and noun not in dict(kb.items)[neg] for noun, pos, neg in triples)
    people = {ids["Ana"], ids["Ben"]}
    assert pair_accuracy(lambda noun, e: float((e in people) == (noun == "person")), triples) == 1.0
    assert pair_accuracy(lambda noun, e: 0.0, triples) == 0.5  # ties count half
    assert pair_accuracy(lambda noun, e: float(e in people), triples) == 0.5


def test_schema_kb_types_every_entity_by_its_schema_type() -> None:
    kb = _schema_kb("perfumery")
    types = {n for _, ns in kb.items for n in ns}
    assert {"perfumer", "perfume", "house", "flower", "city", "country", "currency", "language"} <= types
    assert all(not kb.store.entities[e].isdigit() for e, _ in kb.items)  # years and counts are no typed entities


def test_held_out_groups() -> None:
    assert set(GROUPS.values()) == {"train", "select", "report"}
    # WorldCup2014 and MetaQA, perfumery and vineyards are never trained on
    assert {k for k, g in GROUPS.items() if g != "train"} == {"wc-p1", "schema:perfumery", "metaqa-1h", "schema:vineyards"}


def test_cli_rejects_bad_options_in_one_line(tmp_path) -> None:
    result = CliRunner().invoke(app, ["train", "type-head", "--out", str(tmp_path / "h"), "--epochs", "0"])
    assert result.exit_code != 0 and "--epochs" in str(result.exception)  # main() prints it as one line
    assert not (tmp_path / "h").exists()
