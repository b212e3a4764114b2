"""decoding stage of phrasenmt."""
