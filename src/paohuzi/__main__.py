"""``python -m paohuzi``."""

import sys

from paohuzi.cli import main

sys.exit(main())
