import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The web UI builds into `dist/web/`, beside the compiled server that serves it (`recourse serve` at `/`).
 * Hashed asset names let the server cache them forever; index.html is never cached.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    // The service's Content-Security-Policy allows scripts and styles from 'self' only: no inline chunks.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 600,
  },
  logLevel: 'warn',
});
