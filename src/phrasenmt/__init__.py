"""phrasenmt: phrase-based neural machine translation as a reproducible workflow."""

import os as _os
import sys as _sys

__version__ = "0.1.0"

# A stage start (`python -m phrasenmt.<stage>`) keeps freed memory for reuse
# (phrasenmt/allocator.py), and with PHRASENMT_WARM=1 runs in a warm server
# (phrasenmt/warm.py): both decided here, before the stage imports anything.
if _sys.argv[:1] == ["-m"]:
    from phrasenmt.allocator import tune as _tune

    _tune()  # first: a stage the warm server cannot take runs here
    if _os.environ.get("PHRASENMT_WARM") == "1":
        from phrasenmt.warm import hand_off as _hand_off

        _hand_off()
