"""Adam-state offload in the shape of DeepSpeed's compile passes: a module-level ``copy_stream`` and
events created lazily by ``lazy_init()``, pinned host buffers kept per state key inside the optimizer
state dict, offload and reload tasks run between graph nodes. Bugs: ``offload_key`` copies the
moments the optimizer step just wrote on the compute stream from ``copy_stream`` with no barrier
behind the compute stream (the event recorded after the copy orders nothing before it), and
``checkpoint_moments`` serialises a pinned buffer while its copy may still be in flight."""

import torch
from deepspeed.accelerator import get_accelerator

copy_stream = None
offload_event = None
reload_event = None

offload_key_events = {}
reload_key_events = {}

optimizer = None
device = None


def lazy_init():
    global copy_stream
    global offload_event
    global reload_event
    if copy_stream is None:
        copy_stream = get_accelerator().Stream()
        offload_event = get_accelerator().Event()
        reload_event = get_accelerator().Event()


def offloaded_key(key):
    return f"{key}__offload_buffer"


def offload_key(state, key, key_event=None):
    buf_key = offloaded_key(key)
    if buf_key not in state:
        state[buf_key] = get_accelerator().pin_memory(torch.empty_like(state[key], device="cpu"))
    with get_accelerator().stream(copy_stream):
        # expect: KVG001
        state[buf_key].copy_(state[key], non_blocking=True)
    if key_event is None:
        offload_event.record(copy_stream)
    else:
        key_event.record(copy_stream)


def reload_key(state, key, key_event=None):
    with get_accelerator().stream(copy_stream):
        restored = torch.empty_like(state[offloaded_key(key)], device=device)
        restored.copy_(state[offloaded_key(key)], non_blocking=True)
    state[key] = restored
    if key_event is None:
        reload_event.record(copy_stream)
    else:
        key_event.record(copy_stream)


def step_and_offload(closure=None):
    lazy_init()
    optimizer.step(closure)
    for param, state in optimizer.state.items():
        for key in ("exp_avg", "exp_avg_sq"):
            if key in state:
                event = offload_key_events.get((param, key))
                if event is None:
                    event = get_accelerator().Event()
                    offload_key_events[(param, key)] = event
                offload_key(state, key, event)


def release_offloaded():
    for (param, key), event in offload_key_events.items():
        event.synchronize()
        optimizer.state[param].pop(key, None)


def reload_all():
    lazy_init()
    for param, state in optimizer.state.items():
        for key in ("exp_avg", "exp_avg_sq"):
            if offloaded_key(key) in state:
                event = reload_key_events.setdefault((param, key), get_accelerator().Event())
                reload_key(state, key, event)
    for event in reload_key_events.values():
        get_accelerator().current_stream().wait_event(event)


def checkpoint_moments(state, path):
    lazy_init()
    offload_key(state, "exp_avg")
    # expect: KVG003
    torch.save(state[offloaded_key("exp_avg")], path)
