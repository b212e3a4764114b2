"""Speed benchmarks of phrasenmt, run from the repository root as modules:
`python -m benchmarks.speed --suite NAME`, `python -m benchmarks.gpu_profile`
(docs/benchmarks.md)."""
