"""The generation loop: a background thread that keeps one batch in flight while it prepares the
next one and hands finished requests to the caller through an output queue."""

import queue
import threading
from typing import List, Optional

import torch

from cb_async.io_pairs import ContinuousBatchingAsyncIOs
from cb_async.requests import RequestState, RequestStatus


class ContinuousBatchProcessor:
    def __init__(self, model, eos_token_id: int, max_batch_tokens: int = 2048, device: str = "cuda"):
        self.model = model
        self.eos_token_id = eos_token_id
        self.ios = ContinuousBatchingAsyncIOs(max_batch_tokens, torch.device(device))
        self.input_queue: "queue.Queue[RequestState]" = queue.Queue()
        self.output_queue: "queue.Queue[RequestState]" = queue.Queue()
        self.active: List[RequestState] = []
        self.stop_event = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run_generation_loop, name="cb-generation", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.stop_event.set()
        if self._thread is not None:
            self._thread.join()

    def add_request(self, state: RequestState) -> None:
        self.input_queue.put(state)

    def _schedule(self) -> List[RequestState]:
        while not self.input_queue.empty():
            self.active.append(self.input_queue.get_nowait())
        # a request whose last token is still in flight sits this batch out
        in_flight = {id(r) for r in self.ios.io_pairs[1 - self.ios.current_pair].host_io.requests_in_batch}
        return [r for r in self.active if id(r) not in in_flight]

    @torch.no_grad()
    def _generation_step(self) -> None:
        batch = self._schedule()
        if batch:
            self.ios.prepare_batch_tensors(batch)
            kwargs, logits_indices = self.ios.get_model_kwargs()
            with torch.cuda.stream(self.ios.compute_stream):
                logits = self.model(**kwargs).logits
                next_tokens = logits[0, logits_indices].argmax(dim=-1).to(torch.int32)
                self.ios.output_ids[: next_tokens.numel()].copy_(next_tokens)
            self.ios.retrieve_device_outputs()
        else:
            self.ios.current_pair = 1 - self.ios.current_pair
        self._update_requests()

    def _update_requests(self) -> None:
        requests, new_tokens = self.ios.prepare_batch_update()
        for state, token in zip(requests, new_tokens):
            state.append_token(token, self.eos_token_id)
            if state.status == RequestStatus.FINISHED:
                self.active.remove(state)
                self.output_queue.put(state)

    def _run_generation_loop(self) -> None:
        while not self.stop_event.is_set():
            self._generation_step()
