// Rewrites the markers of a JPEG before its first scan in the order given, every quantization table in one DQT marker
// and every Huffman table in one DHT marker (what the capture check reads as a file's layout, jpeg-structure.ts), the
// APPn and COM segments kept first and in order, a restart interval (DRI) last before the scan, the coded data untouched. It is what a forger who knows the layout
// check does after any encoder; tests use it to show which layouts the check accepts.
export function relayoutJpeg(buf: Buffer, order: ReadonlyArray<'Q' | 'H' | 'F'>): Buffer {
  if (buf.readUInt16BE(0) !== 0xffd8) throw new Error('not a JPEG');
  const head: Buffer[] = [];
  const dqt: Buffer[] = [];
  const dht: Buffer[] = [];
  let frame: Buffer | null = null;
  let dri: Buffer | null = null;
  let off = 2;
  while (off + 4 <= buf.length) {
    if (buf[off] !== 0xff) throw new Error(`no marker at ${off}`);
    const marker = buf[off + 1];
    if (marker === 0xda) break;
    const end = off + 2 + buf.readUInt16BE(off + 2);
    const body = buf.subarray(off + 4, end);
    if (marker === 0xdb) dqt.push(body);
    else if (marker === 0xc4) dht.push(body);
    else if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc8 && marker !== 0xcc) frame = buf.subarray(off, end);
    else if (marker === 0xdd) dri = buf.subarray(off, end);
    else head.push(buf.subarray(off, end));
    off = end;
  }
  if (!frame || !dqt.length || !dht.length) throw new Error('tables or frame missing');
  const segment = (marker: number, body: Buffer) => {
    const h = Buffer.alloc(4);
    h.writeUInt16BE(0xff00 | marker, 0);
    h.writeUInt16BE(body.length + 2, 2);
    return Buffer.concat([h, body]);
  };
  const parts = { Q: segment(0xdb, Buffer.concat(dqt)), H: segment(0xc4, Buffer.concat(dht)), F: frame };
  return Buffer.concat([buf.subarray(0, 2), ...head, ...order.map((k) => parts[k]), ...(dri ? [dri] : []), buf.subarray(off)]);
}
