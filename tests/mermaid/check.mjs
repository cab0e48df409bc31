// Parse mermaid diagrams with mermaid's own parser and print what it understood.
// Input on stdin: JSON [{"name": ..., "text": ...}]. Output on stdout: JSON
// {name: {"ok": true, "type": ..., "actors": [[id, label, kind]], "messages":
// [{"from", "to", "text", "type"}]} or {"ok": false, "error": ...}}.
import mermaid from 'mermaid';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const diagrams = JSON.parse(Buffer.concat(chunks).toString('utf8'));
mermaid.initialize({ startOnLoad: false });

// mermaid keeps entity codes (#59; for ';') as placeholders until it renders: decode them.
const decode = (text) => text
  .replace(/\ufb02\u00b0\u00b0(\d+)\u00b6\u00df/g, (_, code) => String.fromCharCode(Number(code)))
  .replace(/\ufb02\u00b0(\w+)\u00b6\u00df/g, (_, name) => `&${name};`);

const result = {};
for (const { name, text } of diagrams) {
  try {
    const parsed = await mermaid.parse(text);
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
    const entry = { ok: true, type: parsed.diagramType };
    if (parsed.diagramType === 'sequence') {
      entry.actors = [...diagram.db.getActors().entries()].map(
        ([id, actor]) => [id, decode(actor.description), actor.type]);
      entry.messages = diagram.db.getMessages().map((m) => ({
        from: m.from ?? null, to: m.to ?? null,
        text: typeof m.message === 'string' ? decode(m.message) : null, type: m.type,
      }));
    }
    result[name] = entry;
  } catch (error) {
    result[name] = { ok: false, error: String(error && error.message ? error.message : error) };
  }
}
process.stdout.write(JSON.stringify(result));
