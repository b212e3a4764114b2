"""text stage of phrasenmt."""
