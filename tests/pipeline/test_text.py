"""The default pipeline over passage indexes (hop-by-hop retrieval + the shipped span reader) on
hand-written passage sets: right answer with every gold passage in the support.

Sets: ``tests/pipeline/data`` (fictional films/places; the demo's European passages; fictional bridges,
written with paraphrased relations after the first two were solved; fictional ships, written before the
trained matcher of the walk; fictional railways, written to check it before anything was chosen on it; fictional football clubs and paintings, written fresh
in session 4 with paraphrased relations and pronouns) and, with
``GRAPHHOP_TEXT_SUITE=1``, every ``tests/regression/text_*/`` folder (target 0.9, not reached: see
docs/RESULTS.md, issue 13).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


HERE = Path(__file__).resolve().parent
REGRESSION = HERE.parent / "regression"
DEMO_PASSAGES = HERE.parents[1] / "src" / "graphhop" / "demo" / "data" / "passages.jsonl"


#: Right-for-the-right-reason rates measured with the walk reader (docs/RESULTS.md, issue 13). The selection
#: sets (films, europe, bridges; ships and railways, written fresh in session 3 of issue 13) chose its design;
#: the regression suites (GRAPHHOP_TEXT_SUITE=1) are reported with the issue's target 0.9, which they do NOT
#: reach (0.333 / 0.478 in session 5, unchanged by the trained matcher). observatories: written fresh in
#: session 5, and theatres, written fresh in session 6 (0.536 before anything was changed, 0.571 after the session-6
#: climb; ships 0.826 -> 0.870 with it; session 6 (wlk13b): bridges 0.818 -> 0.864 by middle hops, paintings 0.800 ->
#: 0.840 by the noun naming an entity before it): floors are
#: the current figures.
#: Session 7 (lead): expeditions and universities written *blind* (the author read only the data format, never the
#: code or the other sets), measured on main at f4b92be before anything was chosen on them: 6/24 and 8/24;
#: floors one question less. Session 7 (wlk13): railways 0.800 -> 0.850 (a possessive cut from a mention); expeditions
#: 0.250 -> 0.375 and universities 0.333 -> 0.458 (mentions, counts, length units): floors again one question less.
#: Session 8 (lead): lighthouses, glassworks, volcanoes and printing written *blind* by two new authors, measured on
#: main at c711c67 before anything was chosen on them: 4/25, 6/25, 4/22, 5/22; floors one question less.
#: Session 8 (wlk13): soft word matches no longer depend on what the process read before (theatres read 14 or 16 of 28
#: on main by the order of the sets), agent nouns read as their participle too, soft threshold .62: theatres .643,
#: clubs .880, bridges .909, expeditions .333 (its expd02 was right only after other sets had been read).
#: Then a hop read elsewhere also cites its source's own passage when that names the target: universities .583,
#: lighthouses .240 (blind: floors one question less), bridges .955, railways .900.
#: Session 8 (wlq13): question types (two-sided yes/no, described comparison options, filtered counts, list siblings),
#: measured on main at 81bebea (before wlk13's change above): expeditions 8 -> 14, universities 11 -> 12, lighthouses
#: 5 -> 8, glassworks 6 -> 11, volcanoes 4 -> 6, printing 5 -> 6, theatres 18 -> 19, observatories 18 -> 19. The two
#: were measured apart: floors the lower of the two lanes' until the combined run is in.
#: Session 8 (wlk13): then titles with a bracketed qualifier (``Castellan (steamer)``) and no lower-case answer to
#: ``who``. The combined run (wlq13 + wlk13, main d42a7d0 + 164dc6d): expeditions 14, universities 14, lighthouses 10,
#: glassworks 12, volcanoes 6, printing 6 (blind: floors one question less), theatres 20, observatories 19.
#: Session 10 (lead): clockmakers (encyclopedia style) and ferries (narrative, pronouns and descriptions) written *blind*
#: by two new authors, measured on main at 850d5d4 before anything was chosen on them: 4/24, 5/25; floors one question less.
#: Session 11 (txq13b): question forms (negative quantifiers, ``Was A the ...?``, a type word inside another name,
#: frequencies and durations, ``same ...`` sides as names): lighthouses 10 -> 12, glassworks 12 -> 13, volcanoes 6 -> 8,
#: printing 6 -> 8, ferries 5 -> 6 (blind: floors one question less); the nine engineer-written sets unchanged.
#: Session 11 (lead): mines (local-history style) and circuses (magazine profiles, facts given indirectly) written
#: *blind* by two new authors, measured on main at bb4b43d before anything was chosen on them: 3/25, 3/25; floors one
#: question less. Session 11 (txw13): a claim denied in the clause that names it, a count written before the counted
#: noun in the entity's own passage, an option written as ``the clown <name>``: mines 3 -> 5, circuses 3 -> 5 (blind:
#: floors one question less); the other seventeen sets unchanged.
#: Session 12 (txl13): a question naming no entity starts from the first stage's best passage: glassworks 13 -> 14,
#: printing 8 -> 9, lighthouses 12 -> 13, mines 5 -> 6 (blind: floors one question less); the engineer-written unchanged.
#: Session 12 (txlist13): list questions (``At which universities``, ``Who were the apprentices``, items of the best's
#: kind, the support of every reading of an item): clockmakers 4 -> 5 (blind: floor one question less); volcanoes 8 -> 8
#: (a list won, a count lost); the other seventeen unchanged.
#: Session 12 (txreach13): a hop from a shortened name cites the passage titled with it (``Wendrell`` -> ``Wendrell
#: Mine``): lighthouses 13 -> 14, volcanoes 8 -> 9, mines 6 -> 8 (blind: floors one question less); engineer-written unchanged.
#: (txlist13 and txreach13 together: floors the higher of the two lanes' where they agree; volcanoes the lower until remeasured.)
#: Session 13 (txq13): a list stated as one enumeration is that enumeration: lighthouses 14 -> 15, mines 8 -> 9 (blind:
#: floors one question less); the other seventeen unchanged.
FLOORS = {"mines": 0.32, "circuses": 0.16, "clockmakers": 0.16, "ferries": 0.2, "lighthouses": 0.56, "glassworks": 0.52, "volcanoes": 0.31, "printing": 0.36,
          "expeditions": 0.54, "universities": 0.54, "films": 1.0, "europe": 1.0, "bridges": 0.95, "ships": 0.86, "railways": 0.9, "clubs": 0.88,
          "paintings": 0.84, "observatories": 0.79, "theatres": 0.71}


def _sets() -> list[tuple[str, Path, Path]]:
    sets = [("films", HERE / "data" / "films" / "passages.jsonl", HERE / "data" / "films" / "questions.jsonl"),
            ("europe", DEMO_PASSAGES, HERE / "data" / "europe" / "questions.jsonl"),
            ("bridges", HERE / "data" / "bridges" / "passages.jsonl", HERE / "data" / "bridges" / "questions.jsonl"),
            ("ships", HERE / "data" / "ships" / "passages.jsonl", HERE / "data" / "ships" / "questions.jsonl"),
            ("railways", HERE / "data" / "railways" / "passages.jsonl", HERE / "data" / "railways" / "questions.jsonl")]
    sets += [(name, HERE / "data" / name / "passages.jsonl", HERE / "data" / name / "questions.jsonl")
             for name in ("clubs", "paintings", "observatories", "theatres", "expeditions", "universities",
                          "lighthouses", "glassworks", "volcanoes", "printing", "clockmakers", "ferries",
                          "mines", "circuses")]
    if os.environ.get("GRAPHHOP_TEXT_SUITE"):  # the hand-written suites: ~25 s a question on 2 shared cores
        for folder in sorted(REGRESSION.glob("text_*")):
            if (folder / "passages.jsonl").exists() and (folder / "questions.jsonl").exists():
                sets.append((folder.name, folder / "passages.jsonl", folder / "questions.jsonl"))
    return sets


def _index(passages: Path, out: Path):
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import build_index, documents_from_passages
    from graphhop.kb.loaders import iter_passages

    return build_index(documents_from_passages(iter_passages(passages)), out, dense=DenseOptions("flat"), progress=False)


@pytest.mark.slow
@pytest.mark.parametrize("name,passages,questions", _sets(), ids=[s[0] for s in _sets()])
def test_text_ask_regression(name, passages, questions, tmp_path):
    from graphhop.eval.experiment import Experiment, ask_system
    from graphhop.eval.measures import RIGHT
    from graphhop.eval.tasks import suite_task
    from graphhop.pipeline.text import TextPipeline

    asked, golds, _ = suite_task(questions)  # scored as benchmarks/text_ask_eval.py scores it
    table = Experiment([RIGHT], report=name).run({"text": ask_system(TextPipeline(_index(passages, tmp_path / "idx")),
                                                                      explain=True)}, asked, golds)
    share = table.rows[0]["right"]
    wrong = [(g.id, t["answer"], t["support"], g.answers, sorted(g.evidence)) for t, g in zip(table.meta["traces"]["text"], golds)
             if t["answer"] not in g.answers or not g.evidence <= set(t["support"])]
    assert share >= FLOORS.get(name, 0.9), f"{name}: {share:.2f} right; wrong: {wrong}"
