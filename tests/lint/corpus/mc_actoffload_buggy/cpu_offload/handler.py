"""Double-buffered group offload handler (forward: D2H, backward: H2D)."""

from typing import Any, Dict, Tuple

import torch

from .streams import make_offload_streams, tensor_need_offloading, wait_for_compute

Tag = Tuple[int, int]


class AsyncGroupOffloadHandler:
    """Offloads every saved activation of the first `num_offload_group` groups."""

    def __init__(self, num_offload_group: int, num_model_group: int):
        self.num_offload_group = num_offload_group
        self.num_model_group = num_model_group
        self.d2h_stream, self.h2d_stream = make_offload_streams()
        self.tensor_tag_to_state: Dict[Tag, Any] = {}
        self.tensor_tag_to_buf: Dict[Tag, torch.Tensor] = {}
        self.offload_events: Dict[int, torch.cuda.Event] = {}
        self.reload_events: Dict[int, torch.cuda.Event] = {}
        self.current_group = 0
        self.tensor_count_current_group = 0

    # ---- saved-tensor hook entry points -------------------------------------
    def tensor_push(self, tensor: torch.Tensor, **kwargs) -> Tag:
        tag = (self.current_group, self.tensor_count_current_group)
        self.tensor_count_current_group += 1
        self.tensor_tag_to_state[tag] = tensor
        return tag

    def tensor_pop(self, tag: Tag, **kwargs) -> torch.Tensor:
        state = self.tensor_tag_to_state.pop(tag)
        assert not isinstance(state, tuple), f"tensor {tag} was not reloaded"
        return state

    # ---- forward ------------------------------------------------------------
    def bulk_offload_group(self, group_to_offload: int) -> None:
        with torch.cuda.stream(self.d2h_stream):
            wait_for_compute(self.d2h_stream)
            for tag, state in self.tensor_tag_to_state.items():
                group_id, _ = tag
                if group_id != group_to_offload or not tensor_need_offloading(state):
                    continue
                cpu_backup = torch.empty(
                    state.size(), dtype=state.dtype, device="cpu", pin_memory=True
                )
                # expect: KVG001
                cpu_backup.copy_(state, non_blocking=True)
                self.tensor_tag_to_buf[tag] = state
                self.tensor_tag_to_state[tag] = (state.device, cpu_backup)
            event = torch.cuda.Event()
            event.record(self.d2h_stream)
        self.offload_events[group_to_offload] = event

    def on_group_commit_forward(self) -> None:
        if self.current_group < self.num_offload_group:
            self.bulk_offload_group(self.current_group)
            # GPU copies may only be released once the D2H has drained.
            torch.cuda.current_stream().wait_event(self.offload_events[self.current_group])
            for tag in [t for t in self.tensor_tag_to_buf if t[0] == self.current_group]:
                del self.tensor_tag_to_buf[tag]
        self.current_group += 1
        self.tensor_count_current_group = 0

    # ---- backward -----------------------------------------------------------
    def bulk_reload_group(self, group_to_reload: int) -> None:
        self.h2d_stream.wait_event(self.offload_events[group_to_reload])
        with torch.cuda.stream(self.h2d_stream):
            for tag, state in self.tensor_tag_to_state.items():
                if tag[0] != group_to_reload or not isinstance(state, tuple):
                    continue
                device, cpu_backup = state
                # Fresh allocation on the H2D stream: nothing else has touched it.
                gpu_tensor = torch.empty(cpu_backup.size(), dtype=cpu_backup.dtype, device=device)
                gpu_tensor.copy_(cpu_backup, non_blocking=True)
                self.tensor_tag_to_state[tag] = gpu_tensor
            event = torch.cuda.Event()
            event.record(self.h2d_stream)
        self.reload_events[group_to_reload] = event

    def on_group_commit_backward(self) -> None:
        self.current_group -= 1
        if self.current_group < self.num_offload_group:
            torch.cuda.current_stream().wait_event(self.reload_events[self.current_group])
        if 0 < self.current_group <= self.num_offload_group:
            self.bulk_reload_group(self.current_group - 1)
