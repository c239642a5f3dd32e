import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawControls, runCli, runCliWithStdin } from './run-cli.js';

// Every command that reads a path refuses what is not a regular file from `stat`, before opening it, with one
// line naming the path (escaped) and the reason in words, and its documented exit code (2 for all of them).
const dir = mkdtempSync(join(tmpdir(), 'recourse-paths-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const folder = join(dir, 'folder');
mkdirSync(folder);
const fifo = join(dir, 'fifo');
// Node cannot make a FIFO; the shell's mkfifo can.
expect(spawnSync('sh', ['-c', 'exec mkfifo "$0"', fifo]).status).toBe(0);
const linkToFolder = join(dir, 'link-to-folder');
symlinkSync(folder, linkToFolder);
const dangling = join(dir, 'dangling');
symlinkSync(join(dir, 'nowhere'), dangling);
const plain = join(dir, 'plain.json');
writeFileSync(plain, '{}');
const loop = join(dir, 'loop');
symlinkSync(loop, loop);
const longName = join(dir, 'x'.repeat(5000));
const empty = join(dir, 'empty');
writeFileSync(empty, '');
const newlines = join(dir, 'newlines');
writeFileSync(newlines, '\n\n\r\n\n');
// Latin-1 text: the é is one byte 0xE9, which UTF-8 cannot read (decoded leniently it became U+FFFD, silently).
const latin1 = join(dir, 'latin1.json');
writeFileSync(latin1, Buffer.from('{"id":"caf\u00e9","name":"caf\u00e9","candidates":[]}', 'latin1'));
// A real directory whose name would clear the screen, return the cursor, reverse the text and break the line.
const hostile = join(dir, 'evil\u001b[2J\r\u202e\n\u2066\u0007');
mkdirSync(hostile);
const hostileShown = join(dir, 'evil\\x1b[2J\\r\\u202e\\n\\u2066\\x07');

const commands = [
  { name: 'classify', command: ['classify'], prefix: 'recourse classify: ' },
  { name: 'policy validate', command: ['policy', 'validate'], prefix: 'recourse policy: ' },
  { name: 'policy preview', command: ['policy', 'preview'], prefix: 'recourse policy: ' },
  { name: 'simulate', command: ['simulate'], prefix: 'recourse simulate: ' },
];
const refusals: Array<[string, string, string]> = [
  ['a directory', folder, `${folder} is a directory`],
  ['a symbolic link to a directory', linkToFolder, `${linkToFolder} is a directory`],
  ['a missing file', join(dir, 'missing.json'), `${join(dir, 'missing.json')} does not exist`],
  ['a dangling symbolic link', dangling, `${dangling} does not exist`],
  ['a path through a file', join(plain, 'x'), `${join(plain, 'x')} does not exist`],
  ['a 0-byte FIFO without a writer', fifo, `${fifo} is not a regular file (use - for standard input)`],
  ['a character device', '/dev/null', '/dev/null is not a regular file (use - for standard input)'],
  [
    'an unreadable file (EIO on read)',
    '/proc/self/mem',
    '/proc/self/mem cannot be read: EIO: i/o error, read',
  ],
  ['a directory named with controls and bidi overrides', hostile, `${hostileShown} is a directory`],
  [
    'a symbolic link to itself',
    loop,
    `${loop} cannot be read: ELOOP: too many symbolic links encountered, stat`,
  ],
  ['a name too long', longName, `${longName} cannot be read: ENAMETOOLONG: name too long, stat`],
  ['an empty file name', '', 'the file name is empty (use - for standard input)'],
];

describe.each(commands)('recourse $name FILE', ({ command, prefix }) => {
  it.each(refusals)(
    'refuses %s: one escaped line on stderr, nothing on stdout, exit 2',
    (_, path, message) => {
      // A FIFO must not hang the process: a short timeout turns a hang into a failure (status null).
      const r = runCli([...command, path], '', { timeoutMs: 10_000 });
      expect(r).toMatchObject({ status: 2, stdout: '', stderr: `${prefix}${message}\n` });
      expect(rawControls(r.stderr)).toEqual([]);
    },
  );

  it('refuses a directory redirected to standard input (-), which would otherwise read as empty', () => {
    const r = runCliWithStdin({ from: folder }, [...command, '-']);
    expect(r).toMatchObject({ status: 2, stdout: '', stderr: `${prefix}standard input is a directory\n` });
  });
});

describe('text that is not UTF-8', () => {
  it.each(commands.slice(1))(
    '$name: a JSON file in Latin-1 is one line, exit 2 (never read with its bytes replaced)',
    ({ command, prefix }) => {
      expect(runCli([...command, latin1])).toMatchObject({
        status: 2,
        stdout: '',
        stderr: `${prefix}${latin1} is not UTF-8 text (JSON must be)\n`,
      });
    },
  );
});

describe('empty input', () => {
  it('classify: an empty file, a file of only newlines and a closed standard input are zero envelopes, exit 0', () => {
    for (const r of [
      runCli(['classify', empty]),
      runCli(['classify', newlines]),
      runCliWithStdin('closed', ['classify', '-']),
    ]) {
      expect(r).toMatchObject({ status: 0, stdout: '', stderr: '' });
    }
    expect(runCli(['classify', '--pretty', newlines])).toMatchObject({
      status: 0,
      stdout: '\n0 envelopes: none\n',
    });
  });

  it.each(commands.slice(1))(
    '$name: an empty file, only newlines or a closed standard input is one line, exit 2',
    ({ command, prefix }) => {
      expect(runCli([...command, empty])).toMatchObject({
        status: 2,
        stdout: '',
        stderr: `${prefix}${empty} is empty\n`,
      });
      expect(runCli([...command, newlines])).toMatchObject({
        status: 2,
        stderr: `${prefix}${newlines} is empty\n`,
      });
      expect(runCliWithStdin('closed', [...command, '-'])).toMatchObject({
        status: 2,
        stdout: '',
        stderr: `${prefix}standard input is empty\n`,
      });
    },
  );
});
