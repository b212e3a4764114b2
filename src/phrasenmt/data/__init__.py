"""data stage of phrasenmt."""
