"""Where open-setting BGR loses the gold, step by step: candidates, the matcher's ranking, or stopping.

Over teacher-forced prefixes (:func:`graphhop.train.bgr_relation.prefix_steps`: each gold prefix, the
open retriever's own top-k candidates there, the matcher's logits), per direction and step:

* ``cands``: share of the gold targets among the candidates (lost before the matcher);
* ``top1``: where a gold target is among them, share of prefixes whose best-scored candidate is gold;
* ``kept``: share of those where a gold candidate passes the threshold within the branching;
* ``extra``: mean number of non-gold candidates kept (precision lost);
* ``stop``: at prefixes where the gold graph ends (forward: a sink; backward: the root above), share
  where BGR stops (forward keeps nothing; backward's question token passes the threshold).

With a :class:`~graphhop.retrieve.bgr_relation.RelationHead` the same is measured on its combined score.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Sequence

import numpy as np

__all__ = ["step_table", "DIAG_COLUMNS"]

DIAG_COLUMNS = ("prefixes", "cands", "top1", "kept", "extra", "stops", "stop")


def _probs(step: Any, head: Any) -> np.ndarray:
    logits = head.logits(step.logits, step.feats, step.direction) if head is not None else step.logits
    return 1.0 / (1.0 + np.exp(-np.asarray(logits, dtype=np.float64)))


def step_table(steps: Sequence[Any], settings: Any, head: Any = None) -> dict[str, dict[str, float]]:
    """``{"forward step 1": {column: value}, ...}`` (columns :data:`DIAG_COLUMNS`) plus ``all`` rows per
    direction; ``settings``: thresholds and branching (:class:`~graphhop.retrieve.bgr_open.OpenSettings`)."""
    acc: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for s in steps:
        p = _probs(s, head)
        n = len(s.ids)
        order = np.argsort(-p[:n], kind="stable")
        kept = [int(i) for i in order[: settings.branch(s.direction)] if p[i] >= settings.threshold(s.direction)]
        for key in (f"{s.direction} step {s.step}", f"{s.direction} all"):
            row = acc[key]
            if s.targets:
                row["prefixes"].append(1)
                row["cands"].append(1 - s.missed / len(s.targets))
                row["extra"].append(sum(not s.labels[i] for i in kept))
                if s.labels.any():
                    row["top1"].append(float(s.labels[order[0]]))
                    row["kept"].append(float(any(s.labels[i] for i in kept)))
            if s.stop_gold:
                row["stops"].append(1)
                stopped = (p[n] >= settings.threshold(s.direction)) if len(p) > n else not kept
                row["stop"].append(float(stopped))
    out: dict[str, dict[str, float]] = {}
    for key in sorted(acc, key=lambda k: (k.split()[0], k.endswith("all"), k)):
        row = acc[key]
        out[key] = {c: (float(len(row[c])) if c in ("prefixes", "stops") else round(float(np.mean(row[c])), 3) if row[c] else float("nan"))
                    for c in DIAG_COLUMNS}
    return out
