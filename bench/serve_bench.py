#!/usr/bin/env python3
"""Concurrent streaming clients against ssm-serve (or any OpenAI-compatible server, llama-server say):
tokens/s in total and per client, time to first token, with and without a shared prompt prefix.

usage:
  serve_bench.py --serve build/bin/ssm-serve MODEL_DIR [--parallel 8] [--threads 2] [server flags...]
  serve_bench.py --url http://127.0.0.1:8080 [--model NAME]       # a server already running
options:
  --clients 1,8,32   concurrent clients per round (each streams one completion)
  --tokens 64        max_tokens per request (greedy, temperature 0)
  --prompt 32        prompt tokens of a request without a shared prefix
  --prefix 1000      tokens of the shared prefix (0: no prefix rounds)
  --vocab 256        prompts are random token ids below this (seeded), so every
                     server sees the same ids whatever its tokenizer
  --rounds 1         repeat each measurement; the medians are printed

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


def stream_one(host, port, body):
    """(ttft_s, total_s, tokens) of one streamed completion."""
    c = http.client.HTTPConnection(host, port, timeout=600)
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


def round_of(host, port, model, prompts, tokens):
    results = [None] * len(prompts)
    start = threading.Barrier(len(prompts))

    def client(i):
        body = {"prompt": prompts[i], "max_tokens": tokens, "temperature": 0, "stream": True,
                "stream_options": {"include_usage": True}}
        if model:
            body["model"] = model
        start.wait()
        results[i] = stream_one(host, port, body)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(len(prompts))]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    total_tokens = sum(r[2] for r in results)
    return {
        "tokens_per_s": total_tokens / wall,
        "per_client_tokens_per_s": statistics.median(r[2] / max(r[1] - r[0], 1e-9) for r in results),
        "ttft_ms": statistics.median(r[0] for r in results) * 1e3,
        "ttft_p90_ms": sorted(r[0] for r in results)[int(0.9 * (len(results) - 1))] * 1e3,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--serve", nargs=argparse.REMAINDER, help="ssm-serve binary, model folder, flags")
    p.add_argument("--url")
    p.add_argument("--model", default="")
    p.add_argument("--clients", default="1,8,32")
    p.add_argument("--tokens", type=int, default=64)
    p.add_argument("--prompt", type=int, default=32)
    p.add_argument("--prefix", type=int, default=1000)
    p.add_argument("--vocab", type=int, default=256)
    p.add_argument("--rounds", type=int, default=1)
    a = p.parse_args()
    proc = None
    if a.serve:
        proc = subprocess.Popen(a.serve + ["--port", "0"], stderr=subprocess.PIPE, text=True)
        for line in proc.stderr:
            sys.stderr.write(line)
            m = re.search(r"listening on (http://\S+)", line)
            if m:
                a.url = m.group(1)
                break
        threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    if not a.url:
        p.error("give --serve or --url")
    u = urllib.parse.urlparse(a.url)
    host, port = u.hostname, u.port
    rng = random.Random(1)
    ids = lambda n: [rng.randrange(a.vocab) for _ in range(n)]
    try:
        print("%-10s %7s %12s %18s %10s %10s" % ("prompts", "clients", "tokens/s", "per client tok/s",
                                               "TTFT ms", "TTFT p90"))
        for n in [int(c) for c in a.clients.split(",")]:
            kinds = [("distinct", lambda i: ids(a.prompt))]
            if a.prefix > 0:
                kinds.append(("no prefix", lambda i: ids(a.prefix + 16)))
                shared = ids(a.prefix)
                kinds.append(("prefix", lambda i: shared + ids(16)))
            for kind, make in kinds:
                runs = []
                for _ in range(a.rounds):
                    if kind == "prefix":  # the server sees the prefix once first
                        stream_one(host, port, {"prompt": shared + ids(16), "max_tokens": 1, "temperature": 0,
                                                "stream": True})
                    runs.append(round_of(host, port, a.model, [make(i) for i in range(n)], a.tokens))
                med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
                print("%-10s %7d %12.1f %18.1f %10.1f %10.1f" % (kind, n, med["tokens_per_s"],
                                                                 med["per_client_tokens_per_s"], med["ttft_ms"],
                                                                 med["ttft_p90_ms"]), flush=True)
    finally:
        if proc:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=120)


if __name__ == "__main__":
    main()
