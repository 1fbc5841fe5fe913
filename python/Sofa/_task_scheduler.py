"""Sofa.Core.TaskScheduler: SofaPython3's main task scheduler settings.

settee's parallel components (MultiThreading plugin) run on settee's thread
count, SETTEE_THREADS (what `settee run --threads N` sets) unless a
TaskSchedulerSettings or their own nbThreads says otherwise. init(n) sets that
count for the process; the parallel element force fields that follow it
resize their pools at their next step, as SOFA's components use the
re-initialised main scheduler. stop() goes back to one thread."""
import os as _os


def GetHardwareThreadsCount():
    """The processor's hardware threads."""
    return _os.cpu_count() or 1


def init(nbThreads=0):
    """Makes settee's thread count nbThreads (0: the hardware threads)."""
    n = int(nbThreads)
    if n < 0:
        raise ValueError("TaskScheduler.init: a thread count >= 0, not %d" % n)
    _os.environ["SETTEE_THREADS"] = str(min(n or GetHardwareThreadsCount(), 1024))


def getThreadCount():
    """settee's thread count (SETTEE_THREADS, else 1)."""
    try:
        n = int(_os.environ.get("SETTEE_THREADS", "1"))
    except ValueError:
        return 1
    return n if 1 <= n <= 1024 else 1


def stop():
    """Back to one thread: the parallel components run their sequential loops."""
    _os.environ["SETTEE_THREADS"] = "1"
