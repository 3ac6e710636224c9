"""The client's tests. They need no install: the package's source is put on the path here, before any
test imports it, so they test this checkout's code and never a copy installed elsewhere."""

import os
import sys

SOURCE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
if SOURCE not in sys.path:
    sys.path.insert(0, SOURCE)
