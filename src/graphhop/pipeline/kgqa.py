"""The ``kgqa`` pipeline in the registry: trained relation-path KGQA over the whole KB of a fact index.

:class:`KGQAPipeline` wraps :class:`graphhop.kgqa.pipeline.KGQA` as a :class:`~graphhop.core.Stage`
whose :meth:`~KGQAPipeline.ask` returns an :class:`~graphhop.pipeline.ask.AskResult`. The KB's
triple store and the scorer load on first use (``reader``), once; a withheld answer ("no supported
answer") has ``score`` None and the best partial chain as its support.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from graphhop.core import InputError, Stage
from graphhop.kgqa import DEFAULT_HOPS
from graphhop.pipeline.ask import AskResult
from graphhop.pipeline.registry import register

__all__ = ["KGQAPipeline", "OPTIONS"]

#: Options of the ``kgqa`` factory, with their defaults (``k`` and ``model`` are accepted and unused:
#: it reads the whole KB, not retrieved facts).
OPTIONS: dict[str, Any] = {"hops": DEFAULT_HOPS, "beam": 10, "threshold": None, "weights": None, "k": None, "model": None,
                           "reader": None, "topic_answers": "no-walk-back", "answer_order": "degree", "confidence": "answer", "end_typing": True,
                           "walk_back": "others", "cover": None, "type_head": "off",
                           "abstain": True, "rerank": "shipped", "rerank_k": None, "rerank_w": None,
                           "type_veto": True, "rerank_beam": 0, "rerank_beam_w": None,
                           "rerank_combine": "off", "cover_class": True,
                           "level_climb": False, "place_veto": False}


class KGQAPipeline(Stage):
    """``kgqa``: link -> expand over the whole KB -> trained path scorer -> question-type operation."""

    name = "kgqa"

    def __init__(self, index: Any, hops: int = DEFAULT_HOPS, beam: int = 10, threshold: Optional[float] = None,
                 weights: Optional[str] = None, topic_answers: str = "no-walk-back", answer_order: str = "degree",
                 confidence: str = "answer", end_typing: bool = True, walk_back: str = "others",
                 cover: Optional[float] = None, type_head: str = "off", abstain: bool = True, rerank: str = "shipped",
                 rerank_k: Optional[int] = None, rerank_w: Optional[float] = None, type_veto: bool = True,
                 rerank_beam: int = 0, rerank_beam_w: Optional[float] = None, rerank_combine: str = "off",
                 cover_class: bool = True, level_climb: bool = False, place_veto: bool = False) -> None:
        from graphhop.kgqa.type_head import TYPE_HEAD_MODES
        from graphhop.kgqa.pipeline import ANSWER_ORDERS, CONFIDENCES, TOPIC_ANSWERS, WALK_BACKS

        if not 1 <= hops <= 4:
            raise InputError(f"kgqa reads relation paths of 1..4 hops (got hops={hops})")
        for name, value, choices in (("topic_answers", topic_answers, TOPIC_ANSWERS), ("answer_order", answer_order, ANSWER_ORDERS),
                                     ("confidence", confidence, CONFIDENCES), ("walk_back", walk_back, WALK_BACKS),
                                     ("type_head", type_head, TYPE_HEAD_MODES)):
            if value not in choices:
                raise InputError(f"kgqa: {name} must be one of {', '.join(choices)} (got {value!r})")
        self.index, self.hops, self.beam, self.threshold, self.weights = index, hops, beam, threshold, weights
        self.topic_answers, self.answer_order, self.confidence = topic_answers, answer_order, confidence
        self.end_typing, self.walk_back = end_typing, walk_back
        self.cover = cover  # named-relation coverage window (graphhop.kgqa.cover.covering); None: the default
        self.type_head = type_head  # the trained type head in answer typing (graphhop.kgqa.end_type.EndTyper)
        self.abstain = abstain  # the learned confidence withholds unsure answers (graphhop.kgqa.abstain)
        #: the chain reranker (graphhop.kgqa.rerank): off, shipped, or a folder; its k and w (None: the saved ones)
        self.rerank, self.rerank_k, self.rerank_w = rerank, rerank_k, rerank_w
        self.type_veto = type_veto  # the veto by answer type (graphhop.kgqa.veto)
        if rerank_beam < 0:
            raise InputError(f"kgqa: rerank_beam must be 0 (off) or more (got {rerank_beam})")
        #: the reranker inside the beam: each hop's best rerank_beam new paths reordered before the cut (0: off)
        self.rerank_beam, self.rerank_beam_w = rerank_beam, rerank_beam_w
        #: a learned final order of the reranker's chains (graphhop.kgqa.combine): off, on (beside the reranker), a file
        self.rerank_combine = rerank_combine
        #: a plural class noun matched to a relation only through an agent noun forces no coverage move (kgv17)
        self.cover_class = cover_class
        #: a level noun's containment climb past the fourth-hop gap; "who" answered by places vetoed (kge18)
        self.level_climb, self.place_veto = level_climb, place_veto
        self._kgqa: Any = None

    @property
    def reader(self) -> Any:
        """The :class:`graphhop.kgqa.pipeline.KGQA` (the KB's store and the scorer load on first use)."""
        if self._kgqa is None:
            from graphhop.kgqa.pipeline import KGQA

            self._kgqa = KGQA.from_index(self.index, self.weights, max_hops=self.hops, beam=self.beam,
                                         threshold=self.threshold, topic_answers=self.topic_answers,
                                         answer_order=self.answer_order, confidence=self.confidence,
                                         end_typing=self.end_typing, walk_back=self.walk_back, type_head=self.type_head, abstain=self.abstain,
                                         rerank=_rerank(self.rerank), rerank_k=self.rerank_k, rerank_w=self.rerank_w,
                                         type_veto=self.type_veto,
                                         rerank_beam=self.rerank_beam, rerank_beam_w=self.rerank_beam_w,
                                         rerank_combine=_rerank(self.rerank_combine), cover_class=self.cover_class,
                                         level_climb=self.level_climb, place_veto=self.place_veto,
                                         **({} if self.cover is None else {"cover": self.cover}))
        return self._kgqa

    def retrieve_graph(self, questions: Sequence[str]) -> list[Any]:
        """The evidence graph (chains of the best relation paths) of each question."""
        return [self.reader.ask(q)["graph"] for q in questions]

    def ask(self, question: str, qtype: Optional[str] = None) -> AskResult:
        """Answer one question (``qtype`` forces the question type)."""
        out = self.reader.ask(question, qtype)
        return AskResult(question=question, method=self.name, qtype=out["qtype"], answer=out["answer"],
                         answers=list(out["answers"]), score=float(out["score"]) if out["supported"] else None,
                         support=list(out["support"]), graph=out["graph"], support_graph=out["support_graph"],
                         trace=out["trace"], timings=out["timings"])


def _factory(index: Any, **options: Any) -> KGQAPipeline:
    given = {k: v for k, v in options.items() if v is not None}
    unknown = sorted(set(given) - set(OPTIONS))
    if unknown:
        raise InputError(f"pipeline 'kgqa' does not take option {unknown[0]!r} (it takes {', '.join(OPTIONS)})")
    opts = {**OPTIONS, **given}
    return KGQAPipeline(index, hops=_whole("hops", opts["hops"]), beam=_whole("beam", opts["beam"]), threshold=opts["threshold"],
                        weights=opts["weights"], topic_answers=str(opts["topic_answers"]),
                        answer_order=str(opts["answer_order"]), confidence=str(opts["confidence"]),
                        end_typing=_flag("end_typing", opts["end_typing"]), walk_back=str(opts["walk_back"]),
                        cover=_number("cover", opts["cover"]), type_head=str(opts["type_head"]),
                        abstain=_flag("abstain", opts["abstain"]), rerank=str(opts["rerank"]),
                        rerank_k=_whole("rerank_k", opts["rerank_k"]),
                        rerank_w=_number("rerank_w", opts["rerank_w"]), type_veto=_flag("type_veto", opts["type_veto"]),
                        rerank_beam=_whole("rerank_beam", opts["rerank_beam"]) or 0,
                        rerank_beam_w=_number("rerank_beam_w", opts["rerank_beam_w"]),
                        rerank_combine=str(opts["rerank_combine"]), cover_class=_flag("cover_class", opts["cover_class"]),
                        level_climb=_flag("level_climb", opts["level_climb"]), place_veto=_flag("place_veto", opts["place_veto"]))


def _rerank(value: str) -> bool | str:
    """The ``rerank`` option as :class:`~graphhop.kgqa.pipeline.KGQA` takes it: off -> False, shipped -> True, else a folder."""
    text = str(value).strip()
    if text.lower() in ("off", "false", "no", "0", "none"):
        return False
    return True if text.lower() in ("shipped", "on", "true", "yes", "1") else text


def _number(name: str, value: Any) -> Optional[float]:
    """A number option given as a number or as text (``--option cover=0``); None stays None."""
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InputError(f"kgqa: {name} must be a number (got {value!r})") from None


def _whole(name: str, value: Any) -> Optional[int]:
    """A whole-number option given as a number or as text (``--option rerank_k=8``); None stays None."""
    number = _number(name, value)
    if number is not None and number != int(number):
        raise InputError(f"kgqa: {name} must be a whole number (got {value!r})")
    return None if number is None else int(number)


def _flag(name: str, value: Any, pipeline: str = "kgqa") -> bool:
    """A yes/no option of ``pipeline`` given as a bool or as text (``--option end_typing=false``)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise InputError(f"{pipeline}: {name} must be true or false (got {value!r})")


register("kgqa", _factory, kinds=("facts",),
         help="Trained KGQA (default of ask on facts): relation paths over the whole KB scored by a shipped head; "
              "support = the chain used; 'no supported answer' under its threshold.")
