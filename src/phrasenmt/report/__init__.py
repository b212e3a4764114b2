"""report stage of phrasenmt."""
