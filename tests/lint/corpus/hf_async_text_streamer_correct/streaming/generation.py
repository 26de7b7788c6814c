"""A greedy decoding loop with the streamer hooks of ``GenerationMixin._sample``."""

import torch


@torch.no_grad()
def greedy_generate(model, input_ids, max_new_tokens, eos_token_id, streamer=None, past_key_values=None):
    if streamer is not None:
        streamer.put(input_ids)
    batch_size = input_ids.shape[0]
    unfinished_sequences = torch.ones(batch_size, dtype=torch.long, device=input_ids.device)
    model_inputs = input_ids
    for _ in range(max_new_tokens):
        outputs = model(input_ids=model_inputs, past_key_values=past_key_values, use_cache=True)
        past_key_values = outputs.past_key_values
        next_tokens = outputs.logits[:, -1, :].argmax(dim=-1)
        # finished sequences keep emitting the pad (eos) token
        next_tokens = next_tokens * unfinished_sequences + eos_token_id * (1 - unfinished_sequences)
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        if streamer is not None:
            streamer.put(next_tokens)
        unfinished_sequences = unfinished_sequences & (next_tokens != eos_token_id).long()
        if unfinished_sequences.max() == 0:
            break
        model_inputs = next_tokens[:, None]
    if streamer is not None:
        streamer.end()
    return input_ids
