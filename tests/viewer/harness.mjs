// SPDX-License-Identifier: MIT
//
// harness.mjs - what every viewer test and benchmark needs: start slog-serve
// on a free port over some .slog files and read the URL it prints, launch
// Debian's chromium headless through playwright-core (never a downloaded
// browser; a fresh profile each time), run a command and capture its
// output, and small TAP helpers.  A skipped test prints the TAP plan
// "1..0 # SKIP why" and exits 0 (SKIP): meson's TAP protocol takes 77 as an error.

import {spawn, spawnSync} from 'node:child_process';
import {existsSync} from 'node:fs';

export const CHROMIUM = process.env.SLOG_CHROMIUM || '/usr/bin/chromium';
export const SKIP = 0;

/** Start slog-serve over @p files; resolves to {url, proc, stop()}. */
export function startServer(exe, files, extraArgs = [])
{
    return new Promise((resolve, reject) => {
        const proc = spawn(exe, [...files, '--port', '0', ...extraArgs], {stdio: ['ignore', 'pipe', 'pipe']});
        let out = '';
        let err = '';
        const timer = setTimeout(() => reject(new Error(`slog-serve printed no URL in 30 s: ${err}`)), 30000);
        proc.stdout.on('data', (d) => {
            out += d;
            const m = /(http:\/\/[^\s]+\/)/.exec(out);
            if (m) {
                clearTimeout(timer);
                resolve({url: m[1], proc, stop: () => stopProcess(proc)});
            }
        });
        proc.stderr.on('data', (d) => {
            err += d;
        });
        proc.on('exit', (code) => {
            clearTimeout(timer);
            reject(new Error(`slog-serve exited (${code}): ${err}`));
        });
    });
}

function stopProcess(proc)
{
    return new Promise((resolve) => {
        if (proc.exitCode !== null) {
            resolve(proc.exitCode);
            return;
        }
        proc.removeAllListeners('exit');
        proc.on('exit', (code) => resolve(code));
        proc.kill('SIGTERM');
    });
}

/** Launch headless chromium; resolves to {browser, close()}. */
export async function launchBrowser()
{
    const {chromium} = await import('playwright-core');
    // playwright gives every launch a fresh temporary profile (--user-data-dir)
    // and refuses one passed by hand
    const browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
               '--disable-background-networking', '--disable-component-update', '--disable-sync',
               '--disable-quic'],
    });
    return {browser, close: () => browser.close()};
}

/** Is everything a browser test needs here?  Returns a reason when not. */
export function missingBrowserParts()
{
    if (!existsSync(CHROMIUM)) {
        return `${CHROMIUM} not installed`;
    }
    try {
        import.meta.resolve('playwright-core');
    } catch (e) {
        return 'playwright-core not installed (npm ci in tests/viewer)';
    }
    return null;
}

/** Run a command synchronously; returns stdout, throws with stderr on failure. */
export function run(exe, args)
{
    const r = spawnSync(exe, args, {encoding: 'utf8', maxBuffer: 1 << 28});
    if (r.status !== 0) {
        throw new Error(`${exe} ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
    }
    return r.stdout;
}

/** A TAP producer: t.ok(cond, name, detail) and t.done() (exit code). */
export function tap()
{
    let n = 0;
    let failed = 0;
    return {
        ok(cond, name, detail = '')
        {
            n++;
            if (!cond) {
                failed++;
            }
            console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${name}`);
            if (!cond && detail) {
                console.log(String(detail).split('\n').map((l) => `  # ${l}`).join('\n'));
            }
            return cond;
        },
        skip(name, reason)
        {
            n++;
            console.log(`ok ${n} - ${name} # SKIP ${reason}`);
        },
        note(text)
        {
            console.log(`# ${text}`);
        },
        done()
        {
            console.log(`1..${n}`);
            return failed ? 1 : 0;
        },
    };
}
