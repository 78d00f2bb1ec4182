"""Session 17 (kgh17): the hand17 KBs' seven questions in three naming styles, read by ``KGQA(..., rerank=True)`` (the
tests' ``typing_kb`` fixture): answer, support recall against the gold facts, facts shown beyond them.

    PYTHONPATH=src python benchmarks/kgqa_hand17.py        # run from the repository root
"""

from __future__ import annotations

from pathlib import Path

DATA = Path("tests/kgqa/data_typing")
#: the snake_case and camelCase names of hand17's relations; ``founded`` and ``built`` are stored the other way round in camelCase
STYLES = {"architect": ("architect", "designedBy"), "born in": ("place_of_birth", "birthPlace"),
          "located in": ("country", "inCountry"), "height": ("height_m", "heightMetres"),
          "founded": ("founder_of", "foundedBy"), "built": ("constructed", "builtBy")}
INVERSE = {"founded", "built"}
QUESTIONS = [
    ("In which country is the city where the architect of Velmor Tower was born?", "Harlund",
     [("Velmor Tower", "architect", "Ansel Drake"), ("Ansel Drake", "born in", "Kestrow"), ("Kestrow", "located in", "Harlund")]),
    ("Was the architect of Velmor Tower born in Marrick?", "no",
     [("Velmor Tower", "architect", "Ansel Drake"), ("Ansel Drake", "born in", "Kestrow")]),
    ("Was the architect of Gant Spire born in Pellbrook?", "yes",
     [("Gant Spire", "architect", "Mira Solden"), ("Mira Solden", "born in", "Pellbrook")]),
    ("Which is taller, Velmor Tower or Gant Spire?", "Velmor Tower",
     [("Velmor Tower", "height", "212"), ("Gant Spire", "height", "187")]),
    ("In which country was the founder of the company that built Gant Spire born?", "Brevania",
     [("Tallow Works", "built", "Gant Spire"), ("Oskar Pell", "founded", "Tallow Works"), ("Oskar Pell", "born in", "Marrick"),
      ("Marrick", "located in", "Brevania")]),
    ("Was the founder of the company that built Gant Spire born in Kestrow?", "no",
     [("Tallow Works", "built", "Gant Spire"), ("Oskar Pell", "founded", "Tallow Works"), ("Oskar Pell", "born in", "Marrick")]),
    ("Is the city where the architect of Gant Spire was born in Harlund?", "no",
     [("Gant Spire", "architect", "Mira Solden"), ("Mira Solden", "born in", "Pellbrook"), ("Pellbrook", "located in", "Brevania")]),
]


def styled(style: str, fact: tuple[str, str, str]) -> tuple[str, str, str]:
    """``fact`` (hand17's plain relation) as the ``style`` KB stores it."""
    head, rel, tail = fact
    if style == "plain":
        return fact
    name = STYLES[rel][0 if style == "snake" else 1]
    return (tail, name, head) if style == "camel" and rel in INVERSE else (head, name, tail)


def main() -> None:
    """Print one line per question and style, then the totals."""
    from graphhop.core import Fact
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.pipeline import KGQA
    from graphhop.models.encoder import set_threads

    set_threads(1)
    right = full = 0
    for style, name in (("plain", "hand17"), ("snake", "hand17_snake"), ("camel", "hand17_camel")):
        rows = [tuple(line.split("\t")) for line in (DATA / f"{name}.tsv").read_text(encoding="utf-8").splitlines() if line]
        kgqa = KGQA(KGStore.from_facts(Fact(h, r, t, f"f{i}") for i, (h, r, t) in enumerate(rows)), rerank=True)
        for question, want, gold in QUESTIONS:
            question = question.replace("architect of", "designer of") if style == "camel" else question
            out = kgqa.ask(question)
            shown = {rows[int(f[1:])] for f in out["support"]}
            facts = {styled(style, f) for f in gold}
            recall = len(facts & shown) / len(facts)
            right += out["answer"] == want
            full += out["answer"] == want and recall >= 1.0
            print(f"{style:5} | {question} | {out['answer']} (want {want}) | recall {recall:.2f} | extra {len(shown - facts)}")
    print(f"right {right} of {3 * len(QUESTIONS)}, right for the right reason {full}")


if __name__ == "__main__":
    main()
