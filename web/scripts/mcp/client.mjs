// An MCP client for the server's tests: the official TypeScript SDK's client over streamable
// HTTP. Reads {url, token, steps} as JSON on stdin, runs each step in order through one
// connection and prints the results as one JSON array:
//   {"op": "listTools"}                        → the tools (name, title, annotations, inputSchema)
//   {"op": "call", "name": …, "arguments": …}  → the tool's result (structuredContent, isError)
//   {"op": "read", "uri": …}                   → the resource's parsed text
//   {"op": "resources"}                        → the resources and templates listed
// A step that throws gives {"thrown": message}; a failure to connect exits 2.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const { url, token, steps } = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: token ? { Authorization: `Bearer ${token}` } : {} },
});
const client = new Client({ name: "stoa-test-agent", version: "1.0.0" });
try {
  await client.connect(transport);
} catch (e) {
  process.stdout.write(JSON.stringify({ connectError: String(e?.message ?? e) }));
  process.exit(2);
}

const out = [];
for (const step of steps) {
  try {
    if (step.op === "listTools") {
      const tools = [];
      let cursor;
      do {
        const page = await client.listTools(cursor ? { cursor } : {});
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      out.push({ tools });
    } else if (step.op === "call") {
      const r = await client.callTool({ name: step.name, arguments: step.arguments ?? {} });
      out.push({ isError: r.isError === true, result: r.structuredContent ?? null, text: r.content?.[0]?.text ?? null });
    } else if (step.op === "read") {
      const r = await client.readResource({ uri: step.uri });
      out.push({ contents: r.contents.map((c) => ({ uri: c.uri, mimeType: c.mimeType, json: JSON.parse(c.text) })) });
    } else if (step.op === "resources") {
      const resources = (await client.listResources()).resources;
      const templates = (await client.listResourceTemplates()).resourceTemplates;
      out.push({ resources, templates });
    } else {
      out.push({ thrown: `unknown step ${step.op}` });
    }
  } catch (e) {
    out.push({ thrown: String(e?.message ?? e) });
  }
}
await client.close();
process.stdout.write(JSON.stringify(out));
