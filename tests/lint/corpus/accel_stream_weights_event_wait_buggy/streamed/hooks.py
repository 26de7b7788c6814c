"""A trimmed copy of the accelerate hook protocol: a hook wraps ``module.forward``."""

import functools


class ModelHook:
    def init_hook(self, module):
        return module

    def pre_forward(self, module, *args, **kwargs):
        return args, kwargs

    def post_forward(self, module, output):
        return output


def add_hook_to_module(module, hook):
    module = hook.init_hook(module)
    old_forward = module.forward
    module._old_forward = old_forward

    @functools.wraps(old_forward)
    def new_forward(*args, **kwargs):
        args, kwargs = module._hf_hook.pre_forward(module, *args, **kwargs)
        output = module._old_forward(*args, **kwargs)
        return module._hf_hook.post_forward(module, output)

    module._hf_hook = hook
    module.forward = new_forward
    return module
