"""Imported only by the scan workers' fork server, second of its preloads (procs._PRELOAD), before
the pipeline: pyarrow loaded as a scan loads it (without NumPy; its first conversion, with its
look for pandas answered "absent", done), once here before the workers are forked from the
server, so that no worker pays it."""

from ..pipeline.arrow_setup import load_for_scan

load_for_scan()
