"""``python -m pytest_req2rank.cli``: the ``req2rank`` command."""

from ._app import main

raise SystemExit(main())
