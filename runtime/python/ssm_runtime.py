"""Python bindings of ssm-opt's model library (libssm_runtime, runtime/ssm_runtime.h), through ctypes.

    import ssm_runtime
    model = ssm_runtime.Model("deploy/rwkv4")        # model.json, weights, compiled/*/
    stream = ssm_runtime.Stream(model)
    logits = stream.prefill(b'"in')                  # bytes or a sequence of token ids
    logits = stream.step(32)                         # array('f') of vocab values
    stream.save("chat.ssmstate"); stream.load("chat.ssmstate")

    tok = ssm_runtime.Tokenizer("deploy/qwen3")      # a tokenizer.json or a folder holding one
    ids = tok.encode("Hello World")                  # [9707, 4337]
    text = tok.decode(ids)                           # "Hello World"

    sampler = ssm_runtime.Sampler(temperature=0.8, top_p=0.95, seed=42)  # default: greedy
    stream.prefill(ids); sampler.accept(ids)         # the prompt in the penalty window
    out = stream.generate(64, sampler=sampler, tokenizer=tok, stop=["\\n\\n"],
                          on_text=lambda token, text: print(text, end="", flush=True))
    out.tokens, out.text, out.reason                 # reason: "max_tokens", "token", "string", "callback"

    import torch.utils.dlpack                        # zero copy, through DLPack:
    t = torch.utils.dlpack.from_dlpack(stream.logits_dlpack())
    h = torch.utils.dlpack.from_dlpack(stream.state_dlpack("blocks.0.aa"))  # the state itself

    kernels = ssm_runtime.KernelModule("out/scan")   # an ssm-compile output of a graph
    kernels.call("scan", [u_capsule, ...], [y_capsule, h_capsule])  # DLPack, in place
    # ssm_torch.load_library("out/scan") makes them torch ops: torch.ops.ssm.scan(u, ...)

Token ids are checked before anything runs: ints (or integer scalars) in [0, vocab);
a bool, a float, or a value outside int32 or the vocabulary raises ValueError naming it.
A DLPack view holds a reference on its Stream, so the memory it points at lives as long
as the view (Stream.load and reset write into the same buffers).

Errors raise ssm_runtime.Error (the C status name and the library's message). The
library is found through $SSM_RUNTIME_LIBRARY, then beside this file (an installed
prefix's lib/), then the system's loader path. Standard library only; torch or NumPy
are needed only to consume the DLPack capsules.
"""
import array
import ctypes
import ctypes.util
import operator
import os
import threading

__all__ = ["Error", "Model", "Stream", "step_streams", "KernelModule", "TensorSpec", "FunctionSpec",
           "Tokenizer", "Sampler", "Generation"]


class Error(RuntimeError):
    """A failed call: `status` is the C status name (SSM_ERROR_...)."""

    def __init__(self, status, message):
        super().__init__(f"{message} ({status})")
        self.status = status
        self.message = message


def _find_library():
    env = os.environ.get("SSM_RUNTIME_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for rel in ("../..", "..", "../../lib"):  # <prefix>/lib/ssm-opt/python, build trees
        path = os.path.normpath(os.path.join(here, rel, "libssm_runtime.so.0"))
        if os.path.exists(path):
            return path
    return ctypes.util.find_library("ssm_runtime") or "libssm_runtime.so.0"


_lib = ctypes.CDLL(_find_library())
_p = ctypes.c_void_p


class _SamplingParams(ctypes.Structure):
    # ssm_sampling_params_t
    _fields_ = [("temperature", ctypes.c_float), ("top_k", ctypes.c_int32), ("top_p", ctypes.c_float),
                ("min_p", ctypes.c_float), ("repetition_penalty", ctypes.c_float),
                ("presence_penalty", ctypes.c_float), ("frequency_penalty", ctypes.c_float),
                ("penalty_last_n", ctypes.c_int32), ("seed", ctypes.c_uint64)]


class _ModelOptions(ctypes.Structure):  # ssm_model_options_t
    _fields_ = [("struct_size", ctypes.c_size_t), ("flags", ctypes.c_uint),
                ("context_length", ctypes.c_int64)]


# ssm_generate_callback_t: (user_data, token, text, length) -> nonzero to stop
_GenerateCallback = ctypes.CFUNCTYPE(ctypes.c_int, _p, ctypes.c_int32, ctypes.POINTER(ctypes.c_char),
                                     ctypes.c_size_t)
_sig = {
    "ssm_runtime_version": (ctypes.c_char_p, []),
    "ssm_status_name": (ctypes.c_char_p, [ctypes.c_int]),
    "ssm_last_error": (ctypes.c_char_p, []),
    "ssm_model_open": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_p)]),
    "ssm_model_open_flags": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_uint, ctypes.POINTER(_p)]),
    "ssm_model_options_default": (_ModelOptions, []),
    "ssm_model_open_options": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_ModelOptions),
                                              ctypes.POINTER(_p)]),
    "ssm_model_add_module": (ctypes.c_int, [_p, ctypes.c_char_p]),
    "ssm_model_free": (None, [_p]),
    "ssm_model_vocab_size": (ctypes.c_int64, [_p]),
    "ssm_model_step_batch": (ctypes.c_int64, [_p]),
    "ssm_model_prefill_batch": (ctypes.c_int64, [_p]),
    "ssm_model_set_threads": (ctypes.c_int, [_p, ctypes.c_int]),
    "ssm_model_state_count": (ctypes.c_size_t, [_p]),
    "ssm_model_state_info": (ctypes.c_int, [_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_char_p),
                                            ctypes.POINTER(ctypes.POINTER(ctypes.c_int64)),
                                            ctypes.POINTER(ctypes.c_size_t),
                                            ctypes.POINTER(ctypes.c_size_t)]),
    "ssm_model_state_kind": (ctypes.c_int, [_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int),
                                            ctypes.POINTER(ctypes.c_int)]),
    "ssm_model_context_length": (ctypes.c_int64, [_p]),
    "ssm_model_state_bytes": (None, [_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_size_t),
                                     ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_size_t)]),
    "ssm_stream_create": (ctypes.c_int, [_p, ctypes.POINTER(_p)]),
    "ssm_stream_free": (None, [_p]),
    "ssm_stream_reset": (ctypes.c_int, [_p]),
    "ssm_stream_prefill": (ctypes.c_int, [_p, ctypes.POINTER(ctypes.c_int32), ctypes.c_size_t,
                                          ctypes.POINTER(ctypes.c_float)]),
    "ssm_stream_step": (ctypes.c_int, [_p, ctypes.c_int32, ctypes.POINTER(ctypes.POINTER(ctypes.c_float))]),
    "ssm_stream_logits": (ctypes.c_int, [_p, ctypes.POINTER(ctypes.POINTER(ctypes.c_float))]),
    "ssm_stream_position": (ctypes.c_int64, [_p]),
    "ssm_stream_first_nonfinite": (ctypes.c_int, [_p, ctypes.c_char_p, ctypes.c_size_t,
                                                  ctypes.POINTER(ctypes.c_size_t)]),
    "ssm_stream_get_state": (ctypes.c_int, [_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_float), ctypes.c_size_t]),
    "ssm_stream_set_state": (ctypes.c_int, [_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_float), ctypes.c_size_t]),
    "ssm_stream_save_state": (ctypes.c_int, [_p, ctypes.c_char_p]),
    "ssm_stream_load_state": (ctypes.c_int, [_p, ctypes.c_char_p]),
    "ssm_stream_logits_dlpack": (ctypes.c_int, [_p, ctypes.POINTER(_p)]),
    "ssm_stream_state_dlpack": (ctypes.c_int, [_p, ctypes.c_char_p, ctypes.POINTER(_p)]),
    "ssm_streams_step": (ctypes.c_int, [ctypes.POINTER(_p), ctypes.c_size_t, ctypes.POINTER(ctypes.c_int32),
                                        ctypes.POINTER(ctypes.POINTER(ctypes.c_float))]),
    "ssm_streams_prefill": (ctypes.c_int, [ctypes.POINTER(_p), ctypes.c_size_t,
                                           ctypes.POINTER(ctypes.POINTER(ctypes.c_int32)),
                                           ctypes.POINTER(ctypes.c_size_t),
                                           ctypes.POINTER(ctypes.POINTER(ctypes.c_float))]),
    "ssm_module_open": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_p)]),
    "ssm_module_free": (None, [_p]),
    "ssm_module_set_threads": (ctypes.c_int, [_p, ctypes.c_int]),
    "ssm_module_target": (ctypes.c_char_p, [_p]),
    "ssm_module_function_count": (ctypes.c_size_t, [_p]),
    "ssm_module_function_info": (ctypes.c_int, [_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_char_p),
                                                ctypes.POINTER(ctypes.c_size_t),
                                                ctypes.POINTER(ctypes.c_size_t)]),
    "ssm_module_tensor_info": (ctypes.c_int, [_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_size_t,
                                              ctypes.POINTER(ctypes.c_char_p),
                                              ctypes.POINTER(ctypes.c_char_p),
                                              ctypes.POINTER(ctypes.POINTER(ctypes.c_int64)),
                                              ctypes.POINTER(ctypes.c_size_t)]),
    "ssm_module_call_dlpack": (ctypes.c_int, [_p, ctypes.c_char_p, ctypes.POINTER(_p), ctypes.c_size_t,
                                              ctypes.POINTER(_p), ctypes.c_size_t]),
    "ssm_tokenizer_open": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_p)]),
    "ssm_tokenizer_free": (None, [_p]),
    "ssm_tokenizer_encode": (ctypes.c_int, [_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint,
                                            ctypes.POINTER(ctypes.c_int32), ctypes.c_size_t,
                                            ctypes.POINTER(ctypes.c_size_t)]),
    "ssm_tokenizer_decode": (ctypes.c_int, [_p, ctypes.POINTER(ctypes.c_int32), ctypes.c_size_t, ctypes.c_uint,
                                            ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]),
    "ssm_tokenizer_vocab_size": (ctypes.c_int64, [_p]),
    "ssm_tokenizer_special_id": (ctypes.c_int32, [_p, ctypes.c_int]),
    "ssm_tokenizer_token_id": (ctypes.c_int32, [_p, ctypes.c_char_p]),
    "ssm_tokenizer_token_text": (ctypes.c_int, [_p, ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p),
                                                ctypes.POINTER(ctypes.c_int)]),
    "ssm_sampling_params_default": (_SamplingParams, []),
    "ssm_sampler_create": (ctypes.c_int, [ctypes.POINTER(_SamplingParams), ctypes.POINTER(_p)]),
    "ssm_sampler_free": (None, [_p]),
    "ssm_sampler_reset": (ctypes.c_int, [_p, ctypes.c_uint64]),
    "ssm_sampler_accept": (ctypes.c_int, [_p, ctypes.POINTER(ctypes.c_int32), ctypes.c_size_t]),
    "ssm_sampler_sample": (ctypes.c_int, [_p, ctypes.POINTER(ctypes.c_float), ctypes.c_size_t,
                                          ctypes.POINTER(ctypes.c_int32)]),
    "ssm_stream_generate": (ctypes.c_int, [_p, _p, _p, ctypes.c_int64, ctypes.POINTER(ctypes.c_int32),
                                           ctypes.c_size_t, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t,
                                           _GenerateCallback, _p, ctypes.POINTER(ctypes.c_int64),
                                           ctypes.POINTER(ctypes.c_int)]),
}
for _name, (_res, _args) in _sig.items():
    _fn = getattr(_lib, _name)
    _fn.restype, _fn.argtypes = _res, _args


def _check(status):
    if status != 0:
        raise Error(_lib.ssm_status_name(status).decode(), _lib.ssm_last_error().decode())


_INT32_LIMIT = 2 ** 31


def _token_id(token, vocab, where="token"):
    """`token` as a Python int after checking it is an int32 token id of the vocabulary:
    ctypes would wrap 2**32 + 7 to 7 and take True for 1, silently running another token.
    Bools, non-integers (floats, strings), values outside [0, 2**31) or outside
    [0, vocab) raise ValueError naming the value."""
    dtype = getattr(token, "dtype", None)  # NumPy and torch scalars
    if isinstance(token, bool) or (dtype is not None and
                                   (getattr(dtype, "kind", None) == "b" or str(dtype) == "torch.bool")):
        raise ValueError(f"{where} {token!r} is a boolean, not a token id")
    try:
        value = operator.index(token)
    except TypeError:
        raise ValueError(f"{where} {token!r} is not an integer token id") from None
    if not 0 <= value < _INT32_LIMIT:
        raise ValueError(f"{where} {value} is outside int32 token ids [0, 2**31)")
    if vocab > 0 and value >= vocab:
        raise ValueError(f"{where} {value} is outside the vocabulary [0, {vocab})")
    return value


def _token_ids(tokens, vocab):
    """A ctypes int32 array of the token ids in `tokens` (bytes, or a sequence of ints),
    each checked by _token_id."""
    if isinstance(tokens, (str, bool)) or not hasattr(tokens, "__len__"):
        raise ValueError(f"tokens must be bytes or a sequence of int token ids, not {type(tokens).__name__}")
    ids = (ctypes.c_int32 * len(tokens))()
    for i, t in enumerate(tokens):
        ids[i] = _token_id(t, vocab, f"token at index {i}:")
    return ids


# DLPack capsules: PyCapsule "dltensor" around a DLManagedTensor*. A consumer (torch,
# NumPy) renames it "used_dltensor" and calls the tensor's deleter itself; a capsule
# nobody consumed calls the deleter when it is collected.
class _DLManagedTensorHead(ctypes.Structure):
    # DLTensor (data, device{type, id}, ndim, dtype{code, bits, lanes}, shape, strides,
    # byte_offset), manager_ctx, deleter: DLPack 0.6's layout.
    _fields_ = [("data", _p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("dtype_code", ctypes.c_uint8),
                ("dtype_bits", ctypes.c_uint8), ("dtype_lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64), ("manager_ctx", _p),
                ("deleter", ctypes.CFUNCTYPE(None, _p))]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype, _capsule_new.argtypes = ctypes.py_object, [_p, ctypes.c_char_p, _p]
_capsule_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_valid.restype, _capsule_valid.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = _p, [ctypes.py_object, ctypes.c_char_p]


# The destructor sees the dying capsule as a raw pointer (no new reference to it).
_raw_valid = ctypes.PYFUNCTYPE(ctypes.c_int, _p, ctypes.c_char_p)(("PyCapsule_IsValid", ctypes.pythonapi))
_raw_pointer = ctypes.PYFUNCTYPE(_p, _p, ctypes.c_char_p)(("PyCapsule_GetPointer", ctypes.pythonapi))


@ctypes.CFUNCTYPE(None, _p)
def _capsule_destructor(capsule):
    if _raw_valid(capsule, b"dltensor"):  # never consumed
        head = _DLManagedTensorHead.from_address(_raw_pointer(capsule, b"dltensor"))
        head.deleter(ctypes.addressof(head))


# A view the library made is wrapped in a DLManagedTensor of ours whose deleter holds a
# reference on its owner (the Stream), so the stream, and the memory the view points at,
# live until the consumer (torch, or the capsule when never consumed) lets go of the view:
# a view that outlives every other reference to its stream never reads or writes freed
# memory, or a later stream's state. _views maps manager_ctx keys to (wrapper, the
# library's view, owner); the wrapper's deleter drops the entry and frees the library's view.
_views = {}
_views_lock = threading.Lock()
_view_keys = iter(range(1, 1 << 62))


@ctypes.CFUNCTYPE(None, _p)
def _view_deleter(managed):
    try:
        key = _DLManagedTensorHead.from_address(managed).manager_ctx
        with _views_lock:
            entry = _views.pop(key, None)
        if entry is not None:
            inner = _DLManagedTensorHead.from_address(entry[1])
            inner.deleter(entry[1])
    except Exception:  # noqa: BLE001 - a deleter must not raise (interpreter shutdown)
        pass


def _capsule(managed, owner=None):
    """A "dltensor" capsule of the library's view `managed`; with `owner`, the view
    keeps it alive until the view's deleter runs."""
    if owner is not None:
        wrapper = _DLManagedTensorHead()  # the same DLTensor fields (shape: the library's)
        ctypes.memmove(ctypes.addressof(wrapper), managed, ctypes.sizeof(wrapper))
        with _views_lock:
            key = next(_view_keys)
            _views[key] = (wrapper, managed, owner)
        wrapper.manager_ctx = key
        wrapper.deleter = _view_deleter
        managed = ctypes.addressof(wrapper)
    return _capsule_new(managed, b"dltensor", ctypes.cast(_capsule_destructor, _p))


def live_views():
    """How many DLPack views this module handed out are still held by a consumer or an
    unconsumed capsule (each keeps its stream alive)."""
    with _views_lock:
        return len(_views)


def dlpack_data_pointer(capsule):
    """The data pointer of an unconsumed DLPack capsule (to check that nothing was copied)."""
    return _DLManagedTensorHead.from_address(_capsule_pointer(capsule, b"dltensor")).data


def _fspath(path):
    """A path as the C API's bytes; ValueError for an embedded NUL, which the C string
    would end at ("saved\\0x" must not save to or load from "saved"), as open() does."""
    b = os.fsencode(path)
    if b"\0" in b:
        raise ValueError(f"path {path!r}: embedded null byte")
    return b


def _context_length(value):
    """Model's context_length as the C int64: None -> 0; ValueError for a bool, a
    non-integer (1.5 must not become 1) or a value outside int64 (2**64 must not wrap
    to 0, the model's own)."""
    if value is None:
        return 0
    if isinstance(value, bool):
        raise ValueError(f"context_length {value!r}: a bool, not a number of positions")
    try:
        n = operator.index(value)
    except TypeError:
        raise ValueError(f"context_length {value!r}: not an integer number of positions") from None
    if not -(1 << 63) <= n < (1 << 63):
        raise ValueError(f"context_length {n}: outside int64 (the library takes at most 2^30)")
    return n


class Model:
    """A model folder: model.json, weights.safetensors, compiled/*/.

    The weights are read into memory once (huge pages advised), or with
    map_weights=True mapped read-only (shared with the page cache; slower decode).
    context_length: the positions each stream's KV caches hold (ssm_model_options_t;
    None or 0: the model's own, as imported); a model without caches ignores it. An int
    (or integer scalar) in [0, 2^63): a bool, a float or a larger value raises ValueError
    naming it (it would wrap in the C int64); a negative one Error
    (SSM_ERROR_INVALID_ARGUMENT), as does one past the library's limit."""

    MAP_WEIGHTS = 1

    def __init__(self, path, map_weights=False, context_length=None):
        self._h = _p()
        options = _lib.ssm_model_options_default()
        options.flags = Model.MAP_WEIGHTS if map_weights else 0
        options.context_length = _context_length(context_length)
        _check(_lib.ssm_model_open_options(_fspath(path), ctypes.byref(options),
                                           ctypes.byref(self._h)))
        self.vocab_size = _lib.ssm_model_vocab_size(self._h)

    def add_module(self, path):
        _check(_lib.ssm_model_add_module(self._h, _fspath(path)))
        self.vocab_size = _lib.ssm_model_vocab_size(self._h)

    def set_threads(self, n):
        _check(_lib.ssm_model_set_threads(self._h, n))

    @property
    def prefill_batch(self):
        """Streams per call of the batched sequence function prefill_streams uses (0: none)."""
        return _lib.ssm_model_prefill_batch(self._h)

    @property
    def step_batch(self):
        """Streams per call of the batched step function step_streams uses (0: none)."""
        return _lib.ssm_model_step_batch(self._h)

    @property
    def context_length(self):
        """Positions a stream can hold (the cache states' least capacity, as opened); 0: unbounded."""
        return _lib.ssm_model_context_length(self._h)

    def state_bytes(self, position=0):
        """(fixed, cache, cache_allocated): one stream's state bytes (float32) — the fixed
        states, the KV rows written at `position`, the KV caches at their capacity."""
        f, c, a = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_size_t()
        _lib.ssm_model_state_bytes(self._h, int(position), ctypes.byref(f), ctypes.byref(c),
                                   ctypes.byref(a))
        return f.value, c.value, a.value

    def state_kind(self, index):
        """("fixed", -1) or ("cache", axis) for the state at `index` (model.json order)."""
        kind, axis = ctypes.c_int(), ctypes.c_int()
        _check(_lib.ssm_model_state_kind(self._h, index, ctypes.byref(kind), ctypes.byref(axis)))
        return ("cache" if kind.value == 1 else "fixed", axis.value)

    def states(self):
        """[(name, shape, numel)] in model.json order."""
        out = []
        for i in range(_lib.ssm_model_state_count(self._h)):
            name, shape = ctypes.c_char_p(), ctypes.POINTER(ctypes.c_int64)()
            rank, numel = ctypes.c_size_t(), ctypes.c_size_t()
            _check(_lib.ssm_model_state_info(self._h, i, ctypes.byref(name), ctypes.byref(shape),
                                             ctypes.byref(rank), ctypes.byref(numel)))
            out.append((name.value.decode(), tuple(shape[k] for k in range(rank.value)), numel.value))
        return out

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.ssm_model_free(self._h)
            self._h = None


class Stream:
    """One sequence: its own state (model.json's init), position and last logits."""

    def __init__(self, model):
        self.model = model  # keeps the model alive as long as the stream
        self._h = _p()
        _check(_lib.ssm_stream_create(model._h, ctypes.byref(self._h)))

    def _floats(self, ptr):
        return array.array("f", ctypes.string_at(ptr, 4 * self.model.vocab_size))

    def prefill(self, tokens):
        """Runs the tokens (bytes or ints); returns the logits after the last one.
        Each id must be an int in [0, vocab) (ValueError naming it otherwise: no bool,
        nothing wrapped to int32)."""
        ids = _token_ids(tokens, self.model.vocab_size)
        _check(_lib.ssm_stream_prefill(self._h, ids, len(ids), None))
        return self.logits()

    def step(self, token):
        token = _token_id(token, self.model.vocab_size)
        ptr = ctypes.POINTER(ctypes.c_float)()
        _check(_lib.ssm_stream_step(self._h, token, ctypes.byref(ptr)))
        return self._floats(ptr)

    def logits(self):
        ptr = ctypes.POINTER(ctypes.c_float)()
        _check(_lib.ssm_stream_logits(self._h, ctypes.byref(ptr)))
        return self._floats(ptr)

    def logits_pointer(self):
        ptr = ctypes.POINTER(ctypes.c_float)()
        _check(_lib.ssm_stream_logits(self._h, ctypes.byref(ptr)))
        return ctypes.cast(ptr, _p).value

    @property
    def position(self):
        return _lib.ssm_stream_position(self._h)

    def first_nonfinite(self):
        """The first NaN or infinity in the logits, then the states
        ("logits[i] = nan", "state 'name'[i] = inf"), or "" when every value
        is finite (docs/numerics.md)."""
        length = ctypes.c_size_t()
        _check(_lib.ssm_stream_first_nonfinite(self._h, None, 0, ctypes.byref(length)))
        buf = ctypes.create_string_buffer(length.value + 1)
        _check(_lib.ssm_stream_first_nonfinite(self._h, buf, len(buf), ctypes.byref(length)))
        return buf.raw[:length.value].decode("utf-8")

    def reset(self):
        _check(_lib.ssm_stream_reset(self._h))

    def _state_numel(self, name):
        if not isinstance(name, str):
            raise TypeError(f"a state name is a str, not {type(name).__name__}")
        sizes = {n: k for n, _, k in self.model.states()}
        if name not in sizes:
            raise ValueError(f"the model has no state {name!r} (its states: {', '.join(sizes)})")
        return sizes[name]

    def state(self, name):
        numel = self._state_numel(name)
        buf = (ctypes.c_float * numel)()
        _check(_lib.ssm_stream_get_state(self._h, name.encode(), buf, numel))
        return array.array("f", buf)

    def set_state(self, name, values):
        """Copies `values` into state `name`: a flat sequence of its element count, or
        an array or tensor of any shape with that many elements (NumPy, torch: read
        row-major). ValueError names an unknown state or a wrong count."""
        numel = self._state_numel(name)
        if hasattr(values, "reshape") and hasattr(values, "tolist"):
            values = values.reshape(-1).tolist()
        values = list(values)
        if len(values) != numel:
            raise ValueError(f"state {name!r} has {numel} values, not {len(values)}")
        buf = (ctypes.c_float * numel)(*values)
        _check(_lib.ssm_stream_set_state(self._h, name.encode(), buf, numel))

    def save(self, path):
        _check(_lib.ssm_stream_save_state(self._h, _fspath(path)))

    def load(self, path):
        _check(_lib.ssm_stream_load_state(self._h, _fspath(path)))

    def logits_dlpack(self):
        """A DLPack capsule of the last logits (no copy: the stream's logits buffer, whose
        values the stream's next call replaces). The view keeps the stream alive; the
        buffer stays where it is across calls, reset() and load()."""
        out = _p()
        _check(_lib.ssm_stream_logits_dlpack(self._h, ctypes.byref(out)))
        return _capsule(out.value, self)

    def state_dlpack(self, name):
        """A DLPack capsule of state `name` itself (no copy; writing to it sets the state).
        The view keeps the stream alive (so it never points at freed memory or another
        stream's state); load() and reset() write into the same memory."""
        out = _p()
        _check(_lib.ssm_stream_state_dlpack(self._h, name.encode(), ctypes.byref(out)))
        return _capsule(out.value, self)

    def generate(self, max_tokens, sampler=None, tokenizer=None, stop_tokens=(), stop=(), on_text=None):
        """Generates up to `max_tokens` tokens from the last logits (after prefill), as
        ssm_stream_generate does: chosen by `sampler` (None: greedy), each stepped but the
        last (step it before going on), ended by a stop token, the tokenizer's eos or a
        stop string (str). The text is the tokenizer's (None: bytes for a byte-token
        model, else ""). `on_text(token, text)`, called with each token and the text final
        with it (token -1: the text held back, at the end), returns True to stop.
        Returns a Generation (tokens, text, reason)."""
        stops = [s.encode("utf-8") for s in stop]
        stop_arr = (ctypes.c_char_p * len(stops))(*stops)
        stop_ids = (ctypes.c_int32 * len(stop_tokens))(*[_token_id(t, 0) for t in stop_tokens])
        out = Generation()
        raised = []
        pieces = []

        def callback(_user, token, text, length):
            try:
                piece = ctypes.string_at(text, length).decode("utf-8")
                if token >= 0:
                    out.tokens.append(token)
                pieces.append(piece)
                return 1 if on_text is not None and on_text(token, piece) else 0
            except BaseException as e:  # noqa: BLE001 - raised again after the C call
                raised.append(e)
                return 1

        c_callback = _GenerateCallback(callback)
        n = ctypes.c_int64()
        reason = ctypes.c_int()
        status = _lib.ssm_stream_generate(self._h, sampler._h if sampler is not None else None,
                                          tokenizer._h if tokenizer is not None else None, int(max_tokens),
                                          stop_ids, len(stop_tokens), stop_arr, len(stops), c_callback, None,
                                          ctypes.byref(n), ctypes.byref(reason))
        if raised:
            raise raised[0]
        _check(status)
        out.text = "".join(pieces)
        out.reason = Generation.REASONS[reason.value]
        return out

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.ssm_stream_free(self._h)
            self._h = None


class Generation:
    """What Stream.generate gave: the tokens handed out, their text (up to a stop string),
    and why it ended ("max_tokens", "token", "string" or "callback")."""

    REASONS = ("max_tokens", "token", "string", "callback")

    def __init__(self):
        self.tokens = []
        self.text = ""
        self.reason = "max_tokens"

    def __repr__(self):
        return f"Generation(tokens={self.tokens!r}, text={self.text!r}, reason={self.reason!r})"


class Sampler:
    """Chooses tokens from logits (ssm_sampler_*): penalties, top-k, top-p, min-p, then
    temperature and a seeded draw, in llama.cpp's order; temperature 0 (the default) is
    greedy. One per stream: a seed then repeats the stream's tokens. A value outside its
    range raises Error (SSM_ERROR_INVALID_ARGUMENT) naming the field."""

    def __init__(self, temperature=0.0, top_k=0, top_p=1.0, min_p=0.0, repetition_penalty=1.0,
                 presence_penalty=0.0, frequency_penalty=0.0, penalty_last_n=64, seed=0):
        params = _lib.ssm_sampling_params_default()
        params.temperature, params.top_k, params.top_p, params.min_p = temperature, top_k, top_p, min_p
        params.repetition_penalty, params.presence_penalty = repetition_penalty, presence_penalty
        params.frequency_penalty, params.penalty_last_n, params.seed = frequency_penalty, penalty_last_n, seed
        self._h = _p()
        _check(_lib.ssm_sampler_create(ctypes.byref(params), ctypes.byref(self._h)))

    def sample(self, logits):
        """A token id chosen from `logits` (a sequence of floats, e.g. Stream.step's
        array('f')), added to the penalty window."""
        arr = (ctypes.c_float * len(logits))(*logits)
        token = ctypes.c_int32()
        _check(_lib.ssm_sampler_sample(self._h, arr, len(logits), ctypes.byref(token)))
        return token.value

    def accept(self, tokens):
        """Adds tokens (a prompt's: bytes or ints) to the penalty window."""
        ids = _token_ids(tokens, 0)
        _check(_lib.ssm_sampler_accept(self._h, ids, len(ids)))

    def reset(self, seed):
        """Back to a new sampler's state, seeded with `seed`."""
        _check(_lib.ssm_sampler_reset(self._h, seed))

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.ssm_sampler_free(self._h)
            self._h = None


def step_streams(streams, tokens):
    """Steps streams[i] on tokens[i] together (ssm_streams_step: through the model's
    batched step function when it has one, Model.step_batch streams per call, within
    float32 rounding of each stream's step(); otherwise the steps on threads, bit for
    bit); returns each stream's logits, array('f')."""
    if len(streams) != len(tokens):
        raise ValueError("step_streams: one token per stream")
    n = len(streams)
    handles = (_p * n)(*[s._h for s in streams])
    ids = (ctypes.c_int32 * n)()
    for i, (s, t) in enumerate(zip(streams, tokens)):
        ids[i] = _token_id(t, s.model.vocab_size, f"token of stream {i}:")
    out = (ctypes.POINTER(ctypes.c_float) * n)()
    _check(_lib.ssm_streams_step(handles, n, ids, out))
    return [s._floats(out[i]) for i, s in enumerate(streams)]


def prefill_streams(streams, prompts):
    """Prefills streams[i] with prompts[i] (a sequence of token ids, at least one)
    together (ssm_streams_prefill: the calls of a length with a batched sequence
    function, Model.prefill_batch streams per call, run together; each stream ends
    as its own prefill() would leave it, within float32 rounding); returns each
    stream's logits after its last token, array('f'). Streams of one model only;
    errors (ssm_runtime.Error) name the stream, and a bad argument changes none."""
    if len(streams) != len(prompts):
        raise ValueError("prefill_streams: one prompt per stream")
    n = len(streams)
    if n == 0:
        raise ValueError("prefill_streams: no streams")
    handles = (_p * n)(*[s._h for s in streams])
    arrays = []
    for i, (s, prompt) in enumerate(zip(streams, prompts)):
        try:
            arr = _token_ids(prompt, s.model.vocab_size)
        except ValueError as e:
            raise ValueError(f"prefill_streams: stream {i}: {e}") from None
        if len(arr) == 0:
            raise ValueError(f"prefill_streams: the prompt of stream {i} has no tokens")
        arrays.append(arr)
    ptrs = (ctypes.POINTER(ctypes.c_int32) * n)(
        *[ctypes.cast(a, ctypes.POINTER(ctypes.c_int32)) for a in arrays])
    counts = (ctypes.c_size_t * n)(*[len(a) for a in arrays])
    out = (ctypes.POINTER(ctypes.c_float) * n)()
    _check(_lib.ssm_streams_prefill(handles, n, ptrs, counts, out))
    return [s._floats(out[i]) for i, s in enumerate(streams)]


class Tokenizer:
    """A Hugging Face tokenizer.json (ssm_tokenizer_*), or the one in a folder (a model
    folder); tokenizer_config.json beside it names the special tokens.

    encode(str) -> [int]; decode([int]) -> str. The special tokens' ids are bos_id,
    eos_id, pad_id, unk_id (None where there is none)."""

    ADD_SPECIAL = 1
    SKIP_SPECIAL = 1

    def __init__(self, path):
        self._h = _p()
        _check(_lib.ssm_tokenizer_open(_fspath(path), ctypes.byref(self._h)))
        self.vocab_size = _lib.ssm_tokenizer_vocab_size(self._h)

    def encode(self, text, add_special=False):
        """The token ids of `text` (str, or UTF-8 bytes); special tokens written in the
        text are matched; add_special adds the template's (a bos token, ...)."""
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        flags = Tokenizer.ADD_SPECIAL if add_special else 0
        n = ctypes.c_size_t()
        # Rarely more ids than bytes and a few (a prepended "▁", the template); else a second call.
        buf = (ctypes.c_int32 * (len(data) + 8))()
        _check(_lib.ssm_tokenizer_encode(self._h, data, len(data), flags, buf, len(buf), ctypes.byref(n)))
        if n.value > len(buf):
            buf = (ctypes.c_int32 * n.value)()
            _check(_lib.ssm_tokenizer_encode(self._h, data, len(data), flags, buf, len(buf), ctypes.byref(n)))
        return list(buf[:n.value])

    def decode(self, ids, skip_special=False):
        """The text of `ids` (ints; ids past the vocabulary give no text, as in Hugging
        Face's tokenizers); skip_special leaves special tokens out."""
        arr = (ctypes.c_int32 * len(ids))()
        for i, t in enumerate(ids):
            dtype = getattr(t, "dtype", None)
            if isinstance(t, bool) or (dtype is not None and getattr(dtype, "kind", None) == "b"):
                raise ValueError(f"id at index {i}: {t!r} is a boolean, not a token id")
            try:
                value = operator.index(t)
            except TypeError:
                raise ValueError(f"id at index {i}: {t!r} is not an integer token id") from None
            if not -_INT32_LIMIT <= value < _INT32_LIMIT:
                raise ValueError(f"id at index {i}: {value} is outside int32")
            arr[i] = value
        flags = Tokenizer.SKIP_SPECIAL if skip_special else 0
        length = ctypes.c_size_t()
        _check(_lib.ssm_tokenizer_decode(self._h, arr, len(arr), flags, None, 0, ctypes.byref(length)))
        buf = ctypes.create_string_buffer(length.value + 1)
        _check(_lib.ssm_tokenizer_decode(self._h, arr, len(arr), flags, buf, len(buf), ctypes.byref(length)))
        return buf.raw[:length.value].decode("utf-8")

    def _special(self, which):
        i = _lib.ssm_tokenizer_special_id(self._h, which)
        return None if i < 0 else i

    bos_id = property(lambda self: self._special(0))
    eos_id = property(lambda self: self._special(1))
    pad_id = property(lambda self: self._special(2))
    unk_id = property(lambda self: self._special(3))

    def token_id(self, token):
        """The id of `token` as the vocabulary spells it ("ĠWorld", "<|im_end|>"), or None."""
        i = _lib.ssm_tokenizer_token_id(self._h, token.encode("utf-8"))
        return None if i < 0 else i

    def token_text(self, token_id):
        """(the vocabulary's spelling of token `token_id`, whether it is special)."""
        text, special = ctypes.c_char_p(), ctypes.c_int()
        _check(_lib.ssm_tokenizer_token_text(self._h, int(token_id), ctypes.byref(text), ctypes.byref(special)))
        return text.value.decode("utf-8"), bool(special.value)

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.ssm_tokenizer_free(self._h)
            self._h = None


class TensorSpec:
    """An argument or result of a compiled function: name, dtype ("float32", "int32",
    "float16", "bfloat16", "int8") and shape (row-major, as in the graph)."""

    def __init__(self, name, dtype, shape):
        self.name, self.dtype, self.shape = name, dtype, shape

    def __repr__(self):
        return f"TensorSpec({self.name!r}, {self.dtype!r}, {self.shape})"


class FunctionSpec:
    """A public function of a kernel module: its name and its TensorSpecs."""

    def __init__(self, name, arguments, results):
        self.name, self.arguments, self.results = name, arguments, results

    def __repr__(self):
        return f"FunctionSpec({self.name!r}, {self.arguments}, {self.results})"


def _capsule_address(capsule):
    """The DLManagedTensor* inside a DLPack capsule (not consumed: its owner keeps it)."""
    if not _capsule_valid(capsule, b"dltensor"):
        raise TypeError("expected an unconsumed DLPack capsule (PyCapsule 'dltensor')")
    return _capsule_pointer(capsule, b"dltensor")


class KernelModule:
    """An ssm-compile output folder of a graph (manifest.json, lib<name>.so): its
    functions called on DLPack tensors, read and written in place (no copies)."""

    def __init__(self, path):
        self._h = _p()
        _check(_lib.ssm_module_open(_fspath(path), ctypes.byref(self._h)))
        self.target = _lib.ssm_module_target(self._h).decode()
        self.functions = {}
        for i in range(_lib.ssm_module_function_count(self._h)):
            name, nargs, nres = ctypes.c_char_p(), ctypes.c_size_t(), ctypes.c_size_t()
            _check(_lib.ssm_module_function_info(self._h, i, ctypes.byref(name), ctypes.byref(nargs),
                                                 ctypes.byref(nres)))
            specs = ([self._tensor(i, 0, k) for k in range(nargs.value)],
                     [self._tensor(i, 1, k) for k in range(nres.value)])
            self.functions[name.value.decode()] = FunctionSpec(name.value.decode(), *specs)

    def _tensor(self, fn, is_result, k):
        name, dtype = ctypes.c_char_p(), ctypes.c_char_p()
        shape, rank = ctypes.POINTER(ctypes.c_int64)(), ctypes.c_size_t()
        _check(_lib.ssm_module_tensor_info(self._h, fn, is_result, k, ctypes.byref(name),
                                           ctypes.byref(dtype), ctypes.byref(shape), ctypes.byref(rank)))
        return TensorSpec(name.value.decode(), dtype.value.decode(),
                          tuple(shape[d] for d in range(rank.value)))

    def set_threads(self, n):
        _check(_lib.ssm_module_set_threads(self._h, n))

    def call(self, name, arguments, results):
        """Runs function `name`: `arguments` and `results` are DLPack capsules (for
        example torch.utils.dlpack.to_dlpack(t)) of CPU tensors with the dtypes and
        shapes of self.functions[name], contiguous; the results are written into the
        tensors behind `results`. The capsules stay their owners' (not consumed)."""
        args = (_p * max(len(arguments), 1))(*[_capsule_address(c) for c in arguments])
        res = (_p * max(len(results), 1))(*[_capsule_address(c) for c in results])
        _check(_lib.ssm_module_call_dlpack(self._h, name.encode(), args, len(arguments), res,
                                           len(results)))

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.ssm_module_free(self._h)
            self._h = None
