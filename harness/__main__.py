"""``python -m harness`` runs the cutover command line."""

from harness.cli import main

main()
