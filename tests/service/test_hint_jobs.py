"""companion.hints.HintJobs: the two-trade answers worked out behind the hint, one hand at a time,
with a bounded number waiting and kept."""
from __future__ import annotations

import threading

from companion.hints import HintJobs

WAIT = 30  # seconds a test waits for the worker before it fails (never a measured time)


def blocked_job(jobs, table="t", player=0):
    """Submit a job that holds the worker until released; returns (job id, release event)."""
    started, release = threading.Event(), threading.Event()

    def later():
        started.set()
        assert release.wait(WAIT)
        return {"two_trades": "done", "who": "blocker"}

    job = jobs.submit(table, player, {"two_trades": "pending"}, later)
    assert started.wait(WAIT)
    return job, release


def done_soon(jobs, table, job):
    for _ in range(WAIT * 100):
        state, answer = jobs.get(table, job)
        if state != "pending":
            return state, answer
        threading.Event().wait(0.01)
    raise AssertionError("the job was never worked out")


def test_an_answer_is_pending_then_done_and_only_at_its_table():
    jobs = HintJobs()
    job, release = blocked_job(jobs)
    assert jobs.get("t", job) == ("pending", {"two_trades": "pending"})
    assert jobs.get("other", job) == ("unknown", None)
    release.set()
    assert done_soon(jobs, "t", job) == ("done", {"two_trades": "done", "who": "blocker"})


def test_a_newer_question_of_the_same_player_replaces_the_waiting_one():
    jobs = HintJobs()
    blocker, release = blocked_job(jobs, player=9)
    first = jobs.submit("t", 0, {"n": 1}, lambda: {"n": 1, "two_trades": "done"})
    other = jobs.submit("t", 1, {"n": 2}, lambda: {"n": 2, "two_trades": "done"})
    second = jobs.submit("t", 0, {"n": 3}, lambda: {"n": 3, "two_trades": "done"})
    assert jobs.get("t", first) == ("unknown", None)  # replaced while it waited
    assert jobs.get("t", second)[0] == jobs.get("t", other)[0] == "pending"
    release.set()
    assert done_soon(jobs, "t", second) == ("done", {"n": 3, "two_trades": "done"})
    assert done_soon(jobs, "t", other) == ("done", {"n": 2, "two_trades": "done"})
    assert done_soon(jobs, "t", blocker)[0] == "done"  # one already being worked out is not replaced


def test_at_most_waiting_questions_wait_and_answers_kept_are_bounded():
    jobs = HintJobs(waiting=2, keep=1)
    blocker, release = blocked_job(jobs, player=9)
    ids = [jobs.submit("t", p, {}, lambda p=p: {"p": p}) for p in range(4)]
    assert [jobs.get("t", i)[0] for i in ids] == ["unknown", "unknown", "pending", "pending"]
    release.set()
    done_soon(jobs, "t", ids[3])
    # Only the newest answer is kept; the blocker's and the older one's are forgotten.
    assert [jobs.get("t", i)[0] for i in [blocker, ids[2], ids[3]]] == ["unknown", "unknown", "done"]


def test_a_failed_job_says_so_and_answers_are_forgotten_after_keep_seconds(caplog):
    jobs = HintJobs(keep_seconds=0.0)

    def broken():
        raise RuntimeError("a bug")

    failed = jobs.submit("t", 0, {}, broken)
    assert done_soon(jobs, "t", failed) in {("failed", None), ("unknown", None)}
    assert "could not be worked out" in caplog.text
    kept = HintJobs(keep_seconds=3600.0)
    job = kept.submit("t", 0, {}, broken)
    assert done_soon(kept, "t", job) == ("failed", None)
