"""evaluate stage of phrasenmt."""
