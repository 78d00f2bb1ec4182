"""Training loops: retriever, reranker, BGR, query generator, reader."""
