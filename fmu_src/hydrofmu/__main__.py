"""``python -m hydrofmu``: the command-line interface."""

from .cli.commands import main

raise SystemExit(main())
