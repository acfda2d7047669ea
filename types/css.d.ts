// The inspector page imports its stylesheet; esbuild bundles it into page.css.
declare module "*.css";
