"""Runs on the engine's output thread: turns a step's mirrored outputs into request updates."""


def process_step_outputs(mirror, active_requests, tokenizer, on_finished):
    """Append each request's new token; hand finished requests to ``on_finished``.

    Returns the number of tokens the active requests now hold in total.
    """
    num_active = len(active_requests)
    # expect: KVG003
    any_finished = bool((mirror.finished[:num_active] > 0).any())
    for i, request in enumerate(active_requests):
        # expect: KVG003
        token = int(mirror.new_tokens[i])
        request.generated_tokens.append(token)
        request.generated_text += tokenizer.decode([token])
        # expect: KVG003
        if any_finished and int(mirror.finished[i]):
            # expect: KVG003
            on_finished(request, int(mirror.lengths[i]))
    # expect: KVG003
    return int(mirror.lengths[:num_active].sum())
