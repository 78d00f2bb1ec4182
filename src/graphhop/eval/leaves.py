"""EntailmentBank task 3 as an Experiment: leaf sets retrieved from the whole WorldTree corpus.

Gold: the tree's leaf sentences (:func:`graphhop.train.leaves.dev_examples`); leaves in no corpus stay in
the gold set, so they are misses for every method. Measures: ``evidence P`` / ``R`` / ``F1`` (the leaf
set), ``size`` and passage recall ``R@5`` / ``R@10`` of the ranking. Systems:

- ``dense`` / ``bm25`` / ``hybrid`` top-``k``, with ``k`` = the gold size (labelled oracle: issue 5's
  open-setting baselines) or ``k`` chosen on the selection carve of train (no oracle);
- ``leaves``: :class:`~graphhop.retrieve.leaves.LeafRetriever` (greedy, conditioned on the leaves found
  so far, learned stop), and its greedy sequence cut at the gold size (labelled oracle);
- ``leaf reranker``: :class:`~graphhop.retrieve.leaves_rerank.LeafReranker` (the dense top ``depth`` rescored
  by the cross-encoder, a thresholded set), and its reranked top gold-size (labelled oracle).
"""

from __future__ import annotations

from typing import Any, Sequence

from graphhop.core import InputError
from graphhop.eval.experiment import Experiment, System, Table
from graphhop.eval.measures import Gold, Prediction
from graphhop.train.leaves import LeafExample, gold_set, leaf_f1

__all__ = ["LEAF_MEASURES", "leaf_golds", "choose_k", "leaf_systems", "leaf_reranker", "leaf_fused", "evaluate_leaves"]

LEAF_MEASURES = ("evidence P", "evidence R", "evidence F1", "size", "R@5", "R@10", "R@25", "R@50")


def _register_deep_recall() -> None:
    """``R@25`` / ``R@50`` (the first stage's recall before a set is chosen), registered once."""
    from graphhop.eval.measures import Measure, _MEASURES, _recall, register_measure

    for k in (25, 50):
        if f"R@{k}" not in _MEASURES:
            register_measure(Measure(f"R@{k}", "ranking", f"share of gold passages in the top {k}", _recall("R", k)))


_register_deep_recall()


def _bucket(n: int) -> str:
    return "1-2" if n <= 2 else "3-4" if n <= 4 else "5+"


def leaf_golds(examples: Sequence[LeafExample]) -> list[Gold]:
    """Golds: mapped leaves plus one placeholder per unmapped leaf; grouped by gold size."""
    return [Gold(ex.id, [], gold_set(ex), None, {"leaves": _bucket(ex.n_gold)}) for ex in examples]


def _star(question: str, ids: Sequence[str]) -> Any:
    from graphhop.graph import EvidenceGraph

    graph = EvidenceGraph(question, text_evidence=True)
    for d in ids:
        graph.add_evidence(d, "")
        graph.add_edge(graph.root, d)
    return graph


def _rankings(index: Any, method: str, queries: Sequence[str], depth: int) -> list[Any]:
    from graphhop.retrieve import make_retriever

    return make_retriever(index, method).search(list(queries), depth)


def choose_k(index: Any, method: str, examples: Sequence[LeafExample], ks: Sequence[int] = tuple(range(1, 11))) -> int:
    """The fixed set size with the best mean leaf F1 of ``method``'s top k on ``examples`` (the carve)."""
    rankings = _rankings(index, method, [ex.query for ex in examples], max(ks))
    score = {k: sum(leaf_f1([h.id for h in r[:k]], ex) for r, ex in zip(rankings, examples)) for k in ks}
    return max(ks, key=lambda k: (score[k], -k))


def _reranked(reranker: Any, examples: Sequence[LeafExample], gold_k: bool, memo: dict) -> System:
    """The cross-encoder's leaf set (its rule) or its reranked top gold-size (labelled oracle); ``memo`` keeps
    the scored queries, so both systems score them once."""

    def predict(qs: list[str]) -> list[Prediction]:
        key = tuple(qs)
        if key not in memo:
            memo.clear()
            memo[key] = reranker.select(qs)
        return [Prediction(ranking=ranking, graph=_star(q, [h.id for h in (ranking[: ex.n_gold] if gold_k else hits)]))
                for q, (hits, ranking), ex in zip(qs, memo[key], examples)]

    return System(predict, "k = the gold leaf count" if gold_k else "")


def leaf_systems(index: Any, examples: Sequence[LeafExample], retriever: Any = None,
                 fixed_k: dict[str, int] | None = None, oracle: Sequence[str] = ("bm25", "dense"),
                 reranker: Any = None, fused: Any = None) -> dict[str, System]:
    """The systems of the module doc (``fixed_k``: method -> k chosen on the carve; ``reranker``: a
    :class:`~graphhop.retrieve.leaves_rerank.LeafReranker` with its rule chosen on the carve; ``fused``: a
    :class:`~graphhop.retrieve.leaves_fused.FusedLeafRetriever` with its rule chosen on the carve)."""

    def top_k(method: str, k: int | None) -> System:
        def predict(qs: list[str]) -> list[Prediction]:
            rankings = _rankings(index, method, qs, max(50, max(ex.n_gold for ex in examples)))
            return [Prediction(ranking=r, graph=_star(q, [h.id for h in r[: k or ex.n_gold]]))
                    for q, r, ex in zip(qs, rankings, examples)]

        return System(predict, "" if k else "k = the gold leaf count")

    def leaves(gold_k: bool, retriever: Any = retriever) -> System:
        def predict(qs: list[str]) -> list[Prediction]:
            saved = retriever.threshold, retriever.max_leaves
            if gold_k:  # the same greedy sequence, never stopped early, cut at the gold size
                retriever.threshold, retriever.max_leaves = -1.0, max(ex.n_gold for ex in examples)
            try:
                runs = retriever.select(qs)
            finally:
                retriever.threshold, retriever.max_leaves = saved
            out = []
            for q, (hits, first), ex in zip(qs, runs, examples):
                chosen = {h.id for h in hits}
                ranking = hits + [h for h in first if h.id not in chosen]
                out.append(Prediction(ranking=ranking, graph=_star(q, [h.id for h in hits[: ex.n_gold if gold_k else None]])))
            return out

        return System(predict, "k = the gold leaf count" if gold_k else "")

    systems = {f"{m} (gold k)": top_k(m, None) for m in oracle}
    systems.update({f"{m} top-{k} (k chosen on the carve)": top_k(m, k) for m, k in (fixed_k or {}).items()})
    if retriever is not None:
        systems["leaves (greedy, conditioned; gold k)"] = leaves(True)
        systems["leaves (greedy, conditioned, learned stop)"] = leaves(False)
    if fused is not None:
        rule = f"head's top {fused.depth}, mix {fused.mix}, >= {fused.threshold}, <= {fused.max_leaves}"
        systems["leaves + cross-encoder (fused; gold k)"] = leaves(True, fused)
        how = "chosen on the carve" if fused.mix == fused.rule.get("mix") else "the carve's best at this mix, not chosen"
        systems[f"leaves + cross-encoder (fused: {rule}, {how})"] = leaves(False, fused)
    if reranker is not None:
        floor = f">= best - {reranker.threshold}" if getattr(reranker, "relative", False) else f">= {reranker.threshold}"
        rule = f"dense top-{reranker.depth}, mix {reranker.mix}, {floor}, <= {reranker.max_leaves}"
        memo: dict = {}
        systems["leaf reranker (cross-encoder; gold k)"] = _reranked(reranker, examples, True, memo)
        systems[f"leaf reranker (cross-encoder; {rule}, chosen on the carve)"] = _reranked(reranker, examples, False, memo)
    return systems


def leaf_reranker(index: Any, data_root: Any, model_dir: str = "auto", carve: Sequence[LeafExample] = ()) -> Any:
    """The :class:`~graphhop.retrieve.leaves_rerank.LeafReranker` over ``index`` (``auto``: the cached one of the
    default recipe; a name of :data:`~graphhop.train.leaf_reranker.RECIPES`: the cached one of that recipe; else a
    directory; ``none``: no reranker) with its rule for this index's encoder, chosen on ``carve`` when it was
    never chosen; None (with a warning) when ``auto`` or a recipe name finds no trained reranker."""
    import warnings
    from pathlib import Path

    from graphhop.retrieve.leaves_rerank import DEFAULT_RULE, LeafReranker, load_selection
    from graphhop.train.leaf_reranker import DEFAULT_RECIPE, RECIPES, choose_rule, leaf_reranker_dir

    if model_dir == "none":
        return None
    named = DEFAULT_RECIPE if model_dir == "auto" else model_dir
    path = leaf_reranker_dir(data_root, RECIPES[named], index) if named in RECIPES else Path(model_dir)
    if named in RECIPES and not (path / "graphhop_card.json").exists():
        warnings.warn(f"no leaf reranker at {path} (run `graphhop train leaf-reranker` or `make eb-reranker`): "
                      "its rows are skipped", stacklevel=2)
        return None
    if load_selection(path, index) is not None:
        return LeafReranker(index, path)
    reranker = LeafReranker(index, path, **DEFAULT_RULE)
    choose_rule(reranker, carve)
    return reranker


def leaf_fused(index: Any, data_root: Any, model_dir: str = "auto", carve: Sequence[LeafExample] = (),
               head: Any = None, mix: float | None = None) -> Any:
    """The :class:`~graphhop.retrieve.leaves_fused.FusedLeafRetriever` over ``index`` with the cross-encoder
    ``model_dir`` (as :func:`leaf_reranker`: ``auto``, a recipe name, a directory or ``none``) and its fusion rule for
    this index's encoder, chosen on ``carve`` when it was never chosen; None (warned) when no reranker is trained.
    ``mix``: instead of the chosen rule, the carve's best rule at this mix (a row for the record, not a choice)."""
    import warnings
    from pathlib import Path

    from graphhop.retrieve.leaves_fused import FusedLeafRetriever, load_fusion
    from graphhop.train.leaf_reranker import DEFAULT_RECIPE, RECIPES, choose_fusion, leaf_reranker_dir

    if model_dir == "none":
        return None
    named = DEFAULT_RECIPE if model_dir == "auto" else model_dir
    path = leaf_reranker_dir(data_root, RECIPES[named], index) if named in RECIPES else Path(model_dir)
    if named in RECIPES and not (path / "graphhop_card.json").exists():
        warnings.warn(f"no leaf reranker at {path} (run `graphhop train leaf-reranker`): the fused rows are skipped",
                      stacklevel=2)
        return None
    if load_fusion(path, index) is not None:
        fused = FusedLeafRetriever(index, path, head)
    else:
        fused = FusedLeafRetriever(index, path, head, depth=10, mix=0.0)
        choose_fusion(fused, carve)
    if mix is not None:
        best = fused.rule.get("best_rule_by_mix", {}).get(str(float(mix)))
        if best is None:
            raise InputError(f"fusion mix {mix}: not in the carve grid stored beside {path} "
                             f"({', '.join(fused.rule.get('best_rule_by_mix', {})) or 'none stored'})")
        fused.depth, fused.mix, fused.threshold, fused.max_leaves = (
            best["depth"], best["mix"], best["threshold"], best["max_leaves"])
    return fused


def evaluate_leaves(index: Any, examples: Sequence[LeafExample], systems: dict[str, System], split: str = "dev",
                    select: str = "train carve") -> Table:
    """One Experiment over ``examples`` (queries: hypothesis + question)."""
    return Experiment(LEAF_MEASURES, report=split, select=select, title=f"EntailmentBank task 3 ({split})").run(
        systems, [ex.query for ex in examples], leaf_golds(examples))
