"""The step loop of a dynamic-batching engine: update the request bookkeeping after the model
step, then read the counts and lengths on the host to decide which requests to retire."""

from dyninfer.context import DynamicBatchContext


class DynamicEngine:
    def __init__(self, model, max_requests, eos_id, max_length):
        self.model = model
        self.context = DynamicBatchContext(max_requests)
        self.eos_id = eos_id
        self.max_length = max_length

    def step(self, tokens):
        new_tokens = self.model(tokens).argmax(dim=-1)
        self.context.update_requests(new_tokens, self.eos_id, self.max_length)
        active = self.context.active_request_count()
        lengths = self.context.request_lengths_host()
        retired = [slot for slot in range(active) if lengths[slot] >= self.max_length]
        return new_tokens, retired
