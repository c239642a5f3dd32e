#!/usr/bin/env node
import { buildProgram } from './program.js';

// A reader that stops early (`| head`) closes the pipe: that ends the run quietly, as for any Unix filter.
// Any other failure to write (a full disk, ENOSPC) is one line on standard error and exit 1, not a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  process.stderr.write(`recourse: cannot write the output: ${error.code ?? error.message}\n`);
  process.exit(1);
});

await (await buildProgram(process.argv)).parseAsync(process.argv);
