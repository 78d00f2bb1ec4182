"""Every epoch's head kept, and the epoch and threshold chosen end to end on the schemas' carve.

``graphhop train kgqa --epoch-dir DIR`` writes each epoch's head (``DIR/epoch_N``: ``head.npz`` +
``config.json``, the threshold the selection split picks for it) beside the one training keeps. The
selection split of the training corpus judges a head by its *top-1 path*; the ``kgqa`` pipeline answers
with that head and its rules (coverage, typing, shortcuts) over a whole KB. :func:`carve_confidences`
reads each head through the pipeline itself (``--hops 4``, no threshold) on the carve of the hand-written
schemas (``benchmarks/kgqa_schema_carve.py``: paraphrased wordings, never trained on), and
:func:`choose_head` picks the epoch and the "no supported answer" threshold(s) there: never on the
selection KBs, the reported suites or dev.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from graphhop.kgqa.thresholds import choose_threshold, hop_thresholds, net

__all__ = ["check_outputs", "epoch_heads", "epoch_saver", "carve_confidences", "kb_confidences", "choose_head", "write_chosen"]


def epoch_heads(folder: str | Path) -> list[Path]:
    """The ``epoch_N`` heads :func:`epoch_saver` wrote in ``folder``, in epoch order: folders named
    ``epoch_<number>`` holding ``head.npz`` and a ``config.json`` whose ``epoch`` is that number
    (anything else there, e.g. ``epoch_final`` or a user's folder, is not ours and is left alone)."""
    out = []
    for p in Path(folder).glob("epoch_*"):
        m = re.fullmatch(r"epoch_(\d+)", p.name)
        if not (m and p.is_dir() and (p / "head.npz").is_file() and (p / "config.json").is_file()):
            continue
        try:
            epoch = json.loads((p / "config.json").read_text(encoding="utf-8")).get("epoch")
        except (OSError, ValueError, AttributeError):
            continue
        if epoch == int(m.group(1)):
            out.append((epoch, p))
    return [p for _, p in sorted(out)]


def check_outputs(out: str | Path, epoch_dir: str | Path | None, overwrite: bool) -> None:
    """Refuse, before any corpus is built or head trained, an existing ``out`` without ``overwrite``, and an
    ``epoch_dir`` that is not a folder, lies in ``out`` (whose atomic replacement at the end would fail or
    take the epochs with it) or, without ``overwrite``, is not empty (old epochs would mix with new ones)."""
    from graphhop.core import InputError

    out = Path(out)
    if out.exists() and not overwrite:
        raise InputError(f"{out}: already exists (use --overwrite to replace it)")
    if epoch_dir is None:
        return
    epoch_dir = Path(epoch_dir)
    where, final = epoch_dir.resolve(), out.resolve()
    if where == final or final in where.parents:
        raise InputError(f"--epoch-dir {epoch_dir}: is --out {out} or inside it; choose a folder outside it")
    if epoch_dir.exists() and not epoch_dir.is_dir() or not epoch_dir.parent.is_dir():
        raise InputError(f"--epoch-dir {epoch_dir}: not a folder, or its parent folder does not exist")
    if epoch_dir.is_dir() and any(epoch_dir.iterdir()) and not overwrite:
        raise InputError(f"--epoch-dir {epoch_dir}: not empty (use --overwrite to replace its epoch_N heads)")


def epoch_saver(folder: str | Path, corpus: Any, config: dict[str, Any], overwrite: bool = False) -> Callable[[Any, int], None]:
    """An ``on_epoch(head, epoch)`` for :func:`graphhop.kgqa.train.fit` that writes the head of each epoch
    to ``folder/epoch_N`` (atomically) with ``config``, its selection top-1 path accuracy and the
    single threshold the selection split picks for it. A non-empty ``folder`` is refused unless
    ``overwrite``; then the earlier run's heads (:func:`epoch_heads`) are removed, nothing else."""
    from graphhop.io import atomic_dir
    from graphhop.kgqa.scorer import PathScorer
    from graphhop.kgqa.train import selection_tops

    folder = Path(folder)
    if folder.is_dir() and any(folder.iterdir()):
        if not overwrite:
            from graphhop.core import InputError

            raise InputError(f"--epoch-dir {folder}: not empty (use --overwrite to replace its epoch_N heads)")
        for old in epoch_heads(folder):
            shutil.rmtree(old)
    folder.mkdir(parents=True, exist_ok=True)
    select = [i for i, e in enumerate(corpus.examples) if e.selection]

    def save(head: Any, epoch: int) -> None:
        probs, hits, _ = selection_tops(head, corpus, select)
        extra = {"epoch": epoch, "selection_acc": float(hits.mean()) if len(hits) else 0.0,
                 "threshold": choose_threshold(probs, hits)}
        with atomic_dir(folder / f"epoch_{epoch}", overwrite=True, replace_if=("head.npz",)) as tmp:
            PathScorer(head, config).save(tmp, extra)
        head.train()

    return save


def carve_confidences(folders: Sequence[Path], weights: str | Path, hops: int = 4) -> dict[str, np.ndarray]:
    """The ``kgqa`` pipeline with the head in ``weights`` (``hops``, threshold 0) on every question of the
    carve ``folders`` (``kb.tsv`` + ``questions.jsonl``): per question the answer's confidence (-1: none),
    whether the answer is gold, and the hop count the pipeline judges that confidence by (the trace's
    ``threshold_hops``: the path whose per-hop threshold applies; 0: none)."""
    from graphhop.evaluation import dataset_index
    from graphhop.pipeline.registry import build_pipeline

    probs, hits, nhops = [], [], []
    for folder in folders:
        pipe = build_pipeline("kgqa", dataset_index(Path(folder) / "kb.tsv", dense=None, progress=False),
                              hops=hops, weights=str(weights), threshold=0.0)
        for line in (Path(folder) / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            res = pipe.ask(q["question"])
            probs.append(-1.0 if res.score is None else float(res.score))
            hits.append(res.answer.lower() in {a.lower() for a in q["answers"]})
            nhops.append(int(res.trace.get("threshold_hops") or 0))
    return {"probs": np.asarray(probs), "hits": np.asarray(hits, dtype=bool), "hops": np.asarray(nhops, dtype=np.int64)}


def kb_confidences(folders: Sequence[Path], weights: str | Path, triples_of: Callable[[dict[str, Any]], list],
                   hops: int = 4) -> dict[str, np.ndarray]:
    """As :func:`carve_confidences`, on hand-written KB folders (``eval-qa`` suites: ``kb.tsv`` +
    ``questions.jsonl``, every question type): ``hits`` is *right for the right reason* as ``eval-qa`` scores it
    (:func:`graphhop.kgqa.evaluate.score_example`; ``triples_of`` reads a result's support triples), so a
    threshold chosen on these confidences is chosen end to end on the measure the gate counts."""
    from graphhop.evaluation import dataset_index
    from graphhop.kgqa.evaluate import load_regression, score_example
    from graphhop.pipeline.registry import build_pipeline

    probs, hits, nhops = [], [], []
    for folder in folders:
        kb, examples = load_regression(folder)
        pipe = build_pipeline("kgqa", dataset_index(kb, dense=None, progress=False), hops=hops, weights=str(weights),
                              threshold=0.0)
        for ex in examples:
            res = pipe.ask(ex.question)
            result = {"answer": res.answer, "answers": res.answers, "supported": res.supported,
                      "support_graph": res.support_graph}
            probs.append(-1.0 if res.score is None or not res.answer else float(res.score))
            hits.append(bool(score_example(ex, result, triples_of(result))["right_reason"]))
            nhops.append(int(res.trace.get("threshold_hops") or 0))
    return {"probs": np.asarray(probs), "hits": np.asarray(hits, dtype=bool), "hops": np.asarray(nhops, dtype=np.int64)}


def choose_head(scores: dict[str, dict[str, np.ndarray]]) -> tuple[str, list[dict[str, Any]]]:
    """The head (key of ``scores``, in training order) whose carve answers net the most right minus wrong
    at the single threshold the carve picks for it (:func:`choose_threshold`); ties: more right with no
    threshold, then the earlier key. Returns it and one row per head (the figures it was chosen by)."""
    rows = []
    for name, s in scores.items():
        tau = choose_threshold(s["probs"], s["hits"])
        by_hops = hop_thresholds(s["probs"], s["hits"], s["hops"], single=tau)
        rows.append({"head": name, "n": int(len(s["hits"])), "right": int(s["hits"].sum()), "threshold": round(tau, 4),
                     "net_at_threshold": net(s["probs"], s["hits"], tau),
                     "answered_at_threshold": int((s["probs"] >= tau).sum()), "thresholds_by_hops": by_hops})
    best = max(range(len(rows)), key=lambda i: (rows[i]["net_at_threshold"], rows[i]["right"], -i))
    return rows[best]["head"], rows


def write_chosen(weights: str | Path, out: str | Path, row: dict[str, Any], carve: str) -> None:
    """Copy the head in ``weights`` to ``out`` (a new directory) with the threshold(s) of its carve ``row``
    (:func:`choose_head`) in its config, and where they were chosen."""
    from graphhop.io import atomic_dir

    weights = Path(weights)
    config = json.loads((weights / "config.json").read_text(encoding="utf-8"))
    config.update({"threshold": row["threshold"], "thresholds_by_hops": row["thresholds_by_hops"],
                   "selection_threshold": config.get("threshold"), "chosen_on": carve,
                   "carve": {k: row[k] for k in ("n", "right", "net_at_threshold", "answered_at_threshold")}})
    with atomic_dir(out, replace_if=("head.npz",)) as tmp:
        shutil.copyfile(weights / "head.npz", tmp / "head.npz")
        (tmp / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
