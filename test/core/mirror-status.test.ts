import { describe, expect, it } from 'vitest';
import { readMirrorStatus, writeMirrorStatus, type MirrorStatus } from '../../core/mirror-status.ts';
import { tempDir } from '../fixtures/tiny.ts';

const status = (succeeded: number): MirrorStatus => ({
  upstream: 'http://127.0.0.1:9',
  startedAt: '2026-11-02T08:00:00.000Z',
  updatedAt: '2026-11-02T08:00:00.000Z',
  pulls: { succeeded, failed: 0 },
  datasets: {},
  live: {},
});

describe("the mirror's status record", () => {
  it('is read back as written, and as none where no mirror ran', async () => {
    const dir = await tempDir('mirror-status');
    expect(await readMirrorStatus(dir)).toBeUndefined();
    await writeMirrorStatus(dir, status(1));
    expect(await readMirrorStatus(dir)).toEqual(status(1));
  });

  it('takes writes at once from the jobs side by side, each whole', async () => {
    const dir = await tempDir('mirror-status');
    await Promise.all(Array.from({ length: 20 }, (_, i) => writeMirrorStatus(dir, status(i))));
    expect((await readMirrorStatus(dir))?.pulls.succeeded).toBeGreaterThanOrEqual(0);
  });
});
