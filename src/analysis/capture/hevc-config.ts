// What an HEVC encoder chose, read from a HEIF image's decoder configuration (the hvcC property: ISO/IEC 14496-15
// 8.3.3, holding the VPS, SPS and PPS). The capture check needs one choice of the sequence parameter set (ITU-T H.265
// 7.3.2.2): amp_enabled_flag. x265, the encoder behind libheif and so behind ImageMagick, GIMP, libvips and most
// converters, writes it as 1 whatever its preset; no phone or camera original of the catalogue does. Hand-written: no
// maintained npm library parses HEVC parameter sets, and reading as far as one flag is short.

export interface HevcConfig {
  /** general_profile_idc (1 Main, 2 Main 10, 3 Main Still Picture, 4 range extensions). */
  profile: number;
  /** Asymmetric motion partitions enabled in the SPS. */
  ampEnabled: boolean;
}

/** An RBSP bit reader: emulation prevention bytes (00 00 03) removed first. */
class Bits {
  private readonly b: Uint8Array;
  private p = 0;
  constructor(nal: Buffer) {
    const out: number[] = [];
    let zeros = 0;
    for (const x of nal) {
      if (zeros >= 2 && x === 3) {
        zeros = 0;
        continue;
      }
      out.push(x);
      zeros = x === 0 ? zeros + 1 : 0;
    }
    this.b = Uint8Array.from(out);
  }
  u(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      if (this.p >> 3 >= this.b.length) throw new RangeError('parameter set cut short');
      v = v * 2 + ((this.b[this.p >> 3] >> (7 - (this.p & 7))) & 1);
      this.p++;
    }
    return v;
  }
  ue(): number {
    let zeros = 0;
    while (this.u(1) === 0) if (++zeros > 31) throw new RangeError('Exp-Golomb code too long');
    return 2 ** zeros - 1 + this.u(zeros);
  }
  se(): number {
    const k = this.ue();
    return k & 1 ? (k + 1) / 2 : -k / 2;
  }
}

/** The SPS NAL units of an hvcC payload (after its 8-byte box header). */
function spsUnits(hvcC: Buffer): Buffer[] {
  if (hvcC.length < 23 || hvcC[0] !== 1) return [];
  const out: Buffer[] = [];
  let p = 23;
  for (let a = 0; a < hvcC[22] && p + 3 <= hvcC.length; a++) {
    const type = hvcC[p] & 63;
    const count = hvcC.readUInt16BE(p + 1);
    p += 3;
    for (let i = 0; i < count && p + 2 <= hvcC.length; i++) {
      const len = hvcC.readUInt16BE(p);
      if (type === 33 && p + 2 + len <= hvcC.length) out.push(hvcC.subarray(p + 2, p + 2 + len));
      p += 2 + len;
    }
  }
  return out;
}

/** The SPS's profile and amp_enabled_flag, or null when the configuration holds no SPS it can read that far. */
export function readHevcConfig(hvcC: Buffer): HevcConfig | null {
  const sps = spsUnits(hvcC)[0];
  if (!sps || sps.length < 3) return null;
  try {
    const r = new Bits(sps.subarray(2)); // after the 2-byte NAL unit header
    r.u(4); // sps_video_parameter_set_id
    const maxSubLayers = r.u(3);
    r.u(1);
    // profile_tier_level(1, maxSubLayers)
    r.u(3);
    const profile = r.u(5);
    r.u(32);
    r.u(48); // 4 source flags and 44 constraint bits
    r.u(8); // general_level_idc
    const sub: [number, number][] = [];
    for (let i = 0; i < maxSubLayers; i++) sub.push([r.u(1), r.u(1)]);
    if (maxSubLayers > 0) for (let i = maxSubLayers; i < 8; i++) r.u(2);
    for (const [profilePresent, levelPresent] of sub) {
      if (profilePresent) r.u(88);
      if (levelPresent) r.u(8);
    }
    r.ue(); // sps_seq_parameter_set_id
    if (r.ue() === 3) r.u(1); // chroma_format_idc, separate_colour_plane_flag
    r.ue();
    r.ue(); // picture size
    if (r.u(1)) for (let i = 0; i < 4; i++) r.ue(); // conformance window
    r.ue();
    r.ue(); // bit depths
    r.ue(); // log2_max_pic_order_cnt_lsb_minus4
    const allLayers = r.u(1);
    for (let i = allLayers ? 0 : maxSubLayers; i <= maxSubLayers; i++) {
      r.ue();
      r.ue();
      r.ue();
    }
    for (let i = 0; i < 6; i++) r.ue(); // coding and transform block sizes, transform hierarchy depths
    if (r.u(1) && r.u(1)) {
      // scaling_list_data()
      for (let size = 0; size < 4; size++) {
        for (let matrix = 0; matrix < 6; matrix += size === 3 ? 3 : 1) {
          if (!r.u(1)) r.ue();
          else {
            const coefficients = Math.min(64, 1 << (4 + (size << 1)));
            if (size > 1) r.se();
            for (let i = 0; i < coefficients; i++) r.se();
          }
        }
      }
    }
    return { profile, ampEnabled: r.u(1) === 1 };
  } catch (err) {
    if (err instanceof RangeError) return null;
    throw err;
  }
}
