/** Waits, a macrotask at a time, until `condition` holds (at most about 2 s). It may be async. */
export async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 1));
  }
  if (!(await condition())) throw new Error("condition never held");
}
