// esbuild bundles CSS imported from a view into the same HTML file.
declare module "*.css";
