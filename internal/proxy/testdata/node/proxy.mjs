// Calls hone's recording proxy with the official OpenAI Node SDK, as an
// application would after changing its base URL, and prints what it got as
// JSON for the Go test (internal/app TestProxyWithNodeSDK) to check.
import OpenAI from "openai";

const client = new OpenAI({
  baseURL: process.env.HONE_BASE_URL,
  apiKey: process.env.HONE_KEY || "none",
  maxRetries: 0,
  defaultHeaders: { "X-Hone-Conversation": process.env.HONE_CONVERSATION, "X-Hone-Tester": "node" },
});
const model = process.env.HONE_MODEL;
const messages = [
  { role: "system", content: "You are ERA, an HR assistant. Answer in one short sentence." },
  { role: "user", content: "How do I process a resignation?" },
];

async function streamed(params) {
  const { data, response } = await client.chat.completions.create({ ...params, stream: true }).withResponse();
  let content = "";
  let usage = null;
  let chunks = 0;
  for await (const chunk of data) {
    chunks++;
    content += chunk.choices[0]?.delta?.content ?? "";
    if (chunk.usage) usage = chunk.usage;
  }
  return { content, usage, chunks, turnId: response.headers.get("x-hone-turn-id") };
}

const out = {};
{
  const { data, response } = await client.chat.completions.create({ model, messages }).withResponse();
  out.whole = { content: data.choices[0].message.content, usage: data.usage, turnId: response.headers.get("x-hone-turn-id") };
}
out.streamed = await streamed({ model, messages });
out.streamedWithUsage = await streamed({ model, messages, stream_options: { include_usage: true } });
const followUp = [...messages, { role: "assistant", content: out.streamed.content }];
{
  const c = await client.chat.completions.create({ model, messages: [...followUp, { role: "user", content: "!score empathy:4" }] });
  out.score = c.choices[0].message.content;
}
out.thumb = (await streamed({ model, messages: [...followUp, { role: "user", content: "👍" }] })).content;
const models = await client.models.list();
out.models = models.data.map((m) => m.id);
console.log(JSON.stringify(out));
