"""Forward-only pipeline schedule, as ``forward_backward_pipelining_without_interleaving`` runs it
with ``forward_only=True``: every microbatch goes through this stage once, front to back."""

from .p2p_communication import recv_forward, send_forward


def forward_step(forward_step_func, data_iterator, model, input_tensor, microbatch_id, pp):
    model.set_input_tensor(input_tensor)
    output_tensor, loss_func = forward_step_func(data_iterator, model, microbatch_id)
    if pp.is_last_stage:
        # last stage: reduce the output to whatever the caller collects
        output_tensor = loss_func(output_tensor)
    return output_tensor


def forward_only_pipelining(*, forward_step_func, data_iterator, model, num_microbatches,
                            tensor_shape, dtype, pp):
    for microbatch_id in range(num_microbatches):
        input_tensor = recv_forward(tensor_shape, dtype, pp)
        output_tensor = forward_step(forward_step_func, data_iterator, model, input_tensor,
                                     microbatch_id, pp)
        send_forward(output_tensor, pp)
