"""The ReasonGraphQA-style builder on a tiny KB, plus one real-data slice (WC-C)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import numpy as np
import pytest

from graphhop.core import Fact, QAExample
from graphhop.datasets.builder import (
    BuildConfig,
    DatasetBuilder,
    Dropped,
    TemplateDataToText,
    assign_split,
    mentions_all_entities,
    read_records,
    write_dataset,
)
from graphhop.graph import EvidenceGraph
from graphhop.kb.store import TripleStore

RELATIONS = ["gender", "nationality", "profession", "religion", "place_of_birth"]


def _store() -> TripleStore:
    facts = []
    for i in range(30):
        p = f"person_{i}"
        facts.append(Fact(p, "spouse", f"person_{(i + 1) % 30}"))
        for j, rel in enumerate(RELATIONS):
            facts.append(Fact(p, rel, f"{rel}_value_{(i + j) % 7}"))
    return TripleStore.from_facts(facts)


class HashEncoder:
    """A tiny deterministic bag-of-words encoder with the sentence-transformers call shape."""

    dim = 64

    def encode(self, sentences, **kwargs):
        out = np.zeros((len(sentences), self.dim), dtype=np.float32)
        for i, s in enumerate(sentences):
            for tok in s.lower().replace(".", " ").replace("?", " ").split():
                out[i, int(hashlib.md5(tok.encode()).hexdigest(), 16) % self.dim] += 1
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)
        return out


def _examples(n: int = 6) -> list[QAExample]:
    out = []
    for i in range(n):
        a, b = f"person_{i}", f"person_{i + 1}"
        path = [(a, "spouse", b), (b, "nationality", f"nationality_value_{(i + 2) % 7}")]
        out.append(QAExample(f"q{i}", f"what is the nationality of {a} 's spouse ?", [path[1][2]],
                             gold_facts=path, gold_paths=[path], hops=2, qtype="pq"))
    return out


def _build(config: BuildConfig, examples=None, encoder=HashEncoder(), d2t=None) -> list:
    builder = DatasetBuilder(_store(), config, data_to_text=d2t, encoder=encoder)
    return list(builder.build(examples or _examples(), source="tiny"))


def test_templates_and_entity_filter():
    d2t = TemplateDataToText()
    group = [("person_1", "spouse", "person_2"), ("person_1", "religion", "religion_value_3")]
    (text,) = d2t.verbalize([group])
    assert text == "person 1 is married to person 2 and follows the religion religion value 3."
    assert mentions_all_entities(text, group)
    assert not mentions_all_entities("person 1 is married.", group)
    # unknown relations get a generic predicate; Freebase paths keep their last segment
    assert d2t.verbalize([[("a_b", "__people__person__gender", "male")]]) == ["a b has gender male."]
    assert d2t.verbalize([[("Forward", "plays_position_inverse", "Abel_HERNANDEZ")]]) == [
        "Forward is the position of Abel HERNANDEZ."
    ]


def test_gold_evidence_graph_and_groups():
    cfg = BuildConfig(seed=3, distractors=12, corpus_size=10_000)
    recs = _build(cfg)
    assert len(recs) == 6 and not any(isinstance(r, Dropped) for r in recs)
    for rec, ex in zip(recs, _examples()):
        gold = [e for e in rec["evidence"] if e["gold"]]
        assert len(gold) == 2
        graph = EvidenceGraph.from_json(rec["graph"]).validate()
        assert rec["graph_type"] == "single-chain multi-hop" and graph.depth() == 2
        # the chain follows the path: root -> evidence of triple 1 -> evidence of triple 2
        (chain,) = list(graph.chains())
        first = {tuple(f) for f in graph.g.nodes[chain[0]]["facts"]}
        second = {tuple(f) for f in graph.g.nodes[chain[1]]["facts"]}
        assert tuple(ex.gold_paths[0][0]) in first and tuple(ex.gold_paths[0][1]) in second
        for item in gold:  # each gold group: the gold triple + 0-2 others of the same head
            heads = {f[0] for f in item["facts"]}
            assert len(heads) == 1 and 1 <= len(item["facts"]) <= 3
            assert mentions_all_entities(item["text"], [tuple(f) for f in item["facts"]])
        all_facts = [tuple(f) for e in rec["evidence"] for f in e["facts"]]
        assert len(all_facts) == len(set(all_facts)), "no triple in two pool sentences"
        assert [e["id"] for e in rec["evidence"]] == [f"e{i}" for i in range(len(rec["evidence"]))]


def test_distractor_proportions_and_dense_ranking():
    enc = HashEncoder()
    cfg = BuildConfig(seed=5, distractors=12, group_probs=(1.0, 0.0, 0.0), corpus_size=10_000)
    recs = _build(cfg, encoder=enc)
    for rec in recs:
        kinds = Counter(e["distractor_kind"] for e in rec["evidence"] if not e["gold"])
        assert kinds == {"dense": 4, "same-head": 4, "random": 4}
        gold_heads = {e["facts"][0][0] for e in rec["evidence"] if e["gold"]}
        gold_rel = {(e["facts"][0][0], e["facts"][0][1]) for e in rec["evidence"] if e["gold"]}
        for e in rec["evidence"]:
            if e["distractor_kind"] == "same-head":
                assert e["facts"][0][0] in gold_heads and (e["facts"][0][0], e["facts"][0][1]) not in gold_rel
        # the dense third is at least as similar to the question as any random distractor
        q = enc.encode([rec["question"].replace("_", " ")])[0]
        sim = {e["id"]: float(enc.encode([e["text"]])[0] @ q) for e in rec["evidence"]}
        dense = [sim[e["id"]] for e in rec["evidence"] if e["distractor_kind"] == "dense"]
        rand = [sim[e["id"]] for e in rec["evidence"] if e["distractor_kind"] == "random"]
        assert min(dense) >= max(rand) - 1e-6
    # without an encoder the dense third becomes random (and says so)
    recs = _build(BuildConfig(seed=5, distractors=9, group_probs=(1.0, 0.0, 0.0)), encoder=None)
    kinds = Counter(e["distractor_kind"] for e in recs[0]["evidence"] if not e["gold"])
    assert kinds == {"same-head": 3, "random": 6}


def test_builder_is_deterministic():
    cfg = dict(distractors=12, corpus_size=10_000)
    a = _build(BuildConfig(seed=7, **cfg))
    b = _build(BuildConfig(seed=7, chunk_size=1, **cfg))
    c = _build(BuildConfig(seed=8, **cfg))
    dump = lambda recs: json.dumps(recs, sort_keys=True)  # noqa: E731
    assert dump(a) == dump(b)
    assert dump(a) != dump(c)


def test_multi_chain_and_drops():
    # WC-C-like conjunction: two one-hop chains that end in the same answer
    ex = QAExample("c", "who is married to person_5 and has nationality_value_1 ?", ["person_4"],
                   gold_paths=[[("person_4", "spouse", "person_5")], [("person_4", "nationality", "nationality_value_1")]])
    (rec,) = _build(BuildConfig(seed=1, distractors=3), [ex])
    assert rec["graph_type"] == "multi-chain single-hop"
    too_many = QAExample("m", "q", ["x"], gold_paths=[[("person_1", "gender", "gender_value_1")]] * 1
                         + [[("person_1", rel, "v")] for rel in ("a", "b")])
    assert _build(BuildConfig(max_paths=2), [too_many]) == [Dropped("m", "more than 2 gold paths")]
    assert _build(BuildConfig(), [QAExample("z", "q", ["x"])]) == [Dropped("z", "no gold path in the KB")]

    class Lossy(TemplateDataToText):
        """Loses the tail of multi-triple groups; single triples are fine."""

        def verbalize(self, groups):
            return [s if len(g) == 1 else "something." for s, g in zip(super().verbalize(groups), groups)]

    recs = _build(BuildConfig(seed=2, distractors=0, group_probs=(0, 0, 1)), _examples(2), d2t=Lossy())
    assert all(len(e["facts"]) == 1 for r in recs for e in r["evidence"])  # retried as single triples

    class Broken(TemplateDataToText):
        def verbalize(self, groups):
            return ["nothing." for _ in groups]

    (drop,) = _build(BuildConfig(distractors=0), _examples(1), d2t=Broken())
    assert isinstance(drop, Dropped) and drop.reason.startswith("gold sentence misses an entity")


def test_split_is_seeded_and_near_8_1_1(tmp_path):
    parts = Counter(assign_split(f"path{i}", seed=13) for i in range(3000))
    assert 2300 <= parts["train"] <= 2500 and 230 <= parts["dev"] <= 370 and 230 <= parts["test"] <= 370
    assert assign_split("x", 1) == assign_split("x", 1)
    # paraphrases of one path share the split
    exs = _examples(3)
    para = QAExample("p", "spouse of person_0 has which nationality ?", exs[0].answers,
                     gold_facts=exs[0].gold_facts, gold_paths=exs[0].gold_paths)
    recs = _build(BuildConfig(seed=4, distractors=3), exs + [para])
    assert recs[0]["split"] == recs[-1]["split"]
    stats = write_dataset(recs + [Dropped("d", "no gold path in the KB")], tmp_path, name="tiny")
    assert stats["all"].n == 4 and stats["all"].dropped == {"no gold path in the KB": 1}
    back = [r for s in ("train", "dev", "test") for r in read_records(tmp_path / f"{s}.jsonl")]
    assert sorted(r["id"] for r in back) == sorted(r["id"] for r in recs)
    row = stats["all"].row()
    assert row["single-chain multi-hop"] == 100.0 and row["nodes"] == 2.0 and row["edges"] == 2.0
    assert row["structures"] == 1 and row["pool"] == 5.0
    assert (tmp_path / "stats.md").read_text().startswith("| dataset | questions |")


@pytest.mark.data
def test_real_wc_c_slice(data_dir):
    from graphhop.datasets.kgqa import kb_path, load_dataset
    from graphhop.kb.loaders import iter_triples

    store = TripleStore.from_facts(iter_triples(kb_path("wc-c", data_dir)))
    examples = load_dataset("wc-c", "dev", data_dir)[:15]
    builder = DatasetBuilder(store, BuildConfig(seed=13, distractors=12, corpus_size=2000, max_paths=50), encoder=HashEncoder())
    recs = list(builder.build(examples, source="wc-c/dev"))
    kept = [r for r in recs if not isinstance(r, Dropped)]
    assert len(kept) == len(examples)
    for rec, ex in zip(kept, examples):
        graph = EvidenceGraph.from_json(rec["graph"]).validate()
        assert graph.num_chains() == len(ex.gold_paths) >= 2  # WC-C: two chains
        assert rec["graph_type"].startswith("multi-chain")
        assert sum(e["gold"] for e in rec["evidence"]) == len(ex.gold_facts)
        assert len(rec["evidence"]) == len(ex.gold_facts) + 12


def test_kqapro_template_and_grounding():
    from graphhop.datasets.kqapro import UnsupportedProgram, ground_template, program_template

    # Find(A).Relate(r).Find(B).Relate(s).And().What(): two one-hop chains that meet
    prog = [
        {"function": "Find", "dependencies": [], "inputs": ["A"]},
        {"function": "Relate", "dependencies": [0], "inputs": ["r", "forward"]},
        {"function": "Find", "dependencies": [], "inputs": ["B"]},
        {"function": "Relate", "dependencies": [2], "inputs": ["s", "forward"]},
        {"function": "FilterConcept", "dependencies": [3], "inputs": ["human"]},
        {"function": "And", "dependencies": [1, 4], "inputs": []},
        {"function": "What", "dependencies": [5], "inputs": []},
    ]
    tpl = program_template(prog)
    assert tpl.signature == "hop & hop -> what" and tpl.chains == (("hop",), ("hop",))
    with pytest.raises(UnsupportedProgram, match="QueryAttrUnderCondition"):
        program_template([{"function": "Find", "dependencies": [], "inputs": ["A"]},
                          {"function": "QueryAttrUnderCondition", "dependencies": [0], "inputs": ["x", "y", "z"]},
                          {"function": "VerifyStr", "dependencies": [1], "inputs": ["y"]}])
    import random

    store = _store()
    ex = ground_template(tpl, store, random.Random(0))
    assert ex is not None and len(ex.gold_paths) >= 2
    # executing the conjunction: every answer is the tail of a gold triple of both chains
    for answer in ex.answers:
        assert sum(1 for p in ex.gold_paths if p[-1][2] == answer) >= 2
    (rec,) = _build(BuildConfig(seed=1, distractors=3, max_paths=20), [QAExample("k", ex.question, ex.answers,
                    gold_facts=ex.gold_facts, gold_paths=ex.gold_paths)])
    assert rec["graph_type"].startswith("multi-chain")


def test_cli_build_and_stats_on_a_tiny_data_root(tmp_path):
    import typer
    from typer.testing import CliRunner

    from graphhop.cli.dataset import build_dataset, dataset_stats

    root = tmp_path / "data"
    (root / "pathquestion").mkdir(parents=True)
    (root / "README.md").write_text("tiny\n")
    kb = [f"{h}\t{r}\t{t}" for h, r, t in (f.triple for e in _store().entities() for f in _store().out_edges(e))]
    (root / "pathquestion" / "2H-kb.txt").write_text("\n".join(sorted(kb)) + "\n")
    lines = [f"{ex.question}\t{ex.answers[0]}({ex.answers[0]}/)\t"
             + "#".join([ex.gold_paths[0][0][0]] + [x for t in ex.gold_paths[0] for x in t[1:]]) + f"#<end>#{ex.answers[0]}"
             for ex in _examples(8)]
    (root / "pathquestion" / "PQ-2H.train.txt").write_text("\n".join(lines) + "\n")
    app = typer.Typer()
    app.command("build-dataset")(build_dataset)
    app.command("dataset-stats")(dataset_stats)
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["build-dataset", "pq-2h", "--out", str(out), "--data", str(root), "--splits", "train",
                                   "--encoder", "none", "--distractors", "6", "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "| pq-2h all | 8 | 2.0 | 2.0 | 2.0 | 2 | 8.0 | 2.0 | 0.0 | 100.0 |" in res.output
    res = CliRunner().invoke(app, ["dataset-stats", str(out), "--name", "tiny"])
    assert res.exit_code == 0 and "| tiny | 8 | 2.0 |" in res.output
    res = CliRunner().invoke(app, ["build-dataset", "pq-2h", "--out", str(out), "--data", str(root), "--split", "8,1"])
    assert "--split: expected 3 comma-separated integers" in str(res.exception)


def test_seq2seq_data_to_text_with_a_tiny_local_model(tmp_path, tiny_t5):
    """The pluggable data-to-text interface loads a seq2seq model from a local path (no download)."""
    from graphhop.core import GraphhopError
    from graphhop.datasets.builder import Seq2SeqDataToText, mentions_all_entities

    d2t = Seq2SeqDataToText(str(tiny_t5), batch_size=2, max_new_tokens=5)
    group = [("Mona_Lisa", "painted_by", "Leonardo_da_Vinci")]
    assert d2t.linearize(group) == "<H> Mona Lisa <R> painted by <T> Leonardo da Vinci"
    out = d2t.verbalize([group, group, [("Paris", "capital_of", "France")]])
    assert len(out) == 3 and all(isinstance(s, str) for s in out)
    assert out[0] == out[1]  # greedy decoding is deterministic
    # an untrained model's text does not mention the entities: the builder's filter would drop it
    assert not mentions_all_entities(out[0], group)
    with pytest.raises(GraphhopError, match="cannot load data-to-text model"):
        Seq2SeqDataToText(str(tmp_path / "missing")).verbalize([group])


def test_builder_splits_group_examples_sharing_a_chain_in_either_direction():
    exs = _examples(6)
    for seed in range(6):  # over several seeds, an inverse reading of q0's chain always follows q0
        inverse = [[(t, f"{r}_inverse", h) for h, r, t in reversed(exs[0].gold_paths[0])]]
        twin = QAExample("twin", "who is it ?", exs[0].answers, gold_facts=inverse[0], gold_paths=inverse)
        builder = DatasetBuilder(_store(), BuildConfig(seed=seed, distractors=0), encoder=HashEncoder())
        builder.assign_splits([("tiny", exs), ("other", [twin])])
        assert builder.splits[("tiny", "q0")] == builder.splits[("other", "twin")]
        rec = next(r for r in builder.build(exs, source="tiny") if not isinstance(r, Dropped))
        assert rec["split"] == builder.splits[("tiny", rec["id"].split("/")[-1])]


@pytest.mark.data
def test_kqapro_splits_are_the_written_datasets_splits(data_dir, tmp_path):
    from graphhop.datasets.builder import BuildConfig, build_named_dataset, kqapro_splits, read_records

    config = BuildConfig(corpus_size=200, dense_candidates=0)
    build_named_dataset("kqapro", tmp_path, data_dir, kb="wc-c", config=config)
    split = kqapro_splits("wc-c", data_dir, config)
    written = {s: {r["id"].rsplit("/", 1)[1][len("kqapro-"):].rsplit("-", 1)[0] for r in read_records(tmp_path / f"{s}.jsonl")}
               for s in ("train", "dev")}
    assert written["train"] and written["dev"]
    assert all(split[i] == s for s, ids in written.items() for i in ids)
