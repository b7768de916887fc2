// The real curl, run without blocking this process (a gateway under test may live in it).
import { execFile } from 'node:child_process';

export interface CurlResult {
  /** curl's exit status: 0, or why it failed (35: handshake, 56: receive, 60: certificate not trusted). */
  code: number;
  /** HTTP status (-w '%{http_code}'): 0 when no answer came. */
  status: number;
  body: string;
  stderr: string;
}

export function curl(args: string[]): Promise<CurlResult> {
  return new Promise((resolve) => {
    execFile('curl', ['-sS', '--max-time', '10', '-w', '\n%{http_code}', ...args], { encoding: 'utf8' }, (err, stdout, stderr) => {
      const cut = stdout.lastIndexOf('\n');
      resolve({ code: typeof err?.code === 'number' ? err.code : 0, status: Number(stdout.slice(cut + 1)) || 0, body: stdout.slice(0, Math.max(0, cut)), stderr });
    });
  });
}
