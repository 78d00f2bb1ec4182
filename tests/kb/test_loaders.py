import json

import pytest

from graphhop.core import InputError
from graphhop.kb.loaders import BadLines, detect_triple_format, iter_passages, iter_triples


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize(
    "name,text",
    [
        ("kb.tsv", "Paris\tcapital_of\tFrance\nBerlin\tcapital_of\tGermany\n"),
        ("kb.txt", "Paris|capital_of|France\n\nBerlin|capital_of|Germany\n"),
        ("kb.jsonl", '{"head":"Paris","relation":"capital_of","tail":"France"}\n{"head":"Berlin","relation":"capital_of","tail":"Germany"}\n'),
        ("kb.nt", "<http://x.org/Paris> <http://x.org/capital_of> <http://x.org/France> .\n"
                  "# comment\n<http://x.org/Berlin> <http://x.org/capital_of> \"Germany\"@en .\n"),
    ],
)
def test_each_triple_format(tmp_path, name, text):
    facts = list(iter_triples(write(tmp_path, name, text)))
    assert [f.triple for f in facts] == [("Paris", "capital_of", "France"), ("Berlin", "capital_of", "Germany")]
    assert [f.id for f in facts] == ["0", "1"]


def test_format_detection(tmp_path):
    assert detect_triple_format(write(tmp_path, "a.txt", "a|b|c\n")) == "pipe"
    assert detect_triple_format(write(tmp_path, "b.txt", "a\tb\tc\n")) == "tsv"
    assert detect_triple_format(write(tmp_path, "c.txt", '{"head": 1}\n')) == "jsonl"


def test_loader_streams(tmp_path):
    p = write(tmp_path, "kb.tsv", "".join(f"e{i}\tr\te{i + 1}\n" for i in range(1000)))
    it = iter_triples(p)
    first = next(it)  # a generator: nothing else is parsed yet
    assert first.triple == ("e0", "r", "e1")
    assert sum(1 for _ in it) == 999


@pytest.mark.parametrize(
    "name,text,line,problem",
    [
        ("kb.tsv", "a\tb\tc\nonly\ttwo\n", 2, "expected 3 tab-separated fields, found 2"),
        ("kb.txt", "a|b|c\na|b|c|d\n", 2, "expected 3 '|'-separated fields, found 4"),
        ("kb.jsonl", '{"head":"a","relation":"b","tail":"c"}\n{"head":"a","tail":"c"}\n', 2, "missing or non-string field(s): relation"),
        ("kb2.jsonl", '{"head":"a","relation":"b","tail":"c"}\n{oops\n', 2, "invalid JSON"),
        ("kb.nt", "<a> <b> <c> .\n<a> <b>\n", 2, "not an N-Triples statement"),
        ("kb3.tsv", "a\t\tc\n", 1, "empty relation"),
    ],
)
def test_bad_line_names_file_line_and_problem(tmp_path, name, text, line, problem):
    p = write(tmp_path, name, text)
    with pytest.raises(InputError) as exc:
        list(iter_triples(p))
    message = str(exc.value)
    assert message.startswith(f"{p}:{line}: ")
    assert problem in message
    assert "\n" not in message


def test_skip_bad_lines_reports_count_and_first(tmp_path):
    p = write(tmp_path, "kb.tsv", "a\tb\tc\nbad\nd\te\tf\nalso bad\ng\th\ti\n")
    bad = BadLines(keep=1)
    facts = list(iter_triples(p, skip_bad_lines=True, bad=bad))
    assert [f.triple[0] for f in facts] == ["a", "d", "g"]
    assert [f.id for f in facts] == ["0", "1", "2"]
    assert bad.count == 2 and len(bad.first) == 1 and f"{p}:2:" in bad.first[0]
    assert "skipped 2 bad line(s)" in bad.summary()


def test_missing_file_and_non_utf8(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        list(iter_triples(tmp_path / "nope.tsv"))
    p = tmp_path / "latin.tsv"
    p.write_bytes(b"a\tb\tc\n\xff\xfe\tb\tc\n")
    with pytest.raises(InputError, match=r"latin.tsv:2: not valid UTF-8"):
        list(iter_triples(p, fmt="tsv"))


def test_passages_jsonl_and_bad_line(tmp_path):
    p = write(tmp_path, "p.jsonl", '{"id":"x","title":"T","text":"hello"}\n{"text":"no id"}\n')
    ps = list(iter_passages(p))
    assert [(q.id, q.title, q.text) for q in ps] == [("x", "T", "hello"), ("1", None, "no id")]
    bad = write(tmp_path, "b.jsonl", '{"id":"x","text":"ok"}\n{"id":"y","title":"T"}\n')
    with pytest.raises(InputError, match=r"b.jsonl:2: missing or empty field 'text'"):
        list(iter_passages(bad))


def test_hotpotqa_and_musique_corpus_formats(tmp_path):
    hotpot = write(tmp_path, "hotpot.json", json.dumps({"Demon Dice": ["Demon Dice is a game.", " It uses dice."]}))
    (p,) = iter_passages(hotpot)
    assert (p.id, p.title, p.text) == ("Demon Dice", "Demon Dice", "Demon Dice is a game. It uses dice.")
    musique = write(tmp_path, "musique.json", json.dumps([{"title": "A", "text": "a text"}, {"title": "B", "text": "b"}]))
    assert [(p.id, p.title) for p in iter_passages(musique)] == [("0", "A"), ("1", "B")]


@pytest.mark.data
def test_real_corpora_load(data_dir):
    hotpot = list(iter_passages(data_dir / "hotpotqa" / "hotpotqa_corpus.json"))
    musique = list(iter_passages(data_dir / "musique" / "musique_corpus.json"))
    assert len(hotpot) == 994
    assert len(musique) > 1000
    metaqa = sum(1 for _ in iter_triples(data_dir / "metaqa" / "kb.txt"))
    assert metaqa == 129_233
