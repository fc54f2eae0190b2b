"""`python -m benchmarks`: see benchmarks/run.py."""

import sys

from benchmarks.run import main

sys.exit(main())
