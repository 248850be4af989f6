"""ssm-serve end to end: a server on a free port against ssm-run and against itself.

usage: serve.py BIN_DIR WORK_DIR SHARED_DIR LIT_INPUTS_DIR

Imports (into WORK_DIR) the tiny Mamba-1 of ../shared (byte vocabulary) with
a batched step and a batched prefill of 4 streams, the tiny RWKV-4 (byte
vocabulary, no batched step: each stream steps and prefills alone), the tiny
LFM2 hybrid (KV caches of 256 positions, batched step and prefill of 3) and a synthetic Mamba-1 of vocabulary 64 with
a character-level tokenizer whose tokenizer_config.json has a ChatML
template; then checks
  * /health, /v1/models, /metrics;
  * greedy completions equal ssm-run --generate on the same prompt (the ids);
  * streaming gives the same ids and text as the response without it;
  * 8 concurrent greedy requests (different prompts and lengths, some
    streaming), and 32 sampled ones with a seed each (more than the slots:
    they queue and join as others leave), each give what they give alone,
    their prompts prefilled together where the model has a batched prefill
    (ssm_prefill_batches_total);
  * a prompt sharing a cached prefix (another prompt's first blocks) starts
    from the cache (usage.prompt_tokens_details.cached_tokens, /metrics) and
    gives the ids ssm-run gives without any cache; the same prompt again is
    a whole hit;
  * sampling: a seed gives ssm-run's tokens with the same settings, alone
    and among concurrent requests;
  * chat: ChatML prompt ids (as ssm-tokenize encodes the text), the output
    equal to ssm-run on those ids, a second question after the same long
    system message reusing its state; a model without a template: 400;
  * bad input (malformed JSON, wrong types, out-of-range values, refused
    features, prompts past the context, a body over the limit, unknown
    paths; 200 requests and more): a 4xx with an OpenAI error body each, and
    the server still serves, also beside a client that sent half a request;
  * a client that leaves mid-stream frees its slot (cancelled in /metrics);
  * a full queue answers 503 with Retry-After; SIGTERM lets the request in
    flight finish, then the server exits 0.
Prints "serve: PASS" at the end; any failure raises.
Standard library only.
"""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

BIN, WORK, SHARED, LIT_INPUTS = sys.argv[1:5]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


def run(*args, **kw):
    r = subprocess.run(list(args), capture_output=True, **kw)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(args), r.returncode, r.stderr.decode(errors="replace")))
    return r


def write_npy_i32(path, ids):
    header = "{'descr': '<i4', 'fortran_order': False, 'shape': (%d,), }" % len(ids)
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%di" % len(ids), *ids))


# --- Model folders -----------------------------------------------------------

def prepare():
    if os.path.isdir(WORK):
        shutil.rmtree(WORK)
    os.makedirs(WORK)
    imp = os.path.join(BIN, "ssm-import")
    mamba = os.path.join(SHARED, "models/mamba/tiny-mamba-seed5")
    run(imp, "mamba", mamba + "/model.safetensors", "--config", mamba + "/config.json",
        "-o", WORK + "/mamba-b4", "--seq-len", "4", "--batch", "4", "--prefill-batch", "4",
        "--compile")
    run(imp, "rwkv", os.path.join(SHARED, "models/rwkv/tiny-rwkv-4v0-660K-FP32.bin"),
        "-o", WORK + "/rwkv4", "--seq-len", "4", "--compile")
    # A hybrid: LFM2 (short convolutions and attention with KV caches of 256
    # positions, which the prompt cache saves with the rest of the state).
    run(imp, os.path.join(SHARED, "models/lfm2/tiny-lfm2-a"), "-o", WORK + "/lfm2",
        "--seq-len", "4", "--batch", "3", "--prefill-batch", "3", "--context", "256", "--compile")
    # A synthetic Mamba of vocabulary 64 with a character-level tokenizer
    # (SentencePiece style) and a ChatML template.
    ckpt = WORK + "/chat-ckpt"
    run(sys.executable, os.path.join(LIT_INPUTS, "make_mamba.py"), ckpt, "--hidden", "16",
        "--state", "4", "--layers", "2", "--conv", "4", "--dt-rank", "2", "--vocab", "64",
        "--seed", "3")
    added = ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>"]
    chars = ["\u2581", "<0x0A>"] + list("abcdefghijklmnopqrstuvwxyz.,?!:'") + list("ABCDEFGHIJKLMNOPQRSTUVWXYZ")[:64 - 5 - 2 - 32]
    vocab = {t: i for i, t in enumerate(added + chars)}
    assert len(vocab) <= 64, len(vocab)
    tok = {
        "version": "1.0",
        "added_tokens": [{"id": i, "content": t, "special": True, "normalized": False,
                          "lstrip": False, "rstrip": False, "single_word": False}
                         for i, t in enumerate(added)],
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": True, "byte_fallback": True, "vocab": vocab, "merges": []},
    }
    cfg = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>",
           "clean_up_tokenization_spaces": False,
           "chat_template": "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
                            "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}"
                            "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"}
    json.dump(tok, open(ckpt + "/tokenizer.json", "w"))
    json.dump(cfg, open(ckpt + "/tokenizer_config.json", "w"))
    run(imp, ckpt, "-o", WORK + "/chat", "--seq-len", "4", "--batch", "2", "--compile")


# --- The server ---------------------------------------------------------------

class Server:
    def __init__(self, model, *flags):
        self.log = open(os.path.join(WORK, os.path.basename(model) + ".serve.log"), "w+")
        self.proc = subprocess.Popen([os.path.join(BIN, "ssm-serve"), model, "--port", "0"] + list(flags),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.port = None
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.log.write(line)
            m = re.search(r"listening on http://[^:]+:(\d+)", line)
            if m:
                self.port = int(m.group(1))
                break
        if self.port is None:
            raise RuntimeError("ssm-serve did not start: " + open(self.log.name).read())
        # Keep reading stderr so the server never blocks on it.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.proc.stderr:
            self.log.write(line)
            self.log.flush()

    def request(self, method, path, body=None, headers=None, raw=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        h = {"Content-Type": "application/json"}
        h.update(headers or {})
        c.request(method, path, body=data, headers=h)
        r = c.getresponse()
        payload = r.read()
        c.close()
        return r.status, dict(r.getheaders()), payload

    def post(self, path, body):
        status, headers, payload = self.request("POST", path, body)
        return status, headers, json.loads(payload) if payload else None

    def stream(self, path, body):
        """(ids, text, finish_reason, usage, events) of a streamed request."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        c.request("POST", path, body=json.dumps(dict(body, stream=True)),
                  headers={"Content-Type": "application/json"})
        r = c.getresponse()
        assert r.status == 200, (r.status, r.read())
        assert r.getheader("Content-Type").startswith("text/event-stream")
        ids, text, finish, usage, events, done = [], "", None, None, 0, False
        for raw in r.read().decode().split("\n\n"):
            if not raw.strip() or raw.startswith(":"):
                continue
            assert raw.startswith("data: "), raw
            data = raw[len("data: "):]
            if data == "[DONE]":
                done = True
                continue
            events += 1
            chunk = json.loads(data)
            assert "error" not in chunk, chunk
            if chunk.get("usage"):
                usage = chunk["usage"]
            for ch in chunk["choices"]:
                ids += ch.get("token_ids", [])
                text += ch["delta"].get("content", "") if "delta" in ch else ch["text"]
                finish = ch["finish_reason"] or finish
        c.close()
        assert done, "no data: [DONE]"
        return ids, text, finish, usage, events

    def metrics(self):
        _, _, payload = self.request("GET", "/metrics")
        out = {}
        for line in payload.decode().splitlines():
            if line and not line.startswith("#"):
                k, v = line.rsplit(" ", 1)
                out[k] = float(v)
        return out

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            return self.proc.wait(timeout=60)
        return self.proc.returncode


def ssm_run_gen(model, prompt=None, ids=None, n=8, flags=()):
    """What ssm-run --generate gives for a prompt (bytes) or token ids:
    (ids or None, text). ssm-run prints the text as it comes (invalid UTF-8 of
    a byte model as U+FFFD) and may name the ids on stderr; before that it
    printed the ids (with a tokenizer) or the raw bytes (byte models)."""
    args = [os.path.join(BIN, "ssm-run"), model, "--engine", "cpu", "--generate", str(n)] + list(flags)
    if ids is not None:
        npy = os.path.join(WORK, "prompt.npy")
        write_npy_i32(npy, ids)
        args += ["--tokens", npy]
    else:
        args += ["--prompt", prompt]
    r = run(*args)
    m = re.search(r"generated ids: ([0-9 ]*)\n", r.stderr.decode(errors="replace"))
    if m:
        return [int(t) for t in m.group(1).split()], None
    out = r.stdout[:-1] if r.stdout.endswith(b"\n") else r.stdout
    first = out.decode(errors="replace").split("\n")[0]
    if os.path.exists(os.path.join(model, "tokenizer.json")) and re.fullmatch(r"[0-9 ]+", first):
        return [int(t) for t in first.split()], None
    return None, out


def same_as_ssm_run(model, got_ids, got_text, prompt=None, ids=None, n=8, prefix=False, flags=()):
    """The server's ids and text against ssm-run's (ids when ssm-run gives
    them; else its raw bytes as ids of a byte model, or its text)."""
    want_ids, out = ssm_run_gen(model, prompt=prompt, ids=ids, n=n, flags=flags)
    if want_ids is not None:
        return (want_ids[:len(got_ids)] if prefix else want_ids) == got_ids, want_ids
    text = got_text.encode()
    ok = (list(out) == got_ids or out == text or (prefix and out.startswith(text)))
    return ok, out


# --- Checks -------------------------------------------------------------------

def completion(srv, prompt, n, **kw):
    body = dict(prompt=prompt, max_tokens=n, temperature=0, **kw)
    status, _, r = srv.post("/v1/completions", body)
    assert status == 200, (status, r)
    return r


def check_port_taken(srv, model):
    """A second server on a port in use refuses to start (no SO_REUSEPORT)."""
    r = subprocess.run([os.path.join(BIN, "ssm-serve"), model, "--port", str(srv.port)],
                       capture_output=True, timeout=60)
    check(r.returncode == 2 and b"cannot listen" in r.stderr,
          "a second server on port %d: exit %d, %r" % (srv.port, r.returncode, r.stderr[-300:]))


def check_basics(srv, name):
    status, _, payload = srv.request("GET", "/health")
    check(status == 200 and json.loads(payload)["status"] == "ok", name + ": /health")
    status, _, payload = srv.request("GET", "/v1/models")
    models = json.loads(payload)
    check(status == 200 and models["object"] == "list" and models["data"][0]["id"] == name,
          name + ": /v1/models")


def check_against_ssm_run(srv, model, name):
    for prompt, n in [("Hello", 12), ("The quick brown fox", 20), ("a", 5)]:
        r = completion(srv, prompt, n)
        got = r["choices"][0]["token_ids"]
        ok, want = same_as_ssm_run(model, got, r["choices"][0]["text"], prompt=prompt, n=n)
        check(ok, "%s: %r greedy ids %s, ssm-run %s" % (name, prompt, got, want))
        check(r["usage"]["prompt_tokens"] == len(prompt.encode()) and
              r["usage"]["completion_tokens"] == len(got) and
              r["usage"]["total_tokens"] == len(prompt.encode()) + len(got),
              name + ": usage " + json.dumps(r["usage"]))
        check(r["object"] == "text_completion" and r["choices"][0]["finish_reason"] == "length",
              name + ": response shape")
        # The text is the bytes (invalid UTF-8 as U+FFFD).
        ids, text, finish, usage, events = srv.stream("/v1/completions", dict(
            prompt=prompt, max_tokens=n, temperature=0, stream_options={"include_usage": True}))
        check(ids == got and text == r["choices"][0]["text"] and finish == "length",
              "%s: streamed %r: %s %r, not %s %r" % (name, prompt, ids, text, got, r["choices"][0]["text"]))
        check(usage and usage["completion_tokens"] == len(got), name + ": streamed usage")


def check_concurrent(srv, name):
    # Long enough to overlap (the tiny models make tens of thousands of
    # tokens a second), within --context 256.
    prompts = [("prompt number %d " % i + "x" * (i * 7), 120 + 10 * i, i % 2 == 0) for i in range(8)]
    alone = [completion(srv, p, n)["choices"][0]["token_ids"] for p, n, _ in prompts]
    results = [None] * len(prompts)
    start = threading.Barrier(len(prompts))

    def one(i):
        start.wait()
        p, n, streaming = prompts[i]
        if streaming:
            results[i] = srv.stream("/v1/completions", dict(prompt=p, max_tokens=n, temperature=0))[0]
        else:
            results[i] = completion(srv, p, n)["choices"][0]["token_ids"]

    before = srv.metrics()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(prompts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(len(prompts)):
        check(results[i] == alone[i], "%s: concurrent request %d gave %s, alone %s" % (name, i, results[i], alone[i]))
    # 32 clients at once, sampled with a seed each: more than the slots, so
    # they queue, join as others leave, and each gets what it gets alone.
    many = [dict(prompt="client %d: " % i + "ab" * (i % 5), max_tokens=60 + (i * 13) % 90,
                 temperature=0.7 + 0.01 * i, top_k=50, top_p=0.9, seed=1000 + i) for i in range(32)]
    alone_many = [srv.post("/v1/completions", b)[2]["choices"][0]["token_ids"] for b in many]
    got_many = [None] * len(many)
    start32 = threading.Barrier(len(many))

    def client(i):
        start32.wait()
        if i % 3 == 0:
            got_many[i] = srv.stream("/v1/completions", many[i])[0]
        else:
            got_many[i] = srv.post("/v1/completions", many[i])[2]["choices"][0]["token_ids"]

    threads = [threading.Thread(target=client, args=(i,)) for i in range(len(many))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    mixed = [i for i in range(len(many)) if got_many[i] != alone_many[i]]
    check(not mixed, "%s: of 32 concurrent sampled clients, %s differ from alone" % (name, mixed))
    after = srv.metrics()
    batched = after["ssm_decode_batch_size_count"] - after['ssm_decode_batch_size_bucket{le="1"}'] - (
        before["ssm_decode_batch_size_count"] - before['ssm_decode_batch_size_bucket{le="1"}'])
    check(batched > 0, name + ": concurrent requests were decoded together (batch sizes > 1)")


def check_prefill_together(srv, model, name):
    # Prompts of 150 to 220 bytes (3 or 4 prefill pieces of 64 tokens, then
    # calls of 4), sent at once: the slots read them together
    # (Model::prefillTogether through the batched sequence function), and
    # each gives the ids ssm-run gives alone (new prompts each try: none is
    # in the prompt cache). Arrival is up to the clients' threads: up to 3
    # tries for one round of pieces prefilled together.
    for attempt in range(3):
        prompts = [("%d.%d: " % (attempt, i) + "the quick brown fox jumps over the lazy dog " * 6)
                   [:150 + 10 * i] for i in range(8)]
        before = srv.metrics()
        results = [None] * len(prompts)
        start = threading.Barrier(len(prompts))

        def one(i):
            start.wait()
            results[i] = completion(srv, prompts[i], 12)["choices"][0]

        threads = [threading.Thread(target=one, args=(i,)) for i in range(len(prompts))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        after = srv.metrics()
        for i in range(len(prompts)):
            ok, want = same_as_ssm_run(model, results[i]["token_ids"], results[i]["text"],
                                       prompt=prompts[i], n=12)
            check(ok, "%s: prompt %d read with others gave %s, ssm-run %s" % (
                name, i, results[i]["token_ids"], want))
        if after["ssm_prefill_batches_total"] > before["ssm_prefill_batches_total"]:
            break
    check(after["ssm_prefill_batches_total"] > before["ssm_prefill_batches_total"],
          name + ": concurrent prompts were prefilled together (ssm_prefill_batches_total)")


def check_prompt_cache(srv, model, name):
    shared = "Once upon a time, in a land of state space models, a recurrent state held the whole story. " * 2
    assert len(shared) > 130
    first = completion(srv, shared + "What came first?", 10)
    check(first["usage"]["prompt_tokens_details"]["cached_tokens"] == 0, name + ": a fresh prompt is not cached")
    before = srv.metrics()
    second_prompt = shared + "And then?"
    second = completion(srv, second_prompt, 10)
    cached = second["usage"]["prompt_tokens_details"]["cached_tokens"]
    # The last block boundary of the first prompt lies inside the shared part.
    check(cached > 0 and cached % 64 == 0 and cached <= len(shared),
          "%s: a shared prefix is reused (cached_tokens %d)" % (name, cached))
    after = srv.metrics()
    check(after["ssm_prompt_cache_hits_total"] == before["ssm_prompt_cache_hits_total"] + 1,
          name + ": /metrics counts the hit")
    check(after["ssm_prompt_cache_bytes"] > 0, name + ": /metrics shows the cache's bytes")
    per_position = after['ssm_stream_state_bytes{kind="per_position"}']
    if per_position > 0:
        # A hybrid's entries hold the KV rows of their prefix only: each
        # entry (at most ~200 positions here) is smaller than the fixed
        # states plus the caches at their 256 positions of capacity.
        whole = after['ssm_stream_state_bytes{kind="fixed"}'] + 256 * per_position
        entries = after["ssm_prompt_cache_entries"]
        check(after["ssm_prompt_cache_bytes"] < entries * whole,
              "%s: %d cache entries take %d bytes, not less than %d at the caches' capacity"
              % (name, entries, after["ssm_prompt_cache_bytes"], entries * whole))
    check(after["ssm_time_to_first_token_seconds_count"] == before["ssm_time_to_first_token_seconds_count"] + 1 and
          after['ssm_time_to_first_token_seconds_bucket{le="+Inf"}'] == after["ssm_time_to_first_token_seconds_count"],
          name + ": /metrics has the request's time to first token")
    ok, want = same_as_ssm_run(model, second["choices"][0]["token_ids"], second["choices"][0]["text"],
                               prompt=second_prompt, n=10)
    check(ok, "%s: cached continuation %s, uncached ssm-run %s" % (name, second["choices"][0]["token_ids"], want))
    again = completion(srv, second_prompt, 10)
    check(again["usage"]["prompt_tokens_details"]["cached_tokens"] == len(second_prompt),
          name + ": the same prompt again is a whole hit")
    check(again["choices"][0]["token_ids"] == second["choices"][0]["token_ids"],
          name + ": whole hit gives the same ids")



def check_chat(model):
    srv = Server(model, "--parallel", "2")
    try:
        check_basics(srv, "chat")
        system = "you are a tiny model. answer in lowercase, briefly, and never ask questions back at all."
        msgs = [{"role": "system", "content": system}, {"role": "user", "content": "hello there"}]
        text = "".join("<|im_start|>%s\n%s<|im_end|>\n" % (m["role"], m["content"]) for m in msgs)
        text += "<|im_start|>assistant\n"
        ids = json.loads(run(os.path.join(BIN, "ssm-tokenize"), model, input=(json.dumps(text) + "\n").encode()).stdout)
        status, _, r = srv.post("/v1/chat/completions", dict(messages=msgs, max_tokens=12, temperature=0))
        check(status == 200 and r["object"] == "chat.completion", "chat: 200 %s" % status)
        check(r["usage"]["prompt_tokens"] == len(ids), "chat: ChatML prompt of %d tokens, server %d" % (len(ids), r["usage"]["prompt_tokens"]))
        got = r["choices"][0]["token_ids"]
        ok, want = same_as_ssm_run(model, got, r["choices"][0]["message"]["content"], ids=ids, n=12, prefix=True)
        check(ok and (len(got) == 12 or r["choices"][0]["finish_reason"] == "stop"),
              "chat: ids %s %r, ssm-run %s" % (got, r["choices"][0]["message"]["content"], want))
        check(r["choices"][0]["message"]["role"] == "assistant", "chat: message role")
        sids, stext, _, _, _ = srv.stream("/v1/chat/completions", dict(messages=msgs, max_tokens=12, temperature=0))
        check(sids == got and stext == r["choices"][0]["message"]["content"], "chat: streamed the same")
        # Another question after the same (long) system message: its state is reused.
        msgs2 = [msgs[0], {"role": "user", "content": "what is a state?"}]
        status, _, r2 = srv.post("/v1/chat/completions", dict(messages=msgs2, max_tokens=8, temperature=0))
        check(status == 200 and r2["usage"]["prompt_tokens_details"]["cached_tokens"] >= 64,
              "chat: the system message's state reused (%s)" % r2["usage"])
        text2 = "".join("<|im_start|>%s\n%s<|im_end|>\n" % (m["role"], m["content"]) for m in msgs2) + "<|im_start|>assistant\n"
        ids2 = json.loads(run(os.path.join(BIN, "ssm-tokenize"), model, input=(json.dumps(text2) + "\n").encode()).stdout)
        got2 = r2["choices"][0]["token_ids"]
        ok, want2 = same_as_ssm_run(model, got2, r2["choices"][0]["message"]["content"], ids=ids2, n=8, prefix=True)
        check(ok, "chat: cached continuation %s, ssm-run %s" % (got2, want2))
        # Sampling: a seed gives ssm-run's tokens with the same settings, alone
        # or among other requests.
        sampled = []
        for seed in range(4):
            body = dict(prompt="hello world, say more", max_tokens=16, temperature=0.9, top_k=20,
                        top_p=0.95, min_p=0.02, seed=seed)
            status, _, r = srv.post("/v1/completions", body)
            got = r["choices"][0]["token_ids"]
            sampled.append((body, got))
            ok, want = same_as_ssm_run(model, got, r["choices"][0]["text"], prompt=body["prompt"], n=16, prefix=True,
                                       flags=["--temperature", "0.9", "--top-k", "20", "--top-p", "0.95",
                                              "--min-p", "0.02", "--seed", str(seed)])
            check(status == 200 and ok and (len(got) == 16 or r["choices"][0]["finish_reason"] == "stop"),
                  "sampled, seed %d: %s, ssm-run %s" % (seed, got, want))
        check(len(set(tuple(g) for _, g in sampled)) > 1, "sampled: other seeds, other tokens")
        together = [None] * len(sampled)

        def one(i):
            together[i] = srv.post("/v1/completions", sampled[i][0])[2]["choices"][0]["token_ids"]
        threads = [threading.Thread(target=one, args=(i,)) for i in range(len(sampled))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for i, (_, alone) in enumerate(sampled):
            check(together[i] == alone, "sampled, seed %d: together %s, alone %s" % (i, together[i], alone))
        check_openai_client(srv, model)
    finally:
        check(srv.stop() == 0, "chat: clean exit on SIGTERM")


def check_openai_client(srv, model):
    """The official OpenAI client (npm "openai", in the node_modules folder
    SSM_OPENAI_JS names) gets what plain HTTP gets."""
    js = os.environ.get("SSM_OPENAI_JS")
    node = shutil.which("node")
    if not js or not node or not os.path.isdir(os.path.join(js, "openai")):
        print("serve: the OpenAI client check is skipped (set SSM_OPENAI_JS to a node_modules "
              "folder holding the npm package openai)")
        return
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "serve_openai.cjs")
    r = subprocess.run([node, script, "http://127.0.0.1:%d" % srv.port, "chat"], capture_output=True,
                       env=dict(os.environ, NODE_PATH=js), timeout=120)
    if not check(r.returncode == 0, "openai client: exit %d: %s" % (r.returncode, r.stderr.decode(errors="replace")[-2000:])):
        return
    got = json.loads(r.stdout)
    _, _, plain = srv.post("/v1/completions", dict(prompt="hello world, say more", max_tokens=12, temperature=0))
    check(got["completion"]["text"] == plain["choices"][0]["text"] and got["completionStream"] == plain["choices"][0]["text"]
          and got["completion"]["usage"]["completion_tokens"] == plain["usage"]["completion_tokens"],
          "openai client: completion %r / streamed %r, plain HTTP %r" % (got["completion"]["text"], got["completionStream"],
                                                                       plain["choices"][0]["text"]))
    ok, want = same_as_ssm_run(model, plain["choices"][0]["token_ids"], got["completion"]["text"],
                               prompt="hello world, say more", n=12, prefix=True)
    check(ok, "openai client: completion %r, ssm-run %s" % (got["completion"]["text"], want))
    msgs = [{"role": "system", "content": "you are brief."}, {"role": "user", "content": "hello there"}]
    _, _, chat = srv.post("/v1/chat/completions", dict(messages=msgs, max_tokens=12, temperature=0))
    content = chat["choices"][0]["message"]["content"]
    check(got["chat"]["content"] == content and got["chatStream"] == content and got["chat"]["role"] == "assistant",
          "openai client: chat %r / streamed %r, plain HTTP %r" % (got["chat"]["content"], got["chatStream"], content))
    check(got.get("chatStreamUsage", {}).get("prompt_tokens") == chat["usage"]["prompt_tokens"], "openai client: streamed usage")
    check(got["error"] and got["error"]["status"] == 400 and "max_tokens" in got["error"]["message"],
          "openai client: a bad request is an APIError 400 (%s)" % got["error"])
    check(got["models"] == ["chat"], "openai client: models.list")
    print("serve: the OpenAI client (npm openai) completes and streams")


BAD = [
    # (path, raw body, expected status, expected param or None)
    ("/v1/completions", '{"prompt": "hi", ', 400, None),
    ("/v1/completions", 'not json at all', 400, None),
    ("/v1/completions", '[1, 2, 3]', 400, None),
    ("/v1/completions", '"a string"', 400, None),
    ("/v1/completions", '{}', 400, "prompt"),
    ("/v1/completions", '{"prompt": 5}', 400, "prompt"),
    ("/v1/completions", '{"prompt": ""}', 400, "prompt"),
    ("/v1/completions", '{"prompt": ["a", "b"]}', 400, "prompt"),
    ("/v1/completions", '{"prompt": [1, -2]}', 400, "prompt"),
    ("/v1/completions", '{"prompt": [1, 2.5]}', 400, "prompt"),
    ("/v1/completions", '{"prompt": [1, 99999]}', 400, "prompt"),
    ("/v1/completions", '{"prompt": "hi", "max_tokens": "3"}', 400, "max_tokens"),
    ("/v1/completions", '{"prompt": "hi", "max_tokens": 0}', 400, "max_tokens"),
    ("/v1/completions", '{"prompt": "hi", "max_tokens": 100000000}', 400, "max_tokens"),
    ("/v1/completions", '{"prompt": "hi", "max_tokens": 2.0}', 400, "max_tokens"),
    ("/v1/completions", '{"prompt": "hi", "temperature": -1}', 400, "temperature"),
    ("/v1/completions", '{"prompt": "hi", "temperature": "hot"}', 400, "temperature"),
    ("/v1/completions", '{"prompt": "hi", "top_p": 0}', 400, "top_p"),
    ("/v1/completions", '{"prompt": "hi", "top_p": 1.5}', 400, "top_p"),
    ("/v1/completions", '{"prompt": "hi", "top_k": -5}', 400, "top_k"),
    ("/v1/completions", '{"prompt": "hi", "min_p": 2}', 400, "min_p"),
    ("/v1/completions", '{"prompt": "hi", "seed": "x"}', 400, "seed"),
    ("/v1/completions", '{"prompt": "hi", "seed": 1.5}', 400, "seed"),
    ("/v1/completions", '{"prompt": "hi", "stop": 3}', 400, "stop"),
    ("/v1/completions", '{"prompt": "hi", "stop": ["a","b","c","d","e"]}', 400, "stop"),
    ("/v1/completions", '{"prompt": "hi", "stop": [""]}', 400, "stop"),
    ("/v1/completions", '{"prompt": "hi", "stream": "yes"}', 400, "stream"),
    ("/v1/completions", '{"prompt": "hi", "n": 3}', 400, "n"),
    ("/v1/completions", '{"prompt": "hi", "echo": true}', 400, "echo"),
    ("/v1/completions", '{"prompt": "hi", "logprobs": 5}', 400, "logprobs"),
    ("/v1/completions", '{"prompt": "hi", "presence_penalty": 9}', 400, "presence_penalty"),
    ("/v1/completions", '{"prompt": "hi", "model": 7}', 400, "model"),
    ("/v1/completions", '{"prompt": "%s"}' % ("z" * 300), 400, "prompt"),  # past --context 256
    ("/v1/chat/completions", '{"messages": []}', 400, "messages"),
    ("/v1/chat/completions", '{"messages": "hi"}', 400, "messages"),
    ("/v1/chat/completions", '{"messages": [{"role": "wizard", "content": "x"}]}', 400, "messages[0].role"),
    ("/v1/chat/completions", '{"messages": [{"role": "user"}]}', 400, "messages[0].content"),
    ("/v1/chat/completions", '{"messages": [{"role": "user", "content": "hi"}]}', 400, "messages"),  # no template
    ("/v1/nothing", '{}', 404, None),
]


def check_bad_input(srv, name):
    # A client that sends half a request and waits holds one connection,
    # not the server.
    slow = socket.create_connection(("127.0.0.1", srv.port))
    slow.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"pro")
    # Every kind five times: 200 and more hostile requests.
    for path, raw, want_status, want_param in BAD * 5:
        status, headers, payload = srv.request("POST", path, raw=raw)
        try:
            err = json.loads(payload)["error"]
            ok = (status == want_status and isinstance(err["message"], str) and err["message"]
                  and "type" in err and "code" in err and err.get("param") == want_param)
        except Exception:
            ok = False
        check(ok, "%s: %s %s -> %d %s (want %d, param %s)" % (name, path, raw[:60], status, payload[:200], want_status, want_param))
    # A body over --max-body-kb.
    status, _, payload = srv.request("POST", "/v1/completions", raw="{" + " " * (80 << 10) + "}")
    check(status == 413 and "error" in json.loads(payload), "%s: large body -> %d" % (name, status))
    # Unknown fields are ignored.
    r = completion(srv, "hi", 3, user="someone", metadata={"a": 1}, bogus_field=[1, 2])
    check(len(r["choices"][0]["token_ids"]) == 3, name + ": unknown fields are ignored")
    status, _, payload = srv.request("GET", "/health")
    check(status == 200, name + ": still serving after bad input (and beside a slow client)")
    slow.close()
    m = srv.metrics()
    check(m.get('ssm_requests_total{endpoint="/v1/completions",status="400"}', 0) >= 150, name + ": 400s counted")


def check_disconnect(model, name):
    # Long enough that it cannot end by itself first (the tiny models make
    # tens of thousands of tokens a second).
    srv = Server(model, "--max-tokens", "1000000")
    try:
        check_disconnect_on(srv, name)
    finally:
        check(srv.stop() == 0, name + ": clean exit on SIGTERM")


def check_disconnect_on(srv, name):
    before = srv.metrics().get('ssm_generations_total{reason="cancelled"}', 0)
    s = socket.create_connection(("127.0.0.1", srv.port))
    body = json.dumps(dict(prompt="go on and on", max_tokens=1000000, temperature=0, stream=True)).encode()
    s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n" % len(body) + body)
    got = b""
    while b"data: " not in got:
        got += s.recv(4096)
    s.close()
    deadline = time.time() + 30
    while time.time() < deadline:
        m = srv.metrics()
        if m.get('ssm_generations_total{reason="cancelled"}', 0) > before and m["ssm_slots_active"] == 0:
            break
        time.sleep(0.1)
    check(m.get('ssm_generations_total{reason="cancelled"}', 0) > before and m["ssm_slots_active"] == 0,
          name + ": a client that left mid-stream frees its slot")
    r = completion(srv, "still there?", 4)
    check(len(r["choices"][0]["token_ids"]) == 4, name + ": serving after a disconnect")

    # A non-streaming request: nothing is written until its end, so the
    # server looks at the connection while it waits; a client that left
    # cancels it too (it would otherwise run its million tokens).
    before = srv.metrics().get('ssm_generations_total{reason="cancelled"}', 0)
    s = socket.create_connection(("127.0.0.1", srv.port))
    body = json.dumps(dict(prompt="go on and on, quietly", max_tokens=1000000, temperature=0)).encode()
    s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n" % len(body) + body)
    deadline = time.time() + 30
    while time.time() < deadline and srv.metrics()["ssm_slots_active"] == 0:
        time.sleep(0.05)
    check(srv.metrics()["ssm_slots_active"] >= 1, name + ": the non-streaming request runs")
    s.close()
    deadline = time.time() + 30
    while time.time() < deadline:
        m = srv.metrics()
        if m.get('ssm_generations_total{reason="cancelled"}', 0) > before and m["ssm_slots_active"] == 0:
            break
        time.sleep(0.1)
    check(m.get('ssm_generations_total{reason="cancelled"}', 0) > before and m["ssm_slots_active"] == 0,
          name + ": a non-streaming request whose client left is cancelled and frees its slot")
    r = completion(srv, "still there?", 4)
    check(len(r["choices"][0]["token_ids"]) == 4, name + ": serving after a non-streaming disconnect")


def check_queue_and_shutdown(model):
    srv = Server(model, "--parallel", "1", "--queue", "1", "--max-tokens", "30000")
    results = {}

    def one(i):
        results[i] = srv.request("POST", "/v1/completions",
                                 dict(prompt="long one %d" % i, max_tokens=30000, temperature=0))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    # SIGTERM while they run: the one running and the one queued finish, the
    # server exits 0.
    code = srv.stop()
    for t in threads:
        t.join()
    statuses = sorted(r[0] for r in results.values())
    check(statuses.count(503) >= 1, "queue full: some 503 (%s)" % statuses)
    for status, headers, payload in results.values():
        if status == 503:
            check(headers.get("Retry-After") == "1" and "error" in json.loads(payload), "503 with Retry-After and an error body")
        elif status == 200:
            check(len(json.loads(payload)["choices"][0]["token_ids"]) == 30000, "a request in flight at SIGTERM finished")
    check(statuses.count(200) >= 1, "SIGTERM: the request in flight finished (%s)" % statuses)
    check(code == 0, "SIGTERM: exit %s" % code)


def check_context_at_open(model):
    """--context sizes the KV caches of a hybrid (imported for 256 positions)
    at open: at 40 a prompt of 40 is refused and generation ends at 40
    positions; at 300, past the 256 the compiled batched step holds, requests
    decoded together past 256 give what ssm-run --context 300 gives alone."""
    name = "lfm2 --context 40"
    srv = Server(model, "--parallel", "2", "--context", "40")
    try:
        _, _, payload = srv.request("GET", "/v1/models")
        check(json.loads(payload)["data"][0]["context_length"] == 40, name + ": /v1/models")
        status, _, r = srv.post("/v1/completions", dict(prompt="y" * 40, max_tokens=2))
        check(status == 400 and "40 positions" in json.dumps(r), name + ": a 40-token prompt")
        prompt = "The quick brown fox"
        r = completion(srv, prompt, 50)
        got = r["choices"][0]["token_ids"]
        # The last token handed out is never stepped: the stream holds
        # prompt + generated - 1 positions, all 40 at the end.
        check(r["choices"][0]["finish_reason"] == "length" and len(prompt) + len(got) - 1 == 40,
              "%s: %d generated after %d" % (name, len(got), len(prompt)))
        ok, want = same_as_ssm_run(model, got, r["choices"][0]["text"], prompt=prompt, n=len(got),
                                   flags=("--context", "40"))
        check(ok, "%s: ids %s, ssm-run %s" % (name, got, want))
    finally:
        check(srv.stop() == 0, name + ": clean exit on SIGTERM")
    name = "lfm2 --context 300"
    srv = Server(model, "--parallel", "3", "--context", "300")
    try:
        prompts = ["%d " % i + "x" * (236 + 5 * i) for i in range(3)]
        results = [None] * 3

        def one(i):
            results[i] = completion(srv, prompts[i], 30)["choices"][0]

        threads = [threading.Thread(target=one, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for i in range(3):
            got = results[i]["token_ids"]
            check(len(prompts[i]) + len(got) > 256, "%s: request %d stays below 256" % (name, i))
            ok, want = same_as_ssm_run(model, got, results[i]["text"], prompt=prompts[i], n=len(got),
                                       flags=("--context", "300"))
            check(ok, "%s: request %d ids %s, ssm-run %s" % (name, i, got, want))
    finally:
        check(srv.stop() == 0, name + ": clean exit on SIGTERM")


def main():
    prepare()
    for name, flags in [("mamba-b4", ["--parallel", "4"]), ("rwkv4", ["--parallel", "3"]),
                        ("lfm2", ["--parallel", "3"])]:
        model = os.path.join(WORK, name)
        srv = Server(model, *flags, "--context", "256", "--max-body-kb", "64")
        try:
            check_basics(srv, name)
            if name == "mamba-b4":
                check_port_taken(srv, model)
            check_against_ssm_run(srv, model, name)
            check_concurrent(srv, name)
            if name != "rwkv4":  # imported with --prefill-batch
                check_prefill_together(srv, model, name)
            check_prompt_cache(srv, model, name)
            if name != "lfm2":
                check_bad_input(srv, name)
        finally:
            check(srv.stop() == 0, name + ": clean exit on SIGTERM")
        if name != "lfm2":
            check_disconnect(model, name)
    check_context_at_open(os.path.join(WORK, "lfm2"))
    check_chat(os.path.join(WORK, "chat"))
    check_queue_and_shutdown(os.path.join(WORK, "mamba-b4"))
    if failures:
        print("serve: FAIL (%d)" % len(failures))
        sys.exit(1)
    print("serve: PASS")


main()
