"""A live run's screen updates are paced, and none is lost.

The clock is the test's: what is posted depends on the times given, never on
how fast the machine runs the worker.
"""

from __future__ import annotations

from osdoctor.tui.workers import Pacer


def test_a_change_inside_the_interval_is_posted_at_the_next_tick() -> None:
    """A client that prints its last request just after an update, then waits on
    it: that request reaches the screen although no more output comes."""
    pacer = Pacer(0.1)
    assert pacer.due(10.0, True)  # the first change, at once
    assert not pacer.due(10.05, True)  # too soon after it: held
    assert not pacer.due(10.08, False)
    assert pacer.due(10.2, False)  # nothing new came: the held change goes out
    assert not pacer.due(10.4, False)  # and nothing is left to post


def test_nothing_is_posted_without_a_change() -> None:
    pacer = Pacer(0.5)
    assert not pacer.due(0.0, False)
    assert pacer.due(0.01, True)  # the first change does not wait for an interval
    assert not pacer.due(5.0, False)
