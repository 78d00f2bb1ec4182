# graphhop: `make demo` and `make test` work on a fresh clone (they create .venv when missing).
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

export HF_HUB_OFFLINE ?= 1
export TRANSFORMERS_NO_ADVISORY_WARNINGS ?= 1
export TOKENIZERS_PARALLELISM ?= false

.PHONY: setup demo test clean bench eb-encoder eb-reranker

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# torch first, exact pin: the CPU build on local disk (a looser pin pulls a multi-GB CUDA build)
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: setup
	$(BIN)/graphhop demo

# EntailmentBank task 3: fine-tune MiniLM on the train trees once (a few CPU minutes; ~90 MB, cached under
# $$GRAPHHOP_CACHE/encoders, not shipped) and build its WorldTree index; the leaf retriever then uses it.
eb-encoder: setup
	$(BIN)/graphhop train leaf-encoder --threads 1

# EntailmentBank task 3: train the leaf reranker (a MiniLM cross-encoder, ~90 MB, cached under $$GRAPHHOP_CACHE/encoders,
# not shipped) on the train trees once (listwise, hard negatives from the fine-tuned index), and choose its leaf-set
# rule on the train carve over the fine-tuned index.
eb-reranker: eb-encoder
	nice -n 10 $(BIN)/graphhop train leaf-reranker --threads 1

test: setup
	GRAPHHOP_DATA=$${GRAPHHOP_DATA:-$(CURDIR)/../shared/data} $(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info src/*.egg-info
