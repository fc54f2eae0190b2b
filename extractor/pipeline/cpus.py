"""How many CPUs a process may use: the engines size their pools by it, the CLI its defaults,
and a reader its helper processes (a bz2 dump's bzip2)."""

from __future__ import annotations

import os


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask under taskset, cgroup cpusets and
    schedulers' pinning), not all of the machine's."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no sched_getaffinity on macOS and Windows
        return os.cpu_count() or 1


# The CPUs a worker may keep busy, set by the engine that runs several (as OMP_NUM_THREADS is).
CPU_BUDGET = "DOI_EXTRACTOR_CPUS"


def cpu_budget() -> int:
    """The CPUs this process may keep busy: its engine's budget per worker, else the usable
    CPUs (a scan in its own process, `find`)."""
    try:
        return max(1, int(os.environ[CPU_BUDGET]))
    except (KeyError, ValueError):
        return usable_cpus()
