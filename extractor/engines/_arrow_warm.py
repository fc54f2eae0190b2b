"""Imported only by the scan workers' fork server, last of its preloads (procs._PRELOAD): the
first conversion of Python values to Arrow makes pyarrow look for pandas, which loads it where
it is installed (~0.3 s, issue 14); done once here, before the workers are forked from the server,
it costs no worker's first shard."""

import pyarrow as pa

pa.array([0])
