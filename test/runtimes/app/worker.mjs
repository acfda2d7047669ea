// The Workers entry, in the documented shape: the server is built at module scope. `/client?url=` runs the
// client checks inside the Worker, per request (a client lives within the request that made it).
import { clientChecks } from "../scenarios.mjs";
import { createApp } from "./app.mjs";

const { fetchHandler } = createApp();

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/client") {
      const target = url.searchParams.get("url");
      const era = url.searchParams.get("era");
      return Response.json(await clientChecks(target, era));
    }
    return fetchHandler(request);
  },
};
