"""Helpers the Snakefile needs (dataset and model lists, input functions, params),
kept here so that they are unit-testable.

`base` (datasets, models, families, the external LM) and `runs` (seeds and the
paths of one training run) are the base; one module per family or concern sits
on top of them (`continuous`, `phrase_repr`, `npmt`, `documents`, `discourse`,
`claims`), and `targets` (what `rule all` asks for) on top of those. Modules
import downwards only: the base imports no family module, and no module imports
`targets`. tests/unit/test_imports.py keeps the package's import graph free of
cycles.
"""
