import { readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** A path that leaves the repository, named by a test, bench or config file. `line` counts from 1. */
export interface OutsidePath {
  readonly file: string;
  readonly line: number;
  readonly path: string;
  readonly reason: string;
}

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The environment variable that once pointed the tests at the shared folder. Spelled in pieces so that this file
 * does not name it.
 */
export const sharedDirVariable = ['RECOURSE', 'SHARED', 'DIR'].join('_');

/**
 * System paths a test may name: they exist on every Linux machine the tests run on and hold nothing of the
 * project. `/dev/null` discards output, `/dev/full` refuses it (a full disk); `/proc/...` reads the state of a process the test started; the
 * distribution's Chromium and its driver are what browser tests drive. Anything else absolute (a home folder,
 * /work, /tmp: use `os.tmpdir()`) ties the tests to one machine.
 */
const allowedAbsolute = new Set(['/dev/null', '/dev/full', '/usr/bin/chromium', '/usr/bin/chromedriver']);
const allowedAbsolutePrefixes = ['/proc/'];

/**
 * First segments that make an absolute-looking string a filesystem path (Linux and macOS). A string such as
 * `/status` or `/v1/messages` is a JSON pointer or a URL path, not a file.
 */
const filesystemRoots = new Set([
  'work',
  'home',
  'root',
  'tmp',
  'usr',
  'etc',
  'var',
  'opt',
  'mnt',
  'srv',
  'media',
  'dev',
  'proc',
  'sys',
  'bin',
  'sbin',
  'lib',
  'lib64',
  'run',
  'boot',
  'snap',
  'nix',
  'private',
  'Users',
  'Volumes',
  'Library',
  'System',
  'Applications',
]);

/** Root files that configure the tests and the tools the test command runs. */
const rootConfig =
  /^(?:[\w-]+\.config\.(?:ts|mts|js|mjs|cjs)|tsconfig[\w.-]*\.json|package\.json|knip\.json|\.prettierrc[\w.]*)$/;

const codeExtensions: Record<string, ts.ScriptKind> = {
  '.ts': ts.ScriptKind.TS,
  '.mts': ts.ScriptKind.TS,
  '.cts': ts.ScriptKind.TS,
  '.js': ts.ScriptKind.JS,
  '.mjs': ts.ScriptKind.JS,
  '.cjs': ts.ScriptKind.JS,
};

/**
 * Every file the scan reads, as repository-relative paths: all of test/, bench/ and scripts/ (the lint scripts
 * the test command runs), and the root config files.
 */
export function filesToScan(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(posix.join(repositoryRoot, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = posix.join(dir, entry.name);
      return entry.isDirectory() ? walk(path) : entry.isFile() ? [path] : [];
    });
  const roots = readdirSync(repositoryRoot, { withFileTypes: true })
    .filter((entry) => entry.isFile() && rootConfig.test(entry.name))
    .map((entry) => entry.name);
  return [...roots, ...walk('test'), ...walk('bench'), ...walk('scripts')].sort();
}

/** Reads a repository file and scans it. */
export function scanRepositoryFile(file: string): OutsidePath[] {
  return scanSource(file, readFileSync(posix.join(repositoryRoot, file), 'utf8'));
}

/**
 * The paths leaving the repository that a file names. In code (TypeScript and JavaScript) the scan reads string
 * and template literals, import specifiers included, and not comments; any other file is read line by line as
 * text. Flagged: the shared folder (`../shared`), the variable that pointed at it (anywhere, comments too), a path
 * under a filesystem root (`/work/...`, `/home/...`, `file:///...`) unless allowed above, a home-relative path
 * (`~/...`), and a relative path that climbs above the repository root from the file's own folder. A stack
 * frame's location (`path:line:column`) is data quoted from a trace and passes.
 *
 * Literals only: a path computed from them (`join(root, '..')`) escapes the scan; review catches those.
 */
export function scanSource(file: string, text: string): OutsidePath[] {
  const found: OutsidePath[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.includes(sharedDirVariable))
      found.push({
        file,
        line: index + 1,
        path: sharedDirVariable,
        reason: 'reads the shared-folder variable',
      });
  });
  for (const { line, value } of literalsOf(file, text)) {
    for (const path of value.split(/[\s'"`,;()<>[\]{}=\\]+/)) {
      const reason = outsideReason(posix.dirname(file), path);
      if (reason !== null) found.push({ file, line, path, reason });
    }
  }
  return found;
}

function literalsOf(file: string, text: string): Array<{ line: number; value: string }> {
  const kind = codeExtensions[posix.extname(file)];
  if (kind === undefined) return text.split('\n').map((value, index) => ({ line: index + 1, value }));
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const literals: Array<{ line: number; value: string }> = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      literals.push({ line, value: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return literals;
}

/** Why a token of a literal names a path outside the repository, or null when it does not. */
function outsideReason(folder: string, token: string): string | null {
  if (token === '') return null;
  let path = token;
  if (/^file:\/\//i.test(path)) path = path.slice('file://'.length);
  else if (/^[a-z][a-z\d+.-]*:\/\//i.test(path)) return null; // a URL: a host, not a file
  const segments = path.split('/');
  if (segments.some((segment, i) => segment === '..' && segments[i + 1] === 'shared'))
    return 'names the shared folder beside the repository';
  if (/^~(?:\/|$)/.test(path)) return 'names a path in a home folder';
  // `/home/jane/app/x.js:10:5` is a stack frame quoted as data (a trace the test feeds in), not a file it opens.
  if (/:\d+(?::\d+)?$/.test(path)) return null;
  if (path.startsWith('/')) {
    if (!filesystemRoots.has(segments[1] ?? '')) return null;
    if (allowedAbsolute.has(path) || allowedAbsolutePrefixes.some((prefix) => path.startsWith(prefix)))
      return null;
    return 'names an absolute path outside the repository';
  }
  if (!segments.includes('..')) return null;
  const resolved = posix.normalize(posix.join(folder, path));
  return resolved === '..' || resolved.startsWith('../')
    ? `climbs above the repository root from ${folder}/ (to ${resolved})`
    : null;
}
