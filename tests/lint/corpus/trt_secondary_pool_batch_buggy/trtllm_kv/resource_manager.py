# SPDX-License-Identifier: Apache-2.0
from abc import ABC, abstractmethod
from collections import OrderedDict


class BaseResourceManager(ABC):

    @abstractmethod
    def get_max_resource_count(self) -> int:
        ...

    @abstractmethod
    def get_needed_resource_to_completion(self, request) -> int:
        ...

    def prepare_resources(self, scheduled_batch):
        pass

    def update_resources(self, scheduled_batch):
        pass

    def free_resources(self, request):
        pass

    def shutdown(self):
        pass


class ResourceManager:

    def __init__(self, resource_managers: dict):
        self.resource_managers = OrderedDict(resource_managers)

    def get_resource_manager(self, name):
        return self.resource_managers.get(name)

    def prepare_resources(self, scheduled_batch):
        for manager in self.resource_managers.values():
            manager.prepare_resources(scheduled_batch)

    def update_resources(self, scheduled_batch):
        for manager in self.resource_managers.values():
            manager.update_resources(scheduled_batch)

    def free_resources(self, request):
        for manager in reversed(self.resource_managers.values()):
            manager.free_resources(request)
