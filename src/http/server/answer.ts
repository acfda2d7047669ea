/**
 * One HTTP answer: a status, headers and a body (none, a string, or a byte stream). The Web handler turns it
 * into a `Response`; the Node adapter writes it directly. A ready `Response` (the `authenticate` hook's
 * refusal) is sent as it is.
 */
export type Answer =
  | {
      readonly status: number;
      readonly headers: { readonly [name: string]: string };
      readonly body: string | ReadableStream<Uint8Array> | null;
    }
  // Wrapped, so that telling the two apart never touches the `Response` global (on Node it loads undici).
  | { readonly response: Response };

/** The `Response` of an answer. */
export function toResponse(answer: Answer): Response {
  if ("response" in answer) return answer.response;
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
