"""Train the text relation matcher (:mod:`graphhop.read.relation_matcher`) on verbalized builder facts.

    python -m graphhop.train.text_relation --out runs/text-relation [--data DIR]

Not shipped (measured, not adopted): the folder is passed to the walk reader by path (``--relation-matcher``).

Pairs come from the train splits of PathQuestion (PQ/PQL 2H, 3H) and WorldCup2014 (P1, P2, C): every gold
triple of a question is written the way the dataset builder writes evidence
(:class:`graphhop.datasets.d2t.TemplateDataToText`: 0-2 other facts of the same head first, then the gold
one), and the *label* is what the walk reader would read between the head and the gold tail (``was born in
1971 and has the nationality``). The question side is the question's relation words as the walk reader
finds them (:func:`graphhop.read.sentence_graph.question_words`, topic entity dropped). A question scores a
label by its best word (multiple-instance: which word names which hop is not given); the loss is a
softmax over the labels of a batch and their questions' negatives (other relations of the gold heads; the
question's other gold relations masked), plus ``reg`` times ``|W - I|^2`` so words and phrases unseen in training keep MiniLM's geometry.

Selection: relations whose md5 is 0 mod 4 are held out; a model trained on the other questions is scored on
held-out relations' pairs (a gold label vs the labels of other relations of the same head in the KB):
the epoch and the match threshold (best F1) are chosen there, then the map is retrained on all
pairs for that many epochs. The identity map (plain MiniLM cosine) is scored on the same carve for
comparison; both go into ``card.json``.
"""

from __future__ import annotations

import hashlib
import random
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.core import InputError
from graphhop.read.relation_matcher import statement

__all__ = ["TRAIN_SETS", "Pair", "training_pairs", "batch_loss", "fit_map", "carve_scores", "train_matcher"]

TRAIN_SETS = ("pq-2h", "pq-3h", "pql-2h", "pql-3h", "wc-p1", "wc-p2", "wc-c")


@dataclass
class Pair:
    """One question's relation words and the labels of its gold facts, with each label's relation."""

    words: tuple[str, ...]
    labels: list[str] = field(default_factory=list)
    relations: list[str] = field(default_factory=list)
    negatives: list[str] = field(default_factory=list)  # labels of other relations of the gold heads (carve)
    source: str = "facts"  # facts (verbalized builder facts), musique (paragraph wordings) or names (relation names)


def base_relation(relation: str) -> str:
    """A relation without its ``_inverse`` suffix (one relation, two directions)."""
    return relation[: -len("_inverse")] if relation.endswith("_inverse") else relation


def held_out(relation: str, mod: int = 4) -> bool:
    """Whether a relation belongs to the selection carve (md5 of its base name mod ``mod`` is 0)."""
    return int(hashlib.md5(base_relation(relation).encode()).hexdigest(), 16) % mod == 0


def _label(d2t: Any, head_facts: Sequence[tuple[str, str, str]], gold: tuple[str, str, str], rng: random.Random) -> str:
    """What a walk edge reads between ``gold``'s head and its tail in a builder sentence of 0-2 other facts
    of the same head followed by ``gold`` (the predicate's words before the tail; after it when none)."""
    from graphhop.datasets.d2t import clean_entity

    others = [f for f in head_facts if f[1] != gold[1]]
    extra = rng.sample(others, min(len(others), rng.choice((0, 0, 1, 2))))
    before = [d2t.predicate(r).format(tail=clean_entity(t)) for _, r, t in extra]
    template = d2t.predicate(gold[1])
    pre, _, post = template.partition("{tail}")
    parts = before + [pre.strip()]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return " ".join(text.lower().split()) or " ".join(post.lower().split())


def _kb_by_head(path: Path) -> dict[str, list[tuple[str, str, str]]]:
    out: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3:
                out[parts[0]].append((parts[0], parts[1], parts[2]))
    return out


def training_pairs(root: str | Path | None = None, sets: Sequence[str] = TRAIN_SETS, split: str = "train",
                   per_set: int = 1500, seed: int = 0, side: str = "words") -> list[Pair]:
    """One :class:`Pair` per question (strided sample of ``per_set`` per set, question texts deduplicated).
    ``side="question"``: the question side is the question with its topic entity masked as ``x`` and labels
    are read as statements ``x <label> y`` (:func:`statement`) instead of relation words and bare labels."""
    from graphhop.datasets.d2t import TemplateDataToText
    from graphhop.datasets.kgqa import kb_path, load_dataset
    from graphhop.kb.verbalize import clean_entity, normalize_question
    from graphhop.read.sentence_graph import _SURFACE, question_words
    from graphhop.read.walk_scorer import mask_entities

    d2t = TemplateDataToText()
    pairs: list[Pair] = []
    seen: set[str] = set()
    kbs: dict[Path, Any] = {}
    for name in sets:
        kb = kb_path(name, root)
        by_head = kbs.setdefault(kb, _kb_by_head(kb))
        examples = load_dataset(name, split, root)
        stride = max(1, len(examples) // per_set)
        for ex in examples[::stride][:per_set]:
            question = normalize_question(ex.question)
            if question in seen or not ex.gold_paths:
                continue
            seen.add(question)
            rng = random.Random(f"{seed}|{question}")
            topic = [clean_entity(ex.gold_paths[0][0][0])] + [clean_entity(t) for t in ex.topic_entities]
            relations, _, _ = question_words(question, topic)
            if not relations:
                continue
            words = (mask_entities(question, topic),) if side == "question" else sorted(_SURFACE.get(w, w) for w in relations)
            pair = Pair(tuple(words))
            wrap = statement if side == "question" else (lambda lab: lab)
            facts_seen = {base_relation(t[1]): tuple(t) for path in ex.gold_paths for t in reversed(path)}
            for fact in facts_seen.values():  # one fact per relation (WC-C lists a chain per answer)
                facts = by_head.get(fact[0], [])
                pair.labels.append(wrap(_label(d2t, facts, fact, rng)))
                pair.relations.append(base_relation(fact[1]))
                pair.negatives += [wrap(_label(d2t, [], f, rng)) for f in facts if base_relation(f[1]) != base_relation(fact[1])][:8]
            pairs.append(pair)
    return pairs


def batch_loss(chunk: Sequence[Pair], rows: Any, temperature: float) -> Any:
    """The mean loss of a batch of pairs: each question scores a label by its best word (``rows(texts)``: unit
    vectors, a torch tensor); a softmax over the batch's labels and negatives, the question's other gold
    relations masked (module docstring)."""
    import torch

    labels = list(dict.fromkeys([lab for p in chunk for lab in p.labels] + [x for p in chunk for x in p.negatives]))
    rel_of = {lab: r for p in chunk for lab, r in zip(p.labels, p.relations)}  # negatives: no relation
    lab_v = rows(labels)
    losses = []
    for p in chunk:
        logits = (rows(p.words) @ lab_v.T).max(dim=0).values / temperature
        for lab, rel in zip(p.labels, p.relations):
            mask = torch.tensor([rel_of.get(x) in p.relations and x != lab for x in labels])
            target = labels.index(lab)
            losses.append(torch.nn.functional.cross_entropy(logits.masked_fill(mask, -1e4)[None], torch.tensor([target])))
    return torch.stack(losses).mean()


def fit_map(pairs: Sequence[Pair], vec: dict[str, np.ndarray], epochs: int, lr: float = 1e-3, reg: float = 1.0,
            temperature: float = 0.05, batch: int = 64, seed: int = 0, on_epoch: Any = None,
            form: str = "full") -> np.ndarray:
    """The map ``W`` after ``epochs`` (``on_epoch(epoch, W)`` after each; module docstring for the loss).
    ``form="diag"`` learns only a weight per MiniLM dimension (``W`` diagonal)."""
    import torch

    torch.manual_seed(seed)
    dim = next(iter(vec.values())).shape[0]
    param = torch.nn.Parameter(torch.ones(dim) if form == "diag" else torch.eye(dim))
    opt = torch.optim.Adam([param], lr=lr)
    rng = random.Random(seed)
    order = list(range(len(pairs)))
    for epoch in range(1, epochs + 1):
        rng.shuffle(order)
        for start in range(0, len(order), batch):
            weight = torch.diag(param) if form == "diag" else param

            def rows(texts: Sequence[str], weight: Any = weight) -> Any:
                return torch.nn.functional.normalize(torch.from_numpy(np.stack([vec[x] for x in texts])) @ weight, dim=1)

            chunk = [pairs[i] for i in order[start : start + batch]]
            loss = batch_loss(chunk, rows, temperature) + reg * ((weight - torch.eye(dim)) ** 2).sum() / dim
            opt.zero_grad()
            loss.backward()
            opt.step()
        if on_epoch is not None:
            on_epoch(epoch, (torch.diag(param) if form == "diag" else param).detach().numpy().copy())
    return (torch.diag(param) if form == "diag" else param).detach().numpy().copy()


def carve_scores(pairs: Sequence[Pair], vec: dict[str, np.ndarray], weight: np.ndarray) -> dict[str, float]:
    """On carve pairs: each question's best-word cosine with its gold labels (positives) and with labels of
    other relations of the same heads (negatives); the threshold of best F1, that F1, the share of gold
    labels scored above every negative of their question (``rank1``) and its mean over relations (``macro_rank1``:
    every held-out relation counts once, however many questions ask it)."""
    from graphhop.read.relation_matcher import project

    pos, neg, first = [], [], []
    by_relation: dict[str, list[float]] = defaultdict(list)
    for p in pairs:
        if not p.negatives:
            continue
        w = project(np.stack([vec[x] for x in p.words]), weight)
        s_pos = (w @ project(np.stack([vec[x] for x in p.labels]), weight).T).max(axis=0)
        s_neg = (w @ project(np.stack([vec[x] for x in p.negatives]), weight).T).max(axis=0)
        pos += s_pos.tolist()
        neg += s_neg.tolist()
        first += [float(s > s_neg.max()) for s in s_pos]
        for rel, s in zip(p.relations or p.labels, s_pos):
            by_relation[rel].append(float(s > s_neg.max()))
    scores = np.asarray(pos + neg)
    gold = np.asarray([1] * len(pos) + [0] * len(neg))
    best = (0.0, 1.0)
    for t in np.round(np.arange(0.2, 0.95, 0.01), 2):
        hit = scores >= t
        tp = float((hit & (gold == 1)).sum())
        f1 = 2 * tp / max(1.0, hit.sum() + gold.sum())
        best = max(best, (f1, float(t)))
    return {"f1": round(float(best[0]), 4), "threshold": best[1], "rank1": round(float(np.mean(first)), 4) if first else 0.0,
            "macro_rank1": round(float(np.mean([np.mean(v) for v in by_relation.values()])), 4) if by_relation else 0.0,
            "positives": len(pos), "negatives": len(neg)}


_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _between(sentence: str, entity: str, answer: str, most: int = 12) -> str | None:
    """The words a walk edge reads between ``entity`` (or the sentence start) and ``answer``; None without it."""
    from graphhop.read.sentence_graph import _label, find_name

    at_a = find_name(sentence, answer)
    if at_a is None:
        return None
    at_e = find_name(sentence, entity)
    if at_e is not None and at_e[1] <= at_a[0]:
        words = sentence[at_e[1] : at_a[0]]
    elif at_e is not None and at_a[1] <= at_e[0]:
        words = sentence[at_a[1] : at_e[0]]
    else:
        words = sentence[: at_a[0]]
    label = _label(words, "")
    return " ".join(label.split()[-most:]) or None


def musique_pairs(root: str | Path | None = None, split: str = "train", repeat: int = 10) -> list[Pair]:
    """Natural wordings: each MuSiQue sub-question's relation words and the words its supporting paragraph
    writes between the paragraph's title and the sub-answer (``#k`` read as the earlier answers; the
    paragraph's other sentences as carve negatives); each pair ``repeat`` times (there are few)."""
    import json

    from graphhop.datasets.kgqa import data_root
    from graphhop.read.sentence_graph import _SURFACE, question_words

    path = data_root(root) / "musique" / f"musique_sample.{split}.json"
    out: list[Pair] = []
    for ex in json.loads(path.read_text(encoding="utf-8")):
        answers: list[str] = []
        for step in ex["question_decomposition"]:
            question = re.sub(r"#(\d+)", lambda m: answers[int(m.group(1)) - 1] if int(m.group(1)) <= len(answers) else "",
                              step["question"])
            answers.append(step["answer"])
            para = ex["paragraphs"][step["paragraph_support_idx"]]
            sentences = _SENT.split(para["paragraph_text"])
            labels = [lab for lab in (_between(x, para["title"], step["answer"]) for x in sentences) if lab]
            relations, _, _ = question_words(question, [para["title"], *answers])
            if not labels or not relations:
                continue
            negatives = [" ".join(x.lower().split()[:12]) for x in sentences if _between(x, para["title"], step["answer"]) is None]
            pair = Pair(tuple(sorted(_SURFACE.get(w, w) for w in relations)), [labels[0]], [f"musique:{step['id']}"], negatives,
                        "musique")
            out += [pair] * repeat
    return out


def _encode(texts: Sequence[str], cache: Path | None = None) -> dict[str, np.ndarray]:
    """Unit MiniLM vectors of ``texts`` (the bundled encoder, as the walk reader's index encodes queries),
    kept in ``cache`` (a folder; one ``.npy`` per set of texts, named by their md5)."""
    from graphhop.kgqa.scorer import fast_encoder

    texts = list(dict.fromkeys(texts))
    path = cache / f"{hashlib.md5(chr(10).join(texts).encode()).hexdigest()}.npy" if cache else None
    if path is not None and path.is_file():
        return dict(zip(texts, np.load(path)))
    vecs = np.asarray(fast_encoder().encode(texts, batch_size=256, convert_to_numpy=True, normalize_embeddings=True),
                      dtype=np.float32)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, vecs)
        tmp.replace(path)
    return dict(zip(texts, vecs))


def _check_options(epochs: int, per_set: int, side: str, natural: bool, names: bool, facts: bool) -> None:
    """Raise :class:`InputError` (one line) for options that cannot train, before any work."""
    if epochs < 1 or per_set < 1:
        raise InputError(f"--epochs and --per-set must be >= 1, got {epochs} and {per_set}")
    if side not in ("words", "question"):
        raise InputError(f"--side must be words or question, got {side!r}")
    if side == "question" and (names or natural):
        raise InputError("--names and --natural pair relation words, not whole questions: use them with --side words")
    if not facts and not (names or natural):
        raise InputError("no training pairs: --no-facts needs --names or --natural")


def train_matcher(out: str | Path, root: str | Path | None = None, epochs: int = 6, per_set: int = 1500,
                  seed: int = 0, side: str = "words", reg: float = 1.0, form: str = "full",
                  lr: float = 1e-3, natural: bool = False, names: bool = False, facts: bool = True,
                  log: Any = print) -> dict[str, Any]:
    """Choose the epoch and threshold on the held-out-relation carve, retrain on all pairs, save to ``out``.
    ``names``: add the question <-> relation-name paraphrase pairs (:mod:`graphhop.train.relation_paraphrase`);
    ``facts=False``: without the verbalized-fact pairs (names only)."""
    from graphhop.evaluation import cache_dir
    from graphhop.read.relation_matcher import RelationMatcher
    from graphhop.train.relation_paraphrase import name_pairs

    _check_options(epochs, per_set, side, natural, names, facts)
    pairs = training_pairs(root, per_set=per_set, seed=seed, side=side) if facts else []
    if natural:
        pairs += musique_pairs(root)
    if names:
        pairs += name_pairs(root, per_set=per_set, seed=seed)
    if not pairs:
        raise InputError("no training pairs: the data has no usable questions")
    carve = [p for p in pairs if any(held_out(r) for r in p.relations)]
    fit_pairs = [p for p in pairs if p not in carve]
    carve = [Pair(p.words, [lab for lab, r in zip(p.labels, p.relations) if held_out(r)],
                  [r for r in p.relations if held_out(r)], p.negatives, p.source) for p in carve]
    vec = _encode([t for p in pairs for t in (*p.words, *p.labels, *p.negatives)],
                  cache_dir() / "text-relation")
    log(f"pairs: {len(pairs)} questions ({len(fit_pairs)} fit, {len(carve)} carve), {len(vec)} texts encoded")
    dim = next(iter(vec.values())).shape[0]
    identity = carve_scores(carve, vec, np.eye(dim, dtype=np.float32))
    if len({p.source for p in carve}) > 1:
        identity["by_source"] = {k: carve_scores([p for p in carve if p.source == k], vec, np.eye(dim, dtype=np.float32))
                                 for k in sorted({p.source for p in carve})}
    log(f"identity (plain MiniLM cosine) on the carve: {identity}")
    by_epoch: dict[int, dict[str, float]] = {}

    kinds = sorted({p.source for p in carve})

    def record(epoch: int, weight: np.ndarray) -> None:
        by_epoch[epoch] = carve_scores(carve, vec, weight)
        if len(kinds) > 1:  # each kind of pair on its own too (names: question words vs relation names)
            by_epoch[epoch]["by_source"] = {k: carve_scores([p for p in carve if p.source == k], vec, weight) for k in kinds}
        log(f"epoch {epoch}: carve {by_epoch[epoch]}")

    fit_map(fit_pairs, vec, epochs, seed=seed, reg=reg, form=form, lr=lr, on_epoch=record)
    best = max(by_epoch, key=lambda e: (by_epoch[e]["rank1"], -e))
    weight = fit_map(pairs, vec, best, seed=seed, reg=reg, form=form, lr=lr)
    card = {"trained_on": list(TRAIN_SETS), "split": "train", "per_set": per_set, "seed": seed,
            "questions": len(pairs), "side": side, "natural": natural, "names": names, "facts": facts, "form": form, "reg": reg, "lr": lr, "epoch": best, "carve": "relations with md5 % 4 == 0 held out",
            "carve_identity": identity, "carve_by_epoch": by_epoch,
            "command": " ".join(["python -m graphhop.train.text_relation", *sys.argv[1:]])}
    matcher = RelationMatcher(weight, by_epoch[best]["threshold"], None, card)
    matcher.save(out)
    log(f"chose epoch {best}, threshold {matcher.threshold}; saved to {out}")
    return card


def main() -> None:
    """Command line: ``python -m graphhop.train.text_relation --out DIR``."""
    from graphhop.eval.script import benchmark_parser

    ap = benchmark_parser(__doc__, seed=0)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--per-set", type=int, default=1500)
    ap.add_argument("--side", choices=("question", "words"), default="words")
    ap.add_argument("--reg", type=float, default=1.0)
    ap.add_argument("--form", choices=("full", "diag"), default="full")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--natural", action="store_true", help="add MuSiQue train sub-questions and their paragraphs' wordings")
    ap.add_argument("--names", action="store_true", help="add question <-> gold relation-name pairs (PQ/PQL/WC train, "
                    "MetaQA fit half, KQA Pro sample, MuSiQue decompositions)")
    ap.add_argument("--no-facts", dest="facts", action="store_false", help="without the verbalized-fact pairs")
    args = ap.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    train_matcher(args.out, args.data, epochs=args.epochs, per_set=args.per_set, seed=args.seed,
                  side=args.side, reg=args.reg, form=args.form, lr=args.lr,
                  natural=args.natural, names=args.names, facts=args.facts)


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
