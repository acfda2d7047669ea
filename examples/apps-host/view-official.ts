// The same dice view built with the official App class of @modelcontextprotocol/ext-apps, to show that mcpkit's
// host serves it unchanged.
import { App, PostMessageTransport } from "@modelcontextprotocol/ext-apps";

const show = (line: string) => {
  const item = document.createElement("li");
  item.textContent = line;
  document.getElementById("events")?.append(item);
};
const textOf = (result: { content?: { type: string; text?: string }[] }) =>
  (result.content ?? []).map((c) => c.text ?? "").join(" ");

const app = new App({ name: "dice-view-official", version: "1.0.0" }, {}, { autoResize: true });
app.ontoolinput = ({ arguments: args }) => show(`input ${JSON.stringify(args)}`);
app.ontoolresult = (result) => {
  show(`result ${textOf(result)}`);
  void (async () => {
    show(`reroll ${textOf(await app.callServerTool({ name: "reroll", arguments: { sides: 6 } }))}`);
    try {
      const link = await app.openLink({ url: "javascript:alert(1)" });
      show(link.isError ? "link refused: isError" : "link opened");
    } catch (error) {
      show(`link refused: ${error instanceof Error ? error.message : String(error)}`);
    }
  })().catch((error: unknown) => show(`failed: ${String(error)}`));
};
app.onteardown = async () => {
  show("teardown");
  return {};
};

await app.connect(new PostMessageTransport(window.parent, window.parent));
show(`connected to ${app.getHostVersion()?.name}`);
