"""Sampling and comparison for verification, and the backend's CPU-side error paths."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from kvguard.runtime import BlockSampler, CudaDriverError, OrderedCopyBackend
from kvguard.runtime import driver as runtime_driver
from kvguard.runtime.verify import mismatched_rows


@pytest.mark.parametrize("fraction", [0.0, -0.1, 1.5])
def test_sampler_rejects_fractions_outside_zero_one(fraction: float) -> None:
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        BlockSampler(fraction)


def test_full_sampling_picks_every_block() -> None:
    sampler = BlockSampler(1.0)
    assert sampler.sample(5) == [0, 1, 2, 3, 4]
    assert sampler.sample(0) == []


@given(st.lists(st.integers(0, 64), min_size=1, max_size=50), st.integers(0, 2**32))
def test_samples_are_sorted_unique_and_in_range(batches: list[int], seed: int) -> None:
    sampler = BlockSampler(0.2, seed)
    for size in batches:
        picked = sampler.sample(size)
        assert picked == sorted(set(picked))
        assert all(0 <= i < size for i in picked)


@pytest.mark.parametrize(("fraction", "batch"), [(0.01, 1), (0.01, 1000), (0.25, 7)])
def test_sampling_rate_matches_the_fraction_for_any_batch_size(fraction: float, batch: int) -> None:
    sampler = BlockSampler(fraction, seed=3)
    blocks = 200_000
    picked = sum(len(sampler.sample(batch)) for _ in range(blocks // batch))
    expected = fraction * blocks
    assert abs(picked - expected) < 5 * (expected * (1 - fraction)) ** 0.5


def test_same_seed_gives_same_samples() -> None:
    first, second = BlockSampler(0.1, seed=5), BlockSampler(0.1, seed=5)
    assert [first.sample(50) for _ in range(20)] == [second.sample(50) for _ in range(20)]


@given(
    rows=st.integers(1, 12), width=st.integers(1, 40),
    corrupt=st.sets(st.tuples(st.integers(0, 11), st.integers(0, 39))),
    dtype=st.sampled_from([torch.int32, torch.float16, torch.uint8]),
)
def test_mismatched_rows_finds_exactly_the_changed_blocks(
    rows: int, width: int, corrupt: set[tuple[int, int]], dtype: torch.dtype
) -> None:
    source = torch.arange(rows * width).reshape(rows, width).to(dtype)
    copied = source.clone()
    changed = set()
    for row, col in corrupt:
        if row < rows and col < width:
            copied[row, col] = copied[row, col] + 1
            changed.add(row)
    assert mismatched_rows(source, copied) == sorted(changed)


def test_mismatched_rows_refuses_different_shapes() -> None:
    with pytest.raises(ValueError, match="cannot compare"):
        mismatched_rows(torch.zeros(2, 4), torch.zeros(2, 5))


def test_backend_needs_init_before_launch() -> None:
    backend = OrderedCopyBackend()
    with pytest.raises(RuntimeError, match="init"):
        backend.launch_copy([1], [2], True, 0, [])
    backend.shutdown()
    backend.drain()  # nothing queued, nothing raised


def test_backend_rejects_bad_verify_fraction() -> None:
    with pytest.raises(ValueError, match="verification fraction"):
        OrderedCopyBackend(verify_fraction=2.0)


def test_driver_failure_names_the_call_and_code(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime_driver.cuda_driver, "cuInit", lambda flags: (
        runtime_driver.cuda_driver.CUresult.CUDA_ERROR_NO_DEVICE,))
    with pytest.raises(CudaDriverError) as caught:
        runtime_driver.init_driver()
    assert caught.value.call == "cuInit"
    assert caught.value.name == "CUDA_ERROR_NO_DEVICE"
    assert str(caught.value).startswith("cuInit failed with CUDA_ERROR_NO_DEVICE (100)")


def test_old_driver_is_refused_with_the_version_it_has(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime_driver, "init_driver", lambda: 12040)
    monkeypatch.setattr(runtime_driver, "_resolved", {})
    with pytest.raises(CudaDriverError, match=r"CUDA 12\.4.*12\.8 or newer"):
        runtime_driver.resolve_batch_memcpy()


def test_differing_rows_compares_bytes_across_every_tensor() -> None:
    from kvguard.runtime.verify import differing_rows

    keys = torch.tensor([[float("nan"), 0.0], [1.0, 2.0], [3.0, 4.0]])
    values = torch.arange(6, dtype=torch.int32).reshape(3, 2)
    copied_keys, copied_values = keys.clone(), values.clone()
    assert differing_rows([keys, values], [copied_keys, copied_values]).tolist() == [False] * 3
    copied_keys[1, 1] = -0.0 if keys[1, 1] == 0.0 else 2.5  # row 1 differs in the keys only
    copied_values[2, 0] = 99  # row 2 in the values only
    assert differing_rows([keys, values], [copied_keys, copied_values]).tolist() == [
        False, True, True]
    zero = torch.zeros(2, 1)
    assert differing_rows([zero], [-zero]).tolist() == [True, True]  # -0.0 has other bits
    with pytest.raises(ValueError, match="one copy per source"):
        differing_rows([keys], [])
