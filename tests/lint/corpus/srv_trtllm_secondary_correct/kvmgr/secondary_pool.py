"""Secondary (host) block pool: offload and onboard whole KV blocks."""

from cuda.bindings import runtime as cudart

from .cuda_utils import CUASSERT, create_event, create_stream


class SecondaryBlockPool:
    def __init__(self, primary_base, block_bytes, num_secondary_blocks, compute_stream):
        self._primary_base = primary_base
        self._block_bytes = block_bytes
        self._secondary_base = CUASSERT(cudart.cudaMallocHost(block_bytes * num_secondary_blocks))
        self._free = list(range(num_secondary_blocks))
        self._compute_stream = compute_stream
        self._transfer_stream = create_stream()
        self._ready = create_event()
        self._done = create_event()

    def _primary(self, block_id):
        return self._primary_base + block_id * self._block_bytes

    def _secondary(self, slot):
        return self._secondary_base + slot * self._block_bytes

    def offload(self, block_ids, wait_compute=True):
        if wait_compute:
            CUASSERT(cudart.cudaEventRecord(self._ready, self._compute_stream))
            CUASSERT(cudart.cudaStreamWaitEvent(self._transfer_stream, self._ready, 0))
        slots = []
        for block_id in block_ids:
            slot = self._free.pop()
            CUASSERT(cudart.cudaMemcpyAsync(
                self._secondary(slot), self._primary(block_id), self._block_bytes,
                cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost, self._transfer_stream))
            slots.append(slot)
        CUASSERT(cudart.cudaEventRecord(self._done, self._transfer_stream))
        return slots

    def onboard(self, slots, block_ids):
        CUASSERT(cudart.cudaEventRecord(self._ready, self._compute_stream))
        CUASSERT(cudart.cudaStreamWaitEvent(self._transfer_stream, self._ready, 0))
        for slot, block_id in zip(slots, block_ids):
            CUASSERT(cudart.cudaMemcpyAsync(
                self._primary(block_id), self._secondary(slot), self._block_bytes,
                cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, self._transfer_stream))
        CUASSERT(cudart.cudaEventRecord(self._done, self._transfer_stream))
        # The engine must not read onboarded blocks before they land.
        CUASSERT(cudart.cudaStreamWaitEvent(self._compute_stream, self._done, 0))
        self._free.extend(slots)
