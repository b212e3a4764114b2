"""phrasenmt: phrase-based neural machine translation as a reproducible workflow."""

__version__ = "0.1.0"
