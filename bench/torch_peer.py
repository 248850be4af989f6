#!/usr/bin/python3
"""PyTorch eager peers of the ssm-opt benchmarks: the same math in torch ops.

Each peer follows the public reference implementation of its op
(state-spaces/mamba selective_scan_ref and selective_state_update_ref,
Dao-AILab/causal-conv1d causal_conv1d_ref, mamba_ssm/modules/ssd_minimal.py),
written here from their published math. Prints `median_ms=<x>` for one op on
random data with the given shapes and thread count.

Usage: torch_peer.py OP [--threads N] [--repeat N] [--device cpu|cuda] [shape options]
  --device cuda: the tensors on the GPU, each timed call synchronised.
  OP: scan_time_major | scan_channel_major | decode | conv1d | ssd | mamba_ssm_scan
  mamba_ssm_scan: mamba_ssm's fused CUDA kernel (selective_scan_fn, channel-major)
  where the mamba_ssm package is installed (--device cuda).
"""
import argparse
import statistics
import time

import torch
import torch.nn.functional as F


def selective_scan_time_major(u, delta, A, B, C, D, z, delta_bias):
    # u, delta, z: (b, L, d); B, C: (b, L, n); A: (d, n): ggml's layout.
    delta = F.softplus(delta + delta_bias)
    deltaA = torch.exp(torch.einsum("bld,dn->bldn", delta, A))
    deltaB_u = torch.einsum("bld,bln,bld->bldn", delta, B, u)
    x = u.new_zeros((u.shape[0], u.shape[2], A.shape[1]))
    ys = []
    for i in range(u.shape[1]):
        x = deltaA[:, i] * x + deltaB_u[:, i]
        ys.append(torch.einsum("bdn,bn->bd", x, C[:, i]))
    y = torch.stack(ys, dim=1) + u * D
    return y * F.silu(z), x


def selective_scan_channel_major(u, delta, A, B, C, D, z, delta_bias):
    # mamba's own layout: u, delta, z (b, d, L); B, C (b, n, L).
    delta = F.softplus(delta + delta_bias[..., None])
    deltaA = torch.exp(torch.einsum("bdl,dn->bdln", delta, A))
    deltaB_u = torch.einsum("bdl,bnl,bdl->bdln", delta, B, u)
    x = u.new_zeros((u.shape[0], u.shape[1], A.shape[1]))
    ys = []
    for i in range(u.shape[2]):
        x = deltaA[:, :, i] * x + deltaB_u[:, :, i]
        ys.append(torch.einsum("bdn,bn->bd", x, C[:, :, i]))
    y = torch.stack(ys, dim=2) + u * D[..., None]
    return y * F.silu(z), x


def selective_state_update(state, x, dt, A, B, C, D, z, dt_bias):
    # state (b, d, n); x, dt, z (b, d); B, C (b, n); updated in place.
    dt = F.softplus(dt + dt_bias)
    dA = torch.exp(dt[..., None] * A)
    dBx = (dt * x)[..., None] * B[:, None, :]
    state.copy_(state * dA + dBx)
    out = torch.einsum("bdn,bn->bd", state, C) + D * x
    return out * F.silu(z)


def causal_conv1d(x, weight, bias):
    width = weight.shape[1]
    out = F.conv1d(x, weight[:, None, :], bias, padding=width - 1, groups=x.shape[1])
    return F.silu(out[..., : x.shape[-1]])


def segsum(x):
    T = x.size(-1)
    x = x[..., None].repeat(*([1] * x.dim()), T)
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1)
    x = x.masked_fill(~mask, 0)
    x_segsum = torch.cumsum(x, dim=-2)
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=0)
    return x_segsum.masked_fill(~mask, -torch.inf)


def ssd_minimal(X, A, B, C, block_len):
    # X (b, L, h, p), A (b, L, h), B, C (b, L, h, n): the chunked SSD.
    b, L, h, p = X.shape
    c = L // block_len
    X, A, B, C = [t.reshape(b, c, block_len, *t.shape[2:]) for t in (X, A, B, C)]
    A = A.permute(0, 3, 1, 2)  # b h c l
    A_cumsum = torch.cumsum(A, dim=-1)
    Lmat = torch.exp(segsum(A))
    Y_diag = torch.einsum("bclhn,bcshn,bhcls,bcshp->bclhp", C, B, Lmat, X)
    decay_states = torch.exp(A_cumsum[:, :, :, -1:] - A_cumsum)
    states = torch.einsum("bclhn,bhcl,bclhp->bchpn", B, decay_states, X)
    states = torch.cat([torch.zeros_like(states[:, :1]), states], dim=1)
    decay_chunk = torch.exp(segsum(F.pad(A_cumsum[:, :, :, -1], (1, 0))))
    new_states = torch.einsum("bhzc,bchpn->bzhpn", decay_chunk, states)
    states = new_states[:, :-1]
    state_decay_out = torch.exp(A_cumsum)
    Y_off = torch.einsum("bclhn,bchpn,bhcl->bclhp", C, states, state_decay_out)
    return (Y_diag + Y_off).reshape(b, L, h, p), new_states[:, -1]


def peer_parser():
    ap = argparse.ArgumentParser()
    ap.add_argument("op")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--dim", type=int, default=1536)
    ap.add_argument("--dstate", type=int, default=16)
    ap.add_argument("--length", type=int, default=512)
    ap.add_argument("--width", type=int, default=4)
    ap.add_argument("--heads", type=int, default=48)
    ap.add_argument("--head-dim", type=int, default=64)
    ap.add_argument("--chunk", type=int, default=64)
    ap.add_argument("--device", default="cpu")
    return ap


def make_case(a):
    """The peer call for parsed arguments `a` (peer_parser): a function of no
    arguments on random tensors made on a.device (scripts/gpu_check.py calls it
    in-process)."""
    torch.manual_seed(0)
    dev = {"device": a.device}
    b, d, n, L = a.batch, a.dim, a.dstate, a.length
    r = lambda *s: torch.rand(*s, **dev) - 0.5
    A = -torch.exp(r(d, n))
    if a.op == "scan_time_major":
        args = (r(b, L, d), r(b, L, d), A, r(b, L, n), r(b, L, n), r(d), r(b, L, d), r(d))
        return lambda: selective_scan_time_major(*args)
    if a.op == "scan_channel_major":
        args = (r(b, d, L), r(b, d, L), A, r(b, n, L), r(b, n, L), r(d), r(b, d, L), r(d))
        return lambda: selective_scan_channel_major(*args)
    if a.op == "mamba_ssm_scan":
        from mamba_ssm.ops.selective_scan_interface import selective_scan_fn
        u, dt, B, C, z = r(b, d, L), r(b, d, L), r(b, n, L), r(b, n, L), r(b, d, L)
        D, bias = r(d), r(d)
        return lambda: selective_scan_fn(u, dt, A, B, C, D, z, bias, delta_softplus=True)
    if a.op == "decode":
        args = (r(b, d, n), r(b, d), r(b, d), A, r(b, n), r(b, n), r(d), r(b, d), r(d))
        return lambda: selective_state_update(*args)
    if a.op == "conv1d":
        args = (r(b, d, L), r(d, a.width), r(d))
        return lambda: causal_conv1d(*args)
    if a.op == "ssd":
        h, p = a.heads, a.head_dim
        args = (r(b, L, h, p), -torch.rand(b, L, h, **dev) * 0.1, r(b, L, h, n), r(b, L, h, n), a.chunk)
        return lambda: ssd_minimal(*args)
    raise SystemExit(f"unknown op {a.op}")


def main():
    a = peer_parser().parse_args()
    torch.set_num_threads(a.threads)
    sync = torch.cuda.synchronize if a.device.startswith("cuda") else (lambda: None)
    fn = make_case(a)
    with torch.no_grad():
        fn()
        sync()
        times = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            fn()
            sync()
            times.append((time.perf_counter() - t0) * 1e3)
    print(f"median_ms={statistics.median(times):.4f} threads={a.threads}")


if __name__ == "__main__":
    main()
