"""Word alignment: aligners (eflomal, fast_align), Pharaoh files, symmetrization."""
