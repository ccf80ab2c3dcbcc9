"""`bench/latency.py`, the name issue 24 gives the latency bench: runs bench_latency.py with the
same options (e.g. ``--database postgresql://…``)."""

import sys

from bench_latency import main

if __name__ == "__main__":
    sys.exit(main())
