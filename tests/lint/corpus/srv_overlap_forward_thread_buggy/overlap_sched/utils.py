"""Small helpers shared by the worker and the client."""

import torch


@torch.compile(dynamic=True)
def resolve_future_token_ids(input_ids, future_token_ids_map):
    # negative ids are placeholders for tokens the previous batch had not sampled yet
    input_ids[:] = torch.where(
        input_ids < 0,
        future_token_ids_map[torch.clamp(-input_ids, min=0)],
        input_ids,
    )


def logprobs_to_python(logits_output):
    """Turn the host logprob tensor of a finished batch into a list of floats."""
    if logits_output.next_token_logprobs is not None:
        # expect: KVG003
        logits_output.next_token_logprobs = logits_output.next_token_logprobs.tolist()
    return logits_output
