"""One generation step over the scheduled batch."""

import torch

from cbatch.requests import RequestStatus


class ContinuousBatchProcessor:
    def __init__(self, model, cache, scheduler, output_queue, max_batch_tokens, device):
        self.model = model
        self.cache = cache
        self.scheduler = scheduler
        self.output_queue = output_queue
        self.device = device
        self.compute_stream = torch.cuda.Stream(device=device)
        self.host_input_ids = torch.empty(max_batch_tokens, dtype=torch.long, pin_memory=True)
        self.input_ids = torch.empty(max_batch_tokens, dtype=torch.long, device=device)
        self.host_last_index = torch.empty(max_batch_tokens, dtype=torch.long, pin_memory=True)
        self.last_index = torch.empty(max_batch_tokens, dtype=torch.long, device=device)
        self.host_next_ids = torch.empty(max_batch_tokens, dtype=torch.long, pin_memory=True)
        self.step_done = torch.cuda.Event()

    def _apply_swaps(self, plan):
        if plan.swap_out:
            self.cache.swap_out(plan.swap_out)
        if plan.swap_in:
            self.cache.swap_in(plan.swap_in)

    def _stage_inputs(self, batch):
        tokens, lengths = [], []
        for state in batch:
            ids = state.prompt_ids if state.status is RequestStatus.PREFILLING else [state.last_token]
            tokens.extend(ids)
            lengths.append(len(ids))
        n = len(tokens)
        self.host_input_ids[:n] = torch.tensor(tokens, dtype=torch.long)
        ends, total = [], 0
        for length in lengths:
            total += length
            ends.append(total - 1)
        self.host_last_index[: len(ends)] = torch.tensor(ends, dtype=torch.long)
        return n, lengths

    def _sync(self):
        torch.cuda.current_stream().synchronize()

    @torch.no_grad()
    def step(self):
        plan = self.scheduler.schedule()
        if plan.empty:
            return False
        self._apply_swaps(plan)
        n, lengths = self._stage_inputs(plan.batch)
        with torch.cuda.stream(self.compute_stream):
            self.compute_stream.wait_stream(self.cache.swap_stream)
            b = len(plan.batch)
            self.input_ids[:n].copy_(self.host_input_ids[:n], non_blocking=True)
            self.last_index[:b].copy_(self.host_last_index[:b], non_blocking=True)
            logits = self.model(
                self.input_ids[:n],
                seq_lengths=lengths,
                block_tables=[s.block_table for s in plan.batch],
                key_blocks=self.cache.key_blocks,
                value_blocks=self.cache.value_blocks,
            )
            next_ids = logits.index_select(0, self.last_index[:b]).argmax(dim=-1)
            self.host_next_ids[:b].copy_(next_ids, non_blocking=True)
            self.step_done.record()
        self._sync()
        # expect: KVG003
        sampled = self.host_next_ids[:b].tolist()
        for state, token in zip(plan.batch, sampled):
            state.generated.append(token)
            if state.status is RequestStatus.PREFILLING:
                state.status = RequestStatus.DECODING
            self.output_queue.put((state.request_id, token, state.is_done()))
            if state.is_done():
                self.scheduler.retire(state)
        return True
