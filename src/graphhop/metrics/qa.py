"""QA answer metrics with SQuAD normalization (the official SQuAD v1.1 evaluation script's rules).

Normalization: lower-case, drop punctuation, drop the articles ``a``/``an``/``the``, collapse
whitespace. EM and F1 take the maximum over the gold answers.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from typing import Iterable, Sequence

__all__ = ["normalize_answer", "exact_match", "token_f1", "qa_scores", "right_for_right_reason"]

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD normalization: ``"The  Cat!"`` -> ``"cat"``."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def _as_list(gold: str | Sequence[str]) -> list[str]:
    return [gold] if isinstance(gold, str) else list(gold)


def exact_match(prediction: str, gold: str | Sequence[str]) -> float:
    """1.0 when the normalized prediction equals some normalized gold answer, else 0.0."""
    pred = normalize_answer(prediction)
    return float(any(pred == normalize_answer(g) for g in _as_list(gold)))


def _f1(pred_tokens: list[str], gold_tokens: list[str]) -> float:
    if not pred_tokens or not gold_tokens:  # SQuAD v2 rule: both empty -> 1, one empty -> 0
        return float(pred_tokens == gold_tokens)
    common = Counter(pred_tokens) & Counter(gold_tokens)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(pred_tokens)
    recall = same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: str, gold: str | Sequence[str]) -> float:
    """Token-level F1 between normalized answers (precision over predicted tokens), max over golds."""
    pred = normalize_answer(prediction).split()
    golds = _as_list(gold)
    if not golds:
        return 0.0
    return max(_f1(pred, normalize_answer(g).split()) for g in golds)


def qa_scores(predictions: Iterable[str], golds: Iterable[str | Sequence[str]]) -> dict[str, float]:
    """Mean EM and F1 over paired predictions and gold answer lists: ``{"em", "f1", "n"}``."""
    em = f1 = 0.0
    n = 0
    for pred, gold in zip(predictions, golds, strict=True):
        em += exact_match(pred, gold)
        f1 += token_f1(pred, gold)
        n += 1
    return {"em": em / n if n else 0.0, "f1": f1 / n if n else 0.0, "n": n}


def _plain(text: str) -> str:
    return " ".join(str(text).lower().split())


def right_for_right_reason(answer: str, answers: Sequence[str], support: Iterable[str], supported: bool,
                           qtype: str, gold_answers: Sequence[str], gold_support: Iterable[str]) -> bool:
    """The regression suite's measure (``tests/regression/README.md``): the answer is right (lower-cased,
    whitespace collapsed; ``list``: the set of ``answers`` equals the gold set; otherwise ``answer``
    equals a gold entry) **and** every gold evidence id is in ``support``. A question without gold
    answers is right when no supported answer is given."""
    if not gold_answers:
        return not supported
    if not supported:
        return False
    if qtype == "list":
        ok = {_plain(a) for a in answers} == {_plain(a) for a in gold_answers}
    else:
        ok = _plain(answer) in {_plain(a) for a in gold_answers}
    return ok and set(gold_support) <= set(support)
