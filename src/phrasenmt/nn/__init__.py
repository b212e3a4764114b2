"""What models, training and decoding share, below all three: padded batches
(`batching`), the label-smoothed losses (`loss`) and the search primitives a
model's own search needs (`search`: hypotheses, length limits, the step mask)."""
