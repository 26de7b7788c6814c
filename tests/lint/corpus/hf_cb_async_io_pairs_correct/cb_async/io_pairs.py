"""Static input / output tensors of the asynchronous loop, in the shape of transformers'
ContinuousBatchingAsyncIOs: two host/device IO pairs so that the inputs of batch N+1 can be
prepared while batch N still runs, an H2D stream, a D2H stream and a compute stream, and
three events per pair to chain upload -> forward -> download."""

from typing import Dict, List, Tuple

import torch

from cb_async.requests import RequestState


class StaticIOs:
    """One set of static tensors; pinned when it lives on the host."""

    def __init__(self, max_batch_tokens: int, device: torch.device):
        pin_memory = device.type == "cpu"
        # small int inputs share one bulk tensor so that one copy moves all of them
        self.bulk = torch.zeros((3, max_batch_tokens), dtype=torch.int32, device=device, pin_memory=pin_memory)
        self.input_ids = self.bulk[0]
        self.position_ids = self.bulk[1]
        self.logits_indices = self.bulk[2]
        self.output_ids = torch.zeros(max_batch_tokens, dtype=torch.int32, device=device, pin_memory=pin_memory)
        self.num_tokens = 0
        self.requests_in_batch: List[RequestState] = []


class HostDeviceIOPair:
    def __init__(self, max_batch_tokens: int, device: torch.device):
        self.host_io = StaticIOs(max_batch_tokens, torch.device("cpu"))
        self.device_io = StaticIOs(max_batch_tokens, device)
        self.h2d_over = torch.cuda.Event()
        self.compute_over = torch.cuda.Event()
        self.d2h_over = torch.cuda.Event()
        self.pending_update = False

    def transfer_inputs_h2d(self, stream: torch.cuda.Stream) -> None:
        with torch.cuda.stream(stream):
            self.device_io.bulk.copy_(self.host_io.bulk, non_blocking=True)
        self.device_io.num_tokens = self.host_io.num_tokens

    def transfer_outputs_d2h(self, stream: torch.cuda.Stream) -> None:
        with torch.cuda.stream(stream):
            self.host_io.output_ids.copy_(self.device_io.output_ids, non_blocking=True)


class ContinuousBatchingAsyncIOs:
    def __init__(self, max_batch_tokens: int, device: torch.device):
        self.max_batch_tokens = max_batch_tokens
        self.current_pair = 0
        self.io_pairs = [HostDeviceIOPair(max_batch_tokens, device) for _ in range(2)]
        self.h2d_stream = torch.cuda.Stream(device=device)
        self.d2h_stream = torch.cuda.Stream(device=device)
        self.compute_stream = torch.cuda.Stream(device=device)

    @property
    def io_pair(self) -> HostDeviceIOPair:
        return self.io_pairs[self.current_pair]

    @property
    def output_ids(self) -> torch.Tensor:
        # written by the sampler on the compute stream
        return self.io_pair.device_io.output_ids

    def prepare_batch_tensors(self, requests: List[RequestState]) -> None:
        host_io = self.io_pair.host_io
        input_ids, position_ids, logits_indices = [], [], []
        for state in requests:
            tokens = state.tokens_to_process
            input_ids.extend(tokens)
            position_ids.extend(range(state.position_offset, state.position_offset + len(tokens)))
            state.position_offset += len(tokens)
            logits_indices.append(len(input_ids) - 1)
        n = len(input_ids)
        if n > self.max_batch_tokens:
            raise ValueError(f"batch of {n} tokens exceeds max_batch_tokens={self.max_batch_tokens}")
        host_io.input_ids[:n] = torch.tensor(input_ids, dtype=torch.int32)
        host_io.position_ids[:n] = torch.tensor(position_ids, dtype=torch.int32)
        host_io.logits_indices[: len(logits_indices)] = torch.tensor(logits_indices, dtype=torch.int32)
        host_io.num_tokens = n
        host_io.requests_in_batch = list(requests)

    def get_model_kwargs(self) -> Tuple[Dict[str, torch.Tensor], torch.Tensor]:
        io_pair = self.io_pair
        io_pair.transfer_inputs_h2d(self.h2d_stream)
        self.h2d_stream.record_event(io_pair.h2d_over)
        self.compute_stream.wait_event(io_pair.h2d_over)
        dev, n = io_pair.device_io, io_pair.device_io.num_tokens
        kwargs = {
            "input_ids": dev.input_ids[:n].unsqueeze(0),
            "position_ids": dev.position_ids[:n].unsqueeze(0),
        }
        return kwargs, dev.logits_indices[: len(io_pair.host_io.requests_in_batch)]

    def retrieve_device_outputs(self) -> None:
        """Queue the D2H of this batch's tokens and switch to the other pair."""
        io_pair = self.io_pair
        self.compute_stream.record_event(io_pair.compute_over)
        self.d2h_stream.wait_event(io_pair.compute_over)
        io_pair.transfer_outputs_d2h(self.d2h_stream)
        self.d2h_stream.record_event(io_pair.d2h_over)
        io_pair.pending_update = True
        self.current_pair = 1 - self.current_pair

    def prepare_batch_update(self) -> Tuple[List[RequestState], List[int]]:
        """Called after the switch: the pair that is now current ran the previous batch."""
        io_pair = self.io_pair
        if not io_pair.pending_update:
            return [], []
        # wait for the download of that batch's tokens, not just for its forward: the D2H
        # runs on its own stream after compute_over
        io_pair.d2h_over.synchronize()
        io_pair.pending_update = False
        requests = io_pair.host_io.requests_in_batch
        new_tokens = io_pair.host_io.output_ids[: len(requests)].tolist()
        io_pair.host_io.requests_in_batch = []
        return requests, new_tokens
