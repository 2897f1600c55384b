import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * The server entry of the public site (`src/entry-server.tsx`) as one script for QuickJS:
 * everything bundled, browser builds of packages, `StoaSsr.render` as its interface.
 * Written to `dist/server/render.js`; `stoa` loads it at start.
 */
export default defineConfig({
  plugins: [
    react(),
    {
      // Lazily loaded parts (admin, wallet, editors) are the browser's: they stay out of the server
      // script, and the components that load them render them only after hydration.
      name: "stoa-ssr-no-lazy",
      enforce: "pre",
      transform(code, id) {
        // (`lib/lazy-part.tsx` only shows the form in its documentation.)
        if (!id.includes("/src/") || id.endsWith("/src/lib/lazy-part.tsx") || !code.includes("import(")) return null;
        // `lazyPart(() => import("x"))` renders on the server too: the module comes in statically.
        let n = 0;
        const eager: string[] = [];
        code = code.replace(/lazyPart\(\s*\(\)\s*=>\s*import\(\s*(["'][^"']+["'])\s*\)\s*\)/g, (_m, spec: string) => {
          const name = `__stoaEager${n++}`;
          eager.push(`import * as ${name} from ${spec};`);
          return `lazyPart(() => Promise.resolve(${name}), ${name})`;
        });
        code = eager.join("\n") + (eager.length ? "\n" : "") + code;
        return { code: code.replace(/\bimport\(\s*(["'][^"']+["'])\s*\)/g, "Promise.reject(new Error($1 + ' loads in the browser only'))"), map: null };
      },
    },
  ],
  resolve: {
    alias: [
      { find: "@", replacement: fileURLToPath(new URL("./src", import.meta.url)) },
      // The synchronous string renderer without Web Streams (`renderToString` needs no TextEncoder).
      { find: /^react-dom\/server$/, replacement: fileURLToPath(new URL("./node_modules/react-dom/cjs/react-dom-server-legacy.browser.production.js", import.meta.url)) },
    ],
    conditions: ["browser", "module", "import", "default"],
  },
  define: {
    "process.env.NODE_ENV": JSON.stringify("production"),
    "import.meta.env.SSR": "true",
  },
  ssr: { noExternal: true, target: "webworker", resolve: { conditions: ["browser", "import", "module", "default"], externalConditions: [] } },
  build: {
    ssr: "src/entry-server.tsx",
    outDir: "dist/server",
    emptyOutDir: true,
    minify: true,
    target: "es2020",
    copyPublicDir: false,
    rollupOptions: {
      output: { format: "iife", name: "StoaSsr", inlineDynamicImports: true, entryFileNames: "render.js" },
    },
  },
});
