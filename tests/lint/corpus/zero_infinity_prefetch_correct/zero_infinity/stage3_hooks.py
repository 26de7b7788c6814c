import torch

from .coordinator import PartitionedParameterCoordinator
from .param_status import init_offloaded_params


class ZeROInferenceHooks:
    """Installs fetch/release hooks on every leaf-holding sub-module of a model."""

    def __init__(self, model: torch.nn.Module, prefetch_depth=2, max_live_parameters=1_000_000_000):
        self.model = model
        self.coordinator = PartitionedParameterCoordinator(prefetch_depth=prefetch_depth,
                                                           max_available_parameters_in_numel=max_live_parameters)
        init_offloaded_params(model)
        self._handles = []
        for module in model.modules():
            if any(True for _ in module.parameters(recurse=False)):
                self._handles.append(module.register_forward_pre_hook(self._pre_forward))
                self._handles.append(module.register_forward_hook(self._post_forward))
        self._handles.append(model.register_forward_hook(self._end_of_forward))

    def _pre_forward(self, module, inputs):
        self.coordinator.fetch_sub_module(module)

    def _post_forward(self, module, inputs, output):
        self.coordinator.release_sub_module(module)

    def _end_of_forward(self, module, inputs, output):
        self.coordinator.reset_step()

    def remove(self):
        for handle in self._handles:
            handle.remove()
        self._handles.clear()

    @torch.no_grad()
    def generate_step(self, *args, **kwargs):
        return self.model(*args, **kwargs)
