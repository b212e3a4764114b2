"""One pending re-evaluation timer in Snakemake's job scheduler instead of a growing crowd.

Snakemake's `JobScheduler.schedule` loop (9.x) ends every pass by starting a
`threading.Timer` that, one rate-limit timespan later (`--max-jobs-per-timespan`,
1 s by default), wakes the loop again; that wake-up pass starts the next timer.
Every other wake-up (a job that finishes) starts one more such chain, and
chains never end: after n finished jobs about n timers fire every second, each
running a scheduling pass. A 1 h 42 min run of 192 jobs (the converged document
family) had started 303,000 threads by its 85th minute (`py-spy dump` of the
Snakemake process lists them). In the 18-minute default run the chains cost
little: 18:27 with this patch against 18:31 without, on the same machine and day
(docs/results/2026-11-27-default-run.md).

`coalesce_reevaluation_timers()` replaces the method with one that starts a
timer only where none is pending. A pending timer wakes the loop within the
timespan anyway, and the pass it runs starts the next one, so the rate limit
keeps its meaning. The timer is a daemon thread, so that Snakemake's exit does
not wait for it. A Snakemake without the method is left as it is.
"""

from __future__ import annotations

import threading

PATCHED = "_phrasenmt_single_timer"


_LOCK = threading.Lock()


def reevaluate_once(scheduler, delay: float) -> None:
    """Wake `scheduler`'s loop after `delay` seconds, unless a wake-up is pending.

    The timer marks itself done before it wakes the loop, so the pass it wakes
    always arms the next one (a rate-limited run is never left without one)."""
    with _LOCK:
        if getattr(scheduler, "_phrasenmt_pending", False):
            return
        scheduler._phrasenmt_pending = True

    def fire() -> None:
        with _LOCK:
            scheduler._phrasenmt_pending = False
        scheduler._open_jobs.release()

    timer = threading.Timer(delay, fire)
    timer.daemon = True
    timer.start()


def coalesce_reevaluation_timers(scheduler_class=None) -> bool:
    """Patch Snakemake's JobScheduler (or `scheduler_class`); True if patched."""
    if scheduler_class is None:
        try:
            from snakemake.scheduling.job_scheduler import JobScheduler
        except ImportError:
            return False
        scheduler_class = JobScheduler
    if not hasattr(scheduler_class, "_schedule_reevalutation"):
        return False
    if not getattr(scheduler_class, PATCHED, False):
        scheduler_class._schedule_reevalutation = reevaluate_once
        setattr(scheduler_class, PATCHED, True)
    return True
