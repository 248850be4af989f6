"""PyTorch on ssm-opt's compiled kernels and models (through ssm_runtime.py and DLPack).

    import torch, ssm_torch
    ops = ssm_torch.load_library("out/scan")     # an ssm-compile output folder of a graph
    y, h_last = ops.scan(u, delta, A, B, C, D)   # torch.ops.ssm.scan: CPU tensors in, out

    model = ssm_torch.Model("deploy/rwkv4")      # a model folder (ssm-import + ssm-compile)
    stream = model.stream()
    logits = stream.prefill(torch.tensor([34, 105, 110]))   # (vocab,) float32
    logits = stream.step(32)
    h = stream.state("blocks.0.aa")              # the state itself, not a copy

load_library registers each public function of the module as an operator
`torch.ops.<namespace>.<function>` (torch.library, schema `f(Tensor a, ...) -> (Tensor, ...)`,
a CPU kernel; a function of more than 64 arguments or results, such as a model
graph's with its weights, takes and returns lists: `f(Tensor[] arguments) -> Tensor[]`),
so it works under torch's dispatcher, in torch.jit.trace and anywhere an
op is expected. The kernel reads its arguments where they lie and writes its results
straight into the tensors it returns: nothing is copied (a non-contiguous argument is
made contiguous first, as torch's own CPU kernels do). The shapes and dtypes are the
compiled graph's, static: another shape or dtype raises ValueError naming the argument,
before anything runs. Gradients are not defined (inference only).

Needs torch (Debian python3-torch 1.13) and libssm_runtime; ssm_runtime.py is found
beside this file.
"""
import re

import torch
import torch.utils.dlpack

import ssm_runtime

__all__ = ["load_library", "Model", "Stream"]

_DTYPES = {"float32": torch.float32, "int32": torch.int32, "float16": torch.float16,
           "bfloat16": torch.bfloat16, "int8": torch.int8}
_libraries = []  # torch.library.Library objects: registrations live as long as these
# torch 1.13's dispatcher takes at most 64 arguments per schema.
_MAX_SCHEMA_ARGUMENTS = 64


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _identifier(name, used):
    """A schema argument name from a tensor name ("blocks.0.aa" -> "blocks_0_aa")."""
    ident = re.sub(r"\W", "_", name) or "arg"
    if ident[0].isdigit():
        ident = "t_" + ident
    base, k = ident, 1
    while ident in used:
        k += 1
        ident = f"{base}_{k}"
    used.add(ident)
    return ident


def _kernel(module, spec):
    def run(*tensors):
        if len(tensors) != len(spec.arguments):
            raise ValueError(f"{spec.name} takes {len(spec.arguments)} tensors, got {len(tensors)}")
        args = []
        for t, want in zip(tensors, spec.arguments):
            dtype = _DTYPES[want.dtype]
            if t.device.type != "cpu":
                raise ValueError(f"{spec.name}: argument '{want.name}' is on {t.device}; "
                                 "the module's kernels run on the CPU")
            if t.dtype != dtype or tuple(t.shape) != want.shape:
                raise ValueError(f"{spec.name}: argument '{want.name}' is {t.dtype} "
                                 f"{tuple(t.shape)}, the compiled function takes {dtype} {want.shape}")
            args.append(t.contiguous())
        outs = [torch.empty(r.shape, dtype=_DTYPES[r.dtype]) for r in spec.results]
        module.call(spec.name, [torch.utils.dlpack.to_dlpack(t) for t in args],
                    [torch.utils.dlpack.to_dlpack(t) for t in outs])
        return outs[0] if len(outs) == 1 else tuple(outs)

    return run


def load_library(path, namespace="ssm"):
    """Registers the functions of the kernel module at `path` as torch ops in
    `namespace` and returns torch.ops.<namespace>. A namespace holds one module's
    functions: load another module under another namespace. The returned ops
    object's `kernel_module` attribute is the ssm_runtime.KernelModule."""
    if any(ns == namespace for ns, _, _ in _libraries):
        raise ValueError(f"torch.ops.{namespace} already holds the functions of another module; "
                         "load this one under another namespace")
    module = ssm_runtime.KernelModule(path)
    lib = torch.library.Library(namespace, "DEF")
    for spec in module.functions.values():
        kernel = _kernel(module, spec)
        if len(spec.arguments) > _MAX_SCHEMA_ARGUMENTS or len(spec.results) > _MAX_SCHEMA_ARGUMENTS:
            # A model graph's weights: one list each way.
            lib.define(f"{spec.name}(Tensor[] arguments) -> Tensor[]")
            lib.impl(spec.name, lambda tensors, kernel=kernel: list(_as_tuple(kernel(*tensors))), "CPU")
            continue
        used = set()
        params = ", ".join("Tensor " + _identifier(a.name, used) for a in spec.arguments)
        results = ", ".join("Tensor" for _ in spec.results)
        lib.define(f"{spec.name}({params}) -> ({results})" if len(spec.results) != 1
                   else f"{spec.name}({params}) -> Tensor")
        lib.impl(spec.name, kernel, "CPU")
    _libraries.append((namespace, lib, module))
    ops = getattr(torch.ops, namespace)
    ops.kernel_module = module
    return ops


class Stream:
    """A stream of a Model: torch tensors in and out; logits and states are views of
    the stream's own memory (DLPack, no copies)."""

    def __init__(self, model):
        self._s = ssm_runtime.Stream(model._m)

    def prefill(self, tokens):
        """Runs the tokens (an integer tensor or a sequence of ids); returns the logits
        after the last one, a (vocab,) view whose values the stream's next call replaces.
        Each id must be in [0, vocab): a bool or floating tensor, or an id outside int32
        or the vocabulary, raises ValueError naming it (nothing is wrapped or truncated)."""
        if isinstance(tokens, torch.Tensor):
            if tokens.dtype == torch.bool or tokens.is_floating_point() or tokens.is_complex():
                raise ValueError(f"tokens is a {tokens.dtype} tensor, not an integer one")
            if tokens.dim() > 1:
                raise ValueError(f"tokens has shape {tuple(tokens.shape)}, not a vector")
            ids = tokens.reshape(-1).tolist()
        else:
            ids = list(tokens) if not isinstance(tokens, (bytes, bytearray)) else tokens
        self._s.prefill(ids)
        return self.logits()

    def step(self, token):
        """One token: an int (or a one-element integer tensor) in [0, vocab); checked
        as prefill's are."""
        if isinstance(token, torch.Tensor):
            if token.numel() != 1:
                raise ValueError(f"step takes one token, got a tensor of shape {tuple(token.shape)}")
            if token.dtype == torch.bool or token.is_floating_point() or token.is_complex():
                raise ValueError(f"token {token.item()!r} is a {token.dtype} tensor, not an integer id")
            token = token.item()
        self._s.step(token)
        return self.logits()

    def logits(self):
        return torch.utils.dlpack.from_dlpack(self._s.logits_dlpack())

    def state(self, name):
        """State `name` itself (writing to the tensor sets the state)."""
        return torch.utils.dlpack.from_dlpack(self._s.state_dlpack(name))

    def reset(self):
        self._s.reset()

    def save(self, path):
        self._s.save(path)

    def load(self, path):
        self._s.load(path)

    @property
    def position(self):
        return self._s.position


class Model:
    """A model folder (model.json, weights.safetensors, compiled/*/); context_length:
    the positions each stream's KV caches hold (None: the model's own)."""

    def __init__(self, path, context_length=None):
        self._m = ssm_runtime.Model(path, context_length=context_length)
        self.vocab_size = self._m.vocab_size

    @property
    def context_length(self):
        """Positions a stream can hold (as opened); 0: unbounded (no KV cache)."""
        return self._m.context_length

    def stream(self):
        return Stream(self)

    def states(self):
        return self._m.states()

    def set_threads(self, n):
        self._m.set_threads(n)
