"""training stage of phrasenmt."""
