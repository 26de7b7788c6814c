from .balancer import MoeLoadBalancer
from .config import MoeLoadBalancerConfig

__all__ = ["MoeLoadBalancer", "MoeLoadBalancerConfig"]
