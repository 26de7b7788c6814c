"""ZeRO-Infinity style NVMe swapper for partitioned fp16 parameters."""

from .partitioned_param_swapper import (AsyncPartitionedParameterSwapper,
                                        PartitionedParamStatus)
