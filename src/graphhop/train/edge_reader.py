"""Training the walk's edge reader (:mod:`graphhop.read.edge_reader`): MiniLM cross-encoder, top layers + head.

Lists (one question, one source entity; label 1 = the sentence states, about the source, a relation the question
asks) come from two places:

- **passage sets** (folders with ``passages.jsonl`` + ``questions.jsonl`` carrying ``answers`` and ``gold_passages``:
  the selection sets ``tests/pipeline/data/*``, never the regression suites): from the question's entities, the walk's
  own sentence edges (:class:`graphhop.read.sentence_graph.SentenceGraph`) read in gold passages whose target is the
  answer or the title of another gold passage are positives, followed hop by hop (up to 4); the other sentences the
  graph gives the same source are negatives (at most ``negatives``, drawn with a seeded generator);
- **synthetic** paraphrase lists (:func:`graphhop.train.edge_paraphrase.synthetic_lists`).

Training reuses the leaf reranker's loop (:func:`graphhop.train.leaf_reranker.train_leaf_reranker`: listwise +
pointwise loss, lower layers frozen); the trained parameters are saved small
(:func:`graphhop.models.top_layers.save_top_layers`) in a folder of the user's choice.
"""

from __future__ import annotations

import json
import random
import tempfile
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Iterator, Sequence

from graphhop.train.leaf_reranker import RerankerRecipe

__all__ = ["EDGE_RECIPE", "gold_hops", "recipe_with", "set_lists", "set_questions", "train_edge_reader"]

#: The recipe (sized to ~10 CPU minutes on one thread): lists of 1-2 positives and up to 6 negatives, 4 lists a
#: step, listwise + pointwise loss, top 2 layers + pooler + head trained, inputs cut at 64 tokens.
EDGE_RECIPE = RerankerRecipe(epochs=1, batch=4, positives=2, negatives=6, random_negatives=0, lr=1e-4, max_length=64,
                             loss="listwise", negatives_from="frozen", train_layers=2, seed=14)


def folder_index(folder: Path, work: Path) -> Any:
    """A passage folder's index (BM25 + flat dense; the bundled demo passages for a folder without
    ``passages.jsonl``), built once under ``work`` (as ``<name>-index``)."""
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_passages
    from graphhop.kb.loaders import iter_passages

    folder, work = Path(folder), Path(work)
    passages = folder / "passages.jsonl"
    if not passages.exists():
        passages = Path(__file__).resolve().parents[1] / "demo" / "data" / "passages.jsonl"
    idx_dir = work / f"{folder.name}-index"
    return KnowledgeIndex.open(idx_dir) if (idx_dir / "manifest.json").exists() else build_index(
        documents_from_passages(iter_passages(passages)), idx_dir, dense=DenseOptions("flat"),
        overwrite=True, progress=False)


def _walk_graph(folder: Path, work: Path) -> Any:
    """The sentence graph of a passage folder's index (built once under ``work``)."""
    from graphhop.read.sentence_graph import SentenceGraph
    from graphhop.retrieve.texthop import HopSearch

    return SentenceGraph(HopSearch(folder_index(folder, work), depth=10))


def gold_hops(graph: Any, q: dict[str, Any], depth: int = 4,
              need_other: bool = False) -> Iterator[tuple[str, list[Any], list[Any]]]:
    """Hop by hop (up to ``depth``) from a set question's entities: ``(source, its edges, positives)`` for each source
    with a positive, i.e. an edge read in a gold passage whose target is the answer or another gold passage's title
    and not reached before; the next sources are the positives' titled targets (resolved). With ``need_other`` a
    source none of whose sentences is negative is neither yielded nor walked on from (the edge reader's lists as
    before session 17)."""
    from graphhop.kb.names import fold_name
    from graphhop.read.sentence_graph import title_name

    gold = set(q.get("gold_passages") or ())
    answers = {fold_name(a) for a in q.get("answers") or ()}
    titles = {fold_name(title_name(graph.index.docs[d].title or "")) for d in gold if d in graph.index.docs}
    frontier = graph.entities(q["question"]) or graph.described(q["question"])
    seen = {fold_name(e) for e in frontier}
    for _ in range(depth):
        nxt = []
        for source in frontier:
            edges = graph.edges(source)
            pos = [e for e in edges if e.doc in gold and (fold_name(e.target) in answers or fold_name(e.target) in titles)
                   and fold_name(e.target) not in seen]
            if need_other and not {e.sentence for e in edges} - {e.sentence for e in pos}:
                continue
            if pos:
                yield source, edges, pos
                nxt += [graph.resolve(e.target) for e in pos if fold_name(e.target) in titles]
        seen |= {fold_name(e) for e in nxt}
        frontier = list(dict.fromkeys(nxt))
        if not frontier:
            break


def _question_lists(graph: Any, q: dict[str, Any], rng: random.Random, negatives: int) -> list[list[tuple[str, str, float]]]:
    """The lists of one set question (module docstring)."""
    from graphhop.read.edge_reader import edge_text

    out = []
    for source, edges, pos in gold_hops(graph, q, need_other=True):
        said = {e.sentence for e in pos}
        neg = sorted({e.sentence for e in edges} - said)
        if not neg:
            continue
        items = [(q["question"], edge_text(source, s), 1.0) for s in sorted(said)[:2]]
        items += [(q["question"], edge_text(source, s), 0.0) for s in rng.sample(neg, min(negatives, len(neg)))]
        out.append(items)
    return out


def set_questions(folders: Sequence[str | Path], work: str | Path) -> Iterator[tuple[Any, Path, dict[str, Any]]]:
    """``(walk graph, folder, question)`` for every question of the passage-set ``folders`` (indexes built under
    ``work``); the regression suites are refused (never trained on)."""
    for folder in map(Path, folders):
        if "regression" in folder.parts:
            raise ValueError(f"{folder}: the regression suites are never trained on")
        graph = _walk_graph(folder, Path(work))
        with open(folder / "questions.jsonl", encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    yield graph, folder, json.loads(line)


def set_lists(folders: Sequence[str | Path], work: str | Path, negatives: int = 6,
              seed: int = 14) -> list[list[tuple[str, str, float]]]:
    """Training lists from passage-set folders (indexes built under ``work``)."""
    rng = random.Random(seed)
    out = []
    for graph, _, q in set_questions(folders, work):
        out += _question_lists(graph, q, rng, negatives)
    return out


def train_edge_reader(folders: Sequence[str | Path], out: str | Path, work: str | Path, synthetic: int = 600,
                      recipe: RerankerRecipe = EDGE_RECIPE, log: Any = None, progress: bool = False) -> dict[str, Any]:
    """Train the edge reader on ``folders``' lists + ``synthetic`` synthetic questions; save its trained parameters
    under ``out`` (:func:`~graphhop.models.top_layers.save_top_layers`); the card."""
    from graphhop.models.top_layers import save_top_layers
    from graphhop.models.cross_encoder import load_sequence_classifier
    from graphhop.train.edge_paraphrase import synthetic_lists
    from graphhop.train.leaf_reranker import train_leaf_reranker

    lists = set_lists(folders, work, recipe.negatives, recipe.seed) if folders else []
    n_set = len(lists)
    lists += synthetic_lists(synthetic, seed=recipe.seed) if synthetic else []
    queries, items, texts = [], [], []
    for i, lst in enumerate(lists):
        queries.append(lst[0][0])
        for _, text, label in lst:
            items.append((i, str(len(texts)), label))
            texts.append(text)
    with tempfile.TemporaryDirectory() as tmp:
        card = train_leaf_reranker(queries, items, lambda k: texts[int(k)], Path(tmp) / "model", recipe,
                                   progress=progress, log=log)
        model, _ = load_sequence_classifier(Path(tmp) / "model")
    config = {"task": "walk edge reader: does the sentence state, about the source, a relation the question asks",
              "input": "(question, '<source> : <sentence>')", "max_length": recipe.max_length,
              "recipe": asdict(recipe), "sets": [Path(f).name for f in folders], "set_lists": n_set,
              "synthetic_lists": len(lists) - n_set, "items": len(items), "seconds": card.get("seconds"),
              "loss_first_last_20": card.get("loss_first_last_20")}
    save_top_layers(model, out, recipe.train_layers, config)
    return config


def recipe_with(**changes: Any) -> RerankerRecipe:
    """:data:`EDGE_RECIPE` with ``changes``."""
    return replace(EDGE_RECIPE, **changes)
