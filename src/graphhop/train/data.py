"""Training data for DiFaR: (question, gold fact) pairs over the verbalized facts of a KB.

* PathQuestion and WC2014: the ``train`` split; every triple of every gold path is a positive
  (in either stored direction: WC2014 keeps ``r`` and ``r_inverse`` copies of most facts).
* MetaQA (no train split here): gold facts are derived by path search along the question type's
  relation chain (:func:`graphhop.datasets.kgqa.metaqa_gold_paths`). The official dev set is split
  **by example index**: the first ``METAQA_EVAL_N`` (1000) questions of each hop are the evaluation
  sample we report; training uses the questions after them (part ``"train"``).

Each KB becomes one :class:`DocGroup`; doc ids are ``"<kb stem>:<fact id>"`` so several KBs can be
mixed in one run. Mining and evaluation always rank inside the question's own KB.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from graphhop.core import InputError, QAExample
from graphhop.datasets.kgqa import DATASETS, equivalent_triples, kb_path, load_dataset, metaqa_gold_paths
from graphhop.kb.loaders import iter_triples
from graphhop.kb.store import TripleStore
from graphhop.kb.verbalize import Verbalizer, normalize_question

__all__ = [
    "METAQA_EVAL_N",
    "DocGroup",
    "TrainExample",
    "TrainData",
    "holdout_split",
    "metaqa_part",
    "examples_for",
    "build_train_data",
    "load_train_data",
]

#: MetaQA: the first N dev questions of each hop are the reported evaluation sample.
METAQA_EVAL_N = 1000


@dataclass
class DocGroup:
    """The verbalized facts of one KB: ``ids[i]`` has text ``texts[i]``."""

    name: str
    ids: list[str]
    texts: list[str]
    store: TripleStore | None = None
    _pos: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._pos = {d: i for i, d in enumerate(self.ids)}

    def text(self, doc_id: str) -> str:
        """The text of ``doc_id``."""
        return self.texts[self._pos[doc_id]]

    def position(self, doc_id: str) -> int:
        return self._pos[doc_id]

    def __len__(self) -> int:
        return len(self.ids)


@dataclass
class TrainExample:
    """One question, its KB (``group``) and its gold fact ids there (never used as negatives)."""

    qid: str
    question: str
    group: str
    positives: list[str]
    hops: int = 0
    max_pairs: int = 0

    @property
    def train_positives(self) -> list[str]:
        """The positives used as training pairs (the first ``max_pairs``; all when 0). Every
        entry of ``positives`` stays excluded from negatives."""
        return self.positives[: self.max_pairs] if self.max_pairs else self.positives

    @property
    def query(self) -> str:
        """What the encoders see (normalized like the facts, as at search time)."""
        return normalize_question(self.question)


@dataclass
class TrainData:
    """Examples plus the KB groups they refer to."""

    groups: dict[str, DocGroup]
    examples: list[TrainExample]

    def text(self, group: str, doc_id: str) -> str:
        return self.groups[group].text(doc_id)

    def gold_texts(self, ex: TrainExample) -> set[str]:
        """Texts of the gold facts: a different fact id with the same text is not a negative either."""
        g = self.groups[ex.group]
        return {g.text(d) for d in ex.positives}

    def pairs(self) -> int:
        return sum(len(e.train_positives) for e in self.examples)

    def subset(self, examples: Sequence[TrainExample]) -> "TrainData":
        return TrainData(self.groups, list(examples))


def _bucket(text: str) -> int:
    return int(hashlib.md5(text.encode("utf-8")).hexdigest(), 16) % 100


def holdout_split(examples: Sequence[TrainExample], percent: int = 10) -> tuple[list[TrainExample], list[TrainExample]]:
    """Split by md5 of the question text: ``percent``% go to the held-out part (checkpoint selection).

    The held-out part comes from *train*, so the official dev split stays untouched until the end.
    """
    keep, held = [], []
    for ex in examples:
        (held if _bucket(ex.question) < percent else keep).append(ex)
    return keep, held


def metaqa_part(examples: Sequence[QAExample], part: str, eval_n: int = METAQA_EVAL_N) -> list[QAExample]:
    """MetaQA dev by index: ``eval`` = the first ``eval_n``, ``train`` = the rest."""
    if part == "eval":
        return list(examples[:eval_n])
    if part == "train":
        return list(examples[eval_n:])
    raise InputError(f"unknown MetaQA part {part!r}; choose eval or train")


def examples_for(name: str, root: str | Path | None, part: str = "train") -> list[QAExample]:
    """Questions of dataset ``name`` for ``part``: ``train``/``dev`` splits, MetaQA dev by index."""
    spec = DATASETS.get(name.lower())
    if spec is None:
        raise InputError(f"unknown dataset {name!r}; choose one of {', '.join(DATASETS)}")
    if spec.family == "metaqa":
        return metaqa_part(load_dataset(name, "dev", root), "eval" if part in ("dev", "eval") else "train")
    return load_dataset(name, "dev" if part in ("dev", "eval") else "train", root)


def _group_for(kb_file: Path, cache: dict[str, DocGroup], verbalizer: Verbalizer) -> DocGroup:
    key = str(kb_file.resolve())
    if key not in cache:
        facts = list(iter_triples(kb_file))
        store = TripleStore.from_facts(facts)
        name = kb_file.stem
        cache[key] = DocGroup(name, [f"{name}:{f.id}" for f in facts], [verbalizer(f) for f in facts], store)
    return cache[key]


def build_train_data(
    datasets: Iterable[str],
    root: str | Path | None,
    part: str = "train",
    limit: int | None = None,
    max_positives: int = 8,
    seed: int = 0,
    verbalizer: Verbalizer = Verbalizer(),
) -> TrainData:
    """Training (or evaluation) examples with gold fact ids, for the named datasets.

    ``limit`` keeps the first N questions per dataset (after a seeded shuffle for ``train``);
    ``max_positives`` caps the gold facts used as training *pairs* per question (MetaQA can
    derive hundreds; whole paths come first, in order); all of them stay gold for masking and
    evaluation. Questions whose gold facts are not
    in the KB are dropped (their number is in the returned data's ``dropped`` attribute).
    """
    groups: dict[str, DocGroup] = {}
    cache: dict[str, DocGroup] = {}
    out: list[TrainExample] = []
    dropped = 0
    for name in datasets:
        kb = kb_path(name, root)
        group = _group_for(kb, cache, verbalizer)
        groups[group.name] = group
        qas = examples_for(name, root, part)
        if part == "train":
            random.Random(seed).shuffle(qas)
        if limit:
            qas = qas[:limit]
        for qa in qas:
            paths = qa.gold_paths
            if not paths and DATASETS[name.lower()].family == "metaqa":
                paths = metaqa_gold_paths(qa, group.store)
            ids: list[str] = []
            for path in paths:
                for triple in path:
                    for t in equivalent_triples(triple):
                        for fid in group.store.ids(t):
                            doc_id = f"{group.name}:{fid}"
                            if doc_id not in ids:
                                ids.append(doc_id)
            if not ids:
                dropped += 1
                continue
            out.append(TrainExample(qa.id, qa.question, group.name, ids, qa.hops, max_positives))
    data = TrainData(groups, out)
    data.dropped = dropped  # type: ignore[attr-defined]
    return data


def load_train_data(
    datasets: Sequence[str], root: str | Path | None, limit: int | None = None, holdout_percent: int = 10, max_positives: int = 8, seed: int = 0
) -> tuple[TrainData, TrainData]:
    """``(train, val)``: the training part of ``datasets`` minus a held-out ``holdout_percent``
    (by md5 of question text) used for per-epoch evaluation and best-checkpoint selection."""
    data = build_train_data(datasets, root, "train", limit=limit, max_positives=max_positives, seed=seed)
    keep, held = holdout_split(data.examples, holdout_percent)
    return data.subset(keep), data.subset(held)
