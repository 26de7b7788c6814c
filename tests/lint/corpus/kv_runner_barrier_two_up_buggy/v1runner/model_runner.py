import torch

from v1runner.backend import CpuLoadBackend, LoadConnector


class GPUModelRunner:
    def __init__(self, model, num_blocks, block_numel, max_reqs):
        self.model = model
        self.gpu_kv = torch.zeros(num_blocks, block_numel, dtype=torch.bfloat16, device="cuda")
        cpu_kv = torch.empty(num_blocks, block_numel, dtype=torch.bfloat16, pin_memory=True)
        self.backend = CpuLoadBackend(self.gpu_kv, cpu_kv)
        self.connector = LoadConnector(self.backend)
        self.sampled = torch.zeros(max_reqs, dtype=torch.long, device="cuda")

    def execute_model(self, scheduler_output):
        # Blocks the scheduler reassigned may still be read by last step's queued kernels.
        if self.connector.start_load_kv(scheduler_output.kv_connector_metadata):
            self.connector.wait_for_load()
        self.model(scheduler_output, self.gpu_kv, out=self.sampled)
        sampled_cpu = self.sampled.to("cpu", non_blocking=True)
        # expect: KVG003
        return sampled_cpu.tolist()
