// Finds import cycles among the TypeScript files of a folder, counting every import: value imports, `import
// type`, `export ... from` and dynamic `import()`. ESLint's import-x/no-cycle skips type-only imports, yet a
// type-only cycle still ties modules together (they cannot be understood, moved or split apart). Part of
// `npm run lint`: `node scripts/import-cycles.mjs src` prints each cycle and exits 1 when there is one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Every .ts file under `folder`. */
function sourceFiles(folder) {
  const out = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The files of the folder one file imports (relative specifiers only; `.js` names the `.ts` source). */
function importsOf(file, known) {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets = [];
  for (const ref of info.importedFiles) {
    if (!ref.fileName.startsWith('.')) continue;
    const base = resolve(dirname(file), ref.fileName);
    const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
    const target = candidates.find((c) => known.has(c));
    if (target !== undefined) targets.push(target);
  }
  return targets;
}

/** The cycles (strongly connected components of more than one file, or a file importing itself). */
export function findImportCycles(folder) {
  const files = sourceFiles(resolve(folder));
  const known = new Set(files);
  const edges = new Map(files.map((f) => [f, importsOf(f, known)]));
  // Tarjan's algorithm, iterative so a deep graph cannot overflow the stack.
  let index = 0;
  const indexOf = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const cycles = [];
  for (const root of files) {
    if (indexOf.has(root)) continue;
    const work = [{ node: root, next: 0 }];
    indexOf.set(root, index);
    low.set(root, index++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const targets = edges.get(frame.node);
      if (frame.next < targets.length) {
        const target = targets[frame.next++];
        if (!indexOf.has(target)) {
          indexOf.set(target, index);
          low.set(target, index++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node), indexOf.get(target)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent), low.get(frame.node)));
      }
      if (low.get(frame.node) === indexOf.get(frame.node)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfImport = component.length === 1 && edges.get(member).includes(member);
        if (component.length > 1 || selfImport)
          cycles.push(component.map((f) => relative(process.cwd(), f)).sort());
      }
    }
  }
  return cycles;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const folder = process.argv[2] ?? 'src';
  const cycles = findImportCycles(folder);
  for (const cycle of cycles)
    process.stderr.write(`import cycle (type imports included): ${cycle.join(' <-> ')}\n`);
  process.exitCode = cycles.length > 0 ? 1 : 0;
}
