"""`python -m yoke` runs the command line."""

import sys

from yoke.cli.main import main

sys.exit(main())
