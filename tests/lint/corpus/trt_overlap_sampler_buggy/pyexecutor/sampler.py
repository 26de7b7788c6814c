import torch

from .sample_state import SampleState, SampleStateTensors, ScheduledRequests


class TorchSampler:
    """Greedy sampler whose device->host copy overlaps with the next forward step."""

    def __init__(self, return_log_probs: bool = False):
        self.return_log_probs = return_log_probs
        self._d2h_stream = torch.cuda.Stream()

    def sample_async(self, scheduled_requests: ScheduledRequests,
                     model_outputs: dict[str, torch.Tensor]) -> SampleState:
        logits = model_outputs["logits"]
        new_tokens_device = torch.argmax(logits, dim=-1).to(torch.int32)
        log_probs_device = None
        if self.return_log_probs:
            log_probs_device = torch.log_softmax(logits.float(), dim=-1).gather(
                -1, new_tokens_device.long().unsqueeze(-1)).squeeze(-1)

        device = SampleStateTensors(new_tokens=new_tokens_device, log_probs=log_probs_device)
        with torch.cuda.stream(self._d2h_stream):
            # expect: KVG001
            new_tokens_host = new_tokens_device.to("cpu", non_blocking=True)
            log_probs_host = None
            if log_probs_device is not None:
                # expect: KVG001
                log_probs_host = log_probs_device.to("cpu", non_blocking=True)
            sampler_event = torch.cuda.Event()
            sampler_event.record()
        new_tokens_device.record_stream(self._d2h_stream)
        if log_probs_device is not None:
            log_probs_device.record_stream(self._d2h_stream)

        return SampleState(scheduled_requests=scheduled_requests,
                           device=device,
                           host=SampleStateTensors(new_tokens=new_tokens_host,
                                                   log_probs=log_probs_host),
                           sampler_event=sampler_event)

    def update_requests(self, state: SampleState) -> None:
        if state.sampler_event is not None:
            state.sampler_event.synchronize()
        new_tokens = state.host.new_tokens.tolist()
        for request, token in zip(state.scheduled_requests.generation_requests, new_tokens):
            if not request.is_finished:
                request.add_new_token(token)
