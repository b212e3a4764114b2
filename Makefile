# Two set-up-and-go commands: `make run` and `make test`. Both create a local
# virtual environment (.venv) on first use and reinstall only when pyproject.toml
# changes, so a second `make run` with nothing changed returns in seconds.
PYTHON ?= python3
VENV ?= .venv
# PyTorch is installed first, from where tools/torch_index.py says: TORCH_INDEX
# where it is given (on a GPU machine the CUDA build's index, e.g.
#   make install TORCH_INDEX=https://download.pytorch.org/whl/cu128),
# else pip's own package source where one is configured (a wheelhouse or a
# mirror: pip.conf or PIP_* variables), else PyTorch's CPU index, so that pip
# never pulls PyPI's multi-GB CUDA build. `make torch-wheel` shows the wheel.
TORCH ?= torch==2.13.0
TORCH_INDEX ?=
CORES ?= all
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
BIN := $(VENV)/bin
# KenLM's estimator (lmplz) and build_binary, for NPMT's external language model,
# are built from the C++ sources of the kenlm-ex source package on PyPI (a KenLM
# fork: C++17, no Boost, cmake only), with cmake from PyPI: a C++ compiler is all
# the machine needs. Its lmplz_main.cc needs two fixes before it builds a correct
# lmplz (tools/kenlm_ex_lmplz.sed says which and why; docs/kenlm.md).
KENLM_VERSION ?= 0.2.1
KENLM_JOBS ?= 2
KENLM_BUILD := $(VENV)/kenlm-build
KENLM_SRC := $(KENLM_BUILD)/kenlm_ex-$(KENLM_VERSION)
KENLM_CMAKE := PYTHONPATH=$(KENLM_BUILD)/cmake $(KENLM_BUILD)/cmake/bin/cmake
KENLM_LMPLZ_MAIN := $(KENLM_SRC)/lm/builder/lmplz_main.cc
KENLM_SKIP := make: no C++ compiler (g++), so KenLM's lmplz is not built and the \
	NPMT LM row is skipped; to get it: apt-get install g++ \
	&& make kenlm (or conda env create -f envs/kenlm.yaml)
KENLM_NEEDS := make kenlm: needs a C++ compiler: apt-get install g++ \
	(or conda env create -f envs/kenlm.yaml)

.DEFAULT_GOAL := install

# `make help`: the targets and what each does, from the `#>` line above each.
help:
	@echo "make TARGET, where TARGET is one of:"
	@sed -n 's/^#> \([^:]*\): \(.*\)/\1|\2/p' $(firstword $(MAKEFILE_LIST)) | \
		sed 's/$$(CONVERGED_FAMILIES)/$(CONVERGED_FAMILIES)/' | \
		awk -F'|' '{ printf "  %-24s %s\n", $$1, $$2 }'

.PHONY: help install-package torch-wheel test-cluster test-fast seeds-document quickstart converged converged-long converged-phrase converged-phrase-pooling converged-phrase-ablation converged-continuous converged-npmt converged-document converged-document-dev converged-document-any converged-baselines converged-context-usage install run test report lint clean-results kenlm gpu-wheels node-stage docs docs-build

#> install: the virtual environment .venv with PyTorch, the package and KenLM (default goal)
install: $(STAMP)

# What `make run` needs: PyTorch, the package with KenLM's query module, and
# lmplz. Where g++ is present, lmplz compiles (into $(KENLM_BUILD), apart from
# the venv) while pip installs PyTorch and the package, the two side by side:
# about a minute less than one after the other on 2 cores.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	@if command -v g++ >/dev/null; then \
		$(MAKE) --no-print-directory -j 2 install-package $(BIN)/lmplz PACKAGE_EXTRAS="[lm]"; \
	else $(MAKE) --no-print-directory install-package && echo "$(KENLM_SKIP)"; fi
	touch $(STAMP)

# PyTorch first, so that the package's `torch>=2.2` never pulls the CUDA build.
PACKAGE_EXTRAS ?=
install-package:
	options=$$($(BIN)/python tools/torch_index.py options --torch-index "$(TORCH_INDEX)") && \
		$(BIN)/pip install --quiet $$options "$(TORCH)"
	$(BIN)/pip install --quiet -e ".$(PACKAGE_EXTRAS)"

# The torch wheel `make install` would install (name, version, file or URL, CPU
# or CUDA build): pip's dry run (--dry-run --no-deps --report), installs nothing.
#> torch-wheel: which PyTorch wheel make install would take (installs nothing)
torch-wheel: $(BIN)/python
	$(BIN)/python tools/torch_index.py wheel --torch-index "$(TORCH_INDEX)" "$(TORCH)"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The test suite, the linters and the documentation site also need the dev and
# docs extras (pytest, pytest-xdist, ruff, hypothesis, mkdocs-material) and the
# word segmenters the any-script tests cut with (extras zh, ja, th, lo, km, my):
# `make test`, `make lint` and `make docs` add them; `make run` does without.
$(DEV_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e ".[dev,docs,zh,ja,th,lo,km,my]"
	touch $(DEV_STAMP)

# NPMT's external LM: the kenlm query module (extra `lm`: kenlm-ex's wheel) and
# lmplz + build_binary compiled into $(BIN) from kenlm-ex's sdist (needs g++ only).
#> kenlm: KenLM's query module, lmplz and build_binary for NPMT's LM row
kenlm: $(STAMP)
	@command -v g++ >/dev/null || { echo "$(KENLM_NEEDS)"; exit 1; }
	$(BIN)/pip install --quiet -e ".[lm]"
	$(MAKE) --no-print-directory $(BIN)/lmplz

# lmplz and build_binary alone: nothing here installs into the venv, so that it
# can run beside pip (cmake goes to $(KENLM_BUILD)/cmake).
$(BIN)/lmplz:
	@command -v g++ >/dev/null || { echo "$(KENLM_NEEDS)"; exit 1; }
	@echo "make: building KenLM (lmplz, build_binary): about a minute"
	rm -rf $(KENLM_BUILD) && mkdir -p $(KENLM_BUILD)
	$(BIN)/pip install --quiet --target $(KENLM_BUILD)/cmake "cmake>=3.28"
	$(BIN)/pip download --quiet --no-deps --no-binary kenlm-ex \
		"kenlm-ex==$(KENLM_VERSION)" -d $(KENLM_BUILD)
	tar -xzf $(KENLM_BUILD)/kenlm_ex-$(KENLM_VERSION).tar.gz -C $(KENLM_BUILD)
	sed -i -f tools/kenlm_ex_lmplz.sed $(KENLM_LMPLZ_MAIN)
	grep -q 'set_help_flag(); app.add_flag("-h' $(KENLM_LMPLZ_MAIN) && \
	grep -q 'bool verbose_header = false;' $(KENLM_LMPLZ_MAIN) && \
	grep -q 'PipelineConfig pipeline{};' $(KENLM_LMPLZ_MAIN) || \
		{ echo "make kenlm: tools/kenlm_ex_lmplz.sed no longer fits $(KENLM_LMPLZ_MAIN)"; exit 1; }
	$(KENLM_CMAKE) -S $(KENLM_SRC) -B $(KENLM_BUILD)/build \
		-DCMAKE_BUILD_TYPE=Release -Wno-dev > $(KENLM_BUILD)/build.log 2>&1 && \
	$(KENLM_CMAKE) --build $(KENLM_BUILD)/build -j $(KENLM_JOBS) --target lmplz build_binary \
		>> $(KENLM_BUILD)/build.log 2>&1 || { tail -n 20 $(KENLM_BUILD)/build.log; exit 1; }
	$(KENLM_BUILD)/build/bin/lmplz --help 2>&1 | grep -q -- --order || \
		{ echo "make kenlm: the built lmplz does not start"; exit 1; }
	install -m 755 $(KENLM_BUILD)/build/bin/build_binary $(BIN)/build_binary
	install -m 755 $(KENLM_BUILD)/build/bin/lmplz $(BIN)/.lmplz.tmp
	mv -f $(BIN)/.lmplz.tmp $(BIN)/lmplz
	rm -rf $(KENLM_BUILD)

# Local runs put tools/shims first on PATH: its scontrol fails at once. Snakemake's
# SLURM plugin runs `scontrol show config` at every start, and where the SLURM
# client is installed but no controller answers, that call waits out 10 s. The
# local executor never needs SLURM (`snakemake --profile profiles/slurm` runs the real one).
LOCAL_PATH := PATH="$(CURDIR)/tools/shims:$$PATH"

# The main job: the default experiment (config.yaml) end to end.
#> run: the default experiment (config.yaml) end to end: every model, table, figure and claim
run: $(STAMP)
	$(LOCAL_PATH) $(BIN)/snakemake --cores $(CORES)

# The quickstart: the tiny Transformer on a smaller synthetic corpus and its
# results table (configs/quickstart.yaml, docs/quickstart.md).
QUICKSTART_TABLE := results/quickstart_en_de/report/results.md
#> quickstart: the tiny Transformer on a small synthetic corpus and its results table
quickstart: $(STAMP)
	$(LOCAL_PATH) $(BIN)/snakemake --cores $(CORES) \
		--configfile configs/quickstart.yaml -- $(QUICKSTART_TABLE)
	@cat $(QUICKSTART_TABLE)

# Every model of config.yaml trained to a dev-loss plateau on copies of its
# synthetic data, three seeds each (configs/converged_families.yaml), one family
# at a time or all of them; each family target writes the family's claims table
# and `converged` the whole run's tables, figures and claims (docs/converged.md).
CONVERGED_CONFIG := --configfile configs/converged_families.yaml
CONVERGED_FAMILIES := phrase phrase-pooling phrase-ablation continuous npmt document
CONVERGED_DATASET_phrase := converged_en_de
CONVERGED_DATASET_phrase-pooling := converged_en_de
CONVERGED_DATASET_phrase-ablation := converged_en_de
CONVERGED_DATASET_document := converged_en_de
CONVERGED_DATASET_continuous := converged_de_en
CONVERGED_DATASET_npmt := converged_de_en
# the family's own analyses, which read only its models' runs
CONVERGED_TABLES_phrase-ablation := results/converged_en_de/report/ablation.md \
	results/converged_en_de/report/agreement.svg
CONVERGED_TABLES_continuous := results/converged_de_en/report/fertility_test.md
CONVERGED_TABLES_npmt := results/converged_de_en/report/npmt_bleu_test.md \
	results/converged_de_en/report/npmt_reordering_test.md \
	results/converged_de_en/report/npmt_segments_test.md \
	results/converged_de_en/report/npmt_gates.svg
CONVERGED_TABLES_document := results/converged_en_de/report/context_usage.md
#> converged-FAMILY: one family to its plateau with its claims table (FAMILY: $(CONVERGED_FAMILIES))
$(addprefix converged-,$(CONVERGED_FAMILIES)): converged-%: $(STAMP)
	$(LOCAL_PATH) $(BIN)/snakemake --cores $(CORES) $(CONVERGED_CONFIG) -- \
		results/$(CONVERGED_DATASET_$*)/report/claims_$*.md $(CONVERGED_TABLES_$*)

#> converged: every model to a dev-loss plateau, three seeds, and the converged claims tables
converged: $(STAMP)
	$(LOCAL_PATH) $(BIN)/snakemake --cores $(CORES) $(CONVERGED_CONFIG)

# The document family's ctx_transformer and han_dec at the step-2 budgets their
# dev pronoun items chose, with their controls (configs/overlays/converged_document_dev.yaml).
#> converged-document-dev: ctx_transformer and han_dec at their dev-chosen step-2 budgets
converged-document-dev: $(STAMP)
	$(LOCAL_PATH) $(BIN)/snakemake --cores $(CORES) $(CONVERGED_CONFIG) configs/overlays/converged_document_dev.yaml -- \
		results/converged_en_de/report/claims_document.md $(CONVERGED_TABLES_document)

# The whole document family with its controls, and ctx_transformer with K = 2,
# on a corpus whose in-between nouns are drawn without regard to the
# antecedent's gender (synthetic.distractor_gender: any;
# configs/overlays/converged_document_any.yaml); the HAN encoder models' claims
# also in a table of their own.
#> converged-document-any: the document family on a corpus whose distractors ignore gender
converged-document-any: $(STAMP)
	$(LOCAL_PATH) $(BIN)/snakemake --cores $(CORES) $(CONVERGED_CONFIG) configs/overlays/converged_document_any.yaml -- \
		results/converged_en_de_any/report/claims_document.md results/converged_en_de_any/report/context_usage.md \
		results/converged_en_de_any/report/claims_document_han_encoders.md

# The phrase family on a synthetic corpus with long sentences, where Xu et al.'s
# Figure 3 finds +PR's largest gain (configs/converged_long.yaml).
#> converged-long: the phrase family on a corpus with sentences over 45 tokens
converged-long: $(STAMP)
	$(LOCAL_PATH) $(BIN)/snakemake --cores $(CORES) --configfile configs/converged_long.yaml

# Each family's baseline trained to convergence on the synthetic data (what the
# default run's baselines are sized against; docs/results/2026-11-24-default-run.md).
CONVERGED_BASELINES = results/synthetic_en_de/eval/transformer_converged/seed1/test.json \
	results/synthetic_de_en/eval/attn_rnn_converged/seed1/test.json \
	results/synthetic_de_en/eval/conmt_converged/seed1/test.json
#> converged-baselines: the three converged baselines of configs/converged_baselines.yaml
converged-baselines: $(STAMP)
	$(LOCAL_PATH) $(BIN)/snakemake --cores $(CORES) $(CONVERGED_BASELINES) \
		--configfile configs/converged_baselines.yaml

# The document-level models on the converged Transformer, with their random-context
# controls, and the context-usage table of all document models (docs/context-usage.md).
#> converged-context-usage: the document models on the converged Transformer and the context-usage table
converged-context-usage: $(STAMP)
	$(LOCAL_PATH) $(BIN)/snakemake --cores $(CORES) \
		results/synthetic_en_de/report/context_usage.md --configfile configs/converged_baselines.yaml

# The default run's document-level family and its random-context controls at
# three training seeds, config.yaml's budgets (configs/seeds_document.yaml): the
# context-usage table and the claims table over seeds, in results/seeds_en_de/.
#> seeds-document: the default run's document family at three seeds, with its claims table
seeds-document: $(STAMP)
	$(LOCAL_PATH) $(BIN)/snakemake --cores $(CORES) results/seeds_en_de/report/context_usage.md \
		results/seeds_en_de/report/claims.md --configfile configs/seeds_document.yaml

# The whole test suite: unit tests, the workflow's lint and dry runs (one dry run
# per config, shared by every test that reads it: tests/workflow/plans.py) and
# one tiny real run of both synthetic directions and every family
# (tests/workflow/tiny_run.yaml), which starts in the background when the tests
# are collected and is shared by every test that reads a run (marker `slow`).
# The tests run in one worker process per core (pytest-xdist, a test file to a
# worker); what is made once per pytest run is shared (tests/shared.py).
# The SLURM tests are skipped: they change the system (below).
PYTEST_WORKERS ?= auto
#> test: the test suite (the README's test command)
test: $(DEV_STAMP)
	$(BIN)/pytest -q -n $(PYTEST_WORKERS) --dist loadfile

# The suite without the real runs (`slow`): unit tests, lint and dry runs.
#> test-fast: the suite without the real runs: unit tests, lint and dry runs
test-fast: $(DEV_STAMP)
	$(BIN)/pytest -q -n $(PYTEST_WORKERS) --dist loadfile -m "not slow"

# The SLURM tests (tests/cluster): as root on Debian/Ubuntu they install SLURM,
# munge and MariaDB with apt-get, write /etc/slurm/slurm.conf, start the daemons
# of a single-node cluster and run the tiny workflow on it (docs/cluster.md).
# Only this target runs them: it sets PHRASENMT_CLUSTER_TESTS=1.
#> test-cluster: the SLURM tests on a local single-node cluster (changes the system)
test-cluster: $(DEV_STAMP)
	PHRASENMT_CLUSTER_TESTS=1 $(BIN)/pytest -q -rs -m cluster tests/cluster

# The documentation site (mkdocs.yml, docs/) into site/. First the Markdown lint
# of README.md, CHANGELOG.md and docs/ (tools/lint_markdown.py, .pymarkdown.yaml:
# code fences, blank lines around lists and headings, list indentation the site
# renders). Then the build, strictly: a broken link, a missing page, or a
# committed configuration reference page (docs/reference/configuration.md) that
# differs from what the schema and the code generate fails it.
# No --quiet: it hides the warnings, and --strict then counts none of them.
# NO_MKDOCS_2_WARNING only silences the theme's end-of-life banner.
#> docs: the documentation site, strict, with the Markdown lint
docs: $(DEV_STAMP)
	$(BIN)/python tools/lint_markdown.py
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The site alone, without the Markdown lint: CI runs it after `make test`,
# whose tests/unit/test_docs_lint.py has run the same lint on the same files.
#> docs-build: the documentation site alone
docs-build: $(DEV_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The HTML report of the default experiment (after `make run`), or of the
# experiment of CONFIGFILE (`make report CONFIGFILE=configs/quickstart.yaml`).
#> report: report.html of the default run (CONFIGFILE=... for another experiment's)
report: $(STAMP)
	$(LOCAL_PATH) $(BIN)/snakemake --cores 1 --report report.html \
		$(if $(CONFIGFILE),--configfile $(CONFIGFILE))

# Ruff, the package's layers (.importlinter: each layer imports only from the
# layers below it; docs/development.md) and Snakemake's own lint.
#> lint: ruff, the package's import layers and snakemake --lint
lint: $(DEV_STAMP)
	$(BIN)/ruff check src tests benchmarks experiments tools
	$(BIN)/lint-imports --no-cache --no-logo
	$(LOCAL_PATH) $(BIN)/snakemake --lint

#> clean-results: remove results/ and .snakemake/: every run's outputs and Snakemake's records
clean-results:
	rm -rf results .snakemake

# Wheels for a GPU node without a package index (docs/gpu.md): what
# tests/gpu/check.py imports beyond the node's torch, numpy, pyyaml and
# sacrebleu, and fairseq-fixed (the one fairseq with a Python 3.12 wheel) with
# what it imports, for CPython $(GPU_PYTHON) on manylinux x86_64, into .whl/
# (58 MB: scipy 35, fairseq 21; FAIRSEQ= leaves fairseq out, and the check then
# reports it unavailable; GPU_SCIPY= leaves scipy out, for a node that has it).
GPU_PYTHON ?= 3.12
GPU_WHEELS := pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 \
	typing-inspection==0.4.5 typing-extensions==4.16.0 tqdm==4.70.1 jsonschema==4.26.0 jsonschema-specifications==2025.9.1 \
	referencing==0.37.0 rpds-py==2026.9.1 attrs==26.1.0 stopwordsiso==0.7.1 \
	tensorboardX==2.6.5 protobuf==7.36.2 $(GPU_SCIPY)
GPU_SCIPY ?= scipy==1.17.1
FAIRSEQ ?= fairseq-fixed==0.12.3.1 hydra-core==1.3.2 omegaconf==2.3.0 \
	bitarray==3.12.3 packaging==25.0
# omegaconf's parser runtime: PyPI has only its source, a pure-Python package
# that pip builds into a py3-none-any wheel here.
FAIRSEQ_SDISTS ?= antlr4-python3-runtime==4.9.3
GPU_PLATFORMS := --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
	--platform manylinux2014_x86_64

#> gpu-wheels: the wheels a GPU machine without internet installs from (.whl/)
gpu-wheels:
	rm -rf .whl && mkdir -p .whl
	$(PYTHON) -m pip download --quiet --no-deps --only-binary=:all: \
		--python-version $(GPU_PYTHON) --implementation cp $(GPU_PLATFORMS) \
		-d .whl $(GPU_WHEELS) $(FAIRSEQ)
	$(if $(FAIRSEQ),$(PYTHON) -m pip wheel --quiet --no-deps -w .whl $(FAIRSEQ_SDISTS))
	@du -sh .whl

# A config's trainings for a GPU node without Snakemake or a package index
# (docs/gpu.md, "Training a config on a GPU node"): into .stage/ the dry run,
# the inputs of the node's jobs (trainings and every job that reads a
# checkpoint), the extra rules the node runs (fastText: its models are large
# to copy) and the wheels of what such a node lacks, for CPython $(GPU_PYTHON).
NODE_CONFIG ?= config.yaml
NODE_TARGETS ?=
NODE_RULES ?= plain_text concat_phrases fasttext fasttext_plain
NODE_WHEELS := pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 \
	typing-inspection==0.4.5 typing-extensions==4.16.0 jsonschema==4.26.0 jsonschema-specifications==2025.9.1 \
	referencing==0.37.0 rpds-py==2026.9.1 stopwordsiso==0.7.1 tensorboardX==2.6.5 \
	fasttext-wheel==0.9.2 kenlm-ex==0.2.1
node-stage: $(STAMP)
	rm -rf .stage && mkdir -p .stage/wheels
	$(LOCAL_PATH) $(BIN)/snakemake -n -p $(NODE_TARGETS) --configfile $(NODE_CONFIG) \
		--forcerun $(NODE_RULES) > .stage/dry.log
	echo $(NODE_RULES) > .stage/rules
	$(BIN)/python tools/replay_jobs.py --dry-run .stage/dry.log --node \
		--rules $(NODE_RULES) --list-inputs > .stage/inputs.txt
	tar -czf .stage/inputs.tar -T .stage/inputs.txt
	$(PYTHON) -m pip download --quiet --no-deps --only-binary=:all: \
		--python-version $(GPU_PYTHON) --implementation cp $(GPU_PLATFORMS) \
		--platform manylinux_2_24_x86_64 -d .stage/wheels $(NODE_WHEELS)
	@echo "node-stage: copy the repository with .stage/ to the node, then there:"
	@echo "  bash tools/replay_on_node.sh .stage .stage/wheels OUT [JOBS] [SECONDS]"
