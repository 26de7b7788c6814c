"""All-to-all token dispatcher. The host needs the split sizes before the expert-parallel
all-to-all and the per-expert token counts before the grouped experts run. They are copied to
host memory on ``cuda_dtoh_stream`` at ``cuda_dtoh_point`` and the host waits for that copy at
``cuda_sync_point``, the earliest point whose code reads one of them."""

import torch

from moe_dispatch.utils import (
    all_to_all,
    gather_along_first_dim,
    maybe_move_tensor_to_cpu,
    permute,
    sort_chunks_by_idxs,
    unpermute,
)

SYNC_POINT_PRIORITY = {
    "before_permutation_1": 0,
    "before_ep_alltoall": 1,
    "before_permutation_2": 2,
    "before_finish": 3,
    "no_sync": 4,
}


class AlltoAllTokenDispatcher:
    def __init__(self, config, ep_group, ep_rank, layer_number, tracker=None):
        self.config = config
        self.ep_group = ep_group
        self.ep_size = config.expert_model_parallel_size
        self.num_experts = config.num_experts
        self.num_local_experts = config.num_local_experts
        self.local_expert_start = ep_rank * self.num_local_experts
        self.layer_number = layer_number
        self.tracker = tracker
        # chunk order after the all-to-all is [rank][local expert]; the experts want [local expert][rank]
        self.sort_input_by_local_experts = [
            r * self.num_local_experts + e for e in range(self.num_local_experts) for r in range(self.ep_size)
        ]
        self.restore_output_by_local_experts = [
            e * self.ep_size + r for r in range(self.ep_size) for e in range(self.num_local_experts)
        ]

        self.cuda_dtoh_stream = torch.cuda.Stream()
        self.cuda_dtoh_point = "before_permutation_1"
        self.cuda_sync_point = "no_sync"
        self.d2h_event = None

        self.input_splits = None
        self.output_splits = None
        self.num_global_tokens_per_local_expert = None

    def _maybe_update_cuda_sync_point(self, point):
        if SYNC_POINT_PRIORITY[point] < SYNC_POINT_PRIORITY[self.cuda_sync_point]:
            self.cuda_sync_point = point

    def _maybe_dtoh_and_synchronize(self, point, tokens_per_expert=None):
        if point == self.cuda_dtoh_point:
            on_side_stream = torch.cuda.current_stream() != self.cuda_dtoh_stream
            with torch.cuda.stream(self.cuda_dtoh_stream):
                tokens_per_expert = maybe_move_tensor_to_cpu(tokens_per_expert, record_stream=on_side_stream)
                self.input_splits = maybe_move_tensor_to_cpu(
                    self.input_splits, as_numpy=True, record_stream=on_side_stream
                )
                self.output_splits = maybe_move_tensor_to_cpu(
                    self.output_splits, as_numpy=True, record_stream=on_side_stream
                )
                self.num_global_tokens_per_local_expert = maybe_move_tensor_to_cpu(
                    self.num_global_tokens_per_local_expert, record_stream=on_side_stream
                )
            self.d2h_event = self.cuda_dtoh_stream.record_event()

        if point == self.cuda_sync_point:
            self.d2h_event.synchronize()
        return tokens_per_expert

    def preprocess(self, routing_map):
        self.cuda_sync_point = "no_sync"
        # [num_experts]: tokens this rank sends to each expert
        num_local_tokens_per_expert = routing_map.sum(dim=0).long()
        self.input_splits = num_local_tokens_per_expert.reshape(self.ep_size, self.num_local_experts).sum(dim=1)
        # [ep_size, num_experts]: what every rank sends to every expert
        num_global_tokens_per_expert = gather_along_first_dim(num_local_tokens_per_expert, self.ep_group).reshape(
            self.ep_size, self.num_experts
        )
        end = self.local_expert_start + self.num_local_experts
        num_global_tokens_per_local_expert = num_global_tokens_per_expert[:, self.local_expert_start : end]
        self.output_splits = num_global_tokens_per_local_expert.sum(dim=1)
        self.num_global_tokens_per_local_expert = num_global_tokens_per_local_expert.contiguous()
        # the all-to-all needs input_splits / output_splits on the host
        self._maybe_update_cuda_sync_point("before_ep_alltoall")
        return num_global_tokens_per_local_expert.sum(dim=0)

    def dispatch_preprocess(self, hidden_states, routing_map, probs):
        self.hidden_shape = hidden_states.shape
        hidden_states = hidden_states.view(-1, self.hidden_shape[-1])
        self.hidden_shape_before_permute = hidden_states.shape
        tokens_per_expert = self.preprocess(routing_map)
        tokens_per_expert = self._maybe_dtoh_and_synchronize("before_permutation_1", tokens_per_expert)
        if self.tracker is not None:
            self.tracker.record(self.layer_number, tokens_per_expert)
        permuted, permuted_probs, self.reversed_mapping = permute(hidden_states, routing_map, probs)
        return permuted, permuted_probs, tokens_per_expert

    def token_dispatch(self, permuted, permuted_probs, tokens_per_expert):
        tokens_per_expert = self._maybe_dtoh_and_synchronize("before_ep_alltoall", tokens_per_expert)
        global_tokens = all_to_all(self.ep_group, permuted, self.output_splits, self.input_splits)
        global_probs = all_to_all(self.ep_group, permuted_probs, self.output_splits, self.input_splits)
        return global_tokens, global_probs, tokens_per_expert

    def dispatch_postprocess(self, global_tokens, global_probs, tokens_per_expert):
        tokens_per_expert = self._maybe_dtoh_and_synchronize("before_permutation_2", tokens_per_expert)
        if self.num_local_experts > 1:
            global_tokens, global_probs = sort_chunks_by_idxs(
                global_tokens,
                self.num_global_tokens_per_local_expert.ravel(),
                self.sort_input_by_local_experts,
                probs=global_probs,
            )
        tokens_per_expert = self._maybe_dtoh_and_synchronize("before_finish", tokens_per_expert)
        return global_tokens, global_probs, tokens_per_expert

    def combine(self, expert_output):
        if self.num_local_experts > 1:
            expert_output, _ = sort_chunks_by_idxs(
                expert_output,
                self.num_global_tokens_per_local_expert.T.ravel(),
                self.restore_output_by_local_experts,
            )
        local = all_to_all(self.ep_group, expert_output, self.input_splits, self.output_splits)
        return local

    def unpermute(self, local, probs_flat):
        out = unpermute(local, self.reversed_mapping, self.hidden_shape_before_permute, probs_flat)
        return out.view(self.hidden_shape)
