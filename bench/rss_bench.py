#!/usr/bin/env python3
"""Peak resident memory of `ssm-run` on a model folder against its weights file.

For each form (sequence: the prompt as compiled sequence calls; step: one token
at a time) runs

    ssm-run DIR --tokens T.npy --mode M --engine cpu --threads N [EXTRA...]

ROUNDS times, alternating the forms, and reads each run's peak RSS (ru_maxrss of
the child, as /usr/bin/time %M reports it). Prints the median per form in KiB
and as a multiple of weights.safetensors' size, and the same for
`ssm-run --version` (the tool's fixed cost: the libraries it maps at start-up,
libLLVM and libMLIR included). The folder should be deployed for the prompt
(ssm-import --seq-len 512 --compile): a run that compiles is refused, since its
child ssm-compile's memory is not the runner's.

The issue 35 figure: mamba-130m shapes (bench/synth_checkpoint.py mamba DIR, F32,
weights file 504,460 KiB), `ssm-import DIR -o M --seq-len 512 --compile`, a
512-token prompt, 2 threads:

    bench/rss_bench.py M --tokens 512 --threads 2 --rounds 3

Standard library only. Exit 0, or 1 when a run fails, 2 on bad arguments.
"""
import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_tokens(path, n, vocab):
    """An int32 .npy vector of n token ids below vocab (a fixed stride walk)."""
    header = "{'descr': '<i4', 'fortran_order': False, 'shape': (%d,), }" % n
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%di" % n, *[(i * 7919 + 13) % vocab for i in range(n)]))


def peak_kib(cmd):
    """Runs cmd; returns (peak RSS in KiB, stderr text). Raises on failure."""
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode(errors="replace")
    if p.returncode != 0:
        raise RuntimeError("%s exited %d:\n%s" % (" ".join(cmd), p.returncode, text[-2000:]))
    return usage.ru_maxrss, text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model_dir", help="an ssm-import output (deployed for the prompt's length)")
    ap.add_argument("--tokens", type=int, default=512, help="prompt length (default 512)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--modes", default="sequence,step")
    ap.add_argument("--ssm-run", default=os.path.join(ROOT, "build", "bin", "ssm-run"))
    ap.add_argument("extra", nargs="*", help="more ssm-run flags, after --")
    a = ap.parse_args()
    weights = os.path.join(a.model_dir, "weights.safetensors")
    if not os.path.isfile(weights):
        ap.error("%s: no weights.safetensors (not an ssm-import output)" % a.model_dir)
    with open(os.path.join(a.model_dir, "model.json")) as f:
        config = json.load(f).get("config", {})
    vocab = int(config.get("n_vocab") or config.get("vocab_size") or 256)
    weights_kib = os.path.getsize(weights) / 1024.0
    modes = a.modes.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        tokens = os.path.join(tmp, "tokens.npy")
        write_tokens(tokens, a.tokens, vocab)
        base = [a.ssm_run, "--version"]
        runs = {m: [] for m in modes}
        fixed = []
        for r in range(a.rounds):
            fixed.append(peak_kib(base)[0])
            for m in (modes if r % 2 == 0 else modes[::-1]):
                cmd = [a.ssm_run, a.model_dir, "--tokens", tokens, "--mode", m, "--engine", "cpu",
                       "--threads", str(a.threads)] + a.extra
                kib, err = peak_kib(cmd)
                if "compiling" in err:
                    sys.exit("%s is not deployed for %d tokens: ssm-run compiled (import it with "
                             "--seq-len %d --compile)" % (a.model_dir, a.tokens, a.tokens))
                runs[m].append(kib)
    print("weights.safetensors %.0f KiB; %d tokens, %d threads, %d rounds (medians; all rounds "
          "in brackets)" % (weights_kib, a.tokens, a.threads, a.rounds))
    med = statistics.median(fixed)
    print("ssm-run --version    %9.0f KiB  %.3fx  %s" % (med, med / weights_kib, fixed))
    for m in modes:
        med = statistics.median(runs[m])
        print("%-20s %9.0f KiB  %.3fx  %s" % (m, med, med / weights_kib, runs[m]))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as e:
        print("rss_bench: %s" % e, file=sys.stderr)
        sys.exit(1)
