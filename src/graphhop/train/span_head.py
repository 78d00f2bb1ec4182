"""Training the shipped span head (:mod:`graphhop.models.span_head`) from the shared data.

Examples (``(question, context, answer span)``; the null span where the context lacks the answer):

* **builder datasets** (``graphhop build-dataset``): the gold evidence graph linearized in graph
  order with ``distractors`` pool distractors shuffled in; with probability ``null_share`` the
  answer-bearing sentences are left out and the target is the null span;
* **MuSiQue** (sample): every step of a question's decomposition (``#1`` replaced by the previous
  answer) over its supporting paragraph, and the whole question over its supporting paragraphs;
* **HotpotQA** (sample): the question over its supporting paragraphs (yes/no answers skipped).

The frozen encoder runs once per example (its last hidden states are cached in float16), then the
head trains for several epochs on the cache with :func:`graphhop.train.common.fine_tune`; the
epoch is chosen on the *selection* examples (the sources' dev parts), never on what is reported.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Iterator, Sequence

import torch
import torch.nn.functional as F

from graphhop.core import InputError
from graphhop.models.span import SpanExample
from graphhop.models.span_head import FrozenSpanReaderModel

__all__ = ["builder_examples", "musique_examples", "hotpot_examples", "encode_examples", "span_em",
           "train_span_head", "run_training"]


def builder_examples(path: str | Path, distractors: int = 3, null_share: float = 0.15, limit: int | None = None,
                     seed: int = 0) -> list[SpanExample]:
    """Span examples from a builder JSONL file (see the module docstring)."""
    from graphhop.datasets.builder import read_records
    from graphhop.graph import EvidenceGraph
    from graphhop.read.span import find_answer_span, graph_order, linearize

    out: list[SpanExample] = []
    for i, rec in enumerate(read_records(path)):
        if limit is not None and i >= limit:
            break
        rng = random.Random(f"{seed}|{rec.get('id')}")
        graph = EvidenceGraph.from_json(rec["graph"], where=f"{path}: {rec.get('id')}")
        order = graph_order(graph)
        extra = [e for e in rec.get("evidence", []) if e["id"] not in graph.g]
        rng.shuffle(extra)
        for e in extra[:distractors]:
            graph.add_evidence(e["id"], e.get("text", ""), e.get("facts", []))
            order.insert(rng.randrange(len(order) + 1), e["id"])
        sinks = set(graph.sinks())
        null = rng.random() < null_share
        if null:
            order = [n for n in order if n not in sinks]
        text, spans = linearize(graph, order)
        if null:
            if find_answer_span(text, rec["answers"]) is None and order:
                out.append(SpanExample(rec["question"], text, None, None, f"{rec.get('id')}:null"))
            continue
        span = find_answer_span(text, rec["answers"], [(a, z) for n, a, z in spans if n in sinks])
        if span is not None:
            out.append(SpanExample(rec["question"], text, span[0], span[1], str(rec.get("id", i))))
    return out


def _span(text: str, answers: Sequence[str]) -> tuple[int, int] | None:
    from graphhop.read.span import find_answer_span

    return find_answer_span(text, [a for a in answers if a])


def musique_examples(path: str | Path) -> list[SpanExample]:
    """Single-hop steps and whole questions from a MuSiQue file (see the module docstring)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    out: list[SpanExample] = []
    for q in data:
        paras = {p["idx"]: f"{p['title']}: {p['paragraph_text']}" for p in q["paragraphs"]}
        prev: list[str] = []
        for step in q.get("question_decomposition", []):
            question = step["question"]
            for j, ans in enumerate(prev, start=1):
                question = question.replace(f"#{j}", ans)
            prev.append(step["answer"])
            ctx = paras.get(step.get("paragraph_support_idx"))
            span = _span(ctx, [step["answer"]]) if ctx else None
            if span is not None and "#" not in question:
                out.append(SpanExample(question, ctx, span[0], span[1], f"{q['id']}:{len(prev)}"))
        support = " ".join(paras[s["paragraph_support_idx"]] for s in q.get("question_decomposition", [])
                           if s.get("paragraph_support_idx") in paras)
        span = _span(support, [q["answer"], *q.get("answer_aliases", [])]) if support else None
        if span is not None:
            out.append(SpanExample(q["question"], support, span[0], span[1], q["id"]))
    return out


def hotpot_examples(path: str | Path) -> list[SpanExample]:
    """Questions over their supporting paragraphs from a HotpotQA file (yes/no answers skipped)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    out: list[SpanExample] = []
    for q in data:
        if q["answer"].lower() in ("yes", "no"):
            continue
        titles = list(dict.fromkeys(t for t, _ in q["supporting_facts"]))
        ctx = dict((t, "".join(s)) for t, s in q["context"])
        support = " ".join(f"{t}: {ctx[t]}" for t in titles if t in ctx)
        span = _span(support, [q["answer"]])
        if span is not None:
            out.append(SpanExample(q["question"], support, span[0], span[1], str(q.get("_id", len(out)))))
    return out


def _token_span(offsets: torch.Tensor, context: torch.Tensor, start: int, end: int) -> tuple[int, int] | None:
    s_tok = e_tok = None
    for t in range(offsets.shape[0]):
        a, z = int(offsets[t, 0]), int(offsets[t, 1])
        if not bool(context[t]) or z <= a:
            continue
        if s_tok is None and z > start:
            s_tok = t
        if a < end:
            e_tok = t
    if s_tok is None or e_tok is None or e_tok < s_tok or int(offsets[e_tok, 1]) < end:
        return None
    return s_tok, e_tok


def encode_examples(model: FrozenSpanReaderModel, examples: Sequence[SpanExample], batch_size: int = 32,
                    progress: bool = True) -> list[dict[str, Any]]:
    """Run the frozen encoder once per example; returns cached items (float16 states, labels).
    An example whose answer is cut by truncation is dropped."""
    from tqdm.auto import tqdm

    items: list[dict[str, Any]] = []
    for i in tqdm(range(0, len(examples), batch_size), desc="encode (frozen MiniLM)", disable=not progress):
        chunk = examples[i : i + batch_size]
        batch = model.encode([(e.first, e.second) for e in chunk])
        for b, ex in enumerate(chunk):
            n = int(batch["mask"][b].sum())
            if ex.start is None or ex.end is None:
                label: tuple[int, int] | None = (0, 0)
            else:
                label = _token_span(batch["offsets"][b], batch["context"][b], ex.start, ex.end)
            if label is None:
                continue
            items.append({"hidden": batch["hidden"][b, :n].half(), "feats": batch["feats"][b, :n],
                          "context": batch["context"][b, :n], "offsets": batch["offsets"][b, :n],
                          "label": label, "example": ex})
    return items


def _collate(items: Sequence[dict[str, Any]]) -> dict[str, torch.Tensor]:
    n = max(it["hidden"].shape[0] for it in items)
    b = len(items)
    hidden = torch.zeros(b, n, items[0]["hidden"].shape[1])
    feats = torch.zeros(b, n, items[0]["feats"].shape[1])
    mask = torch.zeros(b, n, dtype=torch.bool)
    for i, it in enumerate(items):
        t = it["hidden"].shape[0]
        hidden[i, :t] = it["hidden"].float()
        feats[i, :t] = it["feats"]
        mask[i, :t] = True
    labels = torch.tensor([it["label"] for it in items])
    return {"hidden": hidden, "feats": feats, "mask": mask, "start": labels[:, 0], "end": labels[:, 1]}


def span_em(model: FrozenSpanReaderModel, items: Sequence[dict[str, Any]], batch_size: int = 64) -> dict[str, float]:
    """Exact match of the best span (or null) with the gold span, from cached items."""
    from graphhop.metrics.qa import normalize_answer
    from graphhop.models.span_head import _best_spans

    model.head.eval()
    right = 0
    with torch.no_grad():
        for i in range(0, len(items), batch_size):
            chunk = items[i : i + batch_size]
            batch = _collate(chunk)
            start, end = model.head(batch["hidden"], batch["feats"], batch["mask"])
            for b, it in enumerate(chunk):
                t = it["hidden"].shape[0]
                best = _best_spans(start[b, :t], end[b, :t], it["context"], it["offsets"], it["example"].second, 1, 16)[0]
                gold = it["example"].text
                pred = "" if best.is_null else best.text
                right += normalize_answer(pred) == normalize_answer(gold)
    em = right / max(1, len(items))
    return {"em": em, "f1": em, "n": float(len(items))}


def train_span_head(model: FrozenSpanReaderModel, train: Sequence[dict[str, Any]], dev: Sequence[dict[str, Any]],
                    epochs: int = 12, batch_size: int = 32, lr: float = 1e-3, max_minutes: float | None = None,
                    seed: int = 0, progress: bool = True) -> Any:
    """Train the head on cached items; the epoch with the best selection EM is kept."""
    from graphhop.train.common import fine_tune

    if not train:
        raise InputError("no span-head training examples")

    def loss_fn(batch_items: list[dict[str, Any]]) -> torch.Tensor:
        batch = _collate(batch_items)
        start, end = model.head(batch["hidden"], batch["feats"], batch["mask"])
        return (F.cross_entropy(start, batch["start"]) + F.cross_entropy(end, batch["end"])) / 2

    return fine_tune(model.head, loss_fn, list(train), (lambda: span_em(model, dev)) if dev else None,
                     epochs=epochs, batch_size=batch_size, lr=lr, warmup=0.05, weight_decay=0.01,
                     max_minutes=max_minutes, seed=seed, progress=progress, desc="span head", evaluate_before=True)


def iter_sources(data_root: str | Path, builder_dirs: Sequence[str | Path], split: str,
                 builder_limit: int | None = None) -> Iterator[tuple[str, list[SpanExample]]]:
    """``(source name, examples)`` for ``split`` (``train`` or ``dev``) of every source found."""
    root = Path(data_root)
    for folder in builder_dirs:
        path = Path(folder) / f"{split}.jsonl"
        if path.exists():
            yield Path(folder).name, builder_examples(path, limit=builder_limit)
    for name, fn in (("musique", musique_examples), ("hotpotqa", hotpot_examples)):
        path = root / name / f"{name}_sample.{split}.json"
        if path.exists():
            yield name, fn(path)


def run_training(out: str | Path, data_root: str | Path, builder_dirs: Sequence[str | Path],
                 train_limit: int = 400, dev_limit: int = 60, epochs: int = 12, max_minutes: float | None = 20,
                 seed: int = 0, progress: bool = True, cache_dir: str | Path | None = None) -> dict[str, Any]:
    """Collect the examples (``train_limit`` / ``dev_limit`` per builder source, every MuSiQue and
    HotpotQA sample question), cache the frozen states (in ``cache_dir`` too, keyed by the examples,
    when given), train, save to ``out``; returns the card."""
    import time

    from graphhop.models.span_head import SpanHead, SpanHeadConfig

    t0 = time.perf_counter()
    model = FrozenSpanReaderModel(SpanHead(SpanHeadConfig()))
    counts: dict[str, dict[str, int]] = {}
    cached: dict[str, list[dict[str, Any]]] = {}
    for split, limit in (("train", train_limit), ("dev", dev_limit)):
        examples: list[SpanExample] = []
        for name, exs in iter_sources(data_root, builder_dirs, split, builder_limit=limit):
            counts.setdefault(name, {})[split] = len(exs)
            examples += exs
        cached[split] = _cached_encode(model, examples, cache_dir, progress)
    encode_s = time.perf_counter() - t0
    result = train_span_head(model, cached["train"], cached["dev"], epochs=epochs, max_minutes=max_minutes,
                             seed=seed, progress=progress)
    card = {"encoder": None, "sources": counts, "train_items": len(cached["train"]), "dev_items": len(cached["dev"]),
            "best_epoch": result.best_epoch, "selection": result.best, "history": result.history,
            "encode_seconds": round(encode_s, 1), "train_seconds": round(result.seconds, 1), "seed": seed}
    model.save(out, card)
    return card


def _cached_encode(model: FrozenSpanReaderModel, examples: Sequence[SpanExample], cache_dir: str | Path | None,
                   progress: bool) -> list[dict[str, Any]]:
    """:func:`encode_examples`, reusing ``cache_dir/<hash of the examples>.pt`` when it exists."""
    import hashlib

    if cache_dir is None:
        return encode_examples(model, examples, progress=progress)
    key = hashlib.md5(json.dumps([[e.first, e.second, e.start, e.end] for e in examples]).encode()).hexdigest()[:16]
    path = Path(cache_dir) / f"span-states-{key}.pt"
    if path.exists():
        return torch.load(path, weights_only=False)
    items = encode_examples(model, examples, progress=progress)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    torch.save(items, tmp)
    tmp.replace(path)
    return items
