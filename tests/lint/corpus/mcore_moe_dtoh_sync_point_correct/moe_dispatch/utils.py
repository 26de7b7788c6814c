"""Helpers shared by the dispatcher: host moves, permutation, variable-size all-to-all."""

import torch
import torch.distributed as dist


def maybe_move_tensor_to_cpu(tensor, as_numpy=False, record_stream=False):
    """Start a device-to-host copy of ``tensor`` on the current stream; the result is pinned and
    is only valid once that stream has been synchronised."""
    if torch.is_tensor(tensor):
        cpu_tensor = tensor.to(torch.device("cpu"), non_blocking=True)
        if as_numpy:
            cpu_tensor = cpu_tensor.numpy()
        if record_stream:
            tensor.record_stream(torch.cuda.current_stream())
        tensor = cpu_tensor
    return tensor


def permute(tokens, routing_map, probs):
    """Group token copies by expert: returns the permuted tokens, their probabilities and the
    index to undo it."""
    num_tokens = tokens.size(0)
    mask = routing_map.bool().T.contiguous()
    token_indices = torch.arange(num_tokens, device=tokens.device).unsqueeze(0).expand_as(mask)
    sorted_indices = token_indices.masked_select(mask)
    permuted_probs = probs.T.contiguous().masked_select(mask)
    return tokens.index_select(0, sorted_indices), permuted_probs, sorted_indices


def unpermute(permuted_tokens, sorted_indices, restore_shape, probs_flat):
    out = permuted_tokens.new_zeros(restore_shape)
    weighted = permuted_tokens * probs_flat.unsqueeze(-1).to(permuted_tokens.dtype)
    out.index_add_(0, sorted_indices, weighted)
    return out


def sort_chunks_by_idxs(tokens, split_sizes, sorted_idxs, probs=None):
    """Reorder chunks of ``tokens`` (sizes on the host) into the order ``sorted_idxs`` gives."""
    sizes = split_sizes.tolist()
    chunks = torch.split(tokens, sizes, dim=0)
    out = torch.cat([chunks[i] for i in sorted_idxs], dim=0)
    if probs is None:
        return out, None
    prob_chunks = torch.split(probs, sizes, dim=0)
    return out, torch.cat([prob_chunks[i] for i in sorted_idxs], dim=0)


def all_to_all(group, input_, output_split_sizes, input_split_sizes):
    out_splits = output_split_sizes.tolist()
    in_splits = input_split_sizes.tolist()
    output = input_.new_empty((sum(out_splits),) + tuple(input_.shape[1:]))
    dist.all_to_all_single(
        output, input_, output_split_sizes=out_splits, input_split_sizes=in_splits, group=group
    )
    return output


def gather_along_first_dim(tensor, group):
    world = dist.get_world_size(group)
    out = tensor.new_empty((world * tensor.size(0),) + tuple(tensor.shape[1:]))
    dist.all_gather_into_tensor(out, tensor.contiguous(), group=group)
    return out
