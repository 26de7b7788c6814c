"""aio helpers, in the shape of deepspeed.runtime.swap_tensor.utils."""

MIN_AIO_BYTES = 1024**2
AIO_ALIGNED_BYTES = 1024


def swap_out_tensors(swap_handle, tensor_buffers, swap_paths):
    for buffer, path in zip(tensor_buffers, swap_paths):
        # expect: KVG003
        assert swap_handle.async_pwrite(buffer, path) == 0


def swap_in_tensors(swap_handle, tensor_buffers, swap_paths):
    for buffer, path in zip(tensor_buffers, swap_paths):
        assert swap_handle.async_pread(buffer, path) == 0


def aligned_numel(numel, alignment):
    remainder = numel % alignment
    return numel if remainder == 0 else numel + alignment - remainder
