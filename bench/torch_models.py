#!/usr/bin/python3
"""PyTorch eager versions of the whole models that ssm-import reads.

Written here from the format and semantics notes in ../shared/models/rwkv/README.md
and ../shared/models/mamba/README.md (not from any implementation's source):

* RWKV-4, RWKV-5.1 and RWKV-5.2 read straight from rwkv.cpp .bin files (FP32 or
  FP16; FP16 tensors are widened to float32 and the math runs in float32);
* Mamba-1 from a Hugging Face model.safetensors plus its config.json.

Every model offers

    state = model.initial_state()
    logits, state = model.forward_sequence(tokens, state)   # (T, vocab), the scan form
    logits, state = model.forward_step(token, state)        # (vocab,), the state-update form

`forward_sequence` is vectorised over time where that is natural: the
projections, norms and token shift run on the whole (T, C) block at once, and
the RWKV time mixing uses a chunked form (inside a chunk of `chunk` tokens the
recurrence is written out as a masked (chunk x chunk) weighting, between chunks
the state is carried), so the only Python loop is over T / chunk. Mamba's
selective scan runs as the plain recurrence over time (the form of Hugging
Face's slow path and mamba_ssm's selective_scan_ref); the rest is vectorised.
`wkv="loop"` selects the plain per-token recurrence for RWKV too.

`--check` verifies every model against the expected outputs shipped in
../shared/models and exits non-zero on a failure:

    /usr/bin/python3 bench/torch_models.py --check
"""
import argparse
import json
import os
import struct
import sys

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError:
    # Debian's python3-torch lives under /usr/bin/python3; a pyenv or venv
    # python3 on PATH does not see it.
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")

LN_EPS = 1e-5


# --------------------------------------------------------------------------- files

def read_rwkv_bin(path):
    """Parses an rwkv.cpp model file: (header dict, {name: float32 np.ndarray in PyTorch shape})."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError(f"{path}: {len(data)} bytes, shorter than the 24-byte header")
    magic, version, n_vocab, n_embed, n_layer, dtype = struct.unpack_from("<6I", data, 0)
    if magic != 0x67676D66:
        raise ValueError(f"{path}: bad magic 0x{magic:08x}")
    if dtype not in (0, 1):
        raise ValueError(f"{path}: data type {dtype} is quantised; only FP32 (0) and FP16 (1) are read")
    header = dict(version=version, n_vocab=n_vocab, n_embed=n_embed, n_layer=n_layer, dtype=dtype)
    tensors = {}
    off = 24
    while off < len(data):
        if off + 12 > len(data):
            raise ValueError(f"{path}: truncated tensor header at byte {off}")
        ndim, name_len, tdtype = struct.unpack_from("<3I", data, off)
        off += 12
        if not 1 <= ndim <= 3:
            raise ValueError(f"{path}: tensor at byte {off - 12} has {ndim} dimensions")
        sizes = struct.unpack_from(f"<{ndim}I", data, off)
        off += 4 * ndim
        name = data[off:off + name_len].decode("utf-8")
        off += name_len
        if tdtype == 0:
            np_dtype, width = np.float32, 4
        elif tdtype == 1:
            np_dtype, width = np.float16, 2
        else:
            raise ValueError(f"{path}: tensor '{name}' has quantised type {tdtype}")
        count = int(np.prod(sizes))
        if off + count * width > len(data):
            raise ValueError(f"{path}: tensor '{name}' is truncated at byte {off}")
        arr = np.frombuffer(data, dtype=np_dtype, count=count, offset=off).astype(np.float32)
        off += count * width
        # ggml lists the fastest-varying size first; PyTorch's shape is the reverse.
        tensors[name] = arr.reshape(tuple(reversed(sizes)))
    return header, tensors


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8:8 + n].decode("utf-8"))
    base = 8 + n
    dtypes = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "BF16": None}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dt = info["dtype"]
        begin, end = info["data_offsets"]
        raw = data[base + begin:base + end]
        if dt == "BF16":
            u16 = np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16
            arr = u16.view(np.float32)
        elif dt in dtypes:
            arr = np.frombuffer(raw, dtype=dtypes[dt]).astype(np.float32)
        else:
            raise ValueError(f"{path}: tensor '{name}' has unsupported dtype {dt}")
        out[name] = arr.reshape(info["shape"])
    return out


def layer_norm(x, w, b):
    return F.layer_norm(x, (x.shape[-1],), w, b, LN_EPS)


# --------------------------------------------------------------------------- RWKV

class RwkvModel:
    """RWKV-4 / 5.1 / 5.2 from an rwkv.cpp file. State: one dict per layer."""

    def __init__(self, path, wkv="chunked", chunk=64):
        header, raw = read_rwkv_bin(path)
        if "blocks.0.att.k_k" in raw:
            raise ValueError(f"{path}: RWKV-7 is not supported")
        if "blocks.0.att.time_maa_x" in raw:
            raise ValueError(f"{path}: RWKV-6 is not supported")
        if "blocks.0.att.ln_x.weight" in raw:
            self.version = "5.2" if "blocks.0.att.gate.weight" in raw else "5.1"
        else:
            self.version = "4"
        self.n_vocab, self.n_embed, self.n_layer = header["n_vocab"], header["n_embed"], header["n_layer"]
        self.dtype_name = "FP16" if header["dtype"] == 1 else "FP32"
        self.wkv, self.chunk = wkv, chunk
        t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in raw.items()}
        C = self.n_embed
        self.emb = t["emb.weight"]
        self.ln0 = (t["blocks.0.ln0.weight"], t["blocks.0.ln0.bias"])
        self.ln_out = (t["ln_out.weight"], t["ln_out.bias"])
        self.head = t["head.weight"]
        self.blocks = []
        for i in range(self.n_layer):
            p = lambda n: t[f"blocks.{i}.{n}"]
            b = dict(
                ln1=(p("ln1.weight"), p("ln1.bias")), ln2=(p("ln2.weight"), p("ln2.bias")),
                a_mk=p("att.time_mix_k").reshape(C), a_mv=p("att.time_mix_v").reshape(C),
                a_mr=p("att.time_mix_r").reshape(C),
                Wk=p("att.key.weight"), Wv=p("att.value.weight"), Wr=p("att.receptance.weight"),
                Wo=p("att.output.weight"),
                f_mk=p("ffn.time_mix_k").reshape(C), f_mr=p("ffn.time_mix_r").reshape(C),
                Fk=p("ffn.key.weight"), Fr=p("ffn.receptance.weight"), Fv=p("ffn.value.weight"),
            )
            if self.version == "4":
                b["w"] = p("att.time_decay").reshape(C)   # -exp(decay), log space
                b["u"] = p("att.time_first").reshape(C)
            else:
                decay = p("att.time_decay")
                if self.version == "5.2":
                    first = p("att.time_faaaa")
                    H = decay.shape[0]                    # PyTorch shape (heads, head_size, 1)
                    S = C // H
                    b["w"] = decay.reshape(H, S)
                    b["u"] = first.reshape(H, S)
                    b["a_mg"] = p("att.time_mix_g").reshape(C)
                    b["Wg"] = p("att.gate.weight")
                else:
                    first = p("att.time_first")
                    H = decay.numel()                     # one value per head
                    S = C // H
                    b["w"] = decay.reshape(H, 1).expand(H, S).contiguous()
                    b["u"] = first.reshape(H, 1).expand(H, S).contiguous()
                b["ln_x"] = (p("att.ln_x.weight").reshape(C), p("att.ln_x.bias").reshape(C))
                self.heads, self.head_size = H, S
            self.blocks.append(b)

    def describe(self):
        s = f"RWKV-{self.version} {self.dtype_name} n_embed {self.n_embed} n_layer {self.n_layer}"
        if self.version != "4":
            s += f" heads {self.heads}x{self.head_size}"
        return s

    def initial_state(self):
        C = self.n_embed
        st = []
        for _ in range(self.n_layer):
            d = dict(ffn_xx=torch.zeros(C), att_xx=torch.zeros(C))
            if self.version == "4":
                d.update(aa=torch.zeros(C), bb=torch.zeros(C), pp=torch.full((C,), -1e30))
            else:
                d["M"] = torch.zeros(self.heads, self.head_size, self.head_size)
            st.append(d)
        return st

    # -- shared pieces; x is (T, C) --------------------------------------------------

    @staticmethod
    def _shift(xn, prev):
        return torch.cat([prev[None], xn[:-1]], 0)

    def _channel_mix(self, b, xn, prev):
        xp = self._shift(xn, prev)
        xk = torch.lerp(xp, xn, b["f_mk"])          # x * m + x_prev * (1 - m)
        xr = torch.lerp(xp, xn, b["f_mr"])
        r = torch.sigmoid(xr @ b["Fr"].t())
        k = torch.square(torch.relu(xk @ b["Fk"].t()))
        return r * (k @ b["Fv"].t())

    def _time_mix(self, b, xn, st):
        xp = self._shift(xn, st["att_xx"])
        xk = torch.lerp(xp, xn, b["a_mk"])
        xv = torch.lerp(xp, xn, b["a_mv"])
        xr = torch.lerp(xp, xn, b["a_mr"])
        k = xk @ b["Wk"].t()
        v = xv @ b["Wv"].t()
        r = xr @ b["Wr"].t()
        new = dict(st)
        new["att_xx"] = xn[-1]
        if self.version == "4":
            r = torch.sigmoid(r)
            wkv_fn = self._wkv4_loop if self.wkv == "loop" or xn.shape[0] == 1 else self._wkv4_chunked
            wkv, (new["aa"], new["bb"], new["pp"]) = wkv_fn(b["w"], b["u"], k, v, st["aa"], st["bb"], st["pp"])
            return (r * wkv) @ b["Wo"].t(), new
        T, H, S = xn.shape[0], self.heads, self.head_size
        r, k, v = r.view(T, H, S), k.view(T, H, S), v.view(T, H, S)
        wkv_fn = self._wkv5_loop if self.wkv == "loop" or T == 1 else self._wkv5_chunked
        out, new["M"] = wkv_fn(b["w"], b["u"], r, k, v, st["M"])
        out = F.group_norm(out.reshape(T, H * S), H, b["ln_x"][0], b["ln_x"][1], LN_EPS)
        if self.version == "5.2":
            g = F.silu(torch.lerp(xp, xn, b["a_mg"]) @ b["Wg"].t())
            out = out * g
        return out @ b["Wo"].t(), new

    # -- WKV-4: stabilised log-space recurrence ----------------------------------------

    @staticmethod
    def _wkv4_loop(w, u, k, v, aa, bb, pp):
        outs = []
        for t in range(k.shape[0]):
            kt, vt = k[t], v[t]
            q = torch.maximum(pp, u + kt)
            e1, e2 = torch.exp(pp - q), torch.exp(u + kt - q)
            outs.append((e1 * aa + e2 * vt) / (e1 * bb + e2))
            q2 = torch.maximum(pp + w, kt)
            e1, e2 = torch.exp(pp + w - q2), torch.exp(kt - q2)
            aa, bb, pp = e1 * aa + e2 * vt, e1 * bb + e2, q2
        return torch.stack(outs), (aa, bb, pp)

    def _wkv4_chunked(self, w, u, k, v, aa, bb, pp):
        # Inside a chunk of L tokens (local times 0..L-1), token t sees token i < t
        # with log weight (t-1-i) w + k_i, itself with u + k_t, and the carried
        # state (aa, bb at log scale pp) with pp + t w: a per-channel masked
        # softmax-like weighting, normalised by its running maximum.
        T, C = k.shape
        outs = []
        for s in range(0, T, self.chunk):
            kc, vc = k[s:s + self.chunk], v[s:s + self.chunk]
            L = kc.shape[0]
            tt = torch.arange(L, dtype=k.dtype)
            lag = (tt[:, None] - 1 - tt[None, :])                      # (t, i): t-1-i
            logw = lag[:, :, None] * w + kc[None, :, :]                # (L, L, C)
            logw = torch.where((lag >= 0)[:, :, None], logw, torch.tensor(-float("inf")))
            diag = torch.arange(L)
            logw[diag, diag] = u + kc
            log_state = pp[None, :] + tt[:, None] * w                  # (L, C)
            m = torch.maximum(logw.amax(1), log_state)
            e = torch.exp(logw - m[:, None, :])
            es = torch.exp(log_state - m)
            num = torch.einsum("tic,ic->tc", e, vc) + es * aa
            den = e.sum(1) + es * bb
            outs.append(num / den)
            # The state after the chunk: token i decayed L-1-i times, the old state L times.
            logk = (L - 1 - tt)[:, None] * w + kc                       # (L, C)
            lps = pp + L * w
            q = torch.maximum(logk.amax(0), lps)
            ek = torch.exp(logk - q)
            eo = torch.exp(lps - q)
            aa = eo * aa + (ek * vc).sum(0)
            bb = eo * bb + ek.sum(0)
            pp = q
        return torch.cat(outs), (aa, bb, pp)

    # -- WKV-5: matrix state with bonus --------------------------------------------------

    @staticmethod
    def _wkv5_loop(w, u, r, k, v, M):
        # w, u: (H, S); r, k, v: (T, H, S); M: (H, S_key, S_value).
        outs = []
        for t in range(r.shape[0]):
            kv = k[t][:, :, None] * v[t][:, None, :]                   # (H, S, S)
            outs.append(torch.einsum("hi,hij->hj", r[t], u[:, :, None] * kv + M))
            M = w[:, :, None] * M + kv
        return torch.stack(outs), M

    def _wkv5_chunked(self, w, u, r, k, v, M):
        T, H, S = r.shape
        logw = torch.log(w)                                           # (H, S), w in (0, 1)
        outs = []
        for s in range(0, T, self.chunk):
            rc, kc, vc = r[s:s + self.chunk], k[s:s + self.chunk], v[s:s + self.chunk]
            L = rc.shape[0]
            tt = torch.arange(L, dtype=r.dtype)
            lag = tt[:, None] - 1 - tt[None, :]                          # (t, i)
            dec = torch.exp(lag.clamp(min=0)[:, :, None, None] * logw)   # (t, i, H, S): w^(t-1-i)
            dec = dec * (lag >= 0)[:, :, None, None]
            # A[t, i, h] = sum_c r_tc k_ic w_c^(t-1-i); the bonus on the diagonal.
            A = torch.einsum("thc,ihc,tihc->tih", rc, kc, dec)
            diag = torch.arange(L)
            A[diag, diag] = (rc * u * kc).sum(-1)
            out = torch.einsum("tih,ihj->thj", A, vc)
            rdec = rc * torch.exp(tt[:, None, None] * logw)              # r_t w^t
            out = out + torch.einsum("thi,hij->thj", rdec, M)
            outs.append(out)
            kdec = kc * torch.exp((L - 1 - tt)[:, None, None] * logw)   # k_i w^(L-1-i)
            M = torch.exp(L * logw)[:, :, None] * M + torch.einsum("thi,thj->hij", kdec, vc)
        return torch.cat(outs), M

    # -- whole model ---------------------------------------------------------------------

    def _run(self, x, state):
        x = layer_norm(x, *self.ln0)
        new_state = []
        for b, st in zip(self.blocks, state):
            xn = layer_norm(x, *b["ln1"])
            att, st = self._time_mix(b, xn, st)
            x = x + att
            xn2 = layer_norm(x, *b["ln2"])
            x = x + self._channel_mix(b, xn2, st["ffn_xx"])
            st["ffn_xx"] = xn2[-1]
            new_state.append(st)
        return layer_norm(x, *self.ln_out) @ self.head.t(), new_state

    def forward_sequence(self, tokens, state):
        tokens = torch.as_tensor(tokens, dtype=torch.long)
        return self._run(self.emb[tokens], state)

    def forward_step(self, token, state):
        logits, state = self._run(self.emb[int(token)][None], state)
        return logits[0], state


# --------------------------------------------------------------------------- Mamba-1

class MambaModel:
    """Mamba-1 in the Hugging Face (transformers or mamba_ssm) layout. State per layer: conv window and SSM state."""

    def __init__(self, safetensors_path, config_path):
        with open(config_path) as f:
            cfg = json.load(f)
        t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in read_safetensors(safetensors_path).items()}
        self.d_model = cfg["hidden_size"]
        self.n_layer = cfg["num_hidden_layers"]
        self.d_state = cfg["state_size"]
        self.d_inner = cfg.get("intermediate_size", cfg.get("expand", 2) * self.d_model)
        self.d_conv = cfg.get("conv_kernel", 4)
        self.dt_rank = cfg.get("time_step_rank", "auto")
        if self.dt_rank == "auto":
            self.dt_rank = -(-self.d_model // 16)
        self.eps = cfg.get("layer_norm_epsilon", 1e-5)
        self.n_vocab = cfg["vocab_size"]
        # transformers names it embeddings, mamba_ssm embedding
        self.emb = t["backbone.embeddings.weight" if "backbone.embeddings.weight" in t else "backbone.embedding.weight"]
        self.norm_f = t["backbone.norm_f.weight"]
        self.head = t.get("lm_head.weight", self.emb)
        self.layers = []
        for i in range(self.n_layer):
            p = lambda n: t.get(f"backbone.layers.{i}.{n}")
            self.layers.append(dict(
                norm=p("norm.weight"), in_proj=p("mixer.in_proj.weight"), in_bias=p("mixer.in_proj.bias"),
                conv_w=p("mixer.conv1d.weight").reshape(self.d_inner, self.d_conv),
                conv_b=p("mixer.conv1d.bias"), x_proj=p("mixer.x_proj.weight"),
                dt_w=p("mixer.dt_proj.weight"), dt_b=p("mixer.dt_proj.bias"),
                A=-torch.exp(p("mixer.A_log")), D=p("mixer.D"),
                out_proj=p("mixer.out_proj.weight"), out_bias=p("mixer.out_proj.bias")))

    def describe(self):
        return (f"Mamba-1 d_model {self.d_model} n_layer {self.n_layer} d_inner {self.d_inner} "
                f"d_state {self.d_state} d_conv {self.d_conv} dt_rank {self.dt_rank}")

    def initial_state(self):
        return [dict(conv=torch.zeros(self.d_conv - 1, self.d_inner), h=torch.zeros(self.d_inner, self.d_state))
                for _ in range(self.n_layer)]

    def _rms(self, x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * w

    def _mixer(self, p, x, st):
        T = x.shape[0]
        xz = F.linear(x, p["in_proj"], p["in_bias"])
        xs, z = xz[:, :self.d_inner], xz[:, self.d_inner:]
        # Depthwise causal conv over [previous window; xs], width d_conv.
        padded = torch.cat([st["conv"], xs], 0)                      # (d_conv-1+T, d_inner)
        if T == 1:
            xc = (padded * p["conv_w"].t()).sum(0, keepdim=True)
        else:
            xc = F.conv1d(padded.t()[None], p["conv_w"][:, None, :], groups=self.d_inner)[0].t()
        if p["conv_b"] is not None:
            xc = xc + p["conv_b"]
        xc = F.silu(xc)
        dbc = xc @ p["x_proj"].t()
        dt, B, Cm = dbc.split([self.dt_rank, self.d_state, self.d_state], dim=-1)
        dt = F.softplus(dt @ p["dt_w"].t() + p["dt_b"])              # (T, d_inner)
        dA = torch.exp(dt[:, :, None] * p["A"])                      # (T, d_inner, N)
        dBx = (dt * xc)[:, :, None] * B[:, None, :]                  # (T, d_inner, N)
        h = st["h"]
        if T == 1:
            h = dA[0] * h + dBx[0]
            y = (h @ Cm[0])[None]
        else:
            hs = []
            for i in range(T):
                h = dA[i] * h + dBx[i]
                hs.append(h)
            y = torch.einsum("tdn,tn->td", torch.stack(hs), Cm)
        y = (y + xc * p["D"]) * F.silu(z)
        out = F.linear(y, p["out_proj"], p["out_bias"])
        return out, dict(conv=padded[-(self.d_conv - 1):], h=h)

    def _run(self, x, state):
        new_state = []
        for p, st in zip(self.layers, state):
            out, st = self._mixer(p, self._rms(x, p["norm"]), st)
            x = x + out
            new_state.append(st)
        return self._rms(x, self.norm_f) @ self.head.t(), new_state

    def forward_sequence(self, tokens, state):
        tokens = torch.as_tensor(tokens, dtype=torch.long)
        return self._run(self.emb[tokens], state)

    def forward_step(self, token, state):
        logits, state = self._run(self.emb[int(token)][None], state)
        return logits[0], state


# --------------------------------------------------------------------------- loading

def load_model(path, **kw):
    """An rwkv.cpp .bin file, or a folder holding model.safetensors and config.json."""
    if os.path.isdir(path):
        return MambaModel(os.path.join(path, "model.safetensors"), os.path.join(path, "config.json"))
    return RwkvModel(path, **kw)


# --------------------------------------------------------------------------- checks

def _check_rwkv(failures):
    d = os.path.join(SHARED, "models", "rwkv")
    prompt = [34, 105, 110]  # '"in'
    cases = [("tiny-rwkv-4v0-660K-FP32.bin", "expected-logits-4v0-660K.bin", 1e-4),
             ("tiny-rwkv-4v0-660K-FP16.bin", "expected-logits-4v0-660K.bin", 1e-2),
             ("tiny-rwkv-5v2-730K-FP32.bin", "expected-logits-5v2-730K.bin", 1e-4),
             ("tiny-rwkv-5v2-730K-FP16.bin", "expected-logits-5v2-730K.bin", 1e-2),
             ("reseeded-rwkv-4v0-seed1-FP32.bin", "expected-logits-reseeded-4v0-seed1.bin", 1e-4)]
    for model_file, expected_file, tol in cases:
        if not os.path.exists(os.path.join(d, model_file)):
            continue
        expected = torch.from_numpy(np.fromfile(os.path.join(d, expected_file), dtype="<f4"))
        for wkv in ("chunked", "loop"):
            m = RwkvModel(os.path.join(d, model_file), wkv=wkv, chunk=2)
            seq, _ = m.forward_sequence(prompt, m.initial_state())
            st = m.initial_state()
            for tok in prompt:
                step, st = m.forward_step(tok, st)
            for form, got in (("sequence", seq[-1]), ("step", step)):
                err = (got - expected).abs().max().item()
                ok = err <= tol
                print(f"{model_file:36s} RWKV-{m.version:3s} {form:8s} wkv={wkv:7s} max|diff|={err:.2e} "
                      f"(tol {tol:g}) {'PASS' if ok else 'FAIL'}")
                if not ok:
                    failures.append(f"{model_file} {form} {wkv}")
    # The chunked and loop forms and the step form agree on a long sequence too.
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, 256, (300,), generator=g)
    for model_file in ("reseeded-rwkv-4v0-seed1-FP32.bin", "tiny-rwkv-5v2-730K-FP32.bin"):
        path = os.path.join(d, model_file)
        if not os.path.exists(path):
            continue
        loop = RwkvModel(path, wkv="loop")
        ref, ref_st = loop.forward_sequence(tokens, loop.initial_state())
        ch = RwkvModel(path, wkv="chunked", chunk=64)
        got, got_st = ch.forward_sequence(tokens, ch.initial_state())
        st = ch.initial_state()
        steps = []
        for tok in tokens[:40]:
            lg, st = ch.forward_step(tok, st)
            steps.append(lg)
        err = max((got - ref).abs().max().item(), (torch.stack(steps) - ref[:40]).abs().max().item())
        def canon(st):
            # (aa, bb, pp) is defined up to a common scale: compare aa / bb and pp + log bb.
            if "aa" in st:
                return dict(ffn_xx=st["ffn_xx"], att_xx=st["att_xx"], ratio=st["aa"] / st["bb"],
                            lognorm=st["pp"] + torch.log(st["bb"]))
            return st
        err_st = max((canon(sa)[k] - canon(sb)[k]).abs().max().item()
                     for sa, sb in zip(got_st, ref_st) for k in canon(sa))
        ok = err <= 1e-4 and err_st <= 1e-3
        print(f"{model_file:36s} 300 tokens: chunked vs loop vs step max|diff| logits {err:.2e}, "
              f"state {err_st:.2e} {'PASS' if ok else 'FAIL'}")
        if not ok:
            failures.append(f"{model_file} chunked-vs-loop")


def _check_mamba(failures):
    d = os.path.join(SHARED, "models", "mamba", "tiny-mamba-seed5")
    if not os.path.isdir(d):
        return
    m = MambaModel(os.path.join(d, "model.safetensors"), os.path.join(d, "config.json"))
    tokens = np.load(os.path.join(d, "tokens.npy")).astype(np.int64)
    expected = torch.from_numpy(np.load(os.path.join(d, "expected_logits.npy")))
    seq, _ = m.forward_sequence(tokens, m.initial_state())
    st = m.initial_state()
    steps = []
    for tok in tokens:
        lg, st = m.forward_step(tok, st)
        steps.append(lg)
    for form, got in (("sequence", seq), ("step", torch.stack(steps))):
        err = (got - expected).abs().max().item()
        ok = err <= 1e-4
        print(f"{'tiny-mamba-seed5':36s} Mamba-1  {form:8s} {len(tokens)} positions max|diff|={err:.2e} "
              f"(tol 1e-4) {'PASS' if ok else 'FAIL'}")
        if not ok:
            failures.append(f"mamba {form}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="check every model against ../shared/models")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    if not args.check:
        ap.print_help()
        return 0
    failures = []
    with torch.inference_mode():
        _check_rwkv(failures)
        _check_mamba(failures)
    if failures:
        print("FAILED: " + ", ".join(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
