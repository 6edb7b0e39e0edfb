// The blob store of a team server on a directory shared by its nodes (two store instances as two nodes on one real
// directory): files written by one are read by another, a failed put leaves nothing, and the start-up sweep of one
// node never touches another live node's uploads or any stored file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSharedBlobStore, type SharedBlobStore } from '../../../src/db/pg/shared-blob-store.js';

describe('shared-directory blob store', () => {
  let root: string;
  const stores: SharedBlobStore[] = [];
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-blobs-'));
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  const node = () => {
    const s = createSharedBlobStore(root);
    stores.push(s);
    return s;
  };
  const upload = (s: SharedBlobStore, content: string) => {
    const tmp = s.tempPath();
    fs.writeFileSync(tmp, content);
    return tmp;
  };

  it('stores a file on one node and serves it, with its preview, on another', async () => {
    const api = node();
    const worker = node();
    const id = crypto.randomUUID();
    await api.put([{ tmpPath: upload(api, 'jpeg bytes'), fileId: id }]);
    expect(await worker.exists(id)).toBe(true);
    expect(await worker.withLocalFile(id, async (p) => fs.readFileSync(p, 'utf8'))).toBe('jpeg bytes');
    const chunks: Buffer[] = [];
    for await (const c of (await api.openRead(id)) as AsyncIterable<Buffer>) chunks.push(c);
    expect(Buffer.concat(chunks).toString()).toBe('jpeg bytes');

    expect(await api.readPreview(id)).toBeNull();
    await worker.putPreview(id, Buffer.from('png'));
    expect((await api.readPreview(id))?.toString()).toBe('png');
    await api.removeFiles([id]);
    expect(await worker.exists(id)).toBe(false);
    expect(await worker.readPreview(id)).toBeNull();
    // No preview is kept for a file that is gone.
    await worker.putPreview(id, Buffer.from('png'));
    expect(await api.readPreview(id)).toBeNull();
  });

  it('puts all files of a job or none', async () => {
    const api = node();
    const good = upload(api, 'one');
    const missing = api.tempPath();
    const ids = [crypto.randomUUID(), crypto.randomUUID()];
    await expect(api.put([{ tmpPath: good, fileId: ids[0] }, { tmpPath: missing, fileId: ids[1] }])).rejects.toThrow(/ENOENT/);
    expect(await api.exists(ids[0])).toBe(false);
    expect(fs.readFileSync(good, 'utf8')).toBe('one');
    await api.removeTemp([good, missing]);
    expect(fs.existsSync(good)).toBe(false);
  });

  it("sweeps its own and dead nodes' leftover uploads, never a live node's or a stored file", async () => {
    const live = node();
    const inFlight = upload(live, 'uploading');
    const stored = crypto.randomUUID();
    await live.put([{ tmpPath: upload(live, 'kept'), fileId: stored }]);

    // A node that died long ago: its heartbeat stopped.
    const dead = createSharedBlobStore(root);
    upload(dead, 'left by a crash');
    await dead.close().catch(() => {});
    fs.mkdirSync(dead.tmpDir, { recursive: true });
    fs.writeFileSync(path.join(dead.tmpDir, 'x.part'), 'left');
    fs.writeFileSync(path.join(dead.tmpDir, '.alive'), '');
    const longAgo = new Date(Date.now() - 24 * 3600_000);
    fs.utimesSync(path.join(dead.tmpDir, '.alive'), longAgo, longAgo);

    const restarted = node();
    upload(restarted, 'own leftover');
    const swept = await restarted.sweepLeftovers(async () => new Set());
    expect(swept).toEqual({ tmp: 2, orphans: 0 });
    expect(fs.existsSync(dead.tmpDir)).toBe(false);
    expect(fs.readFileSync(inFlight, 'utf8')).toBe('uploading');
    expect(await restarted.exists(stored)).toBe(true);
  });
});
