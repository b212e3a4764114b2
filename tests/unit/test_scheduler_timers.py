"""Snakemake's scheduler keeps one pending re-evaluation timer, not one per wake-up."""

from __future__ import annotations

import threading
import time

from phrasenmt.workflow.scheduler import coalesce_reevaluation_timers, reevaluate_once


class Loop:
    """The part of Snakemake's JobScheduler the timers touch."""

    def __init__(self):
        self._open_jobs = threading.Semaphore(0)

    def _schedule_reevalutation(self, delay):
        threading.Timer(delay, self._open_jobs.release).start()


def _timers() -> int:
    return sum(isinstance(t, threading.Timer) and t.is_alive() for t in threading.enumerate())


def test_many_wakeups_leave_one_pending_timer_that_wakes_the_loop_once():
    loop = Loop()
    before = set(threading.enumerate())
    for _ in range(50):
        reevaluate_once(loop, 0.2)
    new = [t for t in threading.enumerate() if t not in before
           and isinstance(t, threading.Timer) and t.is_alive()]
    assert len(new) == 1
    assert new[0].daemon  # Snakemake's exit does not wait for it
    assert loop._open_jobs.acquire(timeout=2)
    assert not loop._open_jobs.acquire(timeout=0.3)
    reevaluate_once(loop, 0.05)  # the fired timer no longer blocks the next one
    assert loop._open_jobs.acquire(timeout=2)


def test_the_pass_a_timer_wakes_always_arms_the_next_one():
    """Right after the wake-up, while the timer's thread may still be alive, the
    woken pass must be able to arm a new timer (else a rate-limited loop stalls)."""
    loop = Loop()
    for _ in range(20):
        reevaluate_once(loop, 0.01)
        assert loop._open_jobs.acquire(timeout=2)
        assert not loop._phrasenmt_pending


def test_the_unpatched_method_gathers_one_timer_per_call():
    """What the patch is for: the original starts a timer on every call."""
    loop = Loop()
    before = _timers()
    for _ in range(20):
        loop._schedule_reevalutation(0.5)
    assert _timers() - before >= 20
    time.sleep(0.7)


def test_patching_replaces_the_method_and_leaves_other_snakemakes_alone():
    class Scheduler(Loop):
        pass

    assert coalesce_reevaluation_timers(Scheduler)
    assert coalesce_reevaluation_timers(Scheduler)  # a second call changes nothing
    assert Scheduler._schedule_reevalutation is reevaluate_once

    class Renamed:
        pass

    assert not coalesce_reevaluation_timers(Renamed)
    assert not hasattr(Renamed, "_schedule_reevalutation")


def test_the_installed_snakemake_has_the_method_the_patch_replaces():
    from snakemake.scheduling.job_scheduler import JobScheduler

    assert coalesce_reevaluation_timers()
    assert JobScheduler._schedule_reevalutation is reevaluate_once
