import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

const api = process.env.STOA_URL ?? "http://127.0.0.1:8080";

export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: { alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) } },
  build: {
    outDir: "dist",
    assetsDir: "assets",
    sourcemap: false,
    // `dist/.vite/manifest.json`: which chunks the public entry loads (`scripts/budget.mjs`).
    manifest: true,
    chunkSizeWarningLimit: 1200,
  },
  server: {
    // Stored files (and their sizes, `?w=…`) come from the server too.
    proxy: { "/api": api, "/health": api, "/files": api },
  },
  test: {
    environment: "jsdom",
    globals: true,
    setupFiles: ["./src/test-setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    css: false,
    // One worker a core (Vitest's default leaves one core free: on CI's two, the files ran one
    // at a time, each paying for its own jsdom).
    maxWorkers: availableParallelism(),
  },
});
