"""Imported only by the scan workers' fork server, first of its preloads (procs._PRELOAD): the
server dies with the scan process that started it, and so, by their own parent-death signal,
do the workers it forked."""

from .procs import die_with_parent

die_with_parent()
