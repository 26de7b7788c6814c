from kv_offload_plugin.handlers.base import TransferHandlerBase


class GPUToCPUHandler(TransferHandlerBase):
    def _copy(self, src_blocks: list[int], dst_blocks: list[int]) -> None:
        for gpu, cpu in zip(self.src_tensors, self.dst_tensors):
            for s, d in zip(src_blocks, dst_blocks):
                cpu[d].copy_(gpu[s], non_blocking=True)


class CPUToGPUHandler(TransferHandlerBase):
    def _copy(self, src_blocks: list[int], dst_blocks: list[int]) -> None:
        for cpu, gpu in zip(self.src_tensors, self.dst_tensors):
            for s, d in zip(src_blocks, dst_blocks):
                gpu[d].copy_(cpu[s], non_blocking=True)
