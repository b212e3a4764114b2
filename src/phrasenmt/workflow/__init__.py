"""Helpers the Snakefile needs (dataset and model lists, input functions, params),
kept here so that they are unit-testable.

`base` (datasets, models, families, the external LM), `runs` (seeds and the
paths of one training run) and `corpus` (the text files of the corpus stages)
are the base; one module per family or concern sits on top of them
(`evaluation`, `continuous`, `phrase_repr`, `curves`, `npmt`, `npmt_report`,
`documents`, `discourse`, `documents_report`, `claims`), and `targets` (what
`rule all` asks for) on top of those. Modules import downwards only: the base
imports no family module, and no module imports `targets`. The rules reach
every module through `adapter.Adapter`, the object `W` of rules/common.smk.
tests/unit/test_imports.py keeps the package's import graph free of cycles.
"""
