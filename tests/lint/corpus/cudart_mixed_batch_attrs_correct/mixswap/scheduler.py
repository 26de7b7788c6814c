"""Preemption by swapping, one plan per step."""
from collections import deque

from cuda.bindings import runtime as cudart

from .plan import SwapPlan
from .rt import event_done, ok


class SwapScheduler:
    def __init__(self, executor, num_gpu_blocks, num_cpu_blocks):
        self.executor = executor
        self.free_gpu = deque(range(num_gpu_blocks))
        self.free_cpu = deque(range(num_cpu_blocks))
        self.block_tables = {}          # req -> gpu blocks
        self.swapped = {}               # req -> cpu blocks, swap-out complete
        self._swapping_out = []         # (req, cpu blocks, event)
        self._resume_queue = deque()

    def preempt(self, req, plan):
        gpu = self.block_tables.pop(req)
        cpu = [self.free_cpu.popleft() for _ in gpu]
        plan.swap_out.extend(zip(gpu, cpu))
        return gpu, cpu

    def _poll_swap_outs(self):
        still = []
        for req, cpu, ev in self._swapping_out:
            if event_done(ev):
                self.swapped[req] = cpu
                ok(cudart.cudaEventDestroy(ev))
            else:
                still.append((req, cpu, ev))
        self._swapping_out = still

    def step(self, victims):
        """Swap `victims` out and, space permitting, resumable requests back in."""
        self._poll_swap_outs()
        plan = SwapPlan()
        freed = []
        pending = []
        for req in victims:
            gpu, cpu = self.preempt(req, plan)
            freed.extend(gpu)
            pending.append((req, cpu))
        while self._resume_queue and self._resume_queue[0] in self.swapped:
            req = self._resume_queue[0]
            cpu = self.swapped[req]
            if len(cpu) > len(self.free_gpu):
                break
            self._resume_queue.popleft()
            del self.swapped[req]
            gpu = [self.free_gpu.popleft() for _ in cpu]
            plan.swap_in.extend(zip(cpu, gpu))
            self.block_tables[req] = gpu
            self.free_cpu.extend(cpu)
        if not plan:
            return
        ev = self.executor.run(plan)
        self.free_gpu.extend(freed)
        if pending:
            self._swapping_out.extend((req, cpu, ev) for req, cpu in pending)
        else:
            ok(cudart.cudaEventDestroy(ev))

    def want_resume(self, req):
        self._resume_queue.append(req)
