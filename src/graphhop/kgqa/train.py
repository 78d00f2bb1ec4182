"""Training the relation-path scorer on the shared train parts (``graphhop train kgqa``).

Data: the *train* files of PathQuestion (PQ-2H/3H, PQL-2H, PQL-3H_more) and WorldCup2014
(WC-P1/P2/C, each chain of a conjunction on its own), and the *fit* half of MetaQA dev (MetaQA has
no train file here: :func:`metaqa_part` splits dev by an md5 of the question text; the other half
is what ``eval-qa`` reports). Test files are never read. For every question the topic entity is
linked and masked, its gold relation path is read from the data (MetaQA: from the question type),
and negatives are enumerated over the whole KB: every extension of the gold prefixes plus a
random sample of other paths, up to one hop longer than the gold path (so the head learns when
to stop; :mod:`graphhop.kgqa.negatives`). One tenth of the questions (md5 of the text) is the *selection* split: it picks the
epoch and the "no supported answer" threshold, and is never trained on.
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from graphhop.core import QAExample
from graphhop.kb.store import KGStore
from graphhop.kb.verbalize import INVERSE_SUFFIX
from graphhop.kgqa.link import EntityLinker, masked
from graphhop.kgqa.negatives import candidate_paths, hard_negatives, lure_steps
from graphhop.kgqa.scorer import MAX_HOPS, MAX_WORDS, PathBatch, content_words, type_relations
from graphhop.kgqa.thresholds import choose_threshold, hop_thresholds

__all__ = ["TRAIN_SETS", "metaqa_part", "is_selection", "gold_steps", "candidate_paths", "PathExample",
           "examples_from_dataset", "hard_negatives", "lure_steps", "named_relation_ids", "Corpus", "build_corpus", "typed_examples", "extend_corpus"]

#: (dataset, split) pairs the shipped scorer is trained on; ``metaqa-*`` uses the fit half of dev.
TRAIN_SETS = (("pq-2h", "train"), ("pq-3h", "train"), ("pql-2h", "train"), ("pql-3h-more", "train"),
              ("wc-p1", "train"), ("wc-p2", "train"), ("wc-c", "train"),
              ("metaqa-1h", "dev"), ("metaqa-2h", "dev"), ("metaqa-3h", "dev"))


def _md5(text: str) -> int:
    return int(hashlib.md5(text.encode("utf-8")).hexdigest(), 16)


def metaqa_part(question: str) -> str:
    """``fit`` or ``report``: the half of MetaQA dev a question belongs to (md5 of its text)."""
    return "fit" if _md5(question) % 2 == 0 else "report"


def is_selection(question: str) -> bool:
    """Whether a training question is in the selection split (1 in 10, by md5 of its text)."""
    return (_md5(question) >> 8) % 10 == 9


def gold_steps(store: KGStore, path: Sequence[Sequence[str]]) -> tuple[tuple[int, bool], ...] | None:
    """Signed store relations of a gold triple path (``r_inverse`` = ``r`` walked backward)."""
    out = []
    for _, r, _ in path:
        fwd = True
        if r.endswith(INVERSE_SUFFIX) and r[: -len(INVERSE_SUFFIX)] in store.relation_id:
            r, fwd = r[: -len(INVERSE_SUFFIX)], False
        if r not in store.relation_id:
            return None
        out.append((store.relation_id[r], fwd))
    return tuple(out)


def named_relation_ids(words: Any, question: str) -> frozenset[int]:
    """Ids of the relations whose names share a word stem with ``question`` (``words``: a
    :class:`graphhop.kgqa.scorer.RelationWords` of the store), inside or outside the asked type's phrase
    (:func:`graphhop.kgqa.cover.named_relations`, the pipeline's one definition): ``year formed`` for "...
    was formed", ``country of origin`` for "which country ...": the relations a hard negative may use."""
    from graphhop.kgqa.cover import named_relations

    outside, inside = named_relations(words, question)
    return frozenset(words.relations_named(list(dict.fromkeys(outside + inside))))


@dataclass
class PathExample:
    """One training question: masked text, its KB, candidate steps and types, and which are gold."""

    question: str
    masked: str
    kb: str
    steps: list[tuple[tuple[int, bool], ...]]
    types: list[list[int]]
    gold: list[int]
    hops: int
    selection: bool


def _gold_chains(ex: QAExample, store: KGStore, family: str) -> list[tuple[str, tuple[tuple[int, bool], ...]]]:
    """(topic entity, signed relation path) of each gold chain of ``ex``."""
    if family == "metaqa":
        from graphhop.datasets.kgqa import metaqa_relation_chain

        chain = tuple((store.relation_id[r], fwd) for r, fwd in metaqa_relation_chain(ex.qtype) if r in store.relation_id)
        return [(ex.topic_entities[0], chain)] if ex.topic_entities else []
    out = []
    for path in ex.gold_paths:
        steps = gold_steps(store, path)
        if steps and (path[0][0], steps) not in out:
            out.append((path[0][0], steps))
    return out


def examples_from_dataset(name: str, split: str, store: KGStore, linker: EntityLinker, rng: random.Random,
                          root: str | Path | None = None, limit: int | None = None, hard: bool = False,
                          lures: bool = False) -> Iterator[PathExample]:
    """Training examples of one dataset split (MetaQA: only its fit half), in file order; ``hard``:
    with the hard negatives of :func:`candidate_paths` (``lures``: and its lures)."""
    from graphhop.datasets.kgqa import DATASETS, load_dataset
    from graphhop.kgqa.scorer import RelationWords

    family = DATASETS[name].family
    data = load_dataset(name, split, root)
    if family == "metaqa":
        data = [ex for ex in data if metaqa_part(ex.question) == "fit"]
    if limit is not None and len(data) > limit:
        stride = len(data) / limit
        data = [data[int(i * stride)] for i in range(limit)]
    words = RelationWords(store.relations) if hard else None
    for ex in data:
        mentions = linker.link(ex.question)
        for topic, steps in _gold_chains(ex, store, family):
            tid = store.entity_id.get(topic)
            mention = [m for m in mentions if tid in m.entities]
            if tid is None or not mention or not steps or len(steps) > MAX_HOPS:
                continue
            max_hops = min(MAX_HOPS, len(steps) + 1)
            text = masked(ex.question, mention)
            named = None if words is None else named_relation_ids(words, text)
            cands = candidate_paths(store, [tid], steps, rng, max_hops, named=named, lures=lures)
            gold = [i for i, p in enumerate(cands) if p.steps == steps]
            if not gold:
                continue
            yield PathExample(ex.question, text, name, [p.steps for p in cands],
                              [type_relations(store, p.ends) for p in cands], gold, len(steps),
                              is_selection(ex.question))


@dataclass
class Corpus:
    """Every training example, the question vectors, and one relation table over all KBs."""

    examples: list[PathExample]
    qvecs: np.ndarray
    table: np.ndarray
    offsets: dict[str, int]
    wtab: np.ndarray | None = None
    widx: np.ndarray | None = None
    wmask: np.ndarray | None = None
    answer: np.ndarray | None = None

    def attach_words(self, scorer: Any) -> None:
        """Encode each question's content words (:func:`graphhop.kgqa.scorer.content_words`) and
        its answer-type noun (:func:`graphhop.kgqa.scorer.answer_noun`)."""
        words = [content_words(ex.masked) for ex in self.examples]
        vocab = list(dict.fromkeys(w for ws in words for w in ws)) or ["none"]
        pos = {w: i for i, w in enumerate(vocab)}
        self.wtab = scorer.encode(vocab).astype(np.float32)
        self.widx = np.zeros((len(words), MAX_WORDS), dtype=np.int64)
        self.wmask = np.zeros((len(words), MAX_WORDS), dtype=np.float32)
        for i, ws in enumerate(words):
            self.widx[i, : len(ws)] = [pos[w] for w in ws]
            self.wmask[i, : len(ws)] = 1.0
        self.answer = np.stack([scorer.answer_vector(ex.masked) for ex in self.examples]).astype(np.float32)

    def batch(self, items: Sequence[int]) -> tuple[PathBatch, np.ndarray, list[tuple[int, int, list[int]]]]:
        """A :class:`PathBatch` over the candidates of examples ``items`` (relation ids made
        global), the row -> question index, and per example (first row, rows, gold rows)."""
        steps, types, qidx, spans = [], [], [], []
        for j, i in enumerate(items):
            ex = self.examples[i]
            off = self.offsets[ex.kb]
            spans.append((len(steps), len(ex.steps), ex.gold))
            steps += [tuple((r + off, f) for r, f in s) for s in ex.steps]
            types += [[r + 2 * off for r in t] for t in ex.types]
            qidx += [j] * len(ex.steps)
        return PathBatch(steps, types), np.asarray(qidx, dtype=np.int64), spans


def build_corpus(scorer: Any, sets: Sequence[tuple[str, str]] = TRAIN_SETS, root: str | Path | None = None,
                 seed: int = 0, metaqa_limit: int | None = 4000, progress: bool = True,
                 synthetic: int = 600, typed: float = 0.5, typed_extra: int = 0, hard: bool = False,
                 schemas: int = 0, train_limit: int | None = None, lures: bool = False,
                 schema_variants: int = 0) -> Corpus:
    """Load the training sets, enumerate candidates (``hard``: with hard negatives, see
    :func:`candidate_paths`), add ``synthetic`` generated questions per training KB
    (:mod:`graphhop.kgqa.synthetic`; about ``typed`` of them name the answer by its type),
    ``typed_extra`` more per KB that all do (:func:`typed_examples`) and ``schemas`` questions per
    hand-written schema (:mod:`graphhop.kgqa.schemas`, paraphrased wordings), encode the masked
    questions and relation names. ``train_limit`` bounds each non-MetaQA set (even stride). ``lures``: every
    example keeps its :func:`lure_steps` as negatives; ``schema_variants`` questions per schema variant
    (:mod:`graphhop.kgqa.schema_variants`: Wikidata-style labels, relations stored the other way round, lure
    relations)."""
    from graphhop.kgqa.synthetic import schema_examples, synthetic_examples

    from tqdm.auto import tqdm

    from graphhop.datasets.kgqa import DATASETS, kb_path
    from graphhop.kb.loaders import iter_triples

    rng = random.Random(seed)
    stores: dict[str, KGStore] = {}
    examples: list[PathExample] = []
    t0 = time.perf_counter()
    for name, split in sets:
        kb = DATASETS[name].kb
        if kb not in stores:
            stores[kb] = KGStore.from_facts(iter_triples(kb_path(name, root)))
        store = stores[kb]
        linker = EntityLinker(store.entities)
        limit = metaqa_limit if DATASETS[name].family == "metaqa" else train_limit
        rows = list(tqdm(examples_from_dataset(name, split, store, linker, rng, root, limit, hard, lures), desc=f"{name} {split}",
                         disable=not progress, unit="q"))
        for ex in rows:
            ex.kb = kb
        examples += rows
    for kb, store in stores.items():
        examples += synthetic_examples(store, kb, synthetic, rng, typed, hard=hard, lures=lures)
    examples += typed_examples(stores, typed_extra, seed)
    if schemas:
        schema_stores, rows = schema_examples(schemas, random.Random(seed + 7), seed, hard=hard, lures=lures)
        stores.update(schema_stores)
        examples += rows
    if schema_variants:
        from graphhop.kgqa.schema_variants import variant_schemas

        schema_stores, rows = schema_examples(schema_variants, random.Random(seed + 11), seed, hard=hard, lures=lures,
                                              schemas=variant_schemas())
        stores.update(schema_stores)
        examples += rows
    offsets, tables, n = {}, [], 0
    for kb, store in stores.items():
        offsets[kb] = n
        tables.append(scorer.relation_vectors(store))
        n += len(store.relations)
    texts = list(dict.fromkeys(ex.masked for ex in examples))
    vec = dict(zip(texts, scorer.encode(texts)))
    qvecs = np.stack([vec[ex.masked] for ex in examples]).astype(np.float32)
    if progress:
        print(f"corpus: {len(examples)} questions, {sum(len(e.steps) for e in examples)} candidate paths, "
              f"{n} relations, {time.perf_counter() - t0:.0f}s")
    corpus = Corpus(examples, qvecs, np.concatenate(tables).astype(np.float32), offsets)
    corpus.attach_words(scorer)
    return corpus


def typed_examples(stores: dict[str, KGStore], n: int, seed: int = 0) -> list[PathExample]:
    """``n`` synthetic questions per KB of ``stores`` that name the answer only by its type
    (:func:`graphhop.kgqa.synthetic.typed_question`), each KB with its own random stream."""
    from graphhop.kgqa.synthetic import synthetic_examples

    out: list[PathExample] = []
    for i, (kb, store) in enumerate(stores.items()):
        out += synthetic_examples(store, kb, n, random.Random(1000 * seed + 17 + i), typed=1.0)
    return out


def extend_corpus(corpus: Corpus, stores: dict[str, KGStore], scorer: Any, n: int, seed: int = 1) -> Corpus:
    """``corpus`` plus ``n`` synthetic questions per KB of ``stores`` (keys as in ``corpus.offsets``)."""
    from graphhop.kgqa.synthetic import synthetic_examples

    rng = random.Random(seed)
    new = [ex for kb, store in stores.items() for ex in synthetic_examples(store, kb, n, rng)]
    texts = list(dict.fromkeys(ex.masked for ex in new))
    vec = dict(zip(texts, scorer.encode(texts)))
    qvecs = np.concatenate([corpus.qvecs, np.stack([vec[ex.masked] for ex in new]).astype(np.float32)])
    out = Corpus(corpus.examples + new, qvecs, corpus.table, corpus.offsets)
    out.attach_words(scorer)
    return out


def _scores(head: Any, corpus: Corpus, items: Sequence[int]) -> tuple[Any, list[tuple[int, int, list[int]]]]:
    import torch

    batch, qidx, spans = corpus.batch(items)
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))  # noqa: E731
    q = t(corpus.qvecs[list(items)])
    out = head(q, t(qidx), t(corpus.table), t(batch.rel), t(batch.dirs), t(batch.mask), t(batch.length),
               t(batch.type_idx), t(batch.type_off), t(corpus.wtab), t(corpus.widx[list(items)]), t(corpus.wmask[list(items)]),
               None if corpus.answer is None else t(corpus.answer[list(items)]))
    return out, spans


def _listwise_loss(out: Any, spans: list[tuple[int, int, list[int]]]) -> Any:
    """Mean over questions of -log(sum of gold softmax probabilities among its candidates)."""
    import torch

    qid = torch.tensor([j for j, (_, n, _) in enumerate(spans) for _ in range(n)])
    gold = torch.zeros(out.shape[0], dtype=torch.bool)
    gold[[f + g for f, _, golds in spans for g in golds]] = True
    neg = torch.full((len(spans),), -1e9)
    peak = neg.scatter_reduce(0, qid, out.detach(), reduce="amax")
    ex = torch.exp(out - peak[qid])
    total = torch.zeros(len(spans)).index_add(0, qid, ex)
    good = torch.zeros(len(spans)).index_add(0, qid, ex * gold)
    return (torch.log(total) - torch.log(good + 1e-30)).mean()


def selection_tops(head: Any, corpus: Corpus, items: Sequence[int], chunk: int = 256) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per question of ``items``: its top candidate's softmax probability, whether it is gold, and its hop count."""
    import torch

    probs, hits, hops = [], [], []
    head.eval()
    with torch.no_grad():
        for a in range(0, len(items), chunk):
            part = items[a : a + chunk]
            out, spans = _scores(head, corpus, part)
            for i, (first, n, gold) in zip(part, spans):
                p = torch.softmax(out[first : first + n], 0)
                best = int(p.argmax())
                probs.append(float(p[best]))
                hits.append(best in gold)
                hops.append(len(corpus.examples[i].steps[best]))
    return np.asarray(probs), np.asarray(hits, dtype=bool), np.asarray(hops, dtype=np.int64)


def evaluate_selection(head: Any, corpus: Corpus, items: Sequence[int], chunk: int = 256) -> tuple[float, np.ndarray, np.ndarray]:
    """Top-1 gold-path accuracy on ``items``, with each question's top softmax probability and hit."""
    probs, hits, _ = selection_tops(head, corpus, items, chunk)
    return float(hits.mean()) if len(hits) else 0.0, probs, hits


def fit(head: Any, corpus: Corpus, epochs: int = 8, lr: float = 2e-3, batch_questions: int = 64, seed: int = 0,
        max_minutes: float | None = None, progress: bool = True, on_epoch: Any = None,
        keep_initial: bool = False) -> dict[str, Any]:
    """Listwise training (softmax over each question's candidates, gold paths the target); the
    epoch with the best selection accuracy is kept (``on_epoch(head, epoch)`` is called after
    each; with ``keep_initial`` the head as given, epoch 0, competes too: a warm start that
    training does not improve on the selection split is kept). Returns the training report."""
    import torch

    torch.manual_seed(seed)
    rng = random.Random(seed)
    train = [i for i, e in enumerate(corpus.examples) if not e.selection]
    select = [i for i, e in enumerate(corpus.examples) if e.selection]
    opt = torch.optim.AdamW(head.parameters(), lr=lr, weight_decay=1e-4)
    best: tuple[float, dict[str, Any], int] = (-1.0, {}, -1)
    t0 = time.perf_counter()
    history = []
    if keep_initial:
        acc, _, _ = evaluate_selection(head, corpus, select)
        history.append({"epoch": 0, "loss": None, "selection_acc": acc})
        best = (acc, {k: v.detach().clone() for k, v in head.state_dict().items()}, 0)
        if progress:
            print(f"epoch 0 (initial head): selection top-1 path {acc:.4f}", flush=True)
    for epoch in range(epochs):
        head.train()
        rng.shuffle(train)
        total = 0.0
        for a in range(0, len(train), batch_questions):
            out, spans = _scores(head, corpus, train[a : a + batch_questions])
            loss = _listwise_loss(out, spans)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(spans)
        acc, _, _ = evaluate_selection(head, corpus, select)
        history.append({"epoch": epoch + 1, "loss": total / max(1, len(train)), "selection_acc": acc})
        if progress:
            print(f"epoch {epoch + 1}: loss {history[-1]['loss']:.4f}  selection top-1 path {acc:.4f}  "
                  f"({time.perf_counter() - t0:.0f}s)", flush=True)
        if acc > best[0]:
            best = (acc, {k: v.detach().clone() for k, v in head.state_dict().items()}, epoch + 1)
        if on_epoch is not None:
            on_epoch(head, epoch + 1)
        if max_minutes is not None and time.perf_counter() - t0 > 60 * max_minutes:
            break
    head.load_state_dict(best[1])
    probs, hits, hops = selection_tops(head, corpus, select)
    return {"best_epoch": best[2], "selection_acc": float(hits.mean()) if len(hits) else 0.0,
            "threshold": choose_threshold(probs, hits), "thresholds_by_hops": hop_thresholds(probs, hits, hops),
            "history": history, "train_questions": len(train), "selection_questions": len(select),
            "seconds": round(time.perf_counter() - t0, 1)}


__all__ += ["selection_tops", "evaluate_selection", "choose_threshold", "hop_thresholds", "fit"]


def train_scorer(out: str | Path, epochs: int = 4, lr: float = 2e-3, metaqa_limit: int | None = 3000, seed: int = 0,
                 max_minutes: float | None = None, root: str | Path | None = None, overwrite: bool = False,
                 progress: bool = True, synthetic: int = 600, typed: float = 0.5, typed_extra: int = 0,
                 hard: bool = False, schemas: int = 0, train_limit: int | None = None,
                 init: str | Path | None = None, cache: str | Path | None = None,
                 epoch_dir: str | Path | None = None, lures: bool = False, schema_variants: int = 0) -> dict[str, Any]:
    """Build the corpus (or read it from ``cache``, a file :func:`cached_corpus` wrote for the same
    options), train a head (fresh, or fine-tuned from the head in ``init``, which keeps its own
    architecture and competes as epoch 0), and write it (``head.npz`` + ``config.json``) atomically;
    with ``epoch_dir`` every epoch's head too (:func:`graphhop.kgqa.epoch_heads.epoch_saver`); ``lures`` and
    ``schema_variants`` as in :func:`build_corpus` (kept in the corpus options only when set, so older caches stay valid)."""
    from graphhop.io import atomic_dir
    from graphhop.kgqa.scorer import PathScorer, make_head

    from graphhop.kgqa.epoch_heads import check_outputs, epoch_saver

    out = Path(out)
    check_outputs(out, epoch_dir, overwrite)  # before the corpus is built or a head trained
    start = PathScorer.load(init) if init is not None else None  # a bad --init fails before the corpus is built
    options = {"seed": seed, "metaqa_limit": metaqa_limit, "synthetic": synthetic, "typed": typed,
               "typed_extra": typed_extra, "hard": hard, "schemas": schemas, "train_limit": train_limit,
               **({"lures": True} if lures else {}), **({"schema_variants": schema_variants} if schema_variants else {})}
    from graphhop.kgqa.corpus_cache import cached_corpus

    corpus = cached_corpus(cache, options, root=root, progress=progress)
    head = make_head() if start is None else start.head
    shape = {"dim": 384, "width": 128, "signed_types": True} if start is None else \
        {"dim": start.config.get("dim", 384), "width": start.config.get("width", 128),
         "signed_types": bool(start.config.get("signed_types", False))}
    config = {**shape, "encoder": "sentence-transformers/all-MiniLM-L6-v2",
              "trained_on": [f"{n}:{s}" + (" (fit half)" if n.startswith("metaqa") else "") for n, s in TRAIN_SETS],
              "metaqa_limit": metaqa_limit, "synthetic": synthetic, "typed": typed, "typed_extra": typed_extra,
              "hard_negatives": hard, "schema_questions": schemas, "train_limit": train_limit, "lures": lures,
              "schema_variants": schema_variants,
              "init": None if init is None else Path(init).name, "seed": seed, "epochs": epochs, "lr": lr}
    report = fit(head, corpus, epochs=epochs, lr=lr, seed=seed, max_minutes=max_minutes, progress=progress,
                 keep_initial=start is not None, on_epoch=None if epoch_dir is None else epoch_saver(epoch_dir, corpus, config, overwrite))
    config = {**config, **{k: v for k, v in report.items() if k != "history"}}
    with atomic_dir(out, overwrite=overwrite, replace_if=("head.npz",)) as tmp:
        PathScorer(head, config).save(tmp)
    return report


__all__ += ["train_scorer"]

