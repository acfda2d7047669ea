/**
 * Compile-time tests of `TemplateVariables`: a resource template's callback gets its variables typed from the
 * template's text, in the builder and at run time. Checked by `npm run typecheck`; nothing here runs.
 */
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import type { TemplateVariables } from "../../src/server/authoring/template-variables.js";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(_proof: Equal<A, B>) => {};

same<TemplateVariables<"notes://{id}">, { id: string }>(true);
same<TemplateVariables<"file:///{+path}">, { path: string }>(true);
same<TemplateVariables<"a://{x,y}">, { x?: string; y?: string }>(true);
same<TemplateVariables<"a://{x:3}">, { x: string }>(true);
same<
  TemplateVariables<"repo://{owner}{/path*}{.ext}{;v}{?q,page}{&more*}{#frag}">,
  {
    owner: string;
    path?: string[];
    ext?: string;
    v?: string;
    q?: string;
    page?: string;
    more?: string[];
    frag?: string;
  }
>(true);
same<TemplateVariables<"a://{list*}">, { list?: string[] }>(true);
same<TemplateVariables<string>, { [name: string]: string | string[] }>(true);

const read = { contents: [] };
new ServerBuilder({ serverInfo: { name: "t", version: "1" } })
  .resourceTemplate({ uriTemplate: "notes://{id}{?rev}", name: "n" }, (_uri, { id, rev }) => {
    const text: string = id;
    // @ts-expect-error rev may be missing
    const required: string = rev;
    void [text, required];
    return read;
  })
  .resourceTemplate({ uriTemplate: "n://{id}", name: "m" }, (_uri, variables) => {
    // @ts-expect-error the template has no variable "other"
    void variables.other;
    return read;
  })
  .buildDynamic()
  .resourceTemplates.add({ uriTemplate: "r://{/parts*}", name: "r" }, (_uri, { parts }) => {
    const list: string[] | undefined = parts;
    void list;
    return read;
  });
