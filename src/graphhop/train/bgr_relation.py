"""Fitting the relation-aware matcher score of open-setting BGR on teacher-forced open prefixes.

For every teacher-forced prefix of a selection question's gold graph (forward and backward,
:func:`graphhop.train.bgr.forward_targets` / :func:`~graphhop.train.bgr.backward_targets`), the open
retriever's own candidates for that prefix (:class:`~graphhop.retrieve.bgr_open.CandidateCache`), the
frozen matcher's logits and the relation features (:class:`~graphhop.retrieve.bgr_relation.RelationWords`)
are collected (:func:`prefix_steps`); :func:`fit_relation_head` fits ``a * logit + w . features + b`` to
the gold labels by logistic regression, one per direction. The matcher itself is not retrained. The same steps feed the
per-step diagnosis (:mod:`graphhop.eval.bgr_open_diag`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
import torch

from graphhop.retrieve.bgr_model import BGRModel
from graphhop.retrieve.bgr_open import CandidateCache, _Seen, step_logits
from graphhop.retrieve.bgr_relation import RelationHead, RelationWords
from graphhop.train.bgr import QUESTION_TOKEN, backward_targets, forward_targets
from graphhop.train.bgr_data import BGRExample

__all__ = ["PrefixStep", "prefix_steps", "open_steps", "fit_relation_head", "fit_on_carve", "training_table"]


@dataclass
class PrefixStep:
    """One teacher-forced prefix in the open setting: its candidates (best first by the search), the
    matcher's logits (+ the question token's last, backward after the first step), the relation
    features, which candidates are gold, the gold targets the candidates missed, the prefix's ids and the
    question as the search reads it."""

    direction: str
    step: int
    ids: list[str]
    logits: np.ndarray
    feats: np.ndarray
    labels: np.ndarray
    stop_gold: bool
    targets: frozenset[str]
    missed: int
    path: tuple[str, ...] = ()
    query: str = ""


@torch.no_grad()
def prefix_steps(model: BGRModel, ex: BGRExample, gold: Any, cache: CandidateCache, words: RelationWords,
                 k: int, directions: Sequence[str] = ("forward", "backward"), max_prefixes: int = 64) -> Iterator[PrefixStep]:
    """Every teacher-forced prefix of ``gold`` (``ex``'s gold graph relabelled to DB ids) with the top ``k``
    candidates the open retriever meets there (the gold targets are **not** added)."""
    search = cache.search
    seen = _Seen(search)
    qv = np.asarray(ex.question_vec, dtype=np.float32).reshape(-1)
    for d in directions:
        dm = model.direction(d).eval()
        q = dm.proj(torch.as_tensor(qv).view(1, -1))
        targets_of = forward_targets if d == "forward" else backward_targets
        for path, targets in targets_of(gold, max_prefixes):
            if any(p.startswith("missing:") for p in path):
                continue
            ids = cache.ids(ex.query, path, k, d)
            if not ids:
                continue
            code = q
            if path:
                seen.add(list(path))
                for node in dm.proj(torch.as_tensor(search.vectors(list(path)), dtype=torch.float32)):
                    code = dm.update(code, node.view(1, -1))
            with_tok = d == "backward" and bool(path)
            logits, _ = step_logits(dm, ex.query, qv, q, code, search, seen, path, ids, with_tok, direction=d)
            feats = words.features(ex.query, path, ids, seen.texts)
            real = targets - {QUESTION_TOKEN}
            yield PrefixStep(d, len(path) + 1, ids, logits, feats, np.array([i in real for i in ids]),
                             QUESTION_TOKEN in targets or (d == "forward" and not targets), frozenset(real),
                             len(real - set(ids)), tuple(path), ex.query)


def fit_relation_head(steps: Sequence[PrefixStep], C: float = 1.0, fitted_on: str = "") -> RelationHead:
    """Per direction, ``a * logit + w . features + b`` fitted to the candidates' gold labels (logistic
    regression, L2 ``C``) over ``steps``' candidates (the question token is left out of the fit); a
    direction without both gold and non-gold candidates keeps the matcher alone."""
    from sklearn.linear_model import LogisticRegression

    head, fitted = RelationHead(fitted_on=fitted_on), 0
    for d in ("forward", "backward"):
        mine = [s for s in steps if s.direction == d]
        y = np.concatenate([s.labels for s in mine]).astype(int) if mine else np.zeros(0, dtype=int)
        if len(set(y.tolist())) < 2:
            continue
        x = np.concatenate([np.column_stack([s.logits[: len(s.ids)], s.feats]) for s in mine])
        reg = LogisticRegression(C=C, max_iter=1000).fit(x, y)
        coef = reg.coef_[0]
        setattr(head, d, [float(coef[0]), float(reg.intercept_[0]), *map(float, coef[1:])])
        fitted += 1
    if not fitted:
        from graphhop.core import InputError

        raise InputError("fitting the relation head needs gold and non-gold candidates in one direction at least")
    return head


def open_steps(model: BGRModel, examples: Sequence[BGRExample], by_text: dict[str, str], cands: CandidateCache,
               words: RelationWords) -> list[PrefixStep]:
    """:func:`prefix_steps` of every example (its gold relabelled to DB ids), ``cands.k`` candidates a step."""
    from graphhop.eval.bgr_bench import relabel_gold

    return [s for ex in examples for s in prefix_steps(model, ex, relabel_gold(ex, by_text)[0], cands, words, cands.k)]


def fit_on_carve(model: BGRModel, examples: Sequence[BGRExample], by_text: dict[str, str], cands: CandidateCache,
                 words: RelationWords, data_dir: Path, card: dict[str, Any], out: Path,
                 fitted_on: str) -> tuple[RelationHead, list[PrefixStep]]:
    """The relation head fitted on ``examples`` (the selection carve's questions): the word table counted on the
    questions the model trained on (:func:`training_table`, set on ``words``), the open prefix steps, the fit;
    saved to ``out`` (``relation.json``) with its table. Also gives the steps."""
    words.table = training_table(data_dir, card, words)
    steps = open_steps(model, examples, by_text, cands, words)
    head = fit_relation_head(steps, fitted_on=fitted_on)
    head.table = words.table
    head.save(out)
    return head, steps


def training_table(data_dir: Path, card: dict[str, Any], words: RelationWords) -> dict[str, dict[str, float]]:
    """The word association (:func:`~graphhop.retrieve.bgr_relation.association_table`) counted on the
    training questions of ``data_dir`` the model may train on (train minus its selection carve): each
    question's relation words vs its gold sentences' relation words."""
    from graphhop.kb.verbalize import normalize_question
    from graphhop.retrieve.bgr_relation import association_table
    from graphhop.train.bgr_open import card_carve

    rest = card_carve(data_dir, card)[1]
    return association_table((words.words(normalize_question(r["question"])),
                              [w for e in r["evidence"] if e.get("gold") for w in words.words(e["text"])]) for r in rest)
