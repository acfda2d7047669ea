import { chmod, mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import {
  type CredentialKey,
  type CredentialStore,
  credentialKeyString,
  type StoredCredentials,
} from "../auth/index.js";

/**
 * A {@link CredentialStore} in one JSON file, for CLIs and desktop apps that should stay logged in across
 * runs. The file is created with mode 0600 (its directory 0700), written whole to a temporary file and renamed
 * over the old one (a crash leaves the old or the new file, never half of one), and writes are serialized.
 * A missing or unreadable file counts as empty. What it read is kept while the file's identity, size and
 * modification time stay the same, so a read per request (an `OAuthClient`'s `headers()`) costs one `stat`, and
 * a write by another process (a login) is still seen. It holds secrets: keep it out of backups and repositories.
 *
 * @example
 * const oauth = new OAuthClient({ redirectUri, store: new FileCredentialStore(`${homedir()}/.config/app/oauth.json`) });
 */
export class FileCredentialStore implements CredentialStore {
  private queue: Promise<unknown> = Promise.resolve();
  private cached: { version: string; entries: { [key: string]: StoredCredentials } } | undefined;

  constructor(readonly path: string) {}

  /** What is kept for `key`, if anything. */
  async get(key: CredentialKey): Promise<StoredCredentials | undefined> {
    await this.queue.catch(() => {});
    const found = (await this.read())[credentialKeyString(key)];
    return found === undefined ? undefined : structuredClone(found);
  }

  /** Replaces what is kept for `key`. */
  set(key: CredentialKey, value: StoredCredentials): Promise<void> {
    return this.update((entries) => {
      entries[credentialKeyString(key)] = value;
    });
  }

  /** Forgets `key`. */
  delete(key: CredentialKey): Promise<void> {
    return this.update((entries) => {
      delete entries[credentialKeyString(key)];
    });
  }

  private update(change: (entries: { [key: string]: StoredCredentials }) => void): Promise<void> {
    const next = this.queue
      .catch(() => {})
      .then(async () => {
        const entries = await this.read();
        change(entries);
        await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
        const temporary = `${this.path}.${process.pid}.tmp`;
        await writeFile(temporary, `${JSON.stringify(entries, null, 2)}\n`, { mode: 0o600 });
        await chmod(temporary, 0o600);
        await rename(temporary, this.path);
      });
    this.queue = next;
    return next;
  }

  /** The file's entries; `update` changes the object it gets, so it is a copy of the one kept. */
  private async read(): Promise<{ [key: string]: StoredCredentials }> {
    let version: string;
    try {
      const { ino, size, mtimeNs, ctimeNs } = await stat(this.path, { bigint: true });
      version = `${ino}:${size}:${mtimeNs}:${ctimeNs}`;
    } catch {
      this.cached = undefined;
      return {};
    }
    if (this.cached?.version !== version) {
      let entries: { [key: string]: StoredCredentials } = {};
      try {
        const value: unknown = JSON.parse(await readFile(this.path, "utf8"));
        if (typeof value === "object" && value !== null && !Array.isArray(value)) {
          entries = value as { [key: string]: StoredCredentials };
        }
      } catch {}
      this.cached = { version, entries };
    }
    return { ...this.cached.entries };
  }
}
