"""One Experiment: pipelines × a dataset split × measures -> one table (and JSON).

>>> exp = Experiment(["fact MRR", "fact Hits@1"], report="dev", select="train-carve")
>>> table = exp.run({"bm25": ranking_system(build_pipeline("bm25", index))}, questions, golds)
>>> print(table.markdown())

Honest evaluation is built in: the split that *chose* anything (``select``: epoch, threshold,
merge rule, k) may never be the split reported (``report``) — :class:`Experiment` refuses them equal;
:func:`stride_sample` samples evenly over a file instead of taking its first lines; systems handed
the gold size ("oracle k") are labelled so in every table (:attr:`System.oracle`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence, TypeVar

from graphhop.core import InputError, Stage
from graphhop.eval.measures import Gold, Measure, Prediction, get_measure

__all__ = ["System", "Experiment", "Table", "stride_sample", "ranking_system", "graph_system", "ask_system",
           "read_system", "SPLITS"]

#: Splits an evaluation command takes (``test`` files are placed beside the dev files).
SPLITS = ("dev", "test")

T = TypeVar("T")


def stride_sample(items: Sequence[T], n: int | None) -> list[T]:
    """``n`` items spread evenly over ``items`` (every ``len/n``-th, from the first); all when ``n`` is None or larger."""
    items = list(items)
    if n is None or n >= len(items):
        return items
    if n < 1:
        raise InputError(f"--sample: must be at least 1, got {n}")
    return [items[(i * len(items)) // n] for i in range(n)]


@dataclass
class System:
    """A named way to predict: ``predict(questions) -> predictions`` (one per question).

    ``oracle`` marks a system handed gold information (e.g. the gold set size as its k): its table
    row says so.
    """

    predict: Callable[[list[str]], list[Prediction]]
    oracle: str = ""


def ranking_system(stage: Stage, k: int = 1000, docs: Any = None, batch: int = 256, oracle: str = "") -> System:
    """Rankings of ``stage`` at depth ``k`` (hits without text get it from ``docs``)."""

    def predict(questions: list[str]) -> list[Prediction]:
        out = []
        for i in range(0, len(questions), batch):
            for ranking in stage.search(questions[i : i + batch], k):
                if docs is not None:
                    ranking = [h if h.fact is not None or h.text else docs[h.id].hit(h.score) for h in ranking]
                out.append(Prediction(ranking=ranking))
        return out

    return System(predict, oracle)


def graph_system(stage: Stage, oracle: str = "") -> System:
    """Evidence graphs of ``stage`` (``retrieve_graph``)."""
    return System(lambda qs: [Prediction(graph=g) for g in stage.retrieve_graph(qs)], oracle)


def ask_system(stage: Any, oracle: str = "", qtypes: Mapping[str, str | None] | None = None,
               explain: bool = False) -> System:
    """Answers of an ask pipeline (``ask``): the top answer, the answer set, the evidence graph and the
    support; ``qtypes`` maps a question to the type it is asked as (default: the pipeline detects it);
    ``explain`` keeps each answer and its support as the table's traces."""

    def predict(questions: list[str]) -> list[Prediction]:
        out = []
        for q in questions:
            res = stage.ask(q, qtypes.get(q)) if qtypes is not None else stage.ask(q)
            out.append(Prediction(graph=res.graph, answer=res.answer, answers=list(res.answers),
                                  cache={"qtype": res.qtype, "support": list(res.support), "supported": res.supported}))
            if explain:
                out[-1].cache["trace"] = {"question": q, "answer": res.answer, "answers": list(res.answers),
                                          "support": list(res.support)}
        return out

    return System(predict, oracle)


def read_system(graphs: Sequence[Any], reader: Any, oracle: str = "") -> System:
    """A reader over given evidence graphs (one per question, e.g. the gold graphs: a reader's ceiling);
    ``reader`` is a :class:`~graphhop.pipeline.stages.ReaderStage` (``read(question, graph)``)."""

    def predict(questions: list[str]) -> list[Prediction]:
        if len(questions) != len(graphs):
            raise InputError(f"{len(questions)} questions for {len(graphs)} graphs")
        out = []
        for q, graph in zip(questions, graphs):
            res = reader.read(q, graph)
            out.append(Prediction(graph=graph, answer=res.answer.text, answers=list(res.answers), cache={"qtype": res.qtype}))
        return out

    return System(predict, oracle)


@dataclass
class Table:
    """Rows of ``{"method", "n", measure...: mean, "s/q"}``; ``groups`` holds the same per group label."""

    title: str
    measures: list[str]
    rows: list[dict[str, Any]]
    groups: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The table as JSON-ready data."""
        return {"title": self.title, "measures": self.measures, "rows": self.rows, "groups": self.groups, **self.meta}

    def markdown(self, group: str | None = None, digits: int = 3) -> str:
        """A markdown table (``group``: one row per method and group value)."""
        rows = self.rows if group is None else self.groups[group]
        cols = ["method"] + ([group] if group else []) + ["n"] + self.measures + ([] if group else ["s/q"])
        lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" if c in ("method", group) else "---:" for c in cols) + "|"]
        for r in rows:
            cells = [f"{r[c]:.{digits}f}" if isinstance(r.get(c), float) else str(r.get(c, "")) for c in cols]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def dumps(self) -> str:
        """The JSON text."""
        return json.dumps(self.to_json(), ensure_ascii=False, indent=1)


@dataclass
class Experiment:
    """Measures over one report split; ``select`` names the split that chose anything (refused when equal)."""

    measures: Sequence[str | Measure]
    report: str = "dev"
    select: str | None = None
    title: str = ""

    def __post_init__(self) -> None:
        if self.select is not None and self.select == self.report:
            raise InputError(f"the selection split and the report split are both {self.report!r}: "
                             "a split that chose anything cannot be the one reported")
        self._measures = [m if isinstance(m, Measure) else get_measure(m) for m in self.measures]
        if not self._measures:
            raise InputError("an experiment needs at least one measure")

    def run(self, systems: dict[str, System], questions: Sequence[str], golds: Sequence[Gold]) -> Table:
        """Run every system on ``questions`` and score it; one row per system (and per group)."""
        if len(questions) != len(golds):
            raise InputError(f"{len(questions)} questions for {len(golds)} gold records")
        if not questions:
            raise InputError(f"{self.title or 'experiment'}: no questions to evaluate on split {self.report!r}")
        names = [m.name for m in self._measures]
        table = Table(self.title, names, [], {}, {"report": self.report, "select": self.select, "n": len(questions)})
        for name, system in systems.items():
            t0 = time.perf_counter()
            preds = system.predict(list(questions))
            seconds = time.perf_counter() - t0
            scores = {m.name: m.score(preds, golds) for m in self._measures}
            label = f"{name} (oracle: {system.oracle})" if system.oracle else name
            table.rows.append(_row(label, range(len(golds)), scores, seconds))
            traces = [p.cache["trace"] for p in preds if "trace" in p.cache]
            if traces:  # what a method explains of itself (e.g. GoldEn's hop queries)
                table.meta.setdefault("traces", {})[label] = traces
            for key in sorted({k for g in golds for k in g.groups}):
                for value in sorted({g.groups.get(key, "") for g in golds}):
                    idx = [i for i, g in enumerate(golds) if g.groups.get(key, "") == value]
                    table.groups.setdefault(key, []).append({**_row(label, idx, scores, None), key: value})
        return table


def _row(label: str, idx: Sequence[int], scores: dict[str, list[float]], seconds: float | None) -> dict[str, Any]:
    idx = list(idx)
    row: dict[str, Any] = {"method": label, "n": len(idx)}
    for name, values in scores.items():
        row[name] = sum(values[i] for i in idx) / len(idx) if idx else 0.0
    if seconds is not None:
        row["s/q"] = seconds / max(1, len(idx))
    return row
