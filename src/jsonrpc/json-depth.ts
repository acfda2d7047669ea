/**
 * True when `value` nests more than `limit` levels of objects and arrays: a scalar is 0 levels, `{}` and `[]`
 * are 1, `{ a: [] }` is 2. Measured without recursion, so a value of any depth (a 1 MB message can nest half a
 * million levels, which `JSON.parse` reads and every recursive walk overflows on) is answered without a stack
 * overflow; the walk stops at the first path past the limit. A cycle counts as too deep.
 *
 * @example
 * nestsDeeperThan({ a: { b: [] } }, 2); // true: three levels
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  // The deepest level each object was reached at: a value shared in many places is walked again only deeper.
  const reached = new Map<object, number>();
  const stack: Array<[object, number]> = [[value, 1]];
  for (;;) {
    const top = stack.pop();
    if (top === undefined) return false;
    const [node, level] = top;
    if (level > limit) return true;
    const before = reached.get(node);
    if (before !== undefined && before >= level) continue;
    reached.set(node, level);
    const children: readonly unknown[] = Array.isArray(node) ? node : Object.values(node);
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (typeof child === "object" && child !== null) stack.push([child, level + 1]);
    }
  }
}
