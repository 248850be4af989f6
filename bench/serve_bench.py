#!/usr/bin/env python3
"""Concurrent streaming clients against ssm-serve (or any OpenAI-compatible server, llama-server say):
tokens/s in total and per client, time to first token, with and without a shared prompt prefix.

usage:
  serve_bench.py --serve build/bin/ssm-serve MODEL_DIR [--parallel 8] [--threads 2] [server flags...]
  serve_bench.py --url http://127.0.0.1:8080 [--model NAME]       # a server already running
  serve_bench.py --peer-cmd "llama-server -m model.gguf -np 8 -c 9000 -t 2" \
                 --serve build/bin/ssm-serve MODEL_DIR --parallel 8 --threads 2
                 # both, the same prompts in alternating rounds, and the ratios
options:
  --peer-cmd CMD     a second server to compare with (llama-server: started with
                     --host 127.0.0.1 --port P appended, ready when /health is 200);
                     its requests also carry --peer-body (default {"ignore_eos": true},
                     so it generates max_tokens as ours does from a model without a tokenizer)
  --clients 1,8,32   concurrent clients per round (each streams one completion)
  --tokens 64        max_tokens per request (greedy, temperature 0)
  --prompt 32        prompt tokens of a request without a shared prefix
  --prefix 1000      tokens of the shared prefix (0: no prefix rounds)
  --vocab 256        prompts are random token ids below this (seeded), so every
                     server sees the same ids whatever its tokenizer
  --rounds 1         repeat each measurement; the medians are printed
  --timeout 1800     seconds one request may take (32 clients x 1,016 prompt tokens
                     take minutes on 2 cores)

Prompts are arrays of token ids (OpenAI's completions API takes them, and so
does llama-server). Tokens are counted from the usage chunk
(stream_options.include_usage) when the server sends one, else one per
streamed chunk with text. "prefix" rounds first send one request with the
shared prefix (so a server with a prompt cache holds it), then the clients'
requests, each the prefix and a short question of its own; "no prefix" rounds
send prompts of the same length that share nothing. Standard library only.
"""
import argparse
import http.client
import json
import random
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse


TIMEOUT_S = 1800


def stream_one(host, port, body):
    """(ttft_s, total_s, tokens) of one streamed completion."""
    c = http.client.HTTPConnection(host, port, timeout=TIMEOUT_S)
    t0 = time.perf_counter()
    c.request("POST", "/v1/completions", body=json.dumps(body), headers={"Content-Type": "application/json"})
    r = c.getresponse()
    if r.status != 200:
        raise RuntimeError("HTTP %d: %s" % (r.status, r.read()[:300]))
    ttft, chunks, usage, buf = None, 0, None, b""
    while True:
        data = r.read1(65536)
        if not data:
            break
        buf += data
        while b"\n\n" in buf:
            event, buf = buf.split(b"\n\n", 1)
            if not event.startswith(b"data: ") or event == b"data: [DONE]":
                continue
            chunk = json.loads(event[6:])
            if chunk.get("error"):  # a server that fails mid-stream says so in an event
                raise RuntimeError("%s:%d: %s" % (host, port, json.dumps(chunk["error"])[:300]))
            if chunk.get("usage"):
                usage = chunk["usage"]
            for ch in chunk.get("choices", []):
                text = ch.get("text") or (ch.get("delta") or {}).get("content") or ""
                if text or ch.get("token_ids"):
                    if ttft is None:
                        ttft = time.perf_counter() - t0
                    chunks += len(ch["token_ids"]) if ch.get("token_ids") else 1
    total = time.perf_counter() - t0
    c.close()
    tokens = usage["completion_tokens"] if usage else chunks
    return ttft if ttft is not None else total, total, tokens


def round_of(host, port, model, prompts, tokens, extra=None):
    results = [None] * len(prompts)
    start = threading.Barrier(len(prompts))

    def client(i):
        body = {"prompt": prompts[i], "max_tokens": tokens, "temperature": 0, "stream": True,
                "stream_options": {"include_usage": True}}
        body.update(extra or {})
        if model:
            body["model"] = model
        start.wait()
        try:
            results[i] = stream_one(host, port, body)
        except Exception as e:  # noqa: BLE001 - reported below, with the others' results
            results[i] = e

    threads = [threading.Thread(target=client, args=(i,)) for i in range(len(prompts))]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    failed = [r for r in results if isinstance(r, Exception)]
    if failed:
        raise RuntimeError("%d of %d clients failed, the first: %r" % (len(failed), len(results), failed[0]))
    total_tokens = sum(r[2] for r in results)
    return {
        "tokens_per_s": total_tokens / wall,
        "per_client_tokens_per_s": statistics.median(r[2] / max(r[1] - r[0], 1e-9) for r in results),
        "ttft_ms": statistics.median(r[0] for r in results) * 1e3,
        "ttft_p90_ms": sorted(r[0] for r in results)[int(0.9 * (len(results) - 1))] * 1e3,
    }


def free_port():
    import socket
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


def start_ours(cmd):
    proc = subprocess.Popen(cmd + ["--port", "0"], stderr=subprocess.PIPE, text=True)
    url = None
    for line in proc.stderr:
        sys.stderr.write(line)
        m = re.search(r"listening on (http://\S+)", line)
        if m:
            url = m.group(1)
            break
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    if not url:
        sys.exit("serve_bench: %s did not start" % cmd[0])
    return proc, url


def start_peer(cmd):
    import shlex
    port = free_port()
    log = open("/tmp/serve_bench_peer.log", "w")
    proc = subprocess.Popen(shlex.split(cmd) + ["--host", "127.0.0.1", "--port", str(port)],
                            stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 600
    while time.time() < deadline:
        if proc.poll() is not None:
            sys.exit("serve_bench: the peer exited (%d); see /tmp/serve_bench_peer.log" % proc.returncode)
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/health")
            if c.getresponse().status == 200:
                return proc, "http://127.0.0.1:%d" % port
        except OSError:
            pass
        time.sleep(0.5)
    sys.exit("serve_bench: the peer did not become healthy in 600 s")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--serve", nargs=argparse.REMAINDER, help="ssm-serve binary, model folder, flags")
    p.add_argument("--url")
    p.add_argument("--peer-cmd")
    p.add_argument("--peer-body", default='{"ignore_eos": true}')
    p.add_argument("--model", default="")
    p.add_argument("--clients", default="1,8,32")
    p.add_argument("--tokens", type=int, default=64)
    p.add_argument("--prompt", type=int, default=32)
    p.add_argument("--prefix", type=int, default=1000)
    p.add_argument("--vocab", type=int, default=256)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--timeout", type=float, default=TIMEOUT_S, help="seconds a request may take")
    a = p.parse_args()
    globals()["TIMEOUT_S"] = a.timeout
    procs, servers = [], []  # servers: (name, host, port, extra body)
    try:
        if a.serve:
            proc, a.url = start_ours(a.serve)
            procs.append(proc)
        if not a.url:
            p.error("give --serve or --url")
        u = urllib.parse.urlparse(a.url)
        servers.append(("ours", u.hostname, u.port, {}))
        if a.peer_cmd:
            proc, url = start_peer(a.peer_cmd)
            procs.append(proc)
            u = urllib.parse.urlparse(url)
            servers.append(("peer", u.hostname, u.port, json.loads(a.peer_body)))
        rng = random.Random(1)
        ids = lambda n: [rng.randrange(a.vocab) for _ in range(n)]
        print("%-6s %-10s %7s %12s %18s %10s %10s" % ("server", "prompts", "clients", "tokens/s",
                                                      "per client tok/s", "TTFT ms", "TTFT p90"))
        for n in [int(c) for c in a.clients.split(",")]:
            kinds = [("distinct", lambda i: ids(a.prompt))]
            if a.prefix > 0:
                kinds.append(("no prefix", lambda i: ids(a.prefix + 16)))
                shared = ids(a.prefix)
                kinds.append(("prefix", lambda i: shared + ids(16)))
            for kind, make in kinds:
                runs = {name: [] for name, *_ in servers}
                for r in range(a.rounds):
                    prompts = [make(i) for i in range(n)]
                    prime = shared + ids(16) if kind == "prefix" else None
                    # Alternating rounds: who goes first changes every round.
                    order = servers if r % 2 == 0 else servers[::-1]
                    for name, host, port, extra in order:
                        if prime:  # the server sees the prefix once first
                            body = {"prompt": prime, "max_tokens": 1, "temperature": 0, "stream": True}
                            body.update(extra)
                            stream_one(host, port, body)
                        runs[name].append(round_of(host, port, a.model, prompts, a.tokens, extra))
                med = {}
                for name, *_ in servers:
                    med[name] = {k: statistics.median(x[k] for x in runs[name]) for k in runs[name][0]}
                    m = med[name]
                    print("%-6s %-10s %7d %12.1f %18.1f %10.1f %10.1f" % (
                        name, kind, n, m["tokens_per_s"], m["per_client_tokens_per_s"], m["ttft_ms"],
                        m["ttft_p90_ms"]), flush=True)
                if len(servers) == 2:
                    o, q = med["ours"], med["peer"]
                    print("%-6s %-10s %7d %11.2fx %18s %9.2fx" % (
                        "ratio", kind, n, o["tokens_per_s"] / q["tokens_per_s"], "",
                        o["ttft_ms"] / q["ttft_ms"]), flush=True)
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    main()
