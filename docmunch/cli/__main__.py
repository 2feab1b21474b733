"""``python -m docmunch.cli``: the same as the ``docmunch`` command."""

from docmunch.cli import main

raise SystemExit(main())
