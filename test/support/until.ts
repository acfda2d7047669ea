/** Waits, a macrotask at a time, until `condition` holds (at most about 2 s). */
export async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((r) => setTimeout(r, 1));
  if (!condition()) throw new Error("condition never held");
}
