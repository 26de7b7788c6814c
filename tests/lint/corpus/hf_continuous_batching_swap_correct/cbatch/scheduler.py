"""FIFO scheduler with preemption by swapping."""

from collections import deque
from dataclasses import dataclass, field
from typing import List, Tuple

from cbatch.requests import RequestStatus


@dataclass
class StepPlan:
    batch: list = field(default_factory=list)
    swap_out: List[Tuple[int, int]] = field(default_factory=list)
    swap_in: List[Tuple[int, int]] = field(default_factory=list)

    @property
    def empty(self):
        return not self.batch


class FIFOScheduler:
    def __init__(self, cache, max_batch_tokens):
        self.cache = cache
        self.max_batch_tokens = max_batch_tokens
        self.waiting = deque()
        self.swapped = deque()
        self.running = []

    def add(self, state):
        self.waiting.append(state)

    def _blocks_needed(self, state):
        bs = self.cache.block_size
        return (state.length + 1 + bs - 1) // bs - len(state.block_table)

    def _preempt(self, plan):
        victim = self.running.pop()
        for dev in victim.block_table:
            host = self.cache.free_host_blocks.pop()
            plan.swap_out.append((dev, host))
            victim.host_blocks.append(host)
            self.cache.free_blocks.append(dev)
        victim.block_table = []
        victim.status = RequestStatus.SWAPPED
        self.swapped.appendleft(victim)

    def schedule(self):
        plan = StepPlan()
        for state in list(self.running):
            while self._blocks_needed(state) > len(self.cache.free_blocks) and len(self.running) > 1:
                self._preempt(plan)
            if state not in self.running:
                continue
            for _ in range(max(0, self._blocks_needed(state))):
                state.block_table.append(self.cache.free_blocks.pop())
        while self.swapped and len(self.cache.free_blocks) >= len(self.swapped[0].host_blocks) + 1:
            state = self.swapped.popleft()
            for host in state.host_blocks:
                dev = self.cache.free_blocks.pop()
                plan.swap_in.append((host, dev))
                state.block_table.append(dev)
                self.cache.free_host_blocks.append(host)
            state.host_blocks = []
            state.status = RequestStatus.DECODING
            self.running.append(state)
        budget = self.max_batch_tokens - len(self.running)
        while self.waiting and not self.swapped:
            state = self.waiting[0]
            need = self._blocks_needed(state)
            if len(state.prompt_ids) > budget or need > len(self.cache.free_blocks):
                break
            self.waiting.popleft()
            state.block_table = [self.cache.free_blocks.pop() for _ in range(need)]
            state.status = RequestStatus.PREFILLING
            budget -= len(state.prompt_ids)
            self.running.append(state)
        plan.batch = list(self.running)
        return plan

    def retire(self, state):
        self.running.remove(state)
        self.cache.free_blocks.extend(state.block_table)
        state.block_table = []
        state.status = RequestStatus.FINISHED
