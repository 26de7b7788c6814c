"""Copies between the tiers. Anything that touches the disk goes to the disk's copy threads."""
import numpy as np
import torch

GB = 1 << 30


def map_to_torch_tensor(tensor, indices):
    from .devices import DeviceType

    if tensor.device.device_type == DeviceType.DISK:
        data = torch.from_numpy(np.lib.format.open_memmap(tensor.data))
    else:
        data = tensor.data
    return data[indices] if indices else data


def general_copy(dst, dst_indices, src, src_indices):
    from .devices import DeviceType

    if src.device.device_type == DeviceType.DISK:
        src.device.submit_copy(dst, dst_indices, src, src_indices)
    elif dst.device.device_type == DeviceType.DISK:
        dst.device.submit_copy(dst, dst_indices, src, src_indices)
    else:
        src_data = src.data[src_indices] if src_indices else src.data
        dst_data = dst.data[dst_indices] if dst_indices else dst.data
        dst_data.copy_(src_data, non_blocking=True)


def copy_worker_func(queue, cuda_id):
    """The copy worker thread: one pinned relay buffer and one stream per thread."""
    from .devices import DeviceType

    torch.cuda.set_device(cuda_id)
    cpu_buf = torch.empty((1 * GB,), dtype=torch.float16, pin_memory=True)
    copy_stream = torch.cuda.Stream()

    with torch.cuda.stream(copy_stream):
        while True:
            item = queue.get()
            if item is None:
                queue.task_done()
                return

            dst, dst_indices, src, src_indices, ready = item
            copy_stream.wait_event(ready)
            src_data = map_to_torch_tensor(src, src_indices)
            dst_data = map_to_torch_tensor(dst, dst_indices)

            if src.device.device_type == DeviceType.CUDA:
                # GPU -> disk: relay through the pinned buffer
                size = int(np.prod(src_data.shape))
                tmp_cpu_buf = cpu_buf[:size].view(src_data.shape)
                tmp_cpu_buf.copy_(src_data)
                dst_data.copy_(tmp_cpu_buf)
            else:
                dst_data.copy_(src_data)

            queue.task_done()
