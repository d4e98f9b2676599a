"""``python -m mediatrans_client`` runs the ``mediatrans`` command line."""

from mediatrans_client.cli import main

main()
