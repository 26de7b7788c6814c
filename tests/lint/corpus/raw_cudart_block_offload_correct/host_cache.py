"""A host KV cache in the shape TensorRT-LLM's Python-side offloading takes: a GPU pool and a
pinned host pool as torch tensors, block addresses computed from ``data_ptr()``, and one
runtime ``cudaMemcpyAsync`` per block on a non-blocking stream made with cuda-python. Both
directions are ordered behind the compute stream: the offload waits on a runtime event
recorded on the compute stream after the forward, the onboard is issued only after the host
has synchronised on such an event."""

import torch
from cuda.bindings import runtime as cudart


def _check(result):
    err, *values = result
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA runtime call failed: {err}")
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


class HostKVCache:
    def __init__(self, num_layers, num_gpu_blocks, num_host_blocks, block_bytes):
        self.num_layers = num_layers
        self.block_bytes = block_bytes
        self.gpu_pool = torch.empty(
            (num_layers, num_gpu_blocks, block_bytes), dtype=torch.uint8, device="cuda"
        )
        self.host_pool = torch.empty(
            (num_layers, num_host_blocks, block_bytes), dtype=torch.uint8, pin_memory=True
        )
        self.gpu_layer_stride = num_gpu_blocks * block_bytes
        self.host_layer_stride = num_host_blocks * block_bytes
        self.stream = _check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
        self.ready = _check(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))
        self.done = _check(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))

    def offload(self, gpu_blocks, host_blocks):
        compute = torch.cuda.current_stream().cuda_stream
        _check(cudart.cudaEventRecord(self.ready, compute))
        _check(cudart.cudaStreamWaitEvent(self.stream, self.ready, 0))
        gpu_base = self.gpu_pool.data_ptr()
        host_base = self.host_pool.data_ptr()
        for layer in range(self.num_layers):
            for src, dst in zip(gpu_blocks, host_blocks):
                src_ptr = gpu_base + layer * self.gpu_layer_stride + src * self.block_bytes
                dst_ptr = host_base + layer * self.host_layer_stride + dst * self.block_bytes
                _check(cudart.cudaMemcpyAsync(
                    dst_ptr,
                    src_ptr,
                    self.block_bytes,
                    cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost,
                    self.stream,
                ))
        _check(cudart.cudaEventRecord(self.done, self.stream))

    def onboard(self, host_blocks, gpu_blocks):
        compute = torch.cuda.current_stream().cuda_stream
        _check(cudart.cudaEventRecord(self.ready, compute))
        # The host blocks until every kernel that may read the destination blocks is done.
        _check(cudart.cudaEventSynchronize(self.ready))
        gpu_base = self.gpu_pool.data_ptr()
        host_base = self.host_pool.data_ptr()
        for layer in range(self.num_layers):
            for src, dst in zip(host_blocks, gpu_blocks):
                src_ptr = host_base + layer * self.host_layer_stride + src * self.block_bytes
                dst_ptr = gpu_base + layer * self.gpu_layer_stride + dst * self.block_bytes
                _check(cudart.cudaMemcpyAsync(
                    dst_ptr, src_ptr, self.block_bytes, cudart.cudaMemcpyKind.cudaMemcpyDefault, self.stream
                ))
        _check(cudart.cudaEventRecord(self.done, self.stream))

    def wait_transfers(self):
        compute = torch.cuda.current_stream().cuda_stream
        _check(cudart.cudaStreamWaitEvent(compute, self.done, 0))


def run_step(model, cache, batch, evicted, fetched):
    """One executor iteration on the current stream: forward, then move blocks."""
    model(batch, cache.gpu_pool)
    cache.offload(*evicted)
    cache.onboard(*fetched)
    cache.wait_transfers()
