"""Class-level bookkeeping for optimizer states that live on the host between steps.

Shaped like the swap-optimizer containers that keep one pair of swap streams and per-parameter
event maps on the class, so that every optimizer instance of a model shares them.
"""

import torch


class SwapStateRegistry:
    swap_to_device_stream = None
    swap_to_host_stream = None

    param_to_cpu_states_map = {}
    param_to_device_states_map = {}

    swap_to_device_events_map = {}
    swap_to_host_events_map = {}
    param_update_events_map = {}

    state_keys = ("exp_avg", "exp_avg_sq")

    @classmethod
    def init_streams(cls):
        if cls.swap_to_device_stream is None:
            cls.swap_to_device_stream = torch.cuda.Stream()
            cls.swap_to_host_stream = torch.cuda.Stream()

    @classmethod
    def register(cls, param):
        cls.param_to_cpu_states_map[param] = {
            key: torch.zeros(param.numel(), dtype=torch.float32, pin_memory=True) for key in cls.state_keys
        }
        cls.param_to_device_states_map[param] = {
            key: torch.zeros(param.numel(), dtype=torch.float32, device=param.device) for key in cls.state_keys
        }
        cls.swap_to_device_events_map[param] = None
        cls.swap_to_host_events_map[param] = None
        cls.param_update_events_map[param] = None

    @classmethod
    def swap_to_device(cls, param):
        # the device slots were last read by this parameter's previous update
        cls.swap_to_device_stream.wait_stream(torch.cuda.current_stream())
        host_ev = cls.swap_to_host_events_map[param]
        if host_ev is not None:
            cls.swap_to_device_stream.wait_event(host_ev)
        cpu_state = cls.param_to_cpu_states_map[param]
        dev_state = cls.param_to_device_states_map[param]
        with torch.cuda.stream(cls.swap_to_device_stream):
            for key in cls.state_keys:
                dev_state[key].copy_(cpu_state[key], non_blocking=True)
        ev = torch.cuda.Event()
        ev.record(cls.swap_to_device_stream)
        cls.swap_to_device_events_map[param] = ev
        return dev_state

    @classmethod
    def swap_to_host(cls, param):
        # the states must not be read before the swap-in that filled them has landed
        cls.swap_to_host_stream.wait_event(cls.swap_to_device_events_map[param])
        cpu_state = cls.param_to_cpu_states_map[param]
        dev_state = cls.param_to_device_states_map[param]
        with torch.cuda.stream(cls.swap_to_host_stream):
            for key in cls.state_keys:
                # expect: KVG001
                cpu_state[key].copy_(dev_state[key], non_blocking=True)
        ev = torch.cuda.Event()
        ev.record(cls.swap_to_host_stream)
        cls.swap_to_host_events_map[param] = ev
