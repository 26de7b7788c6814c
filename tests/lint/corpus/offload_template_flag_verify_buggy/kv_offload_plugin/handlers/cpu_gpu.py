from kv_offload_plugin.handlers.base import TransferHandlerBase


class GPUToCPUHandler(TransferHandlerBase):
    # the scheduler only offloads full blocks of the previous step, which the model no
    # longer writes
    WAITS_FOR_COMPUTE = False

    def _copy(self, src_blocks: list[int], dst_blocks: list[int]) -> None:
        for gpu, cpu in zip(self.src_tensors, self.dst_tensors):
            for s, d in zip(src_blocks, dst_blocks):
                # expect: KVG001
                cpu[d].copy_(gpu[s], non_blocking=True)


class CPUToGPUHandler(TransferHandlerBase):
    def _copy(self, src_blocks: list[int], dst_blocks: list[int]) -> None:
        for cpu, gpu in zip(self.src_tensors, self.dst_tensors):
            for s, d in zip(src_blocks, dst_blocks):
                gpu[d].copy_(cpu[s], non_blocking=True)
