"""graphhop: explainable multi-hop retrieval and question answering over KGs and text."""

from graphhop.core import Answer, Fact, Hit, InputError, Passage, QAExample, Ranking

__version__ = "0.1.0"
__all__ = ["Answer", "Fact", "Hit", "InputError", "Passage", "QAExample", "Ranking", "__version__"]
