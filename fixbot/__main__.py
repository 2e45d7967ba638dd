"""Allow ``python -m fixbot``."""

from fixbot.cli import main

raise SystemExit(main())
