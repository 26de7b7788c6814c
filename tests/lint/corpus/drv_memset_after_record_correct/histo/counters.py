"""Per-step token counters kept on the GPU with the driver API: each step clears them on the
compute stream, the kernels count into them, and a snapshot of the previous step's counts is
copied to pinned memory on a copy stream ordered behind the compute stream by an event."""

from __future__ import annotations

from cuda.bindings import driver as cu


def ck(result):
    err, *rest = result
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver call failed: {err}")
    return rest[0] if rest else None


class StepCounters:
    def __init__(self, num_bins: int) -> None:
        self.num_bins = num_bins
        self.nbytes = 4 * num_bins
        flags = cu.CUstream_flags.CU_STREAM_NON_BLOCKING.value
        self.compute = ck(cu.cuStreamCreate(flags))
        self.copy = ck(cu.cuStreamCreate(flags))
        self.counted = ck(cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))
        self.counts = ck(cu.cuMemAlloc(self.nbytes))
        self.snapshot = ck(cu.cuMemHostAlloc(self.nbytes, 0))

    def snapshot_and_clear(self) -> None:
        """Copy last step's counts to the host, then clear them for the next step."""
        ck(cu.cuEventRecord(self.counted, self.compute))
        ck(cu.cuStreamWaitEvent(self.copy, self.counted, 0))
        ck(cu.cuMemcpyDtoHAsync(self.snapshot, self.counts, self.nbytes, self.copy))
        ck(cu.cuEventRecord(self.counted, self.copy))
        ck(cu.cuStreamWaitEvent(self.compute, self.counted, 0))
        ck(cu.cuMemsetD32Async(self.counts, 0, self.num_bins, self.compute))
