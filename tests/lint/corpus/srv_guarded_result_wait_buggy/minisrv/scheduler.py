"""The scheduler loop: run the model, read the sampled ids, retire finished requests and spill
their KV blocks to the host. The wait for the forward pass is made only when tracing."""

import torch

from minisrv.batch_result import BatchResult
from minisrv.kv_spill import HostKVSpiller


class Scheduler:
    def __init__(self, model, num_blocks, block_size, hidden, trace=False):
        self.model = model
        self.trace = trace
        self.kv_cache = torch.zeros(num_blocks, block_size, hidden, device="cuda")
        self.spiller = HostKVSpiller(self.kv_cache, num_blocks)

    def run_batch(self, batch):
        if not batch["requests"]:
            return BatchResult()
        logits = self.model(batch["tokens"], self.kv_cache)
        result = BatchResult(next_token_ids=logits.argmax(dim=-1))
        result.copy_to_host()
        return result

    def process_result(self, batch, result):
        if self.trace:
            torch.cuda.synchronize()
        for index, request in enumerate(batch["requests"]):
            request["output"].append(int(result.next_token_ids[index]))
            if len(request["output"]) >= request["max_tokens"]:
                self.finish(request)

    def finish(self, request):
        request["host_slots"] = self.spiller.spill(request["block_ids"])

    def step(self, batch):
        result = self.run_batch(batch)
        self.process_result(batch, result)
