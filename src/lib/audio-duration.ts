/**
 * The playing time of an audio file, read from its container: WAV (data size / byte rate), FLAC
 * (STREAMINFO), Ogg Opus and Vorbis (the last page's granule position), MP4/M4A (mvhd), WebM and
 * Matroska (the Duration element, else the last block's time, as browsers record it) and MP3
 * (the Xing/Info/VBRI frame count, else a walk over the frames). Returns seconds, or null for a
 * format it does not know or a header it cannot trust. Only headers are read; nothing is decoded.
 */
export function audioDurationSeconds(data: Buffer): number | null {
  if (data.length < 12) return null;
  let s: number | null = null;
  try {
    if (tag(data, 0, 'RIFF') && tag(data, 8, 'WAVE')) s = wav(data);
    else if (tag(data, 0, 'fLaC')) s = flac(data);
    else if (tag(data, 0, 'OggS')) s = ogg(data);
    else if (tag(data, 4, 'ftyp')) s = mp4(data);
    else if (data.readUInt32BE(0) === EBML_MAGIC) s = matroska(data);
    else s = mp3(data);
  } catch (e) {
    // A read past the end of a damaged header: the file says nothing that can be trusted.
    if (e instanceof RangeError) return null;
    throw e;
  }
  // A header that claims more time than the bytes could hold is damaged or made up: a bill is
  // never read from it.
  return s !== null && Number.isFinite(s) && s > 0 && s <= data.length / MIN_BYTES_PER_SECOND ? s : null;
}

/** 640 bit/s: below the lowest rate of any codec a speech service takes (Opus goes down to 6 kbit/s). */
const MIN_BYTES_PER_SECOND = 80;

function tag(b: Buffer, at: number, t: string): boolean {
  return b.length >= at + t.length && b.toString('latin1', at, at + t.length) === t;
}

function wav(b: Buffer): number | null {
  let byteRate = 0;
  for (let at = 12; at + 8 <= b.length;) {
    const id = b.toString('latin1', at, at + 4);
    const size = b.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 16 <= b.length) byteRate = b.readUInt32LE(at + 16);
    if (id === 'data') {
      if (byteRate === 0) return null;
      // A recorder that never went back to fill in the size leaves 0 or 0xFFFFFFFF: the rest of the file is the data.
      const rest = b.length - at - 8;
      return (size === 0 || size > rest ? rest : size) / byteRate;
    }
    at += 8 + size + (size & 1);
  }
  return null;
}

function flac(b: Buffer): number | null {
  // The first metadata block is STREAMINFO: 20 bits of sample rate, then 36 bits of total samples.
  if (b.length < 8 + 18 || (b[4] & 0x7f) !== 0) return null;
  const x = 8 + 10;
  const rate = (b[x] << 12) | (b[x + 1] << 4) | (b[x + 2] >> 4);
  const samples = (b[x + 3] & 0x0f) * 2 ** 32 + b.readUInt32BE(x + 4);
  return rate > 0 && samples > 0 ? samples / rate : null;
}

function ogg(b: Buffer): number | null {
  const first = 27 + b[26];
  if (first + 16 > b.length) return null;
  let rate: number;
  let skip = 0;
  if (tag(b, first, 'OpusHead')) {
    rate = 48_000; // Opus granules count 48 kHz samples whatever the input rate
    skip = b.readUInt16LE(first + 10);
  } else if (b[first] === 1 && tag(b, first + 1, 'vorbis')) {
    rate = b.readUInt32LE(first + 12);
  } else return null;
  const last = b.lastIndexOf('OggS');
  if (last < 0 || last + 14 > b.length || rate === 0) return null;
  const granule = Number(b.readBigUInt64LE(last + 6));
  return (granule - skip) / rate;
}

function mp4(b: Buffer): number | null {
  const moov = box(b, 0, b.length, 'moov');
  if (moov === null) return null;
  const mvhd = box(b, moov.start, moov.end, 'mvhd');
  if (mvhd === null) return null;
  const at = mvhd.start;
  const v1 = b[at] === 1;
  if (at + (v1 ? 32 : 20) > b.length) return null;
  const scale = b.readUInt32BE(at + (v1 ? 20 : 12));
  const duration = v1 ? Number(b.readBigUInt64BE(at + 24)) : b.readUInt32BE(at + 16);
  return scale > 0 ? duration / scale : null;
}

/** The content range of the first box of `type` between `from` and `to`. */
function box(b: Buffer, from: number, to: number, type: string): { start: number; end: number } | null {
  for (let at = from; at + 8 <= to;) {
    let size = b.readUInt32BE(at);
    let header = 8;
    if (size === 1) {
      if (at + 16 > to) return null;
      size = Number(b.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) size = to - at;
    if (size < header) return null;
    if (tag(b, at + 4, type)) return { start: at + header, end: Math.min(at + size, to) };
    at += size;
  }
  return null;
}

const EBML_MAGIC = 0x1a45dfa3;
// Elements whose children are walked as if they were siblings: Segment, Info, Cluster, BlockGroup.
// A recorder streaming as it goes (MediaRecorder) leaves Segment and Cluster sizes unknown, so
// the walk never relies on a container's size.
const CONTAINERS = new Set([0x18538067, 0x1549a966, 0x1f43b675, 0xa0]);
const TIMECODE_SCALE = 0x2ad7b1;
const DURATION = 0x4489;
const CLUSTER_TIMECODE = 0xe7;
const SIMPLE_BLOCK = 0xa3;
const BLOCK = 0xa1;

/** An EBML variable-length integer at `at`: its length, and its value (marker bit kept for ids; null for "unknown size"). */
function vint(b: Buffer, at: number, keepMarker: boolean): { len: number; value: number | null } | null {
  if (at >= b.length || b[at] === 0) return null;
  const len = Math.clz32(b[at]) - 23;
  if (at + len > b.length || (keepMarker && len > 4)) return null;
  let value = keepMarker ? b[at] : b[at] & (0xff >> len);
  let ones = value === 0xff >> len;
  for (let i = 1; i < len; i++) {
    value = value * 256 + b[at + i];
    ones &&= b[at + i] === 0xff;
  }
  return { len, value: !keepMarker && ones ? null : value };
}

function matroska(b: Buffer): number | null {
  let scale = 1_000_000; // nanoseconds a tick
  let duration: number | null = null;
  let cluster = 0;
  let last = -1;
  for (let at = 0; at < b.length;) {
    const id = vint(b, at, true);
    const size = id && vint(b, at + id.len, false);
    if (!id || !size) break;
    const body = at + id.len + size.len;
    if (CONTAINERS.has(id.value!)) {
      at = body;
      continue;
    }
    if (size.value === null) break;
    const end = body + size.value;
    if (id.value === SIMPLE_BLOCK || id.value === BLOCK) {
      // Track number (a vint), then the block's time relative to its cluster; readable even in a block cut short.
      const track = vint(b, body, false);
      if (track && body + track.len + 2 <= b.length) last = Math.max(last, cluster + b.readInt16BE(body + track.len));
    }
    if (end > b.length) break;
    const uint = size.value >= 1 && size.value <= 6;
    if (id.value === TIMECODE_SCALE && uint) scale = b.readUIntBE(body, size.value);
    else if (id.value === CLUSTER_TIMECODE && uint) cluster = b.readUIntBE(body, size.value);
    else if (id.value === DURATION) duration = size.value === 4 ? b.readFloatBE(body) : size.value === 8 ? b.readDoubleBE(body) : null;
    at = end;
  }
  // Without a Duration, the last block's start: short of the length by at most one frame.
  const ticks = duration ?? (last >= 0 ? last : null);
  return ticks === null ? null : ticks * scale / 1e9;
}

// MPEG audio bitrates in kbit/s by [MPEG-1?][layer 1..3][index].
const BITRATES = [
  [[], [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256], [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]],
  [[], [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448], [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
    [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]],
];
const RATES = [44_100, 48_000, 32_000];

interface Frame {
  length: number;
  samples: number;
  rate: number;
  mpeg1: boolean;
  mono: boolean;
}

function frameAt(b: Buffer, at: number): Frame | null {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1] & 0xe0) !== 0xe0) return null;
  const version = (b[at + 1] >> 3) & 3; // 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5
  const layer = 4 - ((b[at + 1] >> 1) & 3); // 1..3; 4 is reserved
  const bitrateIndex = b[at + 2] >> 4;
  const rateIndex = (b[at + 2] >> 2) & 3;
  if (version === 1 || layer === 4 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null;
  const mpeg1 = version === 3;
  const rate = RATES[rateIndex] / (mpeg1 ? 1 : version === 2 ? 2 : 4);
  const bitrate = BITRATES[mpeg1 ? 1 : 0][layer][bitrateIndex] * 1000;
  const pad = (b[at + 2] >> 1) & 1;
  const samples = layer === 1 ? 384 : layer === 3 && !mpeg1 ? 576 : 1152;
  const length = layer === 1 ? (Math.floor(12 * bitrate / rate) + pad) * 4 : Math.floor(samples / 8 * bitrate / rate) + pad;
  return { length, samples, rate, mpeg1, mono: (b[at + 3] >> 6) === 3 };
}

function mp3(b: Buffer): number | null {
  let at = 0;
  if (tag(b, 0, 'ID3') && b.length >= 10) {
    const size = ((b[6] & 0x7f) << 21) | ((b[7] & 0x7f) << 14) | ((b[8] & 0x7f) << 7) | (b[9] & 0x7f);
    at = 10 + size + ((b[5] & 0x10) ? 10 : 0);
  }
  // Tolerate padding between the tag and the first frame, but not a file of something else.
  const limit = Math.min(b.length, at + 4096);
  while (at < limit && frameAt(b, at) === null) at++;
  const first = frameAt(b, at);
  if (first === null || frameAt(b, at + first.length) === null && at + first.length < b.length) return null;
  const counted = vbrFrames(b, at, first);
  if (counted !== null) return counted * first.samples / first.rate;
  const start = at;
  let seconds = 0;
  for (let f: Frame | null = first; f !== null; f = frameAt(b, at)) {
    seconds += f.samples / f.rate;
    at += f.length;
  }
  // Frames that stop early were a chance match in some other format, not an MP3 (a trailing tag is small).
  return at - start >= (b.length - start) * 0.9 ? seconds : null;
}

/** The frame count a Xing/Info or VBRI header in the first frame declares. */
function vbrFrames(b: Buffer, at: number, f: Frame): number | null {
  const side = f.mpeg1 ? (f.mono ? 17 : 32) : (f.mono ? 9 : 17);
  const x = at + 4 + side;
  if ((tag(b, x, 'Xing') || tag(b, x, 'Info')) && x + 12 <= b.length && (b.readUInt32BE(x + 4) & 1) === 1) return b.readUInt32BE(x + 8);
  const v = at + 4 + 32;
  if (tag(b, v, 'VBRI') && v + 18 <= b.length) return b.readUInt32BE(v + 14);
  return null;
}
