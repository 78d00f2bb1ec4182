"""Session 17 (kga17): the own hand cases over tests/kgqa/data_typing's middle-set KBs, right for the right reason.

    PYTHONPATH=src python benchmarks/kgqa_middle_sets.py [--on] [KB ...]

The default pipeline (shipped scorer and reranker; the confidence off unless ``--on``) over each KB (fact ids ``f0``,
``f1``, ... in file order); a case is right when the first answer is a gold one and every gold fact is in the support
(``EM``: every gold answer listed too). Run with ``PYTHONPATH=/work/main/src`` for main's figures.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

A, F, S, C = "archives", "archives_forward", "auctions_snake", "libraries_camel"
CASES = [
    # 1. a middle set: the union over every member
    (A, "Which archives are run by people trained by Orla Venn?", ["Harbour Records Archive", "Old Mill Archive", "Salt Street Archive"],
     [("Pim Arlo", "student of", "Orla Venn"), ("Sena Ruiz", "student of", "Orla Venn"), ("Harbour Records Archive", "run by", "Pim Arlo"), ("Old Mill Archive", "run by", "Pim Arlo"), ("Salt Street Archive", "run by", "Sena Ruiz")]),
    (A, "How many archives are run by people Orla Venn trained?", ["3"],
     [("Pim Arlo", "student of", "Orla Venn"), ("Sena Ruiz", "student of", "Orla Venn"), ("Harbour Records Archive", "run by", "Pim Arlo"), ("Old Mill Archive", "run by", "Pim Arlo"), ("Salt Street Archive", "run by", "Sena Ruiz")]),
    (F, "Which archives are run by people trained by Orla Venn?", ["Harbour Records Archive", "Old Mill Archive", "Salt Street Archive"],
     [("Orla Venn", "trained", "Pim Arlo"), ("Orla Venn", "trained", "Sena Ruiz"), ("Pim Arlo", "runs", "Harbour Records Archive"), ("Pim Arlo", "runs", "Old Mill Archive"), ("Sena Ruiz", "runs", "Salt Street Archive")]),
    (F, "How many archives are run by people Orla Venn trained?", ["3"],
     [("Orla Venn", "trained", "Pim Arlo"), ("Orla Venn", "trained", "Sena Ruiz"), ("Pim Arlo", "runs", "Harbour Records Archive"), ("Pim Arlo", "runs", "Old Mill Archive"), ("Sena Ruiz", "runs", "Salt Street Archive")]),
    (F, "In which cities are the archives run by Orla Venn's students?", ["Tessholm", "Brindmoor"],
     [("Orla Venn", "trained", "Pim Arlo"), ("Orla Venn", "trained", "Sena Ruiz"), ("Pim Arlo", "runs", "Harbour Records Archive"), ("Pim Arlo", "runs", "Old Mill Archive"), ("Sena Ruiz", "runs", "Salt Street Archive"), ("Harbour Records Archive", "city", "Tessholm"), ("Old Mill Archive", "city", "Brindmoor"), ("Salt Street Archive", "city", "Tessholm")]),
    (S, "How many lots were sold at auctions held in Varnland?", ["5"],
     [("Halden", "located_in", "Varnland"), ("Merrin", "located_in", "Varnland"), ("Spring Sale Halden", "held_in", "Halden"), ("Autumn Sale Merrin", "held_in", "Merrin"), ("lot_14", "sold_at", "Spring Sale Halden"), ("lot_15", "sold_at", "Spring Sale Halden"), ("lot_22", "sold_at", "Autumn Sale Merrin"), ("lot_23", "sold_at", "Autumn Sale Merrin"), ("lot_24", "sold_at", "Autumn Sale Merrin")]),
    (S, "Which lots were sold at auctions organised by Crane & Vey?", ["lot_14", "lot_15", "lot_31"],
     [("Spring Sale Halden", "organised_by", "Crane & Vey"), ("Winter Sale Oster", "organised_by", "Crane & Vey"), ("lot_14", "sold_at", "Spring Sale Halden"), ("lot_15", "sold_at", "Spring Sale Halden"), ("lot_31", "sold_at", "Winter Sale Oster")]),
    (C, "Which cities have a library founded by a member of the Ashgrove family?", ["Calder", "Vennick"],
     [("Edda Ashgrove", "memberOfFamily", "Ashgrove family"), ("Rolf Ashgrove", "memberOfFamily", "Ashgrove family"), ("Brightwater Library", "foundedBy", "Edda Ashgrove"), ("Kettle Lane Library", "foundedBy", "Rolf Ashgrove"), ("Hollin Reading Room", "foundedBy", "Rolf Ashgrove"), ("Brightwater Library", "locatedIn", "Calder"), ("Kettle Lane Library", "locatedIn", "Vennick"), ("Hollin Reading Room", "locatedIn", "Calder")]),
    (C, "How many libraries were founded by members of the Ashgrove family?", ["3"],
     [("Edda Ashgrove", "memberOfFamily", "Ashgrove family"), ("Rolf Ashgrove", "memberOfFamily", "Ashgrove family"), ("Brightwater Library", "foundedBy", "Edda Ashgrove"), ("Kettle Lane Library", "foundedBy", "Rolf Ashgrove"), ("Hollin Reading Room", "foundedBy", "Rolf Ashgrove")]),
    # 2. containment
    (S, "Which auction houses have their head office in Varnland?", ["Crane & Vey", "Tollin House"],
     [("Halden", "located_in", "Varnland"), ("Merrin", "located_in", "Varnland"), ("Crane & Vey", "head_office", "Halden"), ("Tollin House", "head_office", "Merrin")]),
    (S, "Is Tollin House headquartered in the capital of Varnland?", ["yes"],
     [("Varnland", "capital_city", "Merrin"), ("Tollin House", "head_office", "Merrin")]),
    (S, "Is Crane & Vey headquartered in the capital of Varnland?", ["no"],
     [("Varnland", "capital_city", "Merrin"), ("Crane & Vey", "head_office", "Halden")]),
    (S, "Is Merrin Gallery headquartered in Kessia?", ["yes"],
     [("Merrin Gallery", "head_office", "Oster Port"), ("Oster Port", "located_in", "Kessia")]),
    (S, "Is Crane & Vey headquartered in Kessia?", ["no"],
     [("Crane & Vey", "head_office", "Halden"), ("Halden", "located_in", "Varnland")]),
    (A, "Is the Salt Street Archive located in Norvaly?", ["yes"],
     [("Salt Street Archive", "located in", "Tessholm"), ("Tessholm", "located in", "Norvaly")]),
    (A, "Is the Crane Memorial Archive located in Norvaly?", ["no"],
     [("Crane Memorial Archive", "located in", "Quarry Vale"), ("Quarry Vale", "located in", "Ostreth")]),
    (C, "Is Kettle Lane Library in Westmark?", ["yes"],
     [("Kettle Lane Library", "locatedIn", "Vennick"), ("Vennick", "locatedIn", "Westmark")]),
    (C, "Which libraries are in Westmark?", ["Brightwater Library", "Kettle Lane Library", "Hollin Reading Room"],
     [("Calder", "locatedIn", "Westmark"), ("Brightwater Library", "locatedIn", "Calder")]),
    (A, "Which archives are in Norvaly?", ["Harbour Records Archive", "Old Mill Archive", "Salt Street Archive", "Lantern Film Archive"],
     [("Tessholm", "located in", "Norvaly"), ("Harbour Records Archive", "located in", "Tessholm")]),
    # 3. the asked noun types a list
    (S, "Name all the auction houses with a head office in Varnland.", ["Crane & Vey", "Tollin House"],
     [("Halden", "located_in", "Varnland"), ("Merrin", "located_in", "Varnland"), ("Crane & Vey", "head_office", "Halden"), ("Tollin House", "head_office", "Merrin")]),
    (C, "List every library founded by Rolf Ashgrove.", ["Kettle Lane Library", "Hollin Reading Room"],
     [("Kettle Lane Library", "foundedBy", "Rolf Ashgrove"), ("Hollin Reading Room", "foundedBy", "Rolf Ashgrove")]),
    (F, "Name all the archives in Norvaly.", ["Harbour Records Archive", "Old Mill Archive", "Salt Street Archive", "Lantern Film Archive"],
     [("Tessholm", "region", "Norvaly"), ("Harbour Records Archive", "city", "Tessholm")]),
]
L = "lots"
CASES += [
    (L, "How many lots were sold at auctions held in Varnland?", ["13"],
     [("Halden", "country", "Varnland"), ("Merrin", "country", "Varnland"), ("Harvest Auction", "venue", "Halden"), ("Frost Auction", "venue", "Merrin")]
     + [("Harvest Auction", "includes lot", f"Lot A{i}") for i in range(1, 8)] + [("Frost Auction", "includes lot", f"Lot B{i}") for i in range(1, 7)]),
    (L, "How many lots did Lio Vey auction?", ["9"],
     [("Frost Auction", "auctioneer", "Lio Vey"), ("Tide Auction", "auctioneer", "Lio Vey")]
     + [("Frost Auction", "includes lot", f"Lot B{i}") for i in range(1, 7)] + [("Tide Auction", "includes lot", f"Lot C{i}") for i in range(1, 4)]),
]

DATA = Path(__file__).resolve().parents[1] / "tests" / "kgqa" / "data_typing"


def pipeline(kb: str, abstain: bool) -> tuple[Any, list[list[str]]]:
    """The default pipeline over ``DATA/<kb>.tsv`` and the KB's rows."""
    from graphhop.core import Fact
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.pipeline import KGQA

    rows = [line.split("\t") for line in (DATA / f"{kb}.tsv").read_text(encoding="utf-8").splitlines() if line]
    store = KGStore.from_facts(Fact(h, r, t, f"f{i}") for i, (h, r, t) in enumerate(rows))
    return KGQA(store, rerank=True, abstain=abstain), rows


def main(argv: list[str]) -> None:
    """Print each case (``RR`` right for the right reason, ``EM`` the whole gold list) and the totals."""
    only = [a for a in argv if not a.startswith("--")]
    built: dict[str, tuple[Any, list[list[str]]]] = {}
    rr = em = n = 0
    for kb, question, gold, facts in CASES:
        if only and kb not in only:
            continue
        if kb not in built:
            built[kb] = pipeline(kb, "--on" in argv)
        kgqa, rows = built[kb]
        res = kgqa.ask(question)
        support = {tuple(rows[int(f[1:])]) for f in res["support"]}
        recall = sum(tuple(f) in support for f in facts) / len(facts)
        right = bool(res["answer"]) and res["answer"] in gold and recall == 1.0
        whole = right and sorted(res["answers"]) == sorted(gold)
        rr, em, n = rr + right, em + whole, n + 1
        print(f"{'RR' if right else '--'} {'EM' if whole else '  '} recall={recall:.2f} {kb:17s} {question}\n"
              f"     -> {res['answers'][:6]} path={res['trace'].get('relation_path')}")
    print(f"TOTAL right for the right reason {rr}/{n}, with the whole list {em}/{n}")


if __name__ == "__main__":
    main(sys.argv[1:])
