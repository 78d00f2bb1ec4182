"""Datasets as experiment inputs: questions and :class:`~graphhop.eval.measures.Gold` records.

- :func:`kgqa_task`: a KGQA split (PathQuestion, WC2014, MetaQA) over its KB's cached index; gold
  evidence = the ids of the gold path facts (either stored direction), groups = question type.
- :func:`builder_golds`: builder-dataset examples (evidence pools with gold reasoning graphs);
  groups = gold graph type and depth.
- :func:`suite_task`: a hand-written passage suite (``tests/regression/text_*``); groups = type and hops.
- :func:`text_golds`: multi-hop text QA (HotpotQA, MuSiQue, ...); gold evidence = gold passage ids
  (an unmapped gold leaf counts as missed), groups = question type.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Sequence

from graphhop.core import InputError
from graphhop.eval.experiment import SPLITS, stride_sample
from graphhop.eval.measures import Gold

__all__ = ["check_split", "kgqa_task", "qa_examples", "qa_golds", "builder_qa", "TERMINAL_OPS", "builder_golds", "text_golds", "suite_task", "bgr_systems", "DENSE_FREE", "ORACLE_K"]

#: How BGR's set baselines are labelled: they are handed the gold set size.
ORACLE_K = "k = gold set size"

#: Pipelines that need no dense index (``eval`` then builds BM25 only and loads no encoder).
DENSE_FREE = frozenset({"bm25", "golden"})


def check_split(split: str) -> str:
    """``split`` if it is one an evaluation may report (dev or test); else one line naming the choices."""
    if split not in SPLITS:
        raise InputError(f"--split: {split!r} is not an evaluation split; choose one of {', '.join(SPLITS)}")
    return split


def kgqa_task(dataset: str, split: str, sample: Optional[int] = None, data: Optional[Path] = None,
              dense: Optional[str] = "flat", model: Optional[str] = None) -> tuple[Any, list[str], list[Gold]]:
    """``(index, questions, golds)`` of a KGQA split, ``sample`` questions taken by stride."""
    from graphhop.datasets.kgqa import kb_path, load_dataset
    from graphhop.evaluation import dataset_index, fact_qrels
    from graphhop.index.dense import DenseOptions

    examples = stride_sample(load_dataset(dataset, check_split(split), data), sample)
    index = dataset_index(kb_path(dataset, data), DenseOptions(dense) if dense else None, model=model)
    qrels = fact_qrels(examples, index.docs) if any(ex.gold_facts for ex in examples) else {}
    golds = [Gold(ex.id, list(ex.answers), set(qrels.get(ex.id, ())), None, {"qtype": ex.qtype} if ex.qtype else {})
             for ex in examples]
    return index, [ex.question for ex in examples], golds


def qa_examples(dataset: str, split: str, sample: Optional[int] = None, data: Optional[Path] = None,
                max_paths: int = 50, head: Optional[int] = None) -> list[Any]:
    """A KGQA split's examples, ``sample`` by stride (over the first ``head`` lines when given: e.g.
    MetaQA dev's evaluation part, whose later lines trained models); MetaQA's gold paths (and gold
    facts) are derived from the KB by question type (:func:`~graphhop.datasets.kgqa.metaqa_gold_paths`)."""
    from graphhop.datasets.kgqa import DATASETS, kb_path, load_dataset, metaqa_gold_paths

    examples = stride_sample(load_dataset(dataset, check_split(split), data)[:head], sample)
    if DATASETS[dataset].family == "metaqa":
        from graphhop.kb.loaders import iter_triples
        from graphhop.kb.store import TripleStore

        store = TripleStore.from_facts(iter_triples(kb_path(dataset, data)))
        for ex in examples:
            ex.gold_paths = metaqa_gold_paths(ex, store, max_paths=max_paths)
            ex.gold_facts = sorted({t for p in ex.gold_paths for t in p})
    return examples


def qa_golds(examples: Sequence[Any]) -> list[Gold]:
    """Golds of KGQA examples for answer measures (groups: question type when known)."""
    return [Gold(ex.id, list(ex.answers), set(), None, {"qtype": ex.qtype} if ex.qtype else {}) for ex in examples]


#: KQA Pro program terminals -> the operation that answers them (``verify``: QueryAttr + Verify*).
TERMINAL_OPS = {"what": "query", "attr": "query", "count": "count", "select": "comparison", "relation": "relation",
                "verify": "boolean"}


def builder_qa(paths: Sequence[str | Path], hops: int = 3) -> tuple[list[str], list[Any], list[Any], list[Gold]]:
    """``(questions, gold graphs, pool graphs, golds)`` of builder JSONL files, for reading each record's
    gold graph and its whole pool (facts joined up to ``hops``). A KQA Pro record's operation (group ``op``)
    is its program's terminal's (:data:`TERMINAL_OPS`), its group ``type`` ``<folder>:<op>``; other
    records are plain queries, typed ``<folder>:<qtype>``."""
    from graphhop.datasets.builder import read_records
    from graphhop.graph import EvidenceGraph
    from graphhop.read.graphs import build_evidence_graph

    questions, gold_graphs, pool_graphs, golds = [], [], [], []
    for path in paths:
        for rec in read_records(path):
            sig = rec.get("qtype", "")
            op = TERMINAL_OPS.get(sig.split("-> ")[-1], "query") if "->" in sig else "query"
            group = f"{Path(path).parent.name}:" + (op if "->" in sig else sig)
            pool_facts = [(f"{e['id']}#{j}", f) for e in rec["evidence"] for j, f in enumerate(e.get("facts", []))]
            questions.append(rec["question"])
            gold_graphs.append(EvidenceGraph.from_json(rec["graph"]))
            pool_graphs.append(build_evidence_graph(rec["question"], pool_facts, max_hops=hops))
            golds.append(Gold(rec["id"], list(rec["answers"]), set(), None, {"type": group, "op": op}))
    return questions, gold_graphs, pool_graphs, golds


def builder_golds(examples: Sequence[Any]) -> list[Gold]:
    """Golds of BGR examples (:class:`~graphhop.train.bgr_data.BGRExample`): the gold graph, by type and depth."""
    from graphhop.eval.bgr import depth_key

    return [Gold(ex.id, [], set(ex.gold.evidence_ids), ex.gold, {"type": ex.gold.graph_type(), "depth": depth_key(ex.depth)})
            for ex in examples]


def text_golds(examples: Sequence[Any]) -> list[Gold]:
    """Golds of text QA examples (:class:`~graphhop.datasets.textqa.TextQAExample`)."""
    return [Gold(ex.id, list(getattr(ex, "answers", []) or []),
                 set(ex.gold) | {f"__unmapped_{i}" for i in range(ex.unmapped)}, None, {"qtype": ex.qtype})
            for ex in examples]


def suite_task(folder: str | Path) -> tuple[list[str], list[Gold], dict[str, str | None]]:
    """A hand-written suite (``questions.jsonl``: id, question, answers, type, hops, gold_passages) as
    questions, golds (gold passages as evidence; groups: type and hops) and the type each question is
    asked as when the suite's type is given (``--given-type``)."""
    from graphhop.pipeline.text import SUITE_TYPES, load_suite

    suite = load_suite(folder)
    golds = [Gold(q["id"], list(q.get("answers", [])), set(q.get("gold_passages", [])), None,
                  {"type": q.get("type", ""), "hops": str(q.get("hops", 0))}) for q in suite]
    return [q["question"] for q in suite], golds, {q["question"]: SUITE_TYPES.get(q.get("type", "")) for q in suite}


def bgr_systems(model: Any, examples: Sequence[Any], methods: Sequence[str], bm25: Any = None,
                encode: Any = None, shapes: dict[str, str] | None = None, chains: dict[str, Any] | None = None,
                ks: dict[str, int] | None = None) -> dict[str, Any]:
    """One :class:`~graphhop.eval.experiment.System` per BGR method or pool baseline over ``examples``' own pools
    (:func:`graphhop.eval.bgr.method_graph`); set baselines are labelled oracle (:data:`ORACLE_K`). ``ks``
    (a k per baseline chosen on a selection split, :func:`graphhop.eval.bgr.choose_ks`) adds a row
    ``<method> (k=<k> chosen on selection)`` right after that baseline's oracle row."""
    from graphhop.eval.experiment import System
    from graphhop.eval.measures import Prediction
    from graphhop.retrieve.graphhop import BGRRetriever
    from graphhop.eval.bgr import BASELINES, chosen_label, method_graph

    ret = BGRRetriever(model, encode=encode) if model is not None else None
    out = {}
    for m in methods:
        def predict(questions: list[str], m: str = m, k: dict[str, int] | None = None) -> list[Prediction]:
            return [Prediction(graph=method_graph(m, ex, ret, bm25, shapes, chains, ks=k)) for ex in examples]

        out[m] = System(predict, ORACLE_K if m in BASELINES or m in (chains or {}) else "")
        if m in BASELINES and m in (ks or {}):
            out[chosen_label(m, ks[m])] = System(lambda qs, m=m: predict(qs, m, {m: ks[m]}))
    return out
