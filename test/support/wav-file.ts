/** A mono 16-bit PCM WAV file of `seconds` at 16 kHz (a tone, so it is not all zeros). */
export function wav(seconds: number): Buffer {
  const data = Math.round(seconds * 16_000) * 2;
  const b = Buffer.alloc(44 + data);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(36 + data, 4);
  b.write('WAVEfmt ', 8, 'latin1');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(16_000, 24);
  b.writeUInt32LE(32_000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'latin1');
  b.writeUInt32LE(data, 40);
  for (let i = 44; i < b.length; i += 2) b.writeInt16LE(Math.round(8000 * Math.sin(i / 20)), i);
  return b;
}
