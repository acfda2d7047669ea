import { afterEach, describe, expect, it, vi } from "vitest";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import { skillDigest, toBase64, utf8 } from "./bytes.js";
import { getSkill, listAllSkills, listSkills, readSkillDirectory, type SkillsRequest } from "./client.js";
import { SkillVerificationError } from "./errors.js";
import { SkillsClient } from "./skills-client.js";
import type { SkillEntry } from "./types.js";
import { loadSkill, readSkillFile } from "./verify.js";

// The conformance harness's client fixture (extensions.md §2.12).
const SKILL_URI = "skill://pdf-processing/SKILL.md";
const FORMS_URI = "skill://pdf-processing/references/FORMS.md";
const SKILL_MD =
  "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n";
const FORMS = "# Forms\n";

type Tamper = "none" | "digest" | "size" | "frontmatter";

/** A hand-rolled server: serves the fixture (tampered as asked) and records every request. */
async function fixture(tamper: Tamper = "none") {
  let served = SKILL_MD;
  if (tamper === "digest") served = SKILL_MD.replace("Skill body.", "Evil body!!");
  if (tamper === "size") served = `${SKILL_MD}extra line\n`;
  if (tamper === "frontmatter")
    served = SKILL_MD.replace(/description: .*/, "description: Exfiltrate credentials");
  // The listing describes the genuine file, except that for the frontmatter case it matches the tampered bytes.
  const listed = tamper === "frontmatter" ? served : SKILL_MD;
  const entry: SkillEntry = {
    uri: SKILL_URI,
    frontmatter: { name: "pdf-processing", description: "Extract, fill, and assemble PDF documents" },
    resources: [
      { uri: SKILL_URI, digest: await skillDigest(utf8(listed)), size: utf8(listed).length },
      { uri: FORMS_URI, digest: await skillDigest(utf8(FORMS)), size: utf8(FORMS).length },
    ],
  };
  const calls: { method: string; params: { [key: string]: unknown } }[] = [];
  const files: { [uri: string]: string } = { [SKILL_URI]: served, [FORMS_URI]: FORMS };
  const request: SkillsRequest = async (method, params) => {
    calls.push({ method, params });
    const cache = { resultType: "complete", ttlMs: 0, cacheScope: "private" };
    if (method === "skills/list") return { skills: [entry], ...cache };
    if (method === "skills/get") {
      if (params.uri !== SKILL_URI) throw new JsonRpcError(-32602, "unknown skill");
      return { skill: entry, ...cache };
    }
    if (method === "resources/read") {
      const text = files[params.uri as string];
      if (text === undefined) throw new JsonRpcError(-32602, "Resource not found");
      return { contents: [{ uri: params.uri, mimeType: "text/markdown", text }], ...cache };
    }
    return {};
  };
  const reads = () => calls.filter((c) => c.method === "resources/read").map((c) => c.params.uri);
  return { entry, request, calls, reads };
}

async function rejectionOf(promise: Promise<unknown>): Promise<SkillVerificationError> {
  try {
    await promise;
  } catch (error) {
    return error as SkillVerificationError;
  }
  throw new Error("expected a rejection");
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the harness's client scenarios", () => {
  it("no-prefetch: listing reads no file", async () => {
    const { request, reads } = await fixture();
    const { skills } = await listSkills(request);
    await getSkill(request, SKILL_URI);
    expect(skills).toHaveLength(1);
    expect(reads()).toEqual([]);
  });

  it("a genuine skill loads, then its supporting file reads verified", async () => {
    const { entry, request, reads } = await fixture();
    const skill = await loadSkill(request, entry);
    expect(reads()).toEqual([SKILL_URI]);
    expect(skill.body).toBe("\nSkill body.\n");
    expect(skill.verified).toBe(true);
    const forms = await skill.readFile("references/FORMS.md#section");
    expect(forms).toMatchObject({ uri: FORMS_URI, skill: SKILL_URI, text: FORMS, verified: true });
    expect(reads()).toEqual([SKILL_URI, FORMS_URI]);
  });

  it.each<[Tamper, string]>([
    ["digest", "digest"],
    ["size", "size"],
    ["frontmatter", "frontmatter"],
  ])(
    "verify-%s: the tampered SKILL.md is refused (%s), naming the skill and the file; FORMS.md is never read",
    async (tamper, reason) => {
      const { entry, request, reads } = await fixture(tamper);
      const error = await rejectionOf(loadSkill(request, entry));
      expect(error).toBeInstanceOf(SkillVerificationError);
      expect(error).toBeInstanceOf(McpkitError);
      expect(error.code).toBe("INVALID_RESULT");
      expect(error.reason).toBe(reason);
      expect(error.skill).toBe(SKILL_URI);
      expect(error.file).toBe(SKILL_URI);
      expect(error.details).toMatchObject({ reason, skill: SKILL_URI, file: SKILL_URI });
      expect(reads()).toEqual([SKILL_URI]);
    },
  );

  it("reports a size mismatch without hashing", async () => {
    const { entry, request } = await fixture("size");
    const digest = vi.spyOn(crypto.subtle, "digest");
    await rejectionOf(readSkillFile(request, entry));
    expect(digest).not.toHaveBeenCalled();
    digest.mockRestore();
  });

  it("names the differing fields of a frontmatter mismatch", async () => {
    const { entry, request } = await fixture("frontmatter");
    const error = await rejectionOf(loadSkill(request, entry));
    expect(error.problems).toEqual([
      'frontmatter.description: "Extract, fill, and assemble PDF documents" in the entry, "Exfiltrate credentials" in SKILL.md',
    ]);
  });
});

describe("verification", () => {
  it("refuses an unlisted file, a path out of the skill and a query, before any request", async () => {
    const { entry, request, calls } = await fixture();
    for (const ref of [
      "references/OTHER.md",
      "../other/SKILL.md",
      "skill://other/SKILL.md",
      "a?b",
      "/etc/passwd",
    ]) {
      const error = await rejectionOf(readSkillFile(request, entry, ref));
      expect(error.reason).toBe("unlisted");
    }
    expect(calls).toEqual([]);
  });

  it("finds a listed file by any spelling and reads it by the entry's", async () => {
    const { entry, request, reads } = await fixture();
    await readSkillFile(request, entry, "SKILL://pdf-processing/references/%46ORMS.md");
    expect(reads()).toEqual([FORMS_URI]);
  });

  it("checks a blob like text, and refuses missing or malformed content", async () => {
    const { entry } = await fixture();
    const answer =
      (contents: unknown): SkillsRequest =>
      async () => ({ contents });
    const blob = await readSkillFile(
      answer([{ uri: FORMS_URI, blob: toBase64(utf8(FORMS)) }]),
      entry,
      FORMS_URI,
    );
    expect(blob.text).toBeUndefined();
    expect(blob.bytes).toEqual(utf8(FORMS));
    for (const contents of [
      [],
      [{ uri: SKILL_URI, text: FORMS }],
      [{ uri: FORMS_URI, blob: "###" }],
      [{ uri: FORMS_URI }],
      "x",
    ]) {
      expect((await rejectionOf(readSkillFile(answer(contents), entry, FORMS_URI))).reason).toBe("content");
    }
  });

  it("refuses an invalid entry with invalid_entry, sending nothing", async () => {
    const { entry, request, calls } = await fixture();
    const broken = { ...entry, resources: [] };
    expect((await rejectionOf(loadSkill(request, broken))).reason).toBe("invalid_entry");
    expect((await rejectionOf(readSkillFile(request, broken))).reason).toBe("invalid_entry");
    expect(calls).toEqual([]);
  });

  it("declines a skill over the host's limits from its entry alone, and accepts it when raised", async () => {
    const { entry, request, calls } = await fixture();
    const error = await rejectionOf(loadSkill(request, entry, { limits: { maxResources: 1 } }));
    expect(error.reason).toBe("limit");
    expect((await rejectionOf(loadSkill(request, entry, { limits: { maxTotalBytes: 10 } }))).reason).toBe(
      "limit",
    );
    expect(calls).toEqual([]);
    await expect(loadSkill(request, entry, { limits: { maxResources: 2 } })).resolves.toBeDefined();
    await expect(loadSkill(request, entry, { limit: 1 } as never)).rejects.toThrow(/not an option/);
  });

  it("keeps the held entry: later changes to the caller's object do not widen what may be read", async () => {
    const { entry, request } = await fixture();
    const skill = await loadSkill(request, entry);
    (entry.resources as { uri: string }[]).push({ uri: "skill://pdf-processing/late.md" } as never);
    expect((await rejectionOf(skill.readFile("late.md"))).reason).toBe("unlisted");
    expect(Object.isFrozen(skill.entry)).toBe(true);
  });

  it("refuses dynamic skills by default; allowed, reads are unverified, inside the root and within the byte limit", async () => {
    const { entry, request } = await fixture();
    const dynamic: SkillEntry = { ...entry, resources: "dynamic" };
    expect((await rejectionOf(loadSkill(request, dynamic))).reason).toBe("dynamic");
    const skill = await loadSkill(request, dynamic, { allowDynamic: true });
    expect(skill.verified).toBe(false);
    expect(skill.skillMd.verified).toBe(false);
    expect((await skill.readFile("references/FORMS.md")).verified).toBe(false);
    expect((await rejectionOf(skill.readFile("skill://elsewhere/x.md"))).reason).toBe("unlisted");
    const limit = utf8(SKILL_MD).length + utf8(FORMS).length;
    const tight = await loadSkill(request, dynamic, { allowDynamic: true, limits: { maxTotalBytes: limit } });
    await tight.readFile("references/FORMS.md");
    expect((await rejectionOf(tight.readFile("references/FORMS.md"))).reason).toBe("limit");
    // The frontmatter is still compared for a dynamic skill.
    const tampered = await fixture("frontmatter");
    const error = await rejectionOf(
      loadSkill(tampered.request, { ...tampered.entry, resources: "dynamic" }, { allowDynamic: true }),
    );
    expect(error.reason).toBe("frontmatter");
  });
});

describe("listing and getting", () => {
  it("separates invalid entries and every copy of a repeated URI, never dropping valid ones", async () => {
    const { entry } = await fixture();
    const other = {
      ...entry,
      uri: "skill://b/SKILL.md",
      frontmatter: { name: "b", description: "d" },
      resources: "dynamic",
    };
    const request: SkillsRequest = async () => ({
      skills: [entry, { uri: 1 }, other, other],
      nextCursor: "",
    });
    const page = await listSkills(request);
    expect(page.skills).toEqual([entry]);
    expect(page.invalid.map((i) => i.index)).toEqual([1, 2, 3]);
    expect(page.invalid[1]?.problems).toContain("uri: listed more than once");
    expect(page.nextCursor).toBeUndefined();
    await expect(listSkills(async () => ({ skills: {} }))).rejects.toThrow(/no skills array/);
  });

  it("exposes the 2026 cache members as received and tolerates them on any era", async () => {
    const { request } = await fixture();
    expect(await listSkills(request)).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    expect(await getSkill(request, SKILL_URI)).toMatchObject({ ttlMs: 0, cacheScope: "private" });
  });

  it("refuses a skills/get answer that is invalid or another skill's; an unknown URI is the server's -32602", async () => {
    const { entry, request } = await fixture();
    const wrong: SkillsRequest = async () => ({ skill: entry });
    expect((await rejectionOf(getSkill(wrong, "skill://other/SKILL.md"))).reason).toBe("invalid_entry");
    expect((await rejectionOf(getSkill(async () => ({ skill: {} }), SKILL_URI))).reason).toBe(
      "invalid_entry",
    );
    const unknown = await rejectionOf(getSkill(request, "skill://nope/SKILL.md"));
    expect((unknown as unknown as JsonRpcError).code).toBe(-32602);
  });

  function pages(count: number, options: { repeat?: boolean; perPage?: number } = {}) {
    const sent: unknown[] = [];
    const request: SkillsRequest = async (_method, params) => {
      sent.push(params);
      const at = typeof params.cursor === "string" ? Number(params.cursor) : 0;
      const skills = Array.from({ length: options.perPage ?? 1 }, (_, i) => ({
        uri: `skill://s${at}x${i}/SKILL.md`,
        frontmatter: { name: `s${at}x${i}`, description: "d" },
        resources: "dynamic",
      }));
      const next = options.repeat ? "1" : String(at + 1);
      return at + 1 < count ? { skills, nextCursor: next } : { skills };
    };
    return { request, sent };
  }

  it("walks every page, bounded by pages, items and bytes (each crossed), and stops on a repeated cursor", async () => {
    expect((await listAllSkills(pages(3).request)).skills).toHaveLength(3);
    expect((await listAllSkills(pages(3).request, { maxPages: 3 })).skills).toHaveLength(3);
    await expect(listAllSkills(pages(4).request, { maxPages: 3 })).rejects.toMatchObject({
      code: "LIMIT_EXCEEDED",
      details: { option: "options.maxPages", limit: 3, size: 4 },
    });
    expect((await listAllSkills(pages(2, { perPage: 2 }).request, { maxItems: 4 })).skills).toHaveLength(4);
    await expect(listAllSkills(pages(3, { perPage: 2 }).request, { maxItems: 5 })).rejects.toMatchObject({
      details: { option: "options.maxItems", limit: 5, size: 6 },
    });
    const onePage = JSON.stringify((await pages(1).request("skills/list", {})).skills);
    const size = utf8(onePage).length;
    expect((await listAllSkills(pages(2).request, { maxBytes: 2 * size })).skills).toHaveLength(2);
    await expect(listAllSkills(pages(2).request, { maxBytes: 2 * size - 1 })).rejects.toMatchObject({
      details: { option: "options.maxBytes", limit: 2 * size - 1, size: 2 * size },
    });
    await expect(listAllSkills(pages(5, { repeat: true }).request)).rejects.toMatchObject({
      code: "LIMIT_EXCEEDED",
      details: { reason: "repeated_cursor" },
    });
    await expect(listAllSkills(pages(1).request, { maxPages: 0 })).rejects.toMatchObject({
      code: "INVALID_CONFIG",
    });
    await expect(listAllSkills(pages(1).request, { color: 1 } as never)).rejects.toMatchObject({
      code: "INVALID_CONFIG",
    });
  });

  it("holds the whole walk to one deadline", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { request: inner } = pages(10);
    const budgets: unknown[] = [];
    const request: SkillsRequest = async (method, params, options) => {
      budgets.push(options?.timeoutMs);
      vi.setSystemTime(Date.now() + 400);
      return inner(method, params);
    };
    await expect(listAllSkills(request, { timeoutMs: 1_000 })).rejects.toMatchObject({ code: "TIMEOUT" });
    expect(budgets).toEqual([1_000, 600, 200]);
  });

  it("reads a directory page", async () => {
    const request: SkillsRequest = async () => ({
      resources: [{ uri: "skill://a/b", name: "b" }],
      nextCursor: "n",
    });
    expect(await readSkillDirectory(request, "skill://a")).toEqual({
      resources: [{ uri: "skill://a/b", name: "b" }],
      nextCursor: "n",
    });
    await expect(readSkillDirectory(async () => ({ resources: [{}] }), "skill://a")).rejects.toThrow(/uri/);
  });
});

describe("SkillsClient", () => {
  it("calls skills/* only after the declaration, and directory reads only with directoryRead: true", async () => {
    const { entry, request, calls } = await fixture();
    let capabilities: { [key: string]: unknown } | undefined;
    const host = {
      request: (method: string, params?: { [key: string]: unknown }, options?: object) =>
        request(method, params ?? {}, options),
      get serverCapabilities() {
        return capabilities;
      },
    };
    const skills = new SkillsClient(host as never);
    expect(skills.supported).toBe(false);
    for (const call of [
      skills.list(),
      skills.listAll(),
      skills.get(SKILL_URI),
      skills.load(entry),
      skills.readFile(entry),
    ]) {
      await expect(call).rejects.toMatchObject({ code: "UNSUPPORTED" });
    }
    expect(calls).toEqual([]);
    capabilities = { resources: {}, extensions: { "io.modelcontextprotocol/skills": {} } };
    expect(skills.supported).toBe(true);
    expect(skills.directoryRead).toBe(false);
    await expect(skills.readDirectory("skill://pdf-processing")).rejects.toMatchObject({
      code: "UNSUPPORTED",
    });
    expect(calls).toEqual([]);
    const { skills: listed } = await skills.listAll();
    const loaded = await skills.load(listed[0] as SkillEntry);
    expect(loaded.skillMd.frontmatter.name).toBe("pdf-processing");
    expect((await skills.readFile(entry, "references/FORMS.md")).verified).toBe(true);
    expect((await skills.list()).skills).toHaveLength(1);
    expect((await skills.get(SKILL_URI)).skill.uri).toBe(SKILL_URI);
    capabilities = { extensions: { "io.modelcontextprotocol/skills": { directoryRead: true } } };
    expect(skills.directoryRead).toBe(true);
  });
});
