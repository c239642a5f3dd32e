#!/usr/bin/env node
import { buildProgram } from './program.js';

// A reader that stops early (`| head`) closes the pipe: that ends the run quietly, as for any Unix filter.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

await buildProgram().parseAsync(process.argv);
