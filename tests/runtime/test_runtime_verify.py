"""Sampling, the compare's pairs and its host side, and the backend's CPU-side error paths.
The compare kernel itself runs in tests/gpu; here SimKernelCalls compares the pairs a launch is
given on the CPU, byte for byte as the kernel does."""

from __future__ import annotations

import re
from array import array
from types import SimpleNamespace

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from runtime_sim import SimKernelCalls, SimStream, install, make_caches

from kvguard.runtime import BlockSampler, CudaDriverError, GuardPolicy, OrderedCopyBackend, build_compare
from kvguard.runtime import compare as compare_module
from kvguard.runtime import driver as runtime_driver
from kvguard.runtime.compare import PairComparer
from kvguard.runtime.verify import plan_pairs, samples_of


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


@pytest.mark.parametrize(
    ("fraction", "batch", "cluster"), [(0.01, 256, 64), (0.01, 16, 64), (0.05, 1, 4), (0.2, 40, 1000)]
)
def test_clustered_samples_keep_the_fraction_and_check_fewer_batches(
    fraction: float, batch: int, cluster: int
) -> None:
    sampler = BlockSampler(fraction, seed=7)
    batches = 20_000
    counts = [len(sampler.sample(batch, cluster)) for _ in range(batches)]
    checked = min(1.0, max(fraction, fraction * batch / cluster))  # a batch's chance
    rate = fraction / checked  # a block's, in a checked batch
    mean = batch * rate
    variance = checked * batch * rate * (1 - rate) + checked * (1 - checked) * mean**2
    assert abs(sum(counts) - fraction * batch * batches) < 5 * (batches * variance) ** 0.5
    checked_batches = sum(count > 0 for count in counts)
    assert checked_batches <= checked * batches + 5 * (batches * checked) ** 0.5
    independent = 1 - (1 - fraction) ** batch  # a batch's chance, blocks picked one by one
    if checked < independent / 2:
        assert checked_batches < 0.75 * independent * batches


def test_same_seed_gives_same_samples() -> None:
    first, second = BlockSampler(0.1, seed=5), BlockSampler(0.1, seed=5)
    assert [first.sample(50) for _ in range(20)] == [second.sample(50) for _ in range(20)]


def test_pairs_are_tensor_major_with_each_sides_own_addresses() -> None:
    srcs, dsts, sizes = plan_pairs([1000, 5000], [90_000, 70_000], [16, 48], [3, 0], [1, 2])
    assert list(srcs) == [1000 + 3 * 16, 1000, 5000 + 3 * 48, 5000]
    assert list(dsts) == [90_000 + 16, 90_000 + 2 * 16, 70_000 + 48, 70_000 + 2 * 48]
    assert list(sizes) == [16, 16, 48, 48]


def comparer(monkeypatch: pytest.MonkeyPatch, capacity: int = 1024) -> tuple[PairComparer, SimKernelCalls]:
    monkeypatch.setattr(runtime_driver, "device_address", lambda address: address)
    calls = SimKernelCalls()
    return PairComparer(calls.as_driver(), pinned=False, capacity=capacity), calls


@given(
    blocks=st.lists(st.integers(0, 11), min_size=1, max_size=12),
    widths=st.lists(st.integers(1, 9), min_size=1, max_size=3),
    corrupt=st.sets(st.tuples(st.integers(0, 2), st.integers(0, 11), st.integers(0, 8))),
    dtype=st.sampled_from([torch.int32, torch.float16, torch.uint8]),
    per_launch=st.integers(1, 40),
)
def test_compared_pairs_differ_exactly_where_a_host_block_was_changed(
    blocks: list[int],
    widths: list[int],
    corrupt: set[tuple[int, int, int]],
    dtype: torch.dtype,
    per_launch: int,
) -> None:
    """The pairs `plan_pairs` makes, compared in launches of at most `per_launch` pairs into
    arrays that start small and grow, flag exactly the changed blocks (as the backend maps
    pair p to sample p % samples)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(compare_module, "_MAX_PAIRS_PER_LAUNCH", per_launch)
        check, calls = comparer(monkeypatch, capacity=2)
        sources = [torch.arange(12 * w).reshape(12, w).to(dtype) for w in widths]
        hosts = [t.clone() for t in sources]
        check.enqueue(
            0,
            *plan_pairs(
                [t.data_ptr() for t in sources],
                [t.data_ptr() for t in hosts],
                [t.stride(0) * t.element_size() for t in sources],
                blocks,
                blocks,
            ),
        )
        assert check.differing() == []
        changed = set()
        for tensor, block, col in corrupt:
            if tensor < len(hosts) and col < widths[tensor]:
                hosts[tensor][block, col] += 1
                changed.add(block)
        check.enqueue(
            0,
            *plan_pairs(
                [t.data_ptr() for t in sources],
                [t.data_ptr() for t in hosts],
                [t.stride(0) * t.element_size() for t in sources],
                blocks,
                blocks,
            ),
        )
        flagged = sorted({pair % len(blocks) for pair in check.differing()})
        assert flagged == [i for i, block in enumerate(blocks) if block in changed]
        pairs = len(blocks) * len(widths)
        assert sum(count for _, count in calls.launches) == 2 * pairs
        assert max(count for _, count in calls.launches) <= per_launch


def test_a_comparer_unloads_its_module_and_names_a_failed_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    check, calls = comparer(monkeypatch)
    calls.fail.add("launch")
    one = array("q", [0])
    with pytest.raises(CudaDriverError, match="cuLaunchKernel"):
        check.enqueue(0, one, one, array("q", [8]))
    check.close()
    assert calls.unloaded == 1


def test_the_kernels_chunk_is_the_one_the_launch_sizes_its_grid_by() -> None:
    """A smaller CHUNK in compare.cu than CHUNK_BYTES would leave part of each block unread."""
    defined = re.search(r"#define CHUNK (\d+)ULL", compare_module.SOURCE.read_text())
    assert defined is not None and int(defined.group(1)) == compare_module.CHUNK_BYTES


def test_the_shipped_ptx_is_compare_cu_compiled() -> None:
    """compare.ptx is what `python3 -m kvguard.runtime.build_compare` makes from compare.cu (NVRTC
    12.8 from the test extra's nvidia-cuda-nvrtc-cu12 wheel): edit the source, rebuild."""
    assert build_compare.compile_ptx() == compare_module.PTX.read_bytes()


def test_verification_refuses_host_caches_the_gpu_cannot_address(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch)

    def unmapped(address: int) -> int:
        raise CudaDriverError(
            "cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_DEVICE_POINTER)",
            1,
            "CUDA_ERROR_INVALID_VALUE",
            "invalid argument",
        )

    monkeypatch.setattr(runtime_driver, "device_address", unmapped)
    gpu, cpu = make_caches(4, 4)
    backend = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=0.5)
    with pytest.raises(ValueError, match="cpu_caches must be pinned memory the GPU can address"):
        backend.init(gpu, cpu, torch.device("cuda"), SimStream(), SimStream())  # type: ignore[arg-type]
    assert backend._threads == []


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
    monkeypatch.setattr(
        runtime_driver.cuda_driver,
        "cuInit",
        lambda flags: (runtime_driver.cuda_driver.CUresult.CUDA_ERROR_NO_DEVICE,),
    )
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


@pytest.mark.parametrize(
    ("version", "exported", "chosen"),
    [
        (12080, {12080}, 12080),
        (13000, {12080, 13000}, 12080),
        (13000, {13000}, 13000),
        (13020, {13000}, 13000),
    ],
)
def test_the_12_8_entry_point_is_preferred_and_13_0_is_the_fallback(
    monkeypatch: pytest.MonkeyPatch, version: int, exported: set[int], chosen: int
) -> None:
    """12.8's signature returns failIdx, so it is taken wherever the driver still exports it;
    a driver that dropped it is driven through 13.0's."""
    monkeypatch.setattr(runtime_driver, "init_driver", lambda: version)
    monkeypatch.setattr(runtime_driver, "_resolved", {})
    monkeypatch.setattr(runtime_driver, "_proc_address", lambda abi: 0x1000 if int(abi) in exported else 0)
    entry = runtime_driver.resolve_batch_memcpy()
    assert int(entry.abi) == chosen and entry.driver_version == version


def test_a_driver_exporting_neither_entry_point_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime_driver, "init_driver", lambda: 13000)
    monkeypatch.setattr(runtime_driver, "_resolved", {})
    monkeypatch.setattr(runtime_driver, "_proc_address", lambda abi: 0)
    with pytest.raises(
        CudaDriverError,
        match=r"CUDA 13\.0\) has no cuMemcpyBatchAsync for "
        r"cudaVersion 12080, 13000",
    ):
        runtime_driver.resolve_batch_memcpy()


@given(st.lists(st.integers(1, 12), min_size=1, max_size=6), st.data())
def test_a_groups_sampled_blocks_are_named_with_their_own_request(
    sizes: list[int], data: st.DataObject
) -> None:
    """Each sampled block of a group keeps its source and destination and the position of the
    request it came from (which a mismatch refuses)."""
    requests = [
        (tuple(range(100 * p, 100 * p + n)), tuple(range(-100 * p - n, -100 * p)))
        for p, n in enumerate(sizes)
    ]
    ok = [SimpleNamespace(request=SimpleNamespace(src_blocks=s, dst_blocks=d)) for s, d in requests]
    src = [b for s, _ in requests for b in s]
    dst = [b for _, d in requests for b in d]
    picked = sorted(data.draw(st.sets(st.integers(0, len(src) - 1))))
    samples = samples_of(ok, src, dst, picked)  # type: ignore[arg-type]
    assert [(r.src, r.dst) for r in samples] == [(src[i], dst[i]) for i in picked]
    assert all(r.src in requests[r.position][0] for r in samples)
