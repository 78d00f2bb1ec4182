"""End-to-end QA evaluation (``graphhop eval-qa``): answers AND the reasons given for them.

For each question the pipeline's result (``answer``, ``answers``, ``support`` fact ids) is
compared with the gold:

``answer_hits1``
    the top answer is a gold answer (names compared case-, accent- and underscore-insensitively);
    a withheld answer ("no supported answer") counts as a miss;
``em``
    the predicted answer *set* equals the gold set (list questions must list every answer);
``support_recall``
    the share of gold facts found in the support, where the gold facts are those of the gold
    paths that end at the predicted answer when it is right (else of every gold path); a triple
    and its ``_inverse`` reading are the same fact;
``right_reason``
    answer right AND support recall 1;
``abstained``
    the share of questions answered "no supported answer".

Results are also given by question type (``by_qtype``): MetaQA's own types (its relation-path
templates, ``movie_to_director``, from the line-aligned ``qa_*_qtype.txt``), the gold relation chain
for PathQuestion and WC2014 (:func:`relation_chain`), a suite's ``type`` field for a folder.

MetaQA has no gold paths: they are derived by walking the question type's relation chain from
the topic entity (:func:`graphhop.datasets.kgqa.metaqa_gold_paths`). On MetaQA *dev* only the
``report`` half is evaluated (the other half trains the scorer: :func:`graphhop.kgqa.train.metaqa_part`).
Samples are even strides over the question file, never its first lines.
"""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Sequence

from graphhop.core import InputError, QAExample
from graphhop.kb.loaders import iter_jsonl
from graphhop.eval.experiment import stride_sample
from graphhop.kgqa import DEFAULT_HOPS
from graphhop.kgqa.link import tokens

__all__ = ["stride_sample", "load_regression", "domain_results", "score_example", "summarize", "evaluate_examples", "evaluate_dataset",
           "selection_examples", "relation_chain"]

Triple = tuple[str, str, str]


def _norm(name: str) -> str:
    return " ".join(tokens(name))


def _canon(triple: Sequence[str]) -> Triple:
    h, r, t = (str(x) for x in triple)
    if r.endswith("_inverse"):
        return (t, r[: -len("_inverse")], h)
    return (h, r, t)


def load_regression(folder: str | Path) -> tuple[Path, list[QAExample]]:
    """A hand-written suite: ``kb.tsv`` and ``questions.jsonl`` (``question``, ``answers``,
    ``type``/``qtype``, ``hops``, ``gold_facts`` or ``gold_path``)."""
    folder = Path(folder)
    kb, qfile = folder / "kb.tsv", folder / "questions.jsonl"
    for f in (kb, qfile):
        if not f.is_file():
            raise InputError(f"{f}: no such file")
    out = []
    for lineno, row in iter_jsonl(qfile):
        try:
            facts = [tuple(t) for t in (row.get("gold_facts") or row.get("gold_path") or [])]
            out.append(QAExample(str(row.get("id", lineno)), row["question"], [str(a) for a in row["answers"]],
                                 facts, [facts] if facts else [], int(row.get("hops", len(facts))),
                                 row.get("type") or row.get("qtype") or "query"))
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{qfile}:{lineno}: bad question line ({exc})") from None
    return kb, out


def domain_results(folders: Sequence[Path], triples_of: Callable[[dict[str, Any]], list[Triple]],
                   max_hops: int = DEFAULT_HOPS, abstain: bool = False) -> dict[str, dict[str, Any]]:
    """The KGQA pipeline over each hand-written KG domain folder (``kb.tsv`` + ``questions.jsonl``):
    ``{folder name: {"summary": summarize(rows), "rows": rows}}``. The learned confidence
    (:mod:`graphhop.kgqa.abstain`) is off unless ``abstain``: the floors of the reading are kept apart from it."""
    from graphhop.kb.loaders import iter_triples
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.pipeline import KGQA

    out = {}
    for folder in folders:
        kb, examples = load_regression(folder)
        pipe = KGQA(KGStore.from_facts(iter_triples(kb)), max_hops=max_hops, abstain=abstain)
        rows = evaluate_examples(pipe.ask, examples, triples_of)
        out[folder.name] = {"summary": summarize(rows), "rows": rows}
    return out


def score_example(ex: QAExample, result: dict[str, Any], support_triples: Sequence[Triple]) -> dict[str, Any]:
    """Per-question measures (see the module docstring)."""
    gold = {_norm(a) for a in ex.answers}
    answer = result.get("answer") or ""
    hit = bool(answer) and _norm(answer) in gold
    predicted = {_norm(a) for a in result.get("answers") or []}
    support = {_canon(t) for t in support_triples}
    paths = ex.gold_paths or ([ex.gold_facts] if ex.gold_facts else [])
    if hit and paths:
        ending = [p for p in paths if p and _norm(p[-1][2]) == _norm(answer) or p and _norm(p[-1][0]) == _norm(answer)]
        paths = ending or paths
    if ex.qtype in ("boolean", "count", "comparison") or not (ex.gold_paths and len(ex.gold_paths) > 1):
        gold_facts = {_canon(t) for p in paths for t in p} or {_canon(t) for t in ex.gold_facts}
        recall = len(gold_facts & support) / len(gold_facts) if gold_facts else None
    else:  # several gold paths: the best-covered one that ends at the answer counts
        recall = max(len({_canon(t) for t in p} & support) / len(p) for p in paths if p) if paths else None
    return {"id": ex.id, "hits1": hit, "em": bool(predicted) and predicted == gold, "support_recall": recall,
            "right_reason": hit and recall is not None and recall >= 1.0, "abstained": not result.get("supported", bool(answer)),
            "hops": ex.hops, "qtype": ex.qtype, "answer": answer, "gold": ex.answers[:5]}


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Means of the per-question measures, overall and by hops and by question type."""
    def mean(rs: Sequence[dict[str, Any]], key: str) -> float | None:
        vals = [float(r[key]) for r in rs if r[key] is not None]
        return round(sum(vals) / len(vals), 4) if vals else None

    def block(rs: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return {"n": len(rs), "answer_hits1": mean(rs, "hits1"), "em": mean(rs, "em"),
                "support_recall": mean(rs, "support_recall"), "right_reason": mean(rs, "right_reason"),
                "abstained": mean(rs, "abstained")}

    by_hops: dict[str, list] = defaultdict(list)
    by_type: dict[str, list] = defaultdict(list)
    for r in rows:
        by_hops[str(r["hops"])].append(r)
        by_type[r["qtype"]].append(r)
    return {**block(rows), "by_hops": {k: block(v) for k, v in sorted(by_hops.items())},
            "by_qtype": {k: block(v) for k, v in sorted(by_type.items())}}


def evaluate_examples(ask: Callable[[str], dict[str, Any]], examples: Sequence[QAExample],
                      triples_of: Callable[[dict[str, Any]], list[Triple]], progress: bool = False) -> list[dict[str, Any]]:
    """Run ``ask`` on every example and score it; ``triples_of`` reads a result's support triples."""
    from tqdm.auto import tqdm

    rows = []
    for ex in tqdm(examples, desc="eval-qa", disable=not progress, unit="q"):
        t0 = time.perf_counter()
        result = ask(ex.question)
        support = triples_of(result)
        row = score_example(ex, result, support)
        row["support"] = [list(t) for t in support][:12]
        row["seconds"] = time.perf_counter() - t0
        rows.append(row)
    return rows


def evaluate_dataset(name: str, split: str, make_ask: Callable[[Path], tuple[Callable, Callable]], sample: int | None = None,
                     root: str | Path | None = None, progress: bool = False,
                     rows_out: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """``eval-qa`` on a named dataset (or a regression-suite folder): the summary dict.

    ``make_ask(kb_file)`` returns ``(ask, triples_of)`` for a pipeline over that KB; the
    per-question rows are appended to ``rows_out`` when given."""
    from graphhop.datasets.kgqa import DATASETS, kb_path, load_dataset

    t0 = time.perf_counter()
    if Path(name).is_dir():
        kb, examples = load_regression(name)
        note = "hand-written regression suite"
    else:
        if name.lower() not in DATASETS:
            raise InputError(f"unknown dataset {name!r}; choose one of {', '.join(DATASETS)} or a folder with kb.tsv + questions.jsonl")
        kb = kb_path(name, root)
        examples = load_dataset(name, split, root)
        note = ""
        if DATASETS[name.lower()].family != "metaqa":
            for ex in examples:
                ex.qtype = relation_chain(ex, 2 if name.lower() == "wc-c" else 1)
        else:
            examples = _metaqa_with_paths(examples, kb, split)
            note = "MetaQA dev: the report half only (the fit half trains the scorer)" if split == "dev" else ""
    if not examples:
        raise InputError(f"{name}: no questions in its {split} file" if not Path(name).is_dir() else f"{name}: no questions")
    total = len(examples)
    examples = stride_sample(examples, sample)
    ask, triples_of = make_ask(kb)
    rows = evaluate_examples(ask, examples, triples_of, progress)
    if rows_out is not None:
        rows_out.extend(rows)
    out = {"dataset": str(name), "split": split, "n": len(rows), "of": total, **summarize(rows)}
    out.update(_timing(rows))
    out["seconds"] = round(time.perf_counter() - t0, 1)
    if note:
        out["note"] = note
    return out


def relation_chain(ex: QAExample, chains: int = 1) -> str:
    """The question type of a PathQuestion / WC2014 question: the relations of its first gold path
    (``r1 > r2``, ``_inverse`` as written); ``chains=2`` joins a conjunction's two chains with `` * ``."""
    return " * ".join(" > ".join(r for _, r, _ in p) for p in ex.gold_paths[:chains]) or ex.qtype


def _timing(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Seconds per question: the first (it loads the models) apart, mean and median of the others (warm)."""
    import statistics

    if not rows:
        return {}
    warm = [r["seconds"] for r in rows[1:]] or [rows[0]["seconds"]]
    return {"first_seconds": round(rows[0]["seconds"], 4), "mean_seconds": round(statistics.fmean(warm), 4),
            "median_seconds": round(statistics.median(warm), 4)}


def selection_examples(name: str, root: str | Path | None = None, rest: bool = False) -> tuple[Path, list[QAExample]]:
    """``(kb_file, examples)``: the *selection* part of a dataset's training questions (1 in 10 by md5,
    never trained on; :func:`graphhop.kgqa.train.is_selection`) of its train split (MetaQA: of the fit
    half of dev), with gold paths. What pipeline rules are chosen on: never the reported dev questions.
    With ``rest`` (MetaQA only): the fit half's *other* questions (some trained on; still never reported),
    a second check of a rule the scorer does not learn (e.g. the order of a path's answers)."""
    from graphhop.datasets.kgqa import DATASETS, kb_path, load_dataset
    from graphhop.kgqa.train import TRAIN_SETS, is_selection, metaqa_part

    split = dict(TRAIN_SETS).get(name.lower())
    if split is None:
        raise InputError(f"{name}: not a training set of the kgqa scorer (those are {', '.join(n for n, _ in TRAIN_SETS)})")
    metaqa = DATASETS[name.lower()].family == "metaqa"
    if rest and not metaqa:
        raise InputError(f"{name}: the rest of the fit half exists for MetaQA only")
    kb = kb_path(name, root)
    examples = [ex for ex in load_dataset(name, split, root) if is_selection(ex.question) != rest]
    if metaqa:
        examples = _metaqa_with_paths([ex for ex in examples if metaqa_part(ex.question) == "fit"], kb, "fit")
    return kb, examples


def _metaqa_with_paths(examples: list[QAExample], kb: Path, split: str) -> list[QAExample]:
    from graphhop.datasets.kgqa import metaqa_gold_paths
    from graphhop.kb.loaders import iter_triples
    from graphhop.kb.store import TripleStore
    from graphhop.kgqa.train import metaqa_part

    if split == "dev":
        examples = [ex for ex in examples if metaqa_part(ex.question) == "report"]
    store = TripleStore.from_facts(iter_triples(kb))
    for ex in examples:
        ex.gold_paths = metaqa_gold_paths(ex, store)
        ex.gold_facts = list(dict.fromkeys(t for p in ex.gold_paths for t in p))
    return examples
