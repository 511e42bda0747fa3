import sys

from cosolve.cli.main import main

sys.exit(main())
