"""End-to-end QA on the KGQA dev sets: retrieval -> evidence graph -> fact reader (+ question-type op).

For each dataset and method: hop-wise fact retrieval (:func:`graphhop.retrieve.hops.retrieve_evidence`,
``k`` facts for the question, then ``per_entity`` per frontier entity, ``hops`` = the dataset's hop
count as in the papers, which train and test per hop set; on every set but WC-C, whose questions
all have that many hops, only walks of exactly ``hops`` facts give answers; on PathQuestion chains
may revisit entities, as its gold paths do), the evidence graph, question type
detection, and the untrained MiniLM fact reader (``--reader-model DIR``: a trained cross-encoder).
``gold`` reads the gold paths' graph (the reader's ceiling; MetaQA's gold paths are derived from
the KB by its question type). ``--sample`` questions are taken evenly over the split's file (stride):
MetaQA's files are grouped by question type, so the first lines would all be one type.

Columns: EM / F1 of the top answer (SQuAD-normalized, max over gold answers; for MetaQA this EM is
answer Hits@1), set-F1 of the predicted answer set (the best relation path's answers) against the
gold set, ans-in-graph (a gold answer is an entity of the evidence graph: the retrieval ceiling),
qtype-acc (share detected as ``query``, which every question of these sets is), and seconds per
question.

Usage::

    GRAPHHOP_DATA=/work/shared/data python benchmarks/qa_eval.py --datasets pq-2h,metaqa-1h \\
        --methods bm25,dense,gold --sample 100 --split dev --json runs/qa/qa_eval.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from graphhop.datasets.kgqa import DATASETS, kb_path, load_dataset, metaqa_gold_paths
from graphhop.metrics.qa import exact_match, token_f1


def set_f1(pred: list[str], gold: list[str]) -> float:
    p, g = set(pred), set(gold)
    if not p or not g:
        return float(p == g)
    tp = len(p & g)
    return 0.0 if tp == 0 else 2 * tp / (len(p) + len(g))


def run(name: str, methods: list[str], sample: int, k: int, rerankers: dict[str, str], reader_model: str | None,
        progress: bool, join: bool = True, split: str = "dev") -> list[dict]:
    from tqdm.auto import tqdm

    from graphhop.evaluation import dataset_index
    from graphhop.index.dense import DenseOptions
    from graphhop.kb.loaders import iter_triples
    from graphhop.kb.store import TripleStore
    from graphhop.pipeline.registry import build_pipeline
    from graphhop.read.facts import FactReader
    from graphhop.read.graphs import graph_from_paths
    from graphhop.retrieve.hops import retrieve_evidence
    from graphhop.read.ops import OperationReader, detect_qtype

    spec = DATASETS[name]
    from graphhop.eval.experiment import stride_sample
    from graphhop.eval.tasks import check_split

    examples = stride_sample(load_dataset(name, check_split(split)), sample)
    if spec.family == "metaqa":
        store = TripleStore.from_facts(iter_triples(kb_path(name)))
        for ex in examples:
            ex.gold_paths = metaqa_gold_paths(ex, store, max_paths=50)
    hops = max([spec.hops] + [len(p) for ex in examples for p in ex.gold_paths])
    sparse_only = set(methods) <= {"bm25", "gold", "golden"}  # no KB encoding for these
    index = dataset_index(kb_path(name), None if sparse_only else DenseOptions("flat"), progress=progress)
    min_hops = 1 if name == "wc-c" else hops  # every set but WC-C has one hop count for all questions
    # join_starts: an entity reached from two question entities adds both walks' scores (WC-C's
    # conjunctions); on by default here, off in `graphhop ask` (a spurious mention such as
    # "painter" would otherwise boost the entity it meets)
    # loops: PathQuestion's gold paths revisit entities by construction (a -children- b -parents- a ...)
    loops = spec.family == "pathquestion"
    reader = OperationReader(FactReader.from_model(reader_model, max_hops=hops, min_hops=min_hops, join_starts=join,
                                                   loops=loops))
    questions = [ex.question for ex in examples]
    rows = []
    for method in methods:
        t0 = time.perf_counter()
        if method == "gold":
            graphs = [graph_from_paths(ex.question, ex.gold_paths) for ex in examples]
        else:
            if method == "difar2" and spec.family not in rerankers:
                print(f"skip {name}/difar2: no --reranker {spec.family}=DIR", file=sys.stderr)
                continue
            opts = {"reranker": rerankers[spec.family], "rerank_k": 50} if method == "difar2" else {}
            retriever = build_pipeline(method, index, **opts)  # its search: the method's ranking
            graphs = []
            step = 25
            it = range(0, len(questions), step)
            for i in tqdm(it, desc=f"{name}/{method} retrieve", disable=not progress):
                graphs += retrieve_evidence(retriever, index.docs, questions[i : i + step], k=k, hops=hops, loops=loops)
        t_ret = time.perf_counter() - t0
        em = f1 = sf1 = in_graph = qt = 0.0
        for ex, graph in zip(tqdm(examples, desc=f"{name}/{method} read", disable=not progress), graphs):
            kind = detect_qtype(ex.question)
            qt += kind == "query"
            res = reader.run(ex.question, graph)
            em += exact_match(res.answer.text, ex.answers)
            f1 += token_f1(res.answer.text, ex.answers)
            sf1 += set_f1(res.answers, ex.answers) if kind == "query" else 0.0
            ents = {e for n in graph.evidence_ids for f in graph.g.nodes[n].get("facts", []) for e in (f[0], f[2])}
            in_graph += bool(ents & set(ex.answers))
        n = len(examples)
        rows.append({"dataset": name, "method": method, "n": n, "EM": em / n, "F1": f1 / n, "set-F1": sf1 / n,
                     "ans-in-graph": in_graph / n, "qtype-acc": qt / n, "s/q": (time.perf_counter() - t0) / n,
                     "retrieve s/q": t_ret / n})
        print(json.dumps(rows[-1]), flush=True)
    return rows


#: KQA Pro program terminals -> the operation that answers them (``verify``: QueryAttr + Verify*).
TERMINAL_OPS = {"what": "query", "attr": "query", "count": "count", "select": "comparison", "relation": "relation",
                "verify": "boolean"}


def run_builder(paths: list[str], hops: int = 3) -> list[dict]:
    """QA EM by question type on builder JSONL files, reading the gold graph and the whole pool.

    The type of a KQA Pro record is its program's terminal mapped by :data:`TERMINAL_OPS` (so the
    yes/no questions of ``Verify*`` programs count as ``boolean``); other
    builders' records use their ``qtype`` (all plain queries). ``detect`` is the share of records
    whose detected type is that operation.
    """
    from collections import defaultdict

    from graphhop.datasets.builder import read_records
    from graphhop.graph import EvidenceGraph
    from graphhop.read.graphs import build_evidence_graph
    from graphhop.read.ops import OperationReader, detect_qtype

    reader = OperationReader()
    acc: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for path in paths:
        for rec in read_records(path):
            sig = rec.get("qtype", "")
            op = TERMINAL_OPS.get(sig.split("-> ")[-1], "query") if "->" in sig else "query"
            group = f"{Path(path).parent.name}:{op}" if "->" in sig else f"{Path(path).parent.name}:{sig}"
            q = rec["question"]
            gold = EvidenceGraph.from_json(rec["graph"])
            pool_facts = [(f"{e['id']}#{j}", f) for e in rec["evidence"] for j, f in enumerate(e.get("facts", []))]
            pool = build_evidence_graph(q, pool_facts, max_hops=hops)
            a = acc[group]
            a["n"] += 1
            a["detect"] += detect_qtype(q) == op
            a["EM gold graph"] += exact_match(reader.run(q, gold).answer.text, rec["answers"])
            a["EM pool graph"] += exact_match(reader.run(q, pool).answer.text, rec["answers"])
    rows = []
    for group, a in sorted(acc.items()):
        n = a["n"]
        rows.append({"set:type": group, "n": int(n), **{k: v / n for k, v in a.items() if k != "n"}})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default="pq-2h,pq-3h,wc-p1,wc-p2,wc-c,metaqa-1h,metaqa-2h,metaqa-3h")
    parser.add_argument("--methods", default="bm25,dense,hybrid,gold", help="bm25, dense, hybrid, difar2, golden, gold")
    parser.add_argument("--sample", type=int, default=100, help="N questions per dataset, spread evenly (stride)")
    parser.add_argument("--split", default="dev", help="dev or test")
    parser.add_argument("-k", type=int, default=20, help="facts retrieved for the question (hop 1)")
    parser.add_argument("--reranker", action="append", default=[], help="family=DIR for difar2 (pathquestion, wc2014, metaqa)")
    parser.add_argument("--reader-model", default=None, help="trained cross-encoder dir for the fact reader")
    parser.add_argument("--no-join", action="store_true", help="do not join walks from several question entities")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", help="append result rows (JSON lines) to this file")
    parser.add_argument("--progress", action="store_true")
    parser.add_argument("--builder", help="comma-separated builder JSONL files: QA EM by question type instead")
    args = parser.parse_args()
    from graphhop.models.encoder import set_threads

    set_threads(args.threads)
    if args.builder:
        rows = run_builder(args.builder.split(","))
        cols = list(rows[0]) if rows else []
        print("| " + " | ".join(cols) + " |")
        print("|" + "|".join("---" if c == "set:type" else "---:" for c in cols) + "|")
        for r in rows:
            print("| " + " | ".join(f"{r[c]:.3f}" if isinstance(r[c], float) else str(r[c]) for c in cols) + " |")
        return
    rerankers = dict(r.split("=", 1) for r in args.reranker)
    all_rows = []
    for name in args.datasets.split(","):
        rows = run(name.strip(), [m.strip() for m in args.methods.split(",")], args.sample, args.k, rerankers,
                   args.reader_model, args.progress, not args.no_join, args.split)
        all_rows += rows
        if args.json:
            with open(args.json, "a", encoding="utf-8") as fh:
                for r in rows:
                    fh.write(json.dumps(r) + "\n")
    print_table(all_rows, ["dataset", "method", "n", "EM", "F1", "set-F1", "ans-in-graph", "qtype-acc", "s/q"])


def print_table(rows: list[dict], cols: list[str]) -> None:
    """Rows as a markdown table (floats to 3 decimals; text columns left-aligned)."""
    print("| " + " | ".join(cols) + " |")
    print("|" + "|".join("---" if c in ("dataset", "method") else "---:" for c in cols) + "|")
    for r in rows:
        print("| " + " | ".join(f"{r[c]:.3f}" if isinstance(r[c], float) else str(r[c]) for c in cols) + " |")


if __name__ == "__main__":
    main()
