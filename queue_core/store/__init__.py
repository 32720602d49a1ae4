"""The data-access layer: every statement queue_core runs, behind one door per table family."""
