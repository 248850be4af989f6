#!/usr/bin/env python3
"""Writes the golden cases of the LTI path (test/golden/lti/<case>/) from NumPy.

The oracle is the kernel formula of state-spaces/s4 evaluated in float64 /
complex128 with NumPy, as written in the papers and in the s4 repository:

* S4D (models/s4/s4d.py, S4DKernel.forward), ZOH for a complex diagonal A:
    dtA = dt A;  C~ = C (exp(dtA) - 1) / A;  K_l = 2 Re sum_n C~_n exp(dtA_n l)
* S4 bilinear (src/models/sequence/kernels/ssm.py, SSMKernelDiag, disc='bilinear';
  S4 paper section 2.3):
    C~ = C dt / (1 - dtA/2);  dA = (1 + dtA/2) / (1 - dtA/2);  K_l = 2 Re sum_n C~_n dA_n^l
* Mamba's discretisation for a real diagonal A (Gu and Dao 2023, section 3.2):
    Abar = exp(dt A), Bbar = dt B (ZOH A, simplified Euler B);  K_l = sum_n C_n Bbar_n Abar_n^l
* y = causal convolution of u with K, as S4D.forward does it: rfft of length 2L, product,
  irfft, first L samples (float64 here).

The exponent dtA_n l is formed in float64 as the s4 code forms it (in its own precision);
at L = 16384 the phase Im(dtA) l reaches about 1e4 rad, so an evaluation that reduces
the phase in float32 fails these cases. None of our code is used.

Usage: make_lti_cases.py [OUT_DIR]   (default: test/golden/lti next to this script)
"""
import json
import math
import os
import sys

import numpy as np


def s4d_lin_params(rng, H, N2, dt_min=1e-3, dt_max=1e-1):
    """S4D-Lin initialisation as in S4DKernel.__init__ (NumPy's generator, not torch's)."""
    log_dt = rng.random(H) * (math.log(dt_max) - math.log(dt_min)) + math.log(dt_min)
    C = rng.standard_normal((H, N2, 2)) * math.sqrt(0.5)
    log_A_real = np.log(0.5 * np.ones((H, N2)))
    A_imag = math.pi * np.tile(np.arange(N2), (H, 1))
    return log_dt, C, log_A_real, A_imag


def kernel_complex(log_dt, C, log_A_real, A_imag, L, disc):
    dt = np.exp(log_dt)[:, None]
    A = -np.exp(log_A_real) + 1j * A_imag
    Cc = C[..., 0] + 1j * C[..., 1]
    dtA = A * dt
    ls = np.arange(L)
    if disc == "zoh":
        Ct = Cc * (np.exp(dtA) - 1.0) / A
        E = np.exp(dtA[..., None] * ls)
    elif disc == "bilinear":
        Ct = Cc * dt / (1.0 - dtA / 2)
        dA = (1.0 + dtA / 2) / (1.0 - dtA / 2)
        E = np.exp(np.log(dA)[..., None] * ls)
    else:
        raise ValueError(disc)
    return 2.0 * np.einsum("hn,hnl->hl", Ct, E).real


def kernel_mamba_real(log_dt, B, C, log_A_real, L):
    dt = np.exp(log_dt)[:, None]
    A = -np.exp(log_A_real)
    Abar = np.exp(dt * A)
    Bbar = dt * B
    return np.einsum("hn,hnl->hl", C * Bbar, Abar[..., None] ** np.arange(L))


def fft_conv(u, K):
    L = u.shape[-1]
    n = 2 * L
    return np.fft.irfft(np.fft.rfft(u, n=n) * np.fft.rfft(K, n=n), n=n)[..., :L]


def tolerance(u, K):
    """rtol 1e-3 / atol 1e-4 (the S4D convention of ../shared/golden), atol raised to
    twice the f32 FFT bound log2(n) 2^-24 ||u|| ||K|| where that is larger."""
    L = u.shape[-1]
    n = 1 << max(1, math.ceil(math.log2(2 * L)))
    bound = max(math.log2(n) * 2.0 ** -24 * np.linalg.norm(u[0, h]) * np.linalg.norm(K[h])
                for h in range(K.shape[0]))
    return {"rtol": 1e-3, "atol": float(max(1e-4, 2 * bound))}


def write_case(root, name, attrs, source, note, inputs, expected, tol):
    d = os.path.join(root, name)
    os.makedirs(os.path.join(d, "inputs"), exist_ok=True)
    os.makedirs(os.path.join(d, "expected"), exist_ok=True)
    spec = {"op": "lti_kernel+lti_conv", "attributes": attrs, "source": source,
            "tolerance": tol, "note": note, "inputs": {}, "expected": {}}
    for section, arrays in (("inputs", inputs), ("expected", expected)):
        for k, v in arrays.items():
            v = np.ascontiguousarray(v, dtype=np.float32)
            np.save(os.path.join(d, section, k + ".npy"), v)
            spec[section][k] = {"shape": list(v.shape), "dtype": "float32"}
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump(spec, f, indent=1)
        f.write("\n")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "lti")
    s4d_src = "state-spaces/s4 models/s4/s4d.py S4DKernel.forward, evaluated in complex128 with NumPy (test/golden/make_lti_cases.py)"
    for L, H, N2, seed in ((1, 3, 4, 11), (2, 3, 4, 12), (1000, 4, 8, 13), (16384, 2, 16, 14)):
        rng = np.random.default_rng(seed)
        log_dt, C, log_A_real, A_imag = s4d_lin_params(rng, H, N2)
        # Round the inputs to float32 first: the oracle sees what the runner reads.
        log_dt, C, log_A_real, A_imag = (x.astype(np.float32).astype(np.float64)
                                         for x in (log_dt, C, log_A_real, A_imag))
        u = rng.standard_normal((1, H, L)).astype(np.float32).astype(np.float64)
        K = kernel_complex(log_dt, C, log_A_real, A_imag, L, "zoh")
        y = fft_conv(u, K)
        write_case(root, f"s4d_zoh_L{L}", {"discretization": "zoh", "complex_diagonal": True, "length": L},
                   s4d_src,
                   "S4D-Lin (log_A_real = log 0.5, A_imag = pi n, dt in [1e-3, 1e-1]), ZOH, complex diagonal A; "
                   "K_l = 2 Re sum_n C_n (exp(dt A_n) - 1) / A_n exp(dt A_n l); y = causal conv of u with K, no D",
                   {"log_dt": log_dt, "C_real_imag": C, "log_A_real": log_A_real, "A_imag": A_imag, "u": u},
                   {"K": K, "y": y}, tolerance(u, K))
    for L, H, seed in ((1024, 3, 21), (16384, 1, 22)):
        rng = np.random.default_rng(seed)
        N2 = 8
        log_dt, C, log_A_real, A_imag = s4d_lin_params(rng, H, N2)
        log_dt, C, log_A_real, A_imag = (x.astype(np.float32).astype(np.float64)
                                         for x in (log_dt, C, log_A_real, A_imag))
        u = rng.standard_normal((1, H, L)).astype(np.float32).astype(np.float64)
        K = kernel_complex(log_dt, C, log_A_real, A_imag, L, "bilinear")
        y = fft_conv(u, K)
        write_case(root, f"s4_bilinear_L{L}", {"discretization": "bilinear", "complex_diagonal": True, "length": L},
                   "state-spaces/s4 src/models/sequence/kernels/ssm.py SSMKernelDiag (disc='bilinear'), "
                   "evaluated in complex128 with NumPy (test/golden/make_lti_cases.py)",
                   "S4 bilinear (Tustin, S4 paper section 2.3) on the S4D-Lin parameters: "
                   "C~ = C dt / (1 - dt A/2), dA = (1 + dt A/2) / (1 - dt A/2), K_l = 2 Re sum_n C~_n dA_n^l",
                   {"log_dt": log_dt, "C_real_imag": C, "log_A_real": log_A_real, "A_imag": A_imag, "u": u},
                   {"K": K, "y": y}, tolerance(u, K))
    rng = np.random.default_rng(31)
    H, N, L = 4, 16, 2048
    log_dt = (rng.random(H) * (math.log(0.1) - math.log(1e-3)) + math.log(1e-3))
    log_A_real = np.log(np.tile(np.arange(1, N + 1, dtype=np.float64), (H, 1)))  # S4D-Real / Mamba: A = -(1..N)
    B = rng.standard_normal((H, N))
    C = rng.standard_normal((H, N))
    log_dt, log_A_real, B, C = (x.astype(np.float32).astype(np.float64) for x in (log_dt, log_A_real, B, C))
    u = rng.standard_normal((1, H, L)).astype(np.float32).astype(np.float64)
    K = kernel_mamba_real(log_dt, B, C, log_A_real, L)
    y = fft_conv(u, K)
    write_case(root, f"mamba_zoh_euler_L{L}",
               {"discretization": "zoh", "b_discretization": "euler", "complex_diagonal": False, "length": L},
               "Mamba (Gu and Dao 2023, section 3.2; selective_scan_ref in state-spaces/mamba with constant "
               "delta, B, C), evaluated in float64 with NumPy (test/golden/make_lti_cases.py)",
               "real diagonal A = -exp(log_A_real) = -(1..N) (S4D-Real init), Abar = exp(dt A) (ZOH), "
               "Bbar = dt B (simplified Euler); K_l = sum_n C_n Bbar_n Abar_n^l; y = causal conv of u with K",
               {"log_dt": log_dt, "log_A_real": log_A_real, "B": B, "C": C, "u": u},
               {"K": K, "y": y}, tolerance(u, K))


if __name__ == "__main__":
    main()
