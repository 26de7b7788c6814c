"""KV block swapping for Intel XPU and Ascend NPU, in the shape of the device-generic twins that
HF and vLLM plugins write beside their CUDA path: ``torch.xpu.Stream`` / ``torch.xpu.stream`` and,
with ``torch_npu`` imported, ``torch.npu.Stream`` / ``torch.npu.stream``. The XPU swap stream waits
on ``torch.xpu.current_stream()`` before storing; the NPU swap stream waits on an event recorded
on ``torch.npu.current_stream()`` before loading into freed blocks."""

import torch

try:
    import torch_npu  # noqa: F401  (registers torch.npu)
except ImportError:
    torch_npu = None


class XpuBlockSwapper:
    def __init__(self, num_blocks, num_host_blocks, block_shape, dtype=torch.float16):
        self.device_blocks = torch.zeros((num_blocks,) + block_shape, dtype=dtype, device="xpu")
        self.host_blocks = torch.zeros((num_host_blocks,) + block_shape, dtype=dtype, pin_memory=True)
        self.swap_stream = torch.xpu.Stream()
        self.done = torch.xpu.Event()

    def swap_out(self, mapping):
        self.swap_stream.wait_stream(torch.xpu.current_stream())
        with torch.xpu.stream(self.swap_stream):
            for device_id, host_id in mapping:
                self.host_blocks[host_id].copy_(self.device_blocks[device_id], non_blocking=True)
            self.done.record(self.swap_stream)
        # the swapped-out blocks are handed out again only after the copies read them
        torch.xpu.current_stream().wait_event(self.done)

    def wait(self):
        self.done.synchronize()


class NpuBlockSwapper:
    def __init__(self, num_blocks, num_host_blocks, block_shape, dtype=torch.float16):
        self.device_blocks = torch.zeros((num_blocks,) + block_shape, dtype=dtype, device="npu")
        self.host_blocks = torch.zeros((num_host_blocks,) + block_shape, dtype=dtype, pin_memory=True)
        self.swap_stream = torch.npu.Stream()
        self.freed = torch.npu.Event()
        self.loaded = torch.npu.Event()

    def swap_in(self, mapping):
        self.freed.record(torch.npu.current_stream())
        with torch.npu.stream(self.swap_stream):
            self.swap_stream.wait_event(self.freed)
            for host_id, device_id in mapping:
                self.device_blocks[device_id].copy_(self.host_blocks[host_id], non_blocking=True)
            self.loaded.record(self.swap_stream)
        torch.npu.current_stream().wait_event(self.loaded)
