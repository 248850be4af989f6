// The official OpenAI client library (npm "openai") against ssm-serve: a
// completion, the same streamed, a chat completion, the same streamed, and
// a bad request (its APIError). Prints one JSON object of what it got.
// usage: NODE_PATH=<node_modules with openai> node serve_openai.cjs BASE_URL MODEL
const OpenAI = require('openai');

const [baseURL, model] = process.argv.slice(2);

async function main() {
  const client = new OpenAI({ baseURL: baseURL + '/v1', apiKey: 'unused', maxRetries: 0 });
  const out = {};
  const params = { model, prompt: 'hello world, say more', max_tokens: 12, temperature: 0 };
  const r = await client.completions.create(params);
  out.completion = { text: r.choices[0].text, finish: r.choices[0].finish_reason, usage: r.usage };
  let text = '';
  for await (const chunk of await client.completions.create({ ...params, stream: true }))
    text += chunk.choices[0]?.text ?? '';
  out.completionStream = text;

  const messages = [{ role: 'system', content: 'you are brief.' }, { role: 'user', content: 'hello there' }];
  const c = await client.chat.completions.create({ model, messages, max_tokens: 12, temperature: 0 });
  out.chat = { content: c.choices[0].message.content, role: c.choices[0].message.role,
               finish: c.choices[0].finish_reason, usage: c.usage };
  text = '';
  const stream = await client.chat.completions.create({ model, messages, max_tokens: 12, temperature: 0,
                                                        stream: true, stream_options: { include_usage: true } });
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    if (chunk.usage) out.chatStreamUsage = chunk.usage;
  }
  out.chatStream = text;

  try {
    await client.completions.create({ ...params, max_tokens: 0 });
    out.error = null;
  } catch (e) {
    out.error = { status: e.status, message: e.message, param: e.param };
  }
  const models = await client.models.list();
  out.models = models.data.map((m) => m.id);
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
