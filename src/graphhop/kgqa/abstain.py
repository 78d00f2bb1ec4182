"""A learned confidence for "no supported answer": wrong is worse than unsure.

The path scorer's probability alone is a poor judge of whether an answer is right (on strangers' KBs a
threshold on it withheld more right answers than wrong ones). :class:`Confidence` is a small logistic
model over what the pipeline knows about an answer once it is found (:func:`inputs`, :func:`features`):
the answer's and the best path's probability, the margin to the runner-up path, the hop count, whether
answer typing moved the path and how well the end fits the asked noun, how many answers, the question
type, how the entities were linked. When its probability that the answer is right is under its threshold,
the answer is withheld ("no supported answer") and the chain found is kept as the best partial chain.

Coefficients and threshold are fitted on selection data only (``benchmarks/kgqa_abstain.py``; docs/RESULTS.md,
issue 12, session 12) and shipped as ``weights/kgqa/confidence.json``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from graphhop.models.logistic import fit_logistic

__all__ = ["FEATURES", "DEFAULT_PATH", "Confidence", "inputs", "features", "fit_logistic", "withhold"]

#: The shipped model (coefficients, feature means/scales, threshold).
DEFAULT_PATH = Path(__file__).resolve().parent.parent / "weights" / "kgqa" / "confidence.json"

QTYPES = ("query", "count", "boolean", "comparison")

#: Feature names, in the order of :func:`features`.
FEATURES = ("log_answer_prob", "log_path_prob", "log_margin", "path_score", "hops", "moved", "fit", "has_fit",
            "log_answers", "count", "boolean", "comparison", "mentions", "fuzzy_link", "ambiguous_link", "chains_per_answer",
            "names_relation", "uncovered_share", "unnamed_steps")

_EPS = 1e-6


def inputs(out: Mapping[str, Any], qtype: str, mentions: Sequence[Any], kgqa: Any = None) -> dict[str, Any]:
    """What the confidence reads of an operation's result ``out`` (before its chains become the support):
    a JSON-safe summary, also what ``benchmarks/kgqa_abstain.py`` stores per question. With ``kgqa`` (the
    :class:`~graphhop.kgqa.pipeline.KGQA`), also how many relations the question names and how many of them
    the answer's chain uses (:func:`graphhop.kgqa.cover.named_relations`)."""
    trace = out.get("trace") or {}
    typed = trace.get("answer_type") or {}
    counted = trace.get("counted")
    return {"qtype": qtype, "supported": bool(out.get("supported")), "score": float(out.get("score") or 0.0),
            "answers": len(counted) if isinstance(counted, list) else len(out.get("answers") or []),
            "paths": [[float(p.get("prob", 0.0)), float(p.get("score", 0.0)), len(p.get("relation_path") or [])]
                      for p in (trace.get("paths") or [])[:5]],
            "hops": len(trace.get("relation_path") or []) or int(trace.get("threshold_hops") or 0),
            "moved": int(typed.get("moved_hops") or 0), "fit": typed.get("fit"),
            "mentions": [[getattr(m, "how", "exact"), len(getattr(m, "entities", ()))] for m in mentions],
            "chains": len(out.get("chains") or []), **_naming(kgqa, trace)}


def _naming(kgqa: Any, trace: Mapping[str, Any]) -> dict[str, int]:
    """``asked``: relations the masked question names; ``covered``: how many of them the answer's relation
    path uses; ``unnamed``: its steps that none of the named words (asked or typed) names."""
    rel_path, paths = trace.get("relation_path") or [], trace.get("paths") or []
    if kgqa is None or not rel_path or not paths or not paths[0].get("question"):
        return {"asked": 0, "covered": 0, "unnamed": 0}
    from graphhop.kgqa.cover import named_relations

    ids = kgqa.store.relation_id
    steps = [(ids[r.lstrip("^")], not r.startswith("^")) for r in rel_path if r.lstrip("^") in ids]
    asked, typed = named_relations(kgqa.relation_words, paths[0]["question"])
    words = kgqa.relation_words
    return {"asked": len(asked), "covered": words.covered(asked, steps) if asked else 0,
            "unnamed": words.unnamed(asked + [w for w in typed if w not in asked], steps)}


def features(raw: Mapping[str, Any]) -> np.ndarray:
    """The feature vector (:data:`FEATURES`) of an :func:`inputs` summary."""
    paths = raw.get("paths") or []
    p1 = paths[0][0] if paths else 0.0
    p2 = paths[1][0] if len(paths) > 1 else 0.0
    n = int(raw.get("answers") or 0)
    ments = raw.get("mentions") or []
    fit = raw.get("fit")
    qtype = raw.get("qtype", "query")
    asked = int(raw.get("asked") or 0)
    return np.asarray([
        math.log(max(float(raw.get("score") or 0.0), _EPS)), math.log(max(p1, _EPS)),
        math.log(max(p1, _EPS)) - math.log(max(p2, _EPS)) if paths else 0.0,
        paths[0][1] if paths else 0.0, float(raw.get("hops") or 0), float(raw.get("moved") != 0),
        float(fit) if fit is not None else 0.0, float(fit is not None), math.log1p(n),
        float(qtype == "count"), float(qtype == "boolean"), float(qtype == "comparison"), float(len(ments)),
        float(any(m[0] == "fuzzy" for m in ments)), float(any(m[1] > 1 for m in ments)),
        math.log1p(int(raw.get("chains") or 0) / max(n, 1)),
        float(asked > 0), 1.0 - int(raw.get("covered") or 0) / asked if asked else 0.0, float(raw.get("unnamed") or 0),
    ], dtype=np.float64)


class Confidence:
    """The probability that an answer is right, and the threshold under which it is withheld."""

    def __init__(self, coef: Sequence[float], intercept: float, mean: Sequence[float], scale: Sequence[float],
                 threshold: float, names: Sequence[str] = FEATURES, meta: Mapping[str, Any] | None = None) -> None:
        if tuple(names) != FEATURES:
            raise ValueError(f"confidence model features {list(names)} differ from this code's {list(FEATURES)}")
        self.coef = np.asarray(coef, dtype=np.float64)
        self.intercept = float(intercept)
        self.mean = np.asarray(mean, dtype=np.float64)
        self.scale = np.asarray(scale, dtype=np.float64)
        self.threshold = float(threshold)
        self.meta = dict(meta or {})

    @classmethod
    def load(cls, path: str | Path | None = None) -> "Confidence":
        """The model stored at ``path`` (default: the shipped one, :data:`DEFAULT_PATH`)."""
        data = json.loads(Path(path or DEFAULT_PATH).read_text(encoding="utf-8"))
        return cls(data["coef"], data["intercept"], data["mean"], data["scale"], data["threshold"],
                   data.get("features", FEATURES), data.get("meta"))

    def to_json(self) -> dict[str, Any]:
        """The stored form (what :meth:`load` reads)."""
        return {"features": list(FEATURES), "coef": [round(float(c), 6) for c in self.coef],
                "intercept": round(self.intercept, 6), "mean": [round(float(m), 6) for m in self.mean],
                "scale": [round(float(s), 6) for s in self.scale], "threshold": round(self.threshold, 4), "meta": self.meta}

    def prob(self, raw: Mapping[str, Any]) -> float:
        """The probability that the answer summarized by ``raw`` (:func:`inputs`) is right."""
        z = (features(raw) - self.mean) / self.scale
        return float(1.0 / (1.0 + math.exp(-float(z @ self.coef + self.intercept))))


def withhold(out: dict[str, Any], raw: Mapping[str, Any], model: Confidence | None) -> dict[str, Any]:
    """``out`` judged by ``model``: the confidence goes in the trace; an answer under the threshold is
    withheld ("no supported answer") with its chains kept as the best partial chain. A result already
    withheld, or no model, is left as it is."""
    if model is None or not out.get("supported"):
        return out
    p = model.prob(raw)
    trace = out.setdefault("trace", {})
    trace["confidence"] = {"prob": round(p, 4), "threshold": model.threshold}
    if p >= model.threshold:
        return out
    trace["reason"] = f"no supported answer: confidence {p:.3f} < threshold {model.threshold:.3f}"
    trace["best_guess"] = list(out.get("answers") or [])[:10]
    out.update(answer="", answers=[], supported=False)
    out.pop("alternatives", None)
    return out
