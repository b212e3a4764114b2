"""models stage of phrasenmt."""
