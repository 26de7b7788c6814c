from .sample_state import SampleState


def handle_context_log_probs(state: SampleState) -> None:
    """Attach the first generated token's log-prob to finishing context requests."""
    if state.host.log_probs is None:
        return
    for request in state.scheduled_requests.context_requests:
        if not (request.is_last_context_chunk and request.py_return_log_probs):
            continue
        # expect: KVG003
        first = float(state.host.log_probs[request.py_seq_slot])
        request.py_result.append_log_probs([[first]])
