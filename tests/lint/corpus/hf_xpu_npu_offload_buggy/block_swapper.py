"""KV block swapping for Intel XPU and Ascend NPU, in the shape of the device-generic twins that
HF and vLLM plugins write beside their CUDA path: ``torch.xpu.Stream`` / ``torch.xpu.stream`` and,
with ``torch_npu`` imported, ``torch.npu.Stream`` / ``torch.npu.stream``. The device pool is one
persistent tensor of blocks; the host pool is pinned. Bugs: the XPU ``swap_out`` copies blocks
the decode step just wrote from the swap stream with no barrier behind the compute stream
(KVG001); the NPU ``swap_in`` overwrites freed device blocks that kernels queued on the compute
stream may still read (KVG004)."""

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
        with torch.xpu.stream(self.swap_stream):
            for device_id, host_id in mapping:
                # expect: KVG001
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
        self.loaded = torch.npu.Event()

    def swap_in(self, mapping):
        with torch.npu.stream(self.swap_stream):
            for host_id, device_id in mapping:
                # expect: KVG004
                self.device_blocks[device_id].copy_(self.host_blocks[host_id], non_blocking=True)
            self.loaded.record(self.swap_stream)
        torch.npu.current_stream().wait_event(self.loaded)
