"""The kgqa selection KBs with their names written as real KBs write them: a robustness probe.

Each selection KB (``tests/kgqa/data/kg_*``) is rewritten into variants that ask the same questions over the
same graph, only named differently, as users' KBs are (gold answers and gold facts rewritten alike):

``original``      the KB as written (``born in``)
``snake``         ``born_in``
``camel``         ``bornIn``
``uri``           ``http://example.org/ontology/bornIn`` (an RDF export's predicate IRIs)
``wikidata``      Wikidata's property labels (``place of birth``, ``country of citizenship``, ``inception``,
                  ``located in the administrative territorial entity``); a relation without a label here,
                  or whose label another relation of the same KB already took, keeps its name
``inverse``       relations with a natural inverse name stored the other way round (``X written by Y`` becomes
                  ``Y author of X``; ``located in`` becomes ``contains``); the others unchanged
``lower-kb``      every entity name in the KB lower-cased (the questions as written)
``lower-question`` the questions lower-cased (the KB as written)

Then each variant is answered by the ``kgqa`` pipeline (the shipped scorer, ``--hops``) as the selection test
does (:func:`graphhop.kgqa.evaluate.domain_results`), and right-for-the-right-reason counts are printed per KB and
variant (``--json`` for one JSON object; ``--details FILE`` for one line per question)::

    python benchmarks/kgqa_relation_variants.py --hops 4 [--variants camel,wikidata] [--out DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Sequence

Triple = tuple[str, str, str]
DATA = Path(__file__).resolve().parents[1] / "tests" / "kgqa" / "data"

#: Wikidata property labels for the selection KBs' relations (the property's English label; P-ids for reference)
WIKIDATA = {
    "born in": "place of birth",  # P19
    "birth year": "date of birth",  # P569
    "citizen of": "country of citizenship",  # P27
    "nationality": "country of citizenship",
    "located in": "located in the administrative territorial entity",  # P131
    "in country": "country", "country": "country",  # P17
    "year founded": "inception", "year formed": "inception", "year created": "inception", "year built": "inception",  # P571
    "headquartered in": "headquarters location", "headquarters": "headquarters location",  # P159
    "based in": "location",  # P276
    "written by": "author",  # P50
    "published by": "publisher",  # P123
    "year published": "publication date", "release year": "publication date", "year released": "publication date",  # P577
    "pages": "number of pages",  # P1104
    "won award": "award received", "received": "award received", "award received": "award received",  # P166
    "translated by": "translator",  # P655
    "sequel of": "follows",  # P155
    "affiliated with": "affiliation",  # P1416
    "director": "director / manager", "administrator": "director / manager",  # P1037
    "number of beds": "number of hospital beds",  # P6801
    "specialty": "health specialty",  # P1995
    "studied at": "educated at",  # P69
    "works at": "employer", "writes for": "employer",  # P108
    "formed in": "location of formation",  # P740
    "number of students": "students count",  # P2196
    "performed by": "performer",  # P175
    "plays": "instrument",  # P1303
    "signed to": "record label",  # P264
    "beat": "field of work",  # P101
    "chairman": "chairperson",  # P488
    "daily circulation": "circulation",
    "editor in chief": "editor-in-chief",  # P5769
    "inhabitants": "population",  # P1082
    "presented by": "conferred by",  # P1027
    "published in": "place of publication",  # P291
    "built by": "manufacturer", "manufacturer": "manufacturer",  # P176
    "chief executive": "chief executive officer",  # P169
    "length in km": "length", "length km": "length",  # P2043
    "operated by": "operator",  # P137
    "runs on": "connecting line",  # P81
    "top speed": "speed",  # P2052
    "year opened": "date of official opening",  # P1619
    "elevation": "elevation above sea level",  # P2044
    "first mapped by": "discoverer or inventor",  # P61
    "flows into": "mouth of the watercourse",  # P403
    "flows through": "basin country",  # P205
    "lies on": "located in or next to body of water",  # P206
    "source": "origin of the watercourse",  # P885
    "acquired by": "owned by",  # P127
    "developed by": "developer",  # P178
    "license": "copyright license",  # P275
    "number of employees": "employees",  # P1128
    "written in": "programming language",  # P277
    "crew member": "crew member(s)",  # P1029
    "destination": "destination point",  # P1444
    "height in m": "height",  # P2048
    "launch year": "launch date",  # P619
    "launched from": "launch site",  # P448
    "launched on": "space launch vehicle",  # P375
    "mass in kg": "mass",  # P2067
}

#: relation -> the name of the same fact read the other way round (``X written by Y`` = ``Y author of X``)
INVERSE = {
    "born in": "birthplace of", "written by": "author of", "published by": "publisher of", "founded by": "founder of",
    "developed by": "developer of", "designed by": "designer of", "built by": "builder of", "operated by": "operator of",
    "owned by": "owner of", "performed by": "performer of", "translated by": "translator of", "presented by": "presents",
    "acquired by": "acquired", "works at": "employs", "writes for": "has writer", "studied at": "alma mater of",
    "located in": "contains", "capital": "capital of", "member of": "has member", "signed to": "has signed",
    "headquartered in": "headquarters of", "based in": "base of", "director": "director of",
    "editor in chief": "editor in chief of", "chairman": "chairman of", "chief executive": "chief executive of",
    "administrator": "administrator of", "manufacturer": "manufactured", "crew member": "crew member of",
    "launched on": "launched", "launched from": "launch site of", "first mapped by": "mapped",
    "won award": "awarded to", "received": "awarded to", "award received": "awarded to", "sequel of": "has sequel",
    "serves": "served by", "crosses": "crossed by", "source": "source of", "destination": "destination of",
    "plays": "played by",
}


def camel(name: str) -> str:
    """``born in`` -> ``bornIn``."""
    words = name.split()
    return words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:])


def _renamer(mapping: dict[str, str], relations: Sequence[str]) -> dict[str, str]:
    """``mapping`` restricted so that no two relations of one KB get one name (a later one keeps its own)."""
    out: dict[str, str] = {}
    taken = set(relations) - set(mapping)
    for rel in relations:
        new = mapping.get(rel, rel)
        out[rel] = new if new not in taken else rel
        taken.add(out[rel])
    merged = sorted({new for new in out.values() if list(out.values()).count(new) > 1})
    if merged:
        raise ValueError(f"renaming would merge relations into {', '.join(map(repr, merged))}")
    return out


def _relation_variant(triples: Sequence[Triple], name: str) -> Callable[[Triple], Triple]:
    relations = list(dict.fromkeys(r for _, r, _ in triples))
    if name == "inverse":
        inverse = _renamer(INVERSE, relations)
        return lambda t: (t[2], inverse[t[1]], t[0]) if inverse[t[1]] != t[1] else t
    rename = {"snake": lambda r: r.replace(" ", "_"), "camel": camel,
              "uri": lambda r: "http://example.org/ontology/" + camel(r)}.get(name)
    table = _renamer(WIKIDATA, relations) if name == "wikidata" else {r: rename(r) if rename else r for r in relations}
    return lambda t: (t[0], table[t[1]], t[2])


VARIANTS = ("original", "snake", "camel", "uri", "wikidata", "inverse", "lower-kb", "lower-question")


def variant(triples: Sequence[Triple], questions: Sequence[dict[str, Any]], name: str) -> tuple[list[Triple], list[dict[str, Any]]]:
    """``(triples, questions)`` of variant ``name`` (see the module docstring) of one KB."""
    if name not in VARIANTS:
        raise ValueError(f"unknown variant {name!r}; choose from {', '.join(VARIANTS)}")
    fact: Callable[[Triple], Triple] = lambda t: t
    ask: Callable[[str], str] = lambda q: q
    answer: Callable[[str], str] = lambda a: a
    if name == "lower-kb":
        fact = lambda t: (t[0].lower(), t[1], t[2].lower())
        answer = str.lower
    elif name == "lower-question":
        ask = str.lower
    elif name != "original":
        fact = _relation_variant(triples, name)
    rows = [{**q, "question": ask(q["question"]), "answers": [answer(a) for a in q["answers"]],
             "gold_facts": [list(fact(tuple(f))) for f in q["gold_facts"]]} for q in questions]
    return [fact(t) for t in triples], rows


def _read_kb(folder: Path) -> tuple[list[Triple], list[dict[str, Any]]]:
    """The triples (``kb.tsv``) and questions (``questions.jsonl``) of a KB folder."""
    triples = [tuple(line.split("\t")) for line in (folder / "kb.tsv").read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [json.loads(line) for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    return triples, questions


def write_variant(folder: Path, out: Path, name: str) -> Path:
    """Write variant ``name`` of the KB folder ``folder`` (``kb.tsv`` + ``questions.jsonl``) to ``out/<kb>-<name>``."""
    kb, rows = variant(*_read_kb(folder), name)
    target = out / f"{folder.name}-{name}"
    target.mkdir(parents=True, exist_ok=True)
    (target / "kb.tsv").write_text("".join("\t".join(t) + "\n" for t in kb), encoding="utf-8")
    (target / "questions.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return target


def measure(folders: Sequence[Path], names: Sequence[str], out: Path, hops: int,
            sample: int | None = None) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """``{kb: {variant: rows}}``: each variant answered by the kgqa pipeline (one scorer for all); ``sample``:
    that many questions of each KB, an even stride (default: all)."""
    from graphhop.cli.kgqa import support_triples
    from graphhop.eval.experiment import stride_sample
    from graphhop.kb.loaders import iter_triples
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.evaluate import evaluate_examples, load_regression
    from graphhop.kgqa.pipeline import KGQA
    from graphhop.kgqa.scorer import PathScorer
    from tqdm.auto import tqdm

    scorer = PathScorer.load()
    results: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for folder in tqdm(folders, desc="KBs", file=sys.stderr):
        for name in names:
            kb, examples = load_regression(write_variant(folder, out, name))
            pipe = KGQA(KGStore.from_facts(iter_triples(kb)), scorer, max_hops=hops)
            rows = evaluate_examples(pipe.ask, stride_sample(examples, sample), support_triples)
            results.setdefault(folder.name, {})[name] = rows
    return results


def table(results: dict[str, dict[str, list[dict[str, Any]]]], names: Sequence[str]) -> str:
    """Right reason (count of n) per KB and variant, and the totals, as a Markdown table."""
    lines = ["| KB | n | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    totals = dict.fromkeys(names, 0)
    n_all = 0
    for kb, by_variant in results.items():
        n = len(next(iter(by_variant.values())))
        n_all += n
        cells = []
        for name in names:
            right = sum(r["right_reason"] for r in by_variant[name])
            totals[name] += right
            cells.append(str(right))
        lines.append(f"| {kb} | {n} | " + " | ".join(cells) + " |")
    lines.append(f"| **all** | {n_all} | " + " | ".join(f"**{totals[k]}**" for k in names) + " |")
    return "\n".join(lines)


def _check_args(ap: argparse.ArgumentParser, args: argparse.Namespace, folders: Sequence[Path], names: Sequence[str]) -> None:
    """One-line errors before the long run: ``--hops`` below 1, a ``--details`` file that cannot be written, a
    variant that cannot be made of a KB (its renaming would merge two relations)."""
    from graphhop.core import InputError
    from graphhop.io import check_out_path

    if args.hops < 1:
        ap.error(f"--hops must be at least 1 (got {args.hops})")
    if args.details:
        try:
            target = check_out_path(args.details)
            if target.is_dir():
                ap.error(f"--details {args.details}: is a directory, expected a file path")
            tempfile.TemporaryFile(dir=target.parent).close()  # os.access says yes to root, even on /proc
        except InputError as exc:
            ap.error(f"--details {exc}")
        except OSError as exc:
            ap.error(f"--details {args.details}: cannot write beside it ({exc.strerror or exc})")
    for folder in folders:
        for name in names:
            try:
                variant(*_read_kb(folder), name)
            except (OSError, ValueError) as exc:
                ap.error(f"{folder.name}, variant {name}: {exc}")


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    from graphhop.io import atomic_write_text

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hops", type=int, default=4)
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated, of: " + ", ".join(VARIANTS))
    ap.add_argument("--kbs", default="", help="comma-separated KB folder names (default: every tests/kgqa/data/kg_*)")
    ap.add_argument("--out", type=Path, default=None, help="where the variant folders are written (default: a temp dir)")
    ap.add_argument("--details", type=Path, default=None, help="one JSON line per question and variant")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    names = [v.strip() for v in args.variants.split(",") if v.strip()]
    bad = [v for v in names if v not in VARIANTS]
    if bad:
        ap.error(f"unknown variant(s) {', '.join(bad)}; choose from {', '.join(VARIANTS)}")
    wanted = {k.strip() for k in args.kbs.split(",") if k.strip()}
    folders = sorted(p for p in DATA.glob("kg_*") if (p / "kb.tsv").is_file() and (not wanted or p.name in wanted))
    if not folders:
        ap.error(f"no KB folders under {DATA} match {args.kbs!r}")
    _check_args(ap, args, folders, names)
    with tempfile.TemporaryDirectory() as tmp:
        results = measure(folders, names, args.out or Path(tmp), args.hops)
    if args.details:
        atomic_write_text(args.details, "".join(json.dumps({"kb": kb, "variant": v, **r}, ensure_ascii=False) + "\n"
                                                for kb, by in results.items() for v, rows in by.items() for r in rows))
    if args.json:
        print(json.dumps({kb: {v: sum(r["right_reason"] for r in rows) for v, rows in by.items()} for kb, by in results.items()}))
    else:
        print(table(results, names))


if __name__ == "__main__":
    main()
