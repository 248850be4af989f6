#!/usr/bin/env python3
"""A compiled selective scan as a PyTorch op (ssm_torch.py over libssm_runtime):

    ssm-compile examples/embed-kernels/short_scan.mlir -o out/short_scan
    PYTHONPATH=<prefix>/lib/ssm-opt/python python3 scan_op.py out/short_scan

Registers the module's functions as torch.ops.ssm.*, runs the scan on torch tensors
(no copies: the kernel reads them in place and writes the tensors it returns), and
checks it against a plain PyTorch loop of the same recurrence (Gu and Dao 2023,
Algorithm 2: h_t = exp(delta_t A) h_{t-1} + delta_t B_t u_t, y_t = C_t h_t + D u_t,
delta = softplus(delta)). Exit 0 when they agree within 1e-5, 1 when not.
"""
import sys

import torch

import ssm_torch

ops = ssm_torch.load_library(sys.argv[1])  # torch.ops.ssm
spec = ops.kernel_module.functions["scan"]
print("torch.ops.ssm.scan:", [(a.name, a.shape) for a in spec.arguments], "->",
      [(r.name, r.shape) for r in spec.results])

torch.manual_seed(0)
_, L, D = spec.arguments[0].shape  # u: (batch, time, channels), time-major
N = spec.arguments[2].shape[1]     # A: (channels, d_state)
u, delta = torch.rand(1, L, D) - 0.5, torch.rand(1, L, D) - 0.5
A = -torch.exp(torch.rand(D, N))
B, C = torch.rand(1, L, N) - 0.5, torch.rand(1, L, N) - 0.5
Dskip = torch.rand(D)
y, h_last = ops.scan(u, delta, A, B, C, Dskip)

# The same recurrence in PyTorch, one step at a time.
dt = torch.nn.functional.softplus(delta)
h = torch.zeros(1, D, N)
ys = []
for t in range(L):
    h = torch.exp(dt[:, t, :, None] * A) * h + dt[:, t, :, None] * B[:, t, None, :] * u[:, t, :, None]
    ys.append((h * C[:, t, None, :]).sum(-1) + Dskip * u[:, t])
want_y = torch.stack(ys, 1)
err = max((y - want_y).abs().max().item(), (h_last - h).abs().max().item())
ok = err <= 1e-5
print(f"max_abs_diff vs torch loop = {err:.3g} {'PASS' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)
