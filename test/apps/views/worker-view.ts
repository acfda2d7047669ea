// A large view as real apps ship them (one bundled document of several MB): it reads the data inlined in its
// page, hands it to a worker started from its own code (a blob: URL), and reports the worker's answer to the
// host through the bridge (ui/update-model-context).
import { AppView, windowEndpoint } from "mcpkit/apps";

const show = (line: string) => {
  const item = document.createElement("li");
  item.textContent = line;
  document.getElementById("events")?.append(item);
};

const view = new AppView({
  endpoint: windowEndpoint({ target: window.parent, events: window }),
  appInfo: { name: "worker-view", version: "1.0.0" },
});
await view.connect();
show("connected");
const data = document.getElementById("data")?.textContent ?? "";
const code =
  "onmessage = (e) => { let sum = 0; for (const n of JSON.parse(e.data)) sum += n; postMessage(sum); };";
try {
  const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
  worker.onerror = (event) => {
    show(`worker failed: ${event.message}`);
    void view.updateModelContext({ structuredContent: { error: `worker failed: ${event.message}` } });
  };
  worker.onmessage = (event: MessageEvent<number>) => {
    show(`worker summed ${event.data}`);
    const bytes = document.documentElement.outerHTML.length;
    void view.updateModelContext({ structuredContent: { sum: event.data, bytes } });
  };
  worker.postMessage(data);
} catch (error) {
  show(`worker refused: ${String(error)}`);
  void view.updateModelContext({ structuredContent: { error: String(error) } });
}
