"""Runs on the engine's output thread: turns a step's mirrored outputs into request updates."""


def process_step_outputs(mirror, active_requests, tokenizer, on_finished):
    """Append each request's new token; hand finished requests to ``on_finished``.

    Returns the number of tokens the active requests now hold in total.
    """
    # the engine thread recorded this event behind the mirror copies; wait for them here, on
    # the output thread, so the engine thread never blocks on the device
    mirror.ready.synchronize()
    num_active = len(active_requests)
    any_finished = bool((mirror.finished[:num_active] > 0).any())
    for i, request in enumerate(active_requests):
        token = int(mirror.new_tokens[i])
        request.generated_tokens.append(token)
        request.generated_text += tokenizer.decode([token])
        if any_finished and int(mirror.finished[i]):
            on_finished(request, int(mirror.lengths[i]))
    return int(mirror.lengths[:num_active].sum())
