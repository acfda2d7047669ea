// The dice view built with mcpkit's AppView: shows the tool's input and result, rolls again through the host
// (an app-only tool), and tries a javascript: link, which the host must refuse.
import { AppView, documentSize, windowEndpoint } from "mcpkit/apps";

const show = (line: string) => {
  const item = document.createElement("li");
  item.textContent = line;
  document.getElementById("events")?.append(item);
};
const textOf = (result: { content: { type: string; text?: string }[] }) =>
  result.content.map((c) => c.text ?? "").join(" ");

const view = new AppView({
  endpoint: windowEndpoint({ target: window.parent, events: window }),
  appInfo: { name: "dice-view-mcpkit", version: "1.0.0" },
  appCapabilities: { availableDisplayModes: ["inline"] },
  autoResize: documentSize(),
  onToolInput: (args) => show(`input ${JSON.stringify(args)}`),
  onToolResult: (result) => {
    show(`result ${textOf(result)}`);
    void (async () => {
      show(`reroll ${textOf(await view.callServerTool("reroll", { sides: 6 }))}`);
      const link = await view.openLink("javascript:alert(1)");
      show(link.isError ? `link refused: ${link.message ?? "isError"}` : "link opened");
    })().catch((error: unknown) => show(`failed: ${String(error)}`));
  },
  onTeardown: () => show("teardown"),
});

const host = await view.connect();
show(`connected to ${host.hostInfo.name} (${host.protocolVersion})`);
