# Two set-up-and-go commands: `make run` and `make test`. Both create a local
# virtual environment (.venv) on first use and reinstall only when pyproject.toml
# changes, so a second `make run` with nothing changed returns in seconds.
PYTHON ?= python3
VENV ?= .venv
# The CPU wheel of PyTorch is installed first so that pip never pulls the CUDA
# build; on a GPU machine set TORCH="torch==2.13.0" from the matching index.
TORCH ?= torch==2.13.0
CORES ?= all
STAMP := $(VENV)/.installed
BIN := $(VENV)/bin

.PHONY: install run test report lint clean-results

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet "$(TORCH)"
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

# The main job: the default experiment (config.yaml) end to end.
run: $(STAMP)
	$(BIN)/snakemake --cores $(CORES)

# The whole test suite (unit tests, workflow lint/dry runs, a tiny real run).
test: $(STAMP)
	$(BIN)/pytest -q

# The HTML report of the default experiment (after `make run`).
report: $(STAMP)
	$(BIN)/snakemake --cores 1 --report report.html

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/snakemake --lint

clean-results:
	rm -rf results .snakemake
