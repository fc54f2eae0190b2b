"""Imported only by the scan workers' fork server, last of its preloads (procs._PRELOAD): pyarrow's
first conversion of Python values, with its look for pandas answered "absent", done
once here before the workers are forked from the server, so that no worker pays it."""

from ..pipeline.arrow_setup import skip_pandas

skip_pandas()
