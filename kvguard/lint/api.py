"""What the analysis knows about libraries: one table, grouped by API family.

The interpreter reads meaning from these entries (which argument of a copy is the source,
what an allocation gives, which calls make or enter a stream, which calls block the host),
and the file gate is derived from the same names: a name the analysis knows always lets
its file through. Adding a copy API or a barrier form is an entry here and an example in
the rule that uses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kvguard.lint.facts import ORDER_ANY, ORDER_DURING_API_CALL, ORDER_STREAM, Memory


@dataclass(frozen=True)
class RawCopy:
    """A copy entry point called with pointers: where its arguments are."""

    family: str
    destination: int
    source: int
    # Position of the stream argument; negative counts from the end. Keywords that name it.
    stream: int | None
    stream_keywords: tuple[str, ...] = ("hStream", "stream")
    # The least number of positional arguments for ``stream`` to be the stream.
    stream_needs: int = 0
    # Position of a memcpy-kind argument (host-to-device, ...), if the API takes one.
    kind: int | None = None
    # (source, destination) memory the entry point itself implies.
    memory: tuple[Memory, Memory] | None = None
    # Whether its attributes carry a source access order.
    ordered: bool = False


_BATCH = RawCopy("batch copy", destination=0, source=1, stream=-1, stream_needs=8, ordered=True)
RAW_COPIES: dict[str, RawCopy] = {
    # cuda-python driver API (cuda.bindings.driver) and its ctypes spellings.
    "cuMemcpyBatchAsync": _BATCH,
    "cuMemcpyBatchAsync_v2": _BATCH,
    "cuMemcpyAsync": RawCopy("driver", 0, 1, stream=3),
    "cuMemcpyAsync_v2": RawCopy("driver", 0, 1, stream=3),
    "cuMemcpyDtoHAsync": RawCopy("driver", 0, 1, stream=3, memory=(Memory.DEVICE, Memory.HOST)),
    "cuMemcpyDtoHAsync_v2": RawCopy("driver", 0, 1, stream=3, memory=(Memory.DEVICE, Memory.HOST)),
    "cuMemcpyHtoDAsync": RawCopy("driver", 0, 1, stream=3, memory=(Memory.HOST, Memory.DEVICE)),
    "cuMemcpyHtoDAsync_v2": RawCopy("driver", 0, 1, stream=3, memory=(Memory.HOST, Memory.DEVICE)),
    "cuMemcpyDtoDAsync": RawCopy("driver", 0, 1, stream=3, memory=(Memory.DEVICE, Memory.DEVICE)),
    "cuMemcpyDtoDAsync_v2": RawCopy("driver", 0, 1, stream=3, memory=(Memory.DEVICE, Memory.DEVICE)),
    "cuMemcpyWithAttributesAsync": RawCopy("driver", 0, 1, stream=4, ordered=True),
    # cuda-python runtime API (cuda.bindings.runtime), HIP, and cuda.core's spelling.
    "cudaMemcpyBatchAsync": _BATCH,
    "hipMemcpyBatchAsync": _BATCH,
    "cudaMemcpyAsync": RawCopy("runtime", 0, 1, stream=4, kind=3),
    "hipMemcpyAsync": RawCopy("runtime", 0, 1, stream=4, kind=3),
    "memcpyAsync": RawCopy("runtime", 0, 1, stream=4, kind=3),
    "cudaMemcpy2DAsync": RawCopy("runtime", 0, 2, stream=7, kind=6),
    "hipMemcpy2DAsync": RawCopy("runtime", 0, 2, stream=7, kind=6),
    # cuda.core: ``copy_batch(stream, srcs, dsts, options=CopyOptions(src_access_order=...))``.
    "copy_batch": RawCopy(
        "cuda.core", destination=2, source=1, stream=0, stream_keywords=("stream",), ordered=True
    ),
    # vLLM-style custom ops: (source cache, destination cache, block mapping) on the current stream.
    "swap_blocks": RawCopy("custom op", destination=1, source=0, stream=None, stream_keywords=()),
    "swap_blocks_batch": RawCopy("custom op", destination=1, source=0, stream=None, stream_keywords=()),
}
COPY_APIS = frozenset(RAW_COPIES)


@dataclass(frozen=True)
class RawWrite:
    """An entry point that writes GPU memory on a stream without copying into it: a memset
    (its ``destination``) or a kernel launch (every address among its arguments, ``None``)."""

    stream: int
    destination: int | None = None


_MEMSET = RawWrite(stream=3, destination=0)
RAW_WRITES: dict[str, RawWrite] = {
    "cuMemsetD8Async": _MEMSET,
    "cuMemsetD16Async": _MEMSET,
    "cuMemsetD32Async": _MEMSET,
    "cudaMemsetAsync": _MEMSET,
    "hipMemsetAsync": _MEMSET,
    # ``cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra)``
    "cuLaunchKernel": RawWrite(stream=8),
    # ``cudaLaunchKernel(func, grid, block, args, shared, stream)``
    "cudaLaunchKernel": RawWrite(stream=5),
    "hipLaunchKernel": RawWrite(stream=5),
}
# A captured CUDA graph (``torch.cuda.CUDAGraph()``, as the analysis spells what it made) and
# the method that launches its kernels on the current stream.
GRAPH_TYPE = "CUDAGraph()"
GRAPH_REPLAYS = frozenset({"replay"})
# Kernel launches spelt as a function of a module, matched by that module: cuda.core's
# ``launch(stream, config, kernel, *args)``.
MODULE_LAUNCHES = {"cuda.core": ("launch", RawWrite(stream=0))}
# Tensors and storages made over memory at a raw address (``torch.from_blob(ptr, ...)``).
RAW_ADDRESS_WRAPPERS = frozenset({"from_blob", "_construct_storage_from_data_pointer"})
# The prefix of ROCm's spellings (``hipMemcpyBatchAsync``), which mirror CUDA's entry points.
_ROCM_PREFIX = "hip"


def platform_twin(apis: tuple[str, ...]) -> str | None:
    """The one copy that several spellings of the same entry point stand for (a pointer chosen
    by ``is_rocm()``: HIP's batch copy or CUDA's), named by its first CUDA spelling: a project
    is read as CUDA code unless ROCm's is its only spelling. None where the entry points take
    their arguments differently (different copies)."""
    if len({RAW_COPIES[api] for api in apis}) != 1:
        return None
    return next((api for api in apis if not api.startswith(_ROCM_PREFIX)), apis[0])


# Source access orders: the driver, runtime and HIP enum members, and cuda.core's strings.
ORDER_SPELLINGS = {
    "CU_MEMCPY_SRC_ACCESS_ORDER_STREAM": ORDER_STREAM,
    "CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL": ORDER_DURING_API_CALL,
    "CU_MEMCPY_SRC_ACCESS_ORDER_ANY": ORDER_ANY,
    "cudaMemcpySrcAccessOrderStream": ORDER_STREAM,
    "cudaMemcpySrcAccessOrderDuringApiCall": ORDER_DURING_API_CALL,
    "cudaMemcpySrcAccessOrderAny": ORDER_ANY,
    "hipMemcpySrcAccessOrderStream": ORDER_STREAM,
    "hipMemcpySrcAccessOrderDuringApiCall": ORDER_DURING_API_CALL,
    "hipMemcpySrcAccessOrderAny": ORDER_ANY,
}
# Python's enum base classes: iterating a subclass gives its members.
ENUM_TYPES = frozenset({"Enum", "IntEnum", "Flag", "IntFlag", "StrEnum"})
# The enum types of those values: ``driver.CUmemcpySrcAccessOrder(n)`` is the order n.
ORDER_TYPES = frozenset({"CUmemcpySrcAccessOrder", "cudaMemcpySrcAccessOrder", "hipMemcpySrcAccessOrder"})
ORDER_STRINGS = {"stream": ORDER_STREAM, "during_api_call": ORDER_DURING_API_CALL, "any": ORDER_ANY}
ORDER_KEYWORDS = ("srcAccessOrder", "src_access_order")
ORDER_FLAGS = ("is_src_access_order_any",)
# A batch copy's location hints (``attrs.dstLocHint.type = CU_MEM_LOCATION_TYPE_HOST``): where
# the author says each side lives, by CUmemLocationType / cudaMemLocationType value and name.
LOCATION_HINTS = frozenset({"srcLocHint", "dstLocHint"})
LOCATION_TYPES = {1: Memory.DEVICE, 2: Memory.HOST, 3: Memory.HOST, 4: Memory.HOST}
LOCATION_TYPE_NAMES = {
    "CU_MEM_LOCATION_TYPE_DEVICE": Memory.DEVICE,
    "cudaMemLocationTypeDevice": Memory.DEVICE,
    **dict.fromkeys(
        (
            "CU_MEM_LOCATION_TYPE_HOST",
            "CU_MEM_LOCATION_TYPE_HOST_NUMA",
            "CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT",
        ),
        Memory.HOST,
    ),
    **dict.fromkeys(
        ("cudaMemLocationTypeHost", "cudaMemLocationTypeHostNuma", "cudaMemLocationTypeHostNumaCurrent"),
        Memory.HOST,
    ),
}

# cudaMemcpyKind and its HIP and cuda.core twins: value, and the memory each side is in.
KIND_SPELLINGS = {
    f"{prefix}{name}": value
    for prefix in ("cudaMemcpy", "hipMemcpy", "memcpy")
    for name, value in (
        ("HostToHost", 0),
        ("HostToDevice", 1),
        ("DeviceToHost", 2),
        ("DeviceToDevice", 3),
        ("Default", 4),
    )
}
KIND_MEMORY = {
    0: (Memory.HOST, Memory.HOST),
    1: (Memory.HOST, Memory.DEVICE),
    2: (Memory.DEVICE, Memory.HOST),
    3: (Memory.DEVICE, Memory.DEVICE),
}

# torch, numpy and cupy allocations. Those taking a tensor to copy the shape of place the
# result where that tensor is, unless told otherwise.
ALLOCATORS = frozenset(
    {"empty", "zeros", "ones", "full", "rand", "randn", "randint", "arange", "empty_strided"}
)
# Constructors from data: a table of pointers (``torch.tensor([t.data_ptr() ...])``) stands for
# the memory it points to; other data makes host memory unless a device is given.
DATA_CONSTRUCTORS = frozenset({"tensor", "as_tensor", "from_numpy"})
LIKE_ALLOCATORS = frozenset({"empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like"})
# Methods that allocate like the receiver: ``t.new_empty(shape)``.
NEW_ALLOCATORS = frozenset({"new_empty", "new_zeros", "new_ones", "new_full", "new_tensor"})
# Host allocations whatever their arguments: page-locked buffers of cupy, numba and the
# device-generic ``pin_memory(t)`` of accelerator objects.
PINNED_ALLOCATORS = frozenset(
    {"empty_pinned", "zeros_pinned", "pinned_array", "pinned_array_like", "mapped_array", "pin_memory"}
    | {"alloc_pinned_memory"}  # cupy's raw pinned block (read through ``numpy.frombuffer``)
)
# Device allocations of cupy and numba (``cupy.empty``, ``cuda.device_array``) are by module.
CUPY_MODULES = ("cupy", "cp")
DEVICE_MODULES = (*CUPY_MODULES, "numba.cuda", "cuda")
DEVICE_ALLOCATORS = frozenset({"device_array", "device_array_like", "to_device"})
# cuda-python's raw allocations, which give ``(err, pointer)``: where the pointer's memory is.
RAW_ALLOCATORS = {
    **dict.fromkeys(
        ("cudaMalloc", "cudaMallocAsync", "cuMemAlloc", "cuMemAlloc_v2", "cuMemAllocAsync", "hipMalloc"),
        Memory.DEVICE,
    ),
    **dict.fromkeys(
        (
            *("cudaMallocHost", "cudaHostAlloc", "cuMemAllocHost", "cuMemAllocHost_v2", "cuMemHostAlloc"),
            *("hipHostMalloc", "hipMallocHost"),
        ),
        Memory.HOST,
    ),
}
# Device modules whose functions take only their accelerator's device, and those functions
# (by the device argument, first or ``device=``): a value given there is no CPU device.
ACCELERATOR_MODULES = frozenset(
    {"torch.cuda", "torch.xpu", "torch.npu", "torch.mlu", "torch.musa", "torch.hpu", "torch.accelerator"}
)
ACCELERATOR_DEVICE_CALLS = frozenset(
    {"Stream", "set_device", "device", "current_stream", "default_stream", "synchronize"}
    | {"mem_get_info", "get_device_properties", "set_device_index"}
)
# DeepSpeed's accelerator queries, as a CUDA device answers them: its streams do not order
# each other by themselves, and its calls return before the device work ends.
ACCELERATOR_QUERIES = {"resolves_data_dependency": False, "is_synchronized_device": False}
# What accelerator objects say is the device: ``device=get_accelerator().device_name()``.
DEVICE_NAMES = frozenset({"device_name", "current_device_name", "current_device"})

# Copies spelt as methods of device arrays: name -> direction, for numba's
# ``d.copy_to_host(h, stream=s)`` / ``d.copy_to_device(h, stream=s)`` and cupy's
# ``d.set(h, stream=s)``. The receiver is the device side.
ARRAY_METHOD_COPIES = {
    "copy_to_host": "to host",
    "copy_to_device": "to device",
    "set": "to device",
    # cupy's ``MemoryPointer.copy_to_host_async(dst_ptr, size, stream)`` and its twin.
    "copy_to_host_async": "to host",
    "copy_from_host_async": "to device",
}
# Where those take their stream, positionally (numba's ``copy_to_host(h, stream)``: 1).
ARRAY_METHOD_STREAM_ARGUMENT = {"copy_to_host_async": 2, "copy_from_host_async": 2}

# Views: the same memory and the same buffer.
SAME_MEMORY_METHODS = frozenset(
    {"view", "reshape", "flatten", "unflatten", "narrow", "select", "permute", "transpose"}
    | {"contiguous", "squeeze", "unsqueeze", "expand", "as_strided", "view_as", "unbind", "chunk"}
    | {"split", "index_select", "clone", "detach", "float", "half", "bfloat16", "data_ptr"}
    | {"values", "items", "ravel", "t"}
    # ``memoryview(array).cast("B")``: the same bytes, seen as another format.
    | {"cast"}
)

# Python built-ins that give a fact about their argument (a count, a type, an identity),
# never its memory: ``len(ptrs)`` is a number, not an address.
PYTHON_FACTS = frozenset({"len", "isinstance", "issubclass", "hasattr", "callable", "id", "hash", "type"})

# cupy's functions that launch no computation on the current stream: copies, kernel
# definitions, memory pools, type helpers.
CUPY_NON_COMPUTING = frozenset(
    {"asnumpy", "asarray", "array", "copyto", "ndarray", "get_array_module", "dtype", "from_dlpack"}
    | {"ElementwiseKernel", "RawKernel", "RawModule", "ReductionKernel", "fuse"}
    | {"get_default_memory_pool", "get_default_pinned_memory_pool"}
)
# Top-level torch functions whose result is no new tensor computed from their arguments: a fact
# about them, or a view of a buffer (``torch.frombuffer``).
TORCH_NON_COMPUTING = frozenset({"numel", "frombuffer", "save", "load", "device", "get_device_module"})
# Top-level torch functions that make no tensor at all: modes, settings, function transforms.
TORCH_NON_TENSOR = frozenset(
    {"compile", "no_grad", "enable_grad", "inference_mode", "set_grad_enabled", "autocast", "vmap"}
    | {"manual_seed", "seed", "set_default_dtype", "set_default_device", "use_deterministic_algorithms"}
)

# ``torch.nn.Module``'s computation, called by name as well as through the module itself: what
# it returns was computed by work queued on the current stream.
MODEL_FORWARD = "forward"

# Attributes of an array that describe it and live on the host: reading ``t.shape`` of a GPU
# tensor reads none of its memory.
ARRAY_METADATA = frozenset(
    {"shape", "dtype", "device", "ndim", "is_cuda", "layout", "requires_grad", "itemsize", "nbytes"}
    | {"strides", "is_leaf", "names", "size"}
)

# Attributes of an array that give its address, not its elements: cupy's ``a.data.ptr``,
# numpy's ``a.ctypes.data``.
ARRAY_ADDRESSES = frozenset({"ptr", "ctypes"})

# Streams: constructors, context managers, the current and default stream, handles.
STREAM_CONSTRUCTORS = frozenset(
    {"Stream", "ExternalStream", "cudaStreamCreate", "cuStreamCreate", "create_stream"}
)
# Objects made over an address that stand for the memory there (cuda.core's ``Buffer``).
ADDRESS_WRAPPERS = frozenset({"from_handle"})
STREAM_CONTEXTS = frozenset({"stream", "StreamContext"})
# ``contextlib.ExitStack()``: what its ``enter_context`` enters lasts until its block ends.
EXIT_STACK = "ExitStack()"
# numpy integer scalars made from an address (``np.uint64(t.data_ptr())``) are that address.
NUMPY_SCALARS = frozenset({"uint64", "int64", "uintp", "intp", "uint32", "int32"})
# numpy functions that make a view of an array or a new one without reading its elements;
# every other numpy function given a host array computes from it at once (``numpy.abs(a)``).
NUMPY_VIEWS = frozenset(
    {"frombuffer", "as_array", "reshape", "ravel", "squeeze", "expand_dims", "transpose", "moveaxis"}
    | {"shape", "ndim", "size", "may_share_memory", "shares_memory"}
    | {"empty_like", "zeros_like", "ones_like", "full_like"}
)
# Types that wrap a raw stream or event handle without making a new one
# (``driver.CUstream(torch_stream.cuda_stream)``, cupy's ``ExternalStream(ptr)``).
HANDLE_WRAPPERS = frozenset(
    {"CUstream", "cudaStream_t", "hipStream_t", "CUevent", "cudaEvent_t", "ExternalStream"}
    | {"external_stream"}  # numba's ``cuda.external_stream(ptr)``
)
CURRENT_STREAM = frozenset({"current_stream", "get_current_stream"})
DEFAULT_STREAM = frozenset({"default_stream"})
STREAM_HANDLES = frozenset({"cuda_stream", "handle", "stream_id", "ptr"})
# Methods of a stream or an event that order or wait: taken as a value (a callback), they
# keep their receiver.
ORDERING_METHODS = frozenset({"wait", "synchronize", "wait_stream", "wait_event", "record", "record_event"})
EVENT_CONSTRUCTORS = frozenset({"Event"})

# cuda-python's function forms (driver ``cu*``, runtime ``cuda*``, HIP ``hip*``): creators
# return ``(err, handle)``; records, waits and syncs take the handles as arguments.
_RUNTIMES = ("cuda", "cu", "hip")
STREAM_CREATORS = frozenset(
    f"{api}{name}"
    for api in _RUNTIMES
    for name in ("StreamCreate", "StreamCreateWithFlags", "StreamCreateWithPriority")
)
EVENT_CREATORS = frozenset(
    f"{api}{name}" for api in _RUNTIMES for name in ("EventCreate", "EventCreateWithFlags")
)
# name -> (position of the event, position of the stream)
EVENT_RECORDS = {
    f"{api}{name}": (0, 1) for api in _RUNTIMES for name in ("EventRecord", "EventRecordWithFlags")
}
# name -> (position of the stream, position of the event)
STREAM_WAITS = {f"{api}StreamWaitEvent": (0, 1) for api in _RUNTIMES}
STREAM_SYNCS = frozenset(f"{api}StreamSynchronize" for api in _RUNTIMES)
EVENT_SYNCS = frozenset(f"{api}EventSynchronize" for api in _RUNTIMES)

# Host synchronisation: device-wide calls, and methods of a stream or an event.
DEVICE_SYNCS = frozenset({"synchronize", "cudaDeviceSynchronize", "cuCtxSynchronize", "hipDeviceSynchronize"})
# The driver and runtime entry points read by name: a project helper handed one to call
# (``call(cu.cuStreamCreate, flags)``, which checks the status) runs it.
DRIVER_ENTRY_POINTS = (
    COPY_APIS
    | STREAM_CREATORS
    | EVENT_CREATORS
    | frozenset(EVENT_RECORDS)
    | frozenset(STREAM_WAITS)
    | STREAM_SYNCS
    | EVENT_SYNCS
    | (DEVICE_SYNCS - {"synchronize"})
    | frozenset(RAW_WRITES)
    | frozenset(RAW_ALLOCATORS)
)
# Ways the host reads a buffer's bytes: methods of the buffer, and functions given it.
# ``.numpy()`` is not one: it makes a view, and vLLM reads such views only after a wait.
HOST_READ_METHODS = frozenset({"tolist", "item", "tobytes", "tofile", "__array__"})
# Tensor methods that compute from every element: on a host tensor they run on the CPU, at
# once, so they read its bytes as the call is made (``pinned.double().sum()``).
HOST_COMPUTE_METHODS = frozenset(
    {"sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "std", "var", "norm"}
    | {"abs", "all", "any", "eq", "ne", "equal", "allclose", "isnan", "isinf", "isfinite", "nonzero"}
    | {"count_nonzero", "sort", "topk", "cumsum", "clone", "double", "float", "half", "bfloat16"}
    | {"long", "int", "short"}
    # numpy's ``a.copy()``, ``a.astype(t)``: a new array made from every element
    | {"copy", "astype"}
)
# A captured graph's launch on the current stream (torch's ``CUDAGraph().replay()``, cupy's
# ``Graph.launch()``): the kernels it holds run there, on buffers the code does not name.
GRAPH_LAUNCHES = frozenset({"replay", "launch"})
# In-place methods that set a buffer without reading it (every other in-place method, such
# as ``mul_`` or ``add_``, reads the buffer it updates).
IN_PLACE_FILLS = frozenset({"zero_", "fill_", "normal_", "uniform_", "random_", "set_", "resize_"})
# Methods that read the buffer given as their first argument on the host: file and socket
# writes, and asynchronous I/O handles that write it out from their own threads (DeepSpeed's
# ``aio_handle.async_pwrite(buffer, path)``).
HOST_READ_ARGUMENT_METHODS = frozenset({"write", "pwrite", "async_pwrite", "sync_pwrite", "sendall"})
HOST_READ_FUNCTIONS = frozenset(
    {"bytes", "bytearray", "int", "float", "bool", "asarray", "array", "save", "dump", "equal"}
    # ``safetensors.torch.save_file({"kv": host}, path)``
    | {"save_file"}
    # compressors and checksums given the buffer (``zlib.compress(view)``, ``zlib.crc32(view)``)
    | {"compress", "crc32", "adler32", "md5", "sha1", "sha256", "blake2b", "xxh64", "xxh3_64"}
)
# Functions that write their second argument to a file descriptor.
OS_WRITES = frozenset({"os.write", "os.pwrite"})
# ctypes views over memory at an address (``(c_ubyte * n).from_address(t.data_ptr())``): they
# are that memory, not its address.
ADDRESS_VIEWS = frozenset({"from_address", "from_buffer"})

# Hand-offs to other threads.
QUEUES = frozenset({"Queue", "SimpleQueue", "LifoQueue", "PriorityQueue", "JoinableQueue"})
THREADS = frozenset({"Thread"})
# Callbacks torch calls later on the thread that runs the model, whenever it runs a module or
# its backward, not where they are registered: module and tensor hooks, saved-tensor hooks
# (``saved_tensors_hooks(pack, unpack)``).
HOOK_REGISTRATIONS = frozenset(
    {"register_forward_pre_hook", "register_forward_hook", "register_full_backward_pre_hook"}
    | {"register_full_backward_hook", "register_backward_hook", "register_hook"}
    | {"register_post_accumulate_grad_hook", "register_module_forward_pre_hook"}
    | {"register_module_forward_hook", "saved_tensors_hooks"}
)

# Standard modules whose functions run on the host alone: a call into them launches no kernel
# (``logger.debug(...)`` after a barrier leaves the streams as ordered as it found them).
HOST_ONLY_MODULES = frozenset(
    {"logging", "time", "os", "sys", "math", "json", "re", "warnings", "pathlib", "shutil", "struct"}
    | {"pickle", "collections", "itertools", "uuid", "hashlib", "random", "traceback", "datetime"}
)

# Names whose mention makes a function matter to stream ordering, and names of tensor
# copies and placements that matter when such a function calls it.
SEED_NAMES = (
    frozenset(
        {"wait_stream", "wait_event", "record_event", "synchronize", "cuGetProcAddress", "non_blocking"}
        | {"put", "put_nowait", "cuda_stream"}
    )
    | STREAM_CONSTRUCTORS
    | STREAM_CONTEXTS
    | CURRENT_STREAM
    | DEFAULT_STREAM
    | EVENT_CONSTRUCTORS
    | THREADS
    | QUEUES
    | COPY_APIS
    # The driver's and runtime's records, waits, syncs and creators (``cudaEventRecord``).
    | DRIVER_ENTRY_POINTS
    | frozenset(ORDER_SPELLINGS)
    | frozenset(ORDER_KEYWORDS)
    | frozenset(ORDER_FLAGS)
)
# Where a device's stream and event types come from: ``torch.get_device_module(device)``.
DEVICE_MODULE_LOOKUP = "get_device_module"
WEAK_NAMES = (
    frozenset(
        {"copy_", "cpu", "to", "pin_memory", "cuda", "data_ptr", "get", "get_nowait", DEVICE_MODULE_LOOKUP}
        # An event's record and wait (``ev.record(stream)``, numba's ``ev.wait(stream)``): the
        # words are common, so a function naming them is followed but does not seed.
        | {"record", "wait"}
    )
    | frozenset(RAW_WRITES)
    | ALLOCATORS
    | DATA_CONSTRUCTORS
    | LIKE_ALLOCATORS
    | NEW_ALLOCATORS
    | PINNED_ALLOCATORS
    | RAW_ADDRESS_WRAPPERS
    | frozenset(RAW_ALLOCATORS)
)

# The file gate: a file takes part in the analysis only if its bytes name something above
# that can start a hazard (a stream construct, a raw copy, a source access order, a copy
# thread or queue, an asynchronous copy). The rest is never parsed. Words that prose and
# unrelated code use ("stream", "Stream", "put") gate only when spelt as the call they are.
GATE_NAMES = (
    COPY_APIS
    | frozenset(ORDER_SPELLINGS)
    | frozenset(ORDER_KEYWORDS)
    | frozenset(ORDER_FLAGS)
    | frozenset(KIND_SPELLINGS)
    | (STREAM_CONSTRUCTORS - {"Stream"})
    | (STREAM_CONTEXTS - {"stream"})
    | CURRENT_STREAM
    | DEFAULT_STREAM
    | {"wait_stream", "wait_event", "record_event", "cuda_stream", "cuGetProcAddress"}
    | {"copy_to_host", "copy_to_device", "asnumpy", "copy_from_host_async"}
    | STREAM_CREATORS
    | frozenset(EVENT_RECORDS)
    | frozenset(STREAM_WAITS)
    | STREAM_SYNCS
    | EVENT_SYNCS
)
# Substrings that cover every name above (a test holds this): searching a few literals is
# many times faster than one alternation of every name.
GATE_STEMS = (
    b"emcpy",
    b"MEMCPY",
    b"ccessOrder",
    b"access_order",
    b"ACCESS_ORDER",
    b"swap_blocks",
    b"wait_stream",
    b"wait_event",
    b"record_event",
    b"current_stream",
    b"default_stream",
    b"cuda_stream",
    b"StreamContext",
    b"StreamCreate",
    b"ExternalStream",
    b"cuGetProcAddress",
    b"copy_to_host",
    b"copy_to_device",
    b"copy_from_host",
    b"asnumpy",
    b"StreamWaitEvent",
    b"EventRecord",
    b"StreamSynchronize",
    b"EventSynchronize",
)
# Words that prose and unrelated code use ("stream", "Stream", "Thread") gate only when spelt
# as the call they are; suffixes count (``CopyStream(``, ``SimpleQueue(``), but not for
# ``stream(``, which must be the call itself (``torch.cuda.stream(``).
_GATE_CALLS = (
    (b"Stream", re.compile(rb"Stream\s*\(")),
    (b"stream(", re.compile(rb"(?:\.|\b)stream\(")),
    (b"Thread", re.compile(rb"Thread\s*\(")),
    (b"Queue", re.compile(rb"Queue\s*\(")),
    (b"non_blocking", re.compile(rb"non_blocking\s*=\s*True")),
)


def passes_gate(data: bytes) -> bool:
    """Whether a file (or a piece of one) names something the analysis starts from."""
    if any(stem in data for stem in GATE_STEMS):
        return True
    return any(word in data and pattern.search(data) for word, pattern in _GATE_CALLS)
