"""``python -m nanomem`` runs the CLI."""

import sys

from nanomem.cli import main

sys.exit(main())
