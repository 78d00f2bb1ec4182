"""Streaming loaders for knowledge sources: triples (TSV, pipe, JSONL, N-Triples) and passages.

Every loader is a generator: a 10M-line file never needs 10M objects in memory at once. A
malformed line raises :class:`~graphhop.core.InputError` naming the file, the line number and the
problem, unless ``skip_bad_lines`` is set; then it is counted in a :class:`BadLines` report.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from graphhop.core import Fact, InputError, Passage

__all__ = ["BadLines", "TRIPLE_FORMATS", "detect_triple_format", "iter_lines", "iter_jsonl", "read_json", "iter_triples", "iter_passages"]

TRIPLE_FORMATS = ("tsv", "pipe", "jsonl", "nt")
_NT = re.compile(r'^\s*(<[^>]*>|_:\S+)\s+(<[^>]*>)\s+(<[^>]*>|_:\S+|"(?:[^"\\]|\\.)*"(?:@[\w-]+|\^\^<[^>]*>)?)\s*\.\s*$')


@dataclass
class BadLines:
    """What was skipped: a count and the first few ``file:line: problem`` messages."""

    keep: int = 5
    count: int = 0
    first: list[str] = field(default_factory=list)

    def add(self, message: str) -> None:
        """Record one skipped line."""
        self.count += 1
        if len(self.first) < self.keep:
            self.first.append(message)

    def summary(self) -> str:
        """One line for the user, e.g. ``skipped 3 bad lines; first: ...``."""
        if not self.count:
            return "no bad lines"
        return f"skipped {self.count} bad line(s); first: " + " | ".join(self.first)


def detect_triple_format(path: Path) -> str:
    """Guess the triple format from the extension, then from the first non-empty line."""
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        return "jsonl"
    if suffix in (".nt", ".ntriples"):
        return "nt"
    if suffix == ".tsv":
        return "tsv"
    for _, line in iter_lines(path):
        if line.strip():
            if line.lstrip().startswith("{"):
                return "jsonl"
            if line.lstrip().startswith(("<", "_:")):
                return "nt"
            return "tsv" if "\t" in line else "pipe"
    return "tsv"


def _open_binary(path: Path):
    try:
        return path.open("rb")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, expected a file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _decode(raw: bytes, path: Path, lineno: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}:{lineno}: not valid UTF-8 text (byte {exc.start + 1} of the line)") from None


def iter_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """Stream ``(line number, text)`` of a UTF-8 file (line end kept); bad UTF-8 names file and line.

    Lines end at ``\\n``; callers strip ``\\r\\n``.
    """
    path = Path(path)
    with _open_binary(path) as fh:
        for lineno, raw in enumerate(fh, start=1):
            yield lineno, _decode(raw, path, lineno)


def read_json(path: str | Path):
    """Read one JSON document; a missing file, bad UTF-8 or invalid JSON raises a one-line :class:`InputError`."""
    path = Path(path)
    with _open_binary(path) as fh:
        data = fh.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        lineno = data[: exc.start].count(b"\n") + 1
        raise InputError(f"{path}:{lineno}: not valid UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply") from None


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict]]:
    """Stream ``(line number, object)`` from a JSONL file; blank lines are skipped.

    Raises :class:`InputError` naming the file and line for invalid JSON or a non-object line.
    """
    path = Path(path)
    for lineno, line in iter_lines(path):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{lineno}: invalid JSON ({exc.msg})") from None
        except RecursionError:
            raise InputError(f"{path}:{lineno}: JSON nested too deeply") from None
        if not isinstance(obj, dict):
            raise InputError(f"{path}:{lineno}: expected a JSON object")
        yield lineno, obj


def _nt_term(term: str) -> str:
    if term.startswith("<"):
        iri = term[1:-1]
        return re.split(r"[/#]", iri.rstrip("/#"))[-1] or iri
    if term.startswith('"'):
        end = term.rfind('"')
        return json.loads(term[: end + 1])
    return term


def _json_line(line: str):
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON ({exc.msg})") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def _valid_text(text: str) -> str:
    """``text`` itself, or ValueError when a JSON escape produced a lone surrogate (not encodable)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text holds an invalid \\u escape (a lone surrogate)") from None
    return text


def _parse_triple(line: str, fmt: str) -> tuple[str, str, str]:
    if fmt == "tsv":
        parts = line.split("\t")
        if len(parts) != 3:
            raise ValueError(f"expected 3 tab-separated fields, found {len(parts)}")
    elif fmt == "pipe":
        parts = line.split("|")
        if len(parts) != 3:
            raise ValueError(f"expected 3 '|'-separated fields, found {len(parts)}")
    elif fmt == "jsonl":
        obj = _json_line(line)
        if not isinstance(obj, dict):
            raise ValueError("expected a JSON object")
        missing = [k for k in ("head", "relation", "tail") if not isinstance(obj.get(k), str)]
        if missing:
            raise ValueError(f"missing or non-string field(s): {', '.join(missing)}")
        parts = [obj["head"], obj["relation"], obj["tail"]]
    elif fmt == "nt":
        m = _NT.match(line)
        if not m:
            raise ValueError("not an N-Triples statement '<s> <p> <o> .'")
        parts = [_nt_term(m.group(i)) for i in (1, 2, 3)]
    else:
        raise InputError(f"unknown triple format {fmt!r}; choose one of {', '.join(TRIPLE_FORMATS)}")
    parts = [_valid_text(p).strip() for p in parts]
    empty = [name for name, p in zip(("head", "relation", "tail"), parts) if not p]
    if empty:
        raise ValueError(f"empty {', '.join(empty)}")
    return parts[0], parts[1], parts[2]


def iter_triples(
    path: str | Path,
    fmt: str = "auto",
    skip_bad_lines: bool = False,
    bad: BadLines | None = None,
    start_id: int = 0,
) -> Iterator[Fact]:
    """Stream the facts of a triple file; ids are consecutive integers (as strings) from ``start_id``.

    ``fmt`` is ``tsv`` (``h\\tr\\tt``), ``pipe`` (``h|r|t``, MetaQA ``kb.txt``), ``jsonl``
    (``{"head","relation","tail"}``), ``nt`` (N-Triples; IRIs shortened to their last segment) or
    ``auto``. Blank lines and ``#`` comments (TSV/pipe/N-Triples) are ignored.
    """
    path = Path(path)
    fmt = detect_triple_format(path) if fmt == "auto" else fmt
    if fmt not in TRIPLE_FORMATS:
        raise InputError(f"unknown triple format {fmt!r}; choose one of {', '.join(TRIPLE_FORMATS)}")
    bad = bad if bad is not None else BadLines()
    next_id = start_id
    if not path.is_file():
        raise InputError(f"{path}: no such file" if not path.exists() else f"{path}: is a directory, expected a file")
    for lineno, raw in iter_lines(path):
        line = raw.rstrip("\r\n")
        if not line.strip() or (fmt != "jsonl" and line.lstrip().startswith("#")):
            continue
        try:
            h, r, t = _parse_triple(line, fmt)
        except ValueError as exc:
            message = f"{path}:{lineno}: {exc}"
            if not skip_bad_lines:
                raise InputError(message + " (use --skip-bad-lines to skip such lines)") from None
            bad.add(message)
            continue
        yield Fact(h, r, t, str(next_id))
        next_id += 1


def iter_passages(
    path: str | Path, skip_bad_lines: bool = False, bad: BadLines | None = None
) -> Iterator[Passage]:
    """Stream passages.

    Formats: JSONL with ``id`` (optional; defaults to the line number), ``title`` (optional) and
    ``text``; a HotpotQA corpus (a JSON object ``title -> [sentences]``); a MuSiQue corpus (a JSON
    list of ``{title, text}``). The two JSON corpora are single documents and are read whole.
    """
    path = Path(path)
    bad = bad if bad is not None else BadLines()
    with _open_binary(path) as fh:
        head = fh.read(4096).lstrip()[:1].decode("latin-1")
    if head in ("[",) or (head == "{" and path.suffix.lower() == ".json"):
        yield from _iter_json_corpus(path)
        return
    for lineno, raw in iter_lines(path):
        line = raw.strip()
        if not line:
            continue
        try:
            obj = _json_line(line)
            if not isinstance(obj, dict):
                raise ValueError("expected a JSON object")
            text = obj.get("text")
            if not isinstance(text, str) or not text.strip():
                raise ValueError("missing or empty field 'text'")
            title = obj.get("title")
            if title is not None and not isinstance(title, str):
                raise ValueError("field 'title' must be a string")
            _valid_text(text + (title or "") + str(obj.get("id", "")))
        except ValueError as exc:
            message = f"{path}:{lineno}: {exc}"
        else:
            yield Passage(str(obj.get("id", lineno - 1)), text, title)
            continue
        if not skip_bad_lines:
            raise InputError(message + " (use --skip-bad-lines to skip such lines)")
        bad.add(message)


def _iter_json_corpus(path: Path) -> Iterator[Passage]:
    for i, p in enumerate(_json_corpus(path)):
        try:
            _valid_text(p.id + p.text + (p.title or ""))
        except ValueError as exc:
            raise InputError(f"{path}: passage {i}: {exc}") from None
        yield p


def _json_corpus(path: Path) -> Iterator[Passage]:
    data = read_json(path)
    if isinstance(data, dict):  # HotpotQA: title -> [sentences]
        for title, sents in data.items():
            if isinstance(sents, list):
                text = "".join(s if isinstance(s, str) else "" for s in sents).strip()
            elif isinstance(sents, str):
                text = sents
            else:
                raise InputError(f"{path}: field {title!r}: expected a list of sentences")
            yield Passage(title, text, title)  # HotpotQA titles are unique: the title is the id
    elif isinstance(data, list):  # MuSiQue: [{title, text}]
        for i, obj in enumerate(data):
            if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
                raise InputError(f"{path}: item {i}: expected an object with a string 'text'")
            if not isinstance(obj.get("title"), (str, type(None))):
                raise InputError(f"{path}: item {i}: field 'title' must be a string")
            yield Passage(str(obj.get("id", i)), obj["text"], obj.get("title"))
    else:
        raise InputError(f"{path}: expected a JSON object or list of passages")
