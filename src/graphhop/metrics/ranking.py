"""Ranking metrics (MRR over the top 1000, Hits@k) computed with ir_measures.

``Hits@k`` is ir_measures' ``Success@k`` (1 if any relevant item is in the top k). ``MRR`` is
``RR@1000``. The mean is taken over *every* question given, including those with no relevant item
(they count 0), so figures are comparable across methods.

Rankings are passed to ir_measures with scores replaced by ``n - rank``: trec_eval would otherwise
re-sort tied scores by document id, and our rankings already break ties deterministically.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import ir_measures
from ir_measures import RR, Success

from graphhop.core import Ranking

__all__ = ["DEFAULT_MEASURES", "MEASURE_NAMES", "ranking_metrics", "per_query_metrics"]

DEFAULT_MEASURES = (RR @ 1000, Success @ 1, Success @ 10)
MEASURE_NAMES = {str(RR @ 1000): "MRR", str(Success @ 1): "Hits@1", str(Success @ 10): "Hits@10"}


def per_query_metrics(
    rankings: Mapping[str, Ranking], qrels: Mapping[str, Iterable[str]], measures: Sequence = DEFAULT_MEASURES
) -> dict[str, dict[str, float]]:
    """``{query_id: {measure_name: value}}`` for every query in ``rankings`` (0 when no relevant item)."""
    names = {str(m): MEASURE_NAMES.get(str(m), str(m)) for m in measures}
    run = {}
    qrel_dict = {}
    for qid, ranking in rankings.items():
        n = len(ranking)
        run[qid] = {hit.id: float(n - i) for i, hit in enumerate(ranking)} or {"__none__": 0.0}
        rel = {doc: 1 for doc in qrels.get(qid, ())}
        if rel:
            qrel_dict[qid] = rel
    out = {qid: {name: 0.0 for name in names.values()} for qid in rankings}
    if qrel_dict:
        for metric in ir_measures.iter_calc(list(measures), qrel_dict, run):
            out[metric.query_id][names[str(metric.measure)]] = float(metric.value)
    return out


def ranking_metrics(
    rankings: Mapping[str, Ranking], qrels: Mapping[str, Iterable[str]], measures: Sequence = DEFAULT_MEASURES
) -> dict[str, float]:
    """Mean of each measure over all queries in ``rankings``: ``{"MRR": .., "Hits@1": .., "Hits@10": ..}``."""
    per_q = per_query_metrics(rankings, qrels, measures)
    names = [MEASURE_NAMES.get(str(m), str(m)) for m in measures]
    if not per_q:
        return {name: 0.0 for name in names}
    return {name: sum(v[name] for v in per_q.values()) / len(per_q) for name in names}
