"""Allow ``python -m p2pgenius``."""

from p2pgenius.cli.main import main

raise SystemExit(main())
