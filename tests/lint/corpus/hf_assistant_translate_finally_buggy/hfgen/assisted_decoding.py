"""The greedy assisted-decoding loop: draft, verify with one target forward, keep the longest
agreeing prefix plus the target's own next token."""

import torch


@torch.no_grad()
def assisted_greedy_decode(model, candidate_generator, input_ids: torch.LongTensor, max_new_tokens: int,
                           eos_token_id: int) -> torch.LongTensor:
    start = input_ids.shape[1]
    while input_ids.shape[1] - start < max_new_tokens:
        candidate_ids, _ = candidate_generator.get_candidates(input_ids)
        candidate_length = candidate_ids.shape[1] - input_ids.shape[1]
        logits = model(candidate_ids).logits
        selected = logits[:, -candidate_length - 1:].argmax(dim=-1)
        drafted = candidate_ids[:, input_ids.shape[1]:]
        n_matches = int(((~(drafted == selected[:, :-1])).cumsum(dim=-1) < 1).sum())
        input_ids = torch.cat([input_ids, selected[:, : n_matches + 1]], dim=-1)
        candidate_generator.update_candidate_strategy(input_ids, logits, n_matches)
        if (input_ids[:, -n_matches - 1:] == eos_token_id).any():
            break
    return input_ids
