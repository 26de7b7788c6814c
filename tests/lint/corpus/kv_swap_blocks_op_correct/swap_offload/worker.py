"""The offloading worker: one handler per direction, GPU-to-CPU stores asked for after the
forward and CPU-to-GPU loads before it. Both directions record their ready event on the
compute stream before the job is queued, so the transfer thread's wait always sees it."""

import torch

from swap_offload.handler import SwapBlocksHandler


class OffloadingWorker:
    def __init__(self, gpu_caches, num_cpu_blocks):
        device = gpu_caches[0].device
        cpu_caches = [
            torch.zeros((num_cpu_blocks,) + tuple(c.shape[1:]), dtype=c.dtype, device="cpu", pin_memory=True)
            for c in gpu_caches
        ]
        self.gpu_to_cpu = SwapBlocksHandler(gpu_caches, cpu_caches, device)
        self.cpu_to_gpu = SwapBlocksHandler(cpu_caches, gpu_caches, device)
        self.next_job = 0

    def _new_job(self):
        self.next_job += 1
        return self.next_job

    def load_blocks(self, cpu_blocks, gpu_blocks):
        job_id = self._new_job()
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        self.cpu_to_gpu.transfer_async(job_id, list(zip(cpu_blocks, gpu_blocks)), ready)
        return job_id

    def store_blocks(self, gpu_blocks, cpu_blocks):
        job_id = self._new_job()
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        self.gpu_to_cpu.transfer_async(job_id, list(zip(gpu_blocks, cpu_blocks)), ready)
        return job_id

    def get_finished(self):
        finished = []
        for handler in (self.gpu_to_cpu, self.cpu_to_gpu):
            for job_id, event in list(handler.done_events.items()):
                if event.query():
                    finished.append(job_id)
                    del handler.done_events[job_id]
        return finished
