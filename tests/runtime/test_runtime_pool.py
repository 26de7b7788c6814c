"""ReusePool: an object goes out again only once nothing but the pool references it."""

from __future__ import annotations

import gc

import pytest

from kvguard.runtime.pool import ReusePool


class Token:
    pass


def test_an_object_is_reused_only_after_every_holder_let_go() -> None:
    pool = ReusePool(Token)
    first = pool.take()
    second = pool.take()
    assert second is not first and pool.created == 2
    held = [(0, second)]  # as a caller's events list holds it
    del first
    assert pool.take() is not second  # the oldest free one, not the held one
    assert pool.created == 2
    del held, second
    gc.collect()
    taken = {id(pool.take()) for _ in range(4)}  # both free again: reused in turn
    assert pool.created == 2 and len(taken) == 2


def test_held_objects_are_never_handed_out_and_the_pool_stays_bounded() -> None:
    pool = ReusePool(Token, keep=3)
    held = [pool.take() for _ in range(10)]
    assert len({id(t) for t in held}) == 10 and pool.created == 10
    assert len(pool) == 3  # the rest are left to their holder
    held.clear()
    again = [pool.take() for _ in range(3)]
    assert pool.created == 10 and len({id(t) for t in again}) == 3


def test_keep_must_be_positive() -> None:
    with pytest.raises(ValueError, match="keep"):
        ReusePool(Token, keep=0)
